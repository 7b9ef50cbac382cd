"""Parts to Chat Completions: ``chat.completion.chunk`` frames and ``data: [DONE]``.

Every chunk carries the same ``id``, ``created`` and ``model``; the first
delta of a choice carries ``role``. Text is ``content``, reasoning is
``reasoning_content`` (the field DeepSeek, Kimi and most gateways use; its
blocks run together, a blank line between them, and their replay data has no
place in Chat Completions), a refusal is ``refusal``; a tool call opens with
its id, type and name and streams its arguments as fragments, keyed by its
index in the choice. The
end is one chunk per choice with its ``finish_reason``, the usage chunk
(``choices: []``) when usage is known, and ``data: [DONE]``; a failed or
truncated source ends with an error frame instead, and no ``[DONE]``.
"""

from __future__ import annotations

import json
from typing import Any, Final

from sse_engine._encoder import encode_json
from sse_engine._outcome import Outcome, StreamError
from sse_engine.chat import encode_chat_done
from sse_engine.parts import Finish, FinishReason, Usage
from sse_engine.relay._blocks import Block
from sse_engine.relay._emitter import Emitter, ErrorResponse, failure_of
from sse_engine.relay._openai import openai_error, openai_error_response
from sse_engine.relay._template import TEXT, fill, template

__all__ = ["ChatEmitter", "chat_usage"]

#: The delta field of each kind of text.
_FIELDS: Final = {"text": "content", "reasoning": "reasoning_content", "refusal": "refusal"}


def chat_usage(usage: Usage) -> dict[str, Any]:
    """``usage`` as a Chat Completions ``CompletionUsage`` object."""
    prompt = usage.input_tokens or 0
    completion = usage.output_tokens or 0
    total = usage.total_tokens if usage.total_tokens is not None else prompt + completion
    out: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": total,
    }
    if usage.cached_input_tokens is not None:
        out["prompt_tokens_details"] = {"cached_tokens": usage.cached_input_tokens}
    if usage.reasoning_tokens is not None:
        out["completion_tokens_details"] = {"reasoning_tokens": usage.reasoning_tokens}
    return out


#: The finish reason Chat Completions gives for each unified one.
_REASONS: Final[dict[str, str]] = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "length": "length",
    "content_filter": "content_filter",
    "refusal": "content_filter",
    "pause": "stop",
}


def chat_finish_reason(reason: FinishReason, outcome: Outcome, tool_calls: int) -> str:
    """What Chat Completions says for a choice that ended for ``reason``."""
    word = _REASONS.get(reason) or ("stop" if outcome is Outcome.COMPLETED else "length")
    return "stop" if word == "tool_calls" and not tool_calls else word


class ChatEmitter(Emitter):
    """Writes a Chat Completions stream (every choice of the source)."""

    id_prefix = "chatcmpl-"
    many_choices = True
    reasoning_blocks = False

    def __init__(self, *, model: str | None, id: str | None, created: int) -> None:
        super().__init__(model=model, id=id, created=created)
        #: The choices whose first delta (which carries ``role``) was written.
        self._started: set[int] = set()
        #: How many tool calls each choice has opened.
        self._calls: dict[int, int] = {}

    def _payload(self, choices: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "chat.completion.chunk",
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
        self._chunk([{"index": choice, "delta": delta, "finish_reason": reason}], out)

    def open_block(self, block: Block, out: list[bytes]) -> None:
        if block.kind != "tool":
            block.template = self._template(block, {_FIELDS[block.kind]: TEXT})
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
        arguments = {"index": block.index, "function": {"arguments": TEXT}}
        block.template = self._template(block, {"tool_calls": [arguments]})

    def _template(self, block: Block, delta: dict[str, Any]) -> str:
        choice = {"index": block.choice, "delta": delta, "finish_reason": None}
        return template(encode_json(self._payload([choice])))

    def block_delta(self, block: Block, text: str, out: list[bytes]) -> None:
        if block.plain:
            return  # a plain-text input goes whole, as a JSON string, at the end
        if block.choice in self._started:
            out.append(fill(block.template, text))
        else:  # the choice's first delta also says its role (a tool call's opening did)
            self._delta(block.choice, {_FIELDS[block.kind]: text}, out)

    def close_block(self, block: Block, out: list[bytes]) -> None:
        """Only a plain-text tool input is written here; the next block says this one ended."""
        if block.plain:
            out.append(fill(block.template, json.dumps(block.final, ensure_ascii=False)))

    def finish(self, finish: Finish, out: list[bytes]) -> None:
        failure = failure_of(finish)
        if failure is not None:
            self.flush(False, out)
            out.append(encode_json({"error": openai_error(failure)}))
            return
        self.flush(True, out)
        reasons = {turn.choice: turn.finish_reason for turn in self.source.turns}
        for choice in self.choices or (0,):
            reason = reasons.get(choice) or finish.reason
            word = chat_finish_reason(reason, finish.outcome, self.tool_calls.get(choice, 0))
            self._delta(choice, {}, out, word)
        if self.usage is not None:
            self._chunk([], out, usage=chat_usage(self.usage))
        out.append(encode_chat_done())

    @classmethod
    def error_response(cls, error: StreamError) -> ErrorResponse:
        return openai_error_response(error)
