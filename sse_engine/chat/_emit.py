"""Parts to Chat Completions: ``chat.completion.chunk`` frames and ``data: [DONE]``.

Every chunk carries the same ``id``, ``created`` and ``model``; the first
delta of a choice carries ``role``. Text is ``content``, reasoning is
``reasoning_content`` (the field DeepSeek, Kimi and most gateways use; its
blocks run together, a blank line between them, and their replay data has no
place in Chat Completions), a refusal is ``refusal``; a tool call opens with
its id, type and name and streams its arguments as fragments, keyed by its
index in the choice. Choices
are numbered 0, 1, 2, ... in the order they are first written, whatever the
source numbered them: the openai SDK reads a choice's ``index`` as a position
in the list of choices it has seen (an index past its end starts a new choice
there; ``10**12`` once started raises ``IndexError`` on the next chunk). The
end is one chunk per choice with its ``finish_reason``, the usage chunk
(``choices: []``) when usage is known, and ``data: [DONE]``; a failed or
truncated source ends with an error frame instead, and no ``[DONE]``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

from sse_engine._encoder import encode_json
from sse_engine._outcome import Outcome
from sse_engine.chat._wire import (
    CHUNK_OBJECT,
    DONE_FRAME,
    REASONING_FIELD,
    WIRE_REASONS,
    error_body,
    usage_to_wire,
)
from sse_engine.parts import Finish, FinishReason
from sse_engine.relay import Block, Emitter, failure_of, fill, template

__all__ = ["ChatEmitter"]

#: The delta field of each kind of text.
_FIELDS: Final = {"text": "content", "reasoning": REASONING_FIELD, "refusal": "refusal"}


def chat_finish_reason(reason: FinishReason, outcome: Outcome, tool_calls: int) -> str:
    """What Chat Completions says for a choice that ended for ``reason``."""
    word = WIRE_REASONS.get(reason) or ("stop" if outcome is Outcome.COMPLETED else "length")
    return "stop" if word == "tool_calls" and not tool_calls else word


class ChatEmitter(Emitter):
    """Writes a Chat Completions stream (every choice of the source)."""

    id_prefix = "chatcmpl-"
    many_choices = True
    reasoning_blocks = False
    request_id_header = "x-request-id"
    error_body = staticmethod(error_body)

    def __init__(self, *, model: str | None, id: str | None, created: int) -> None:
        super().__init__(model=model, id=id, created=created)
        #: The choices whose first delta (which carries ``role``) was written.
        self._started: set[int] = set()
        #: How many tool calls each choice has opened.
        self._calls: dict[int, int] = {}
        #: Each choice's index on the wire, in the order they were first written.
        self._indexes: dict[int, int] = {}

    def _index(self, choice: int) -> int:
        """The wire index of the source's ``choice``: the next free one on its first use
        (its first frame is written at once)."""
        index = self._indexes.get(choice)
        if index is None:
            index = self._indexes[choice] = len(self._indexes)
        return index

    def _payload(self, choices: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": CHUNK_OBJECT,
            "created": self.created,
            "model": self.model,
            "choices": choices,
        }

    def _chunk(self, choices: list[dict[str, Any]], out: list[bytes], **extra: Any) -> None:
        chunk = self._payload(choices)
        out.append(encode_json({**chunk, **extra} if extra else chunk))

    def _delta(
        self, choice: int, delta: dict[str, Any], out: list[bytes], reason: Any = None
    ) -> None:
        if choice not in self._started:
            self._started.add(choice)
            delta = {"role": "assistant", **delta}
        self._chunk([{"index": self._index(choice), "delta": delta, "finish_reason": reason}], out)

    def open_block(self, block: Block, out: list[bytes]) -> None:
        if block.kind != "tool":
            field = _FIELDS[block.kind]
            block.template = self._template(block, lambda text: {field: text})
            # Once the choice's role was written, a delta is the template filled.
            block.fills = block.choice in self._started
            return
        block.index = self._calls.get(block.choice, 0)
        self._calls[block.choice] = block.index + 1
        call = {
            "index": block.index,
            "id": block.id,
            "type": "function",
            "function": {"name": block.name, "arguments": ""},
        }
        self._delta(block.choice, {"tool_calls": [call]}, out)
        index = block.index
        block.template = self._template(
            block, lambda text: {"tool_calls": [{"index": index, "function": {"arguments": text}}]}
        )

    def _template(self, block: Block, delta: Callable[[str], dict[str, Any]]) -> bytes:
        """The template of a chunk whose choice's delta is ``delta(text)``."""
        index = self._index(block.choice)

        def write(text: str, number: str) -> bytes:
            choice = {"index": index, "delta": delta(text), "finish_reason": None}
            return encode_json(self._payload([choice]))

        return template(write)

    def block_delta(self, block: Block, text: str, out: list[bytes]) -> None:
        if block.plain:
            return  # a plain-text input goes whole, as a JSON string, at the end
        if block.choice in self._started:
            out.append(fill(block.template, text))
        else:  # the choice's first delta also says its role (a tool call's opening did)
            self._delta(block.choice, {_FIELDS[block.kind]: text}, out)
            block.fills = True

    def close_block(self, block: Block, out: list[bytes]) -> None:
        """Only a plain-text tool input is written here; the next block says this one ended."""
        if block.plain:
            out.append(fill(block.template, json.dumps(block.final, ensure_ascii=False)))

    def finish(self, finish: Finish, out: list[bytes]) -> None:
        failure = failure_of(finish)
        if failure is not None:
            self.flush(False, out)
            out.append(encode_json(error_body(failure)))
            return
        self.flush(True, out)
        reasons = {turn.choice: turn.finish_reason for turn in self.source.turns}
        for choice in self.choices or (0,):
            reason = reasons.get(choice) or finish.reason
            word = chat_finish_reason(reason, finish.outcome, self.tool_calls.get(choice, 0))
            self._delta(choice, {}, out, word)
        if self.usage is not None:
            self._chunk([], out, usage=usage_to_wire(self.usage))
        out.append(DONE_FRAME)
