"""Parts to Responses: typed ``response.*`` events, numbered, with ``id:`` lines.

``response.created`` and ``response.in_progress`` open the stream. Text and
a refusal are content parts of a message item; each block of reasoning is a
reasoning item, its pieces summary parts (a Responses source's item keeps its
``id`` and ``encrypted_content``: only a Responses source has them; another
source's reasoning without text is not written); a tool call is a
``function_call`` item (a plain-text tool, a ``custom_tool_call``) whose
arguments stream as deltas. Every item opens with ``output_item.added`` and
closes with its ``.done`` events before the next opens. The end is
``response.completed`` or ``response.incomplete`` carrying the whole response
object (output and usage); a failed or truncated source ends with ``error``
then ``response.failed``. Every event carries its ``sequence_number``, also
written as the SSE ``id:`` line (what a client resumes from).
"""

from __future__ import annotations

from typing import Any, Final

from sse_engine._encoder import json_frame
from sse_engine._outcome import Outcome
from sse_engine._tally import Compacted
from sse_engine.parts import Finish, ReasoningBlock
from sse_engine.relay import Block, Emitter, failure_of, fill, template
from sse_engine.responses._wire import CALL_ITEMS, INCOMPLETE_REASONS, error_body, usage_to_wire

__all__ = ["ResponsesEmitter"]

_FUNCTION, _CUSTOM = CALL_ITEMS["function_call"], CALL_ITEMS["custom_tool_call"]
#: Each kind of block: (item id prefix, delta event, done event, field of the done event).
_BLOCKS: Final = {
    "text": ("msg", "response.output_text.delta", "response.output_text.done", "text"),
    "refusal": ("msg", "response.refusal.delta", "response.refusal.done", "refusal"),
    "reasoning": (
        "rs",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.done",
        "text",
    ),
    **{
        block: (
            kind.id_prefix,
            f"response.{kind.events}.delta",
            f"response.{kind.events}.done",
            kind.field,
        )
        for block, kind in (("tool", _FUNCTION), ("plain", _CUSTOM))
    },
}


def _kind(block: Block) -> str:
    return "plain" if block.plain else block.kind


class ResponsesEmitter(Emitter):
    """Writes a Responses stream (the first choice of the source)."""

    id_prefix = "resp_"
    request_id_header = "x-request-id"
    rewrites_text = True  # the .done events and the final response repeat every text
    error_body = staticmethod(error_body)

    def __init__(self, *, model: str | None, id: str | None, created: int) -> None:
        super().__init__(model=model, id=id, created=created)
        #: The response's output items, in order, as they stand.
        self._output: list[dict[str, Any]] = []
        #: The message item that text and refusal parts go into, while it is open.
        self._message: dict[str, Any] | None = None

    def _event(self, kind: str, out: list[bytes], **fields: Any) -> None:
        number = self.sequence
        self.sequence = number + 1
        # What encode_responses_event writes for a payload dict, less its checks of one.
        payload = {"type": kind, "sequence_number": number, **fields}
        out.append(json_frame(f"event: {kind}\nid: {number}\n", payload))

    def _response(self, status: str, **fields: Any) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "response",
            "created_at": self.created,
            "status": status,
            "error": None,
            "incomplete_details": None,
            "model": self.model,
            "output": self._output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": None,
            **fields,
        }

    def open(self, out: list[bytes]) -> None:
        # Both frames say the same response (nothing is written between them).
        response = self._response("in_progress", output=[])
        self._event("response.created", out, response=response)
        self._event("response.in_progress", out, response=response)

    # -- items ---------------------------------------------------------------------

    def _add_item(self, prefix: str, item: dict[str, Any], out: list[bytes]) -> dict[str, Any]:
        index = len(self._output)
        item = {"id": f"{prefix}_{self.id.removeprefix('resp_')}_{index}", **item}
        self._output.append(item)
        self._event("response.output_item.added", out, output_index=index, item=item)
        return item

    def _close_message(self, out: list[bytes]) -> None:
        item = self._message
        if item is not None:
            self._message = None
            item["status"] = "completed"
            self._event(
                "response.output_item.done", out, output_index=len(self._output) - 1, item=item
            )

    def open_block(self, block: Block, out: list[bytes]) -> None:
        if block.kind == "text" or block.kind == "refusal":
            self._open_part(block, out)
        else:
            self._close_message(out)
            if block.kind == "reasoning":
                opening: dict[str, Any] = {"type": "reasoning", "summary": []}
                if block.id:  # the source's own: what a client sends back
                    opening = {"id": block.id, **opening}
                item = self._add_item("rs", opening, out)
            else:
                call = {"status": "in_progress", "call_id": block.id, "name": block.name}
                kind = _CUSTOM if block.plain else _FUNCTION
                opening = {"type": kind.item, **call, kind.field: ""}
                if block.source_item:  # the source's own: what a client sends back
                    opening = {"id": block.source_item, **opening}
                item = self._add_item(_BLOCKS[_kind(block)][0], opening, out)
            block.item_id = item["id"]
            block.index = len(self._output) - 1
            if block.kind == "reasoning":
                if block.reasoning is None or block.pending:  # it has text: a summary
                    self._summary_part(block, out)
                else:
                    block.content_index = -1  # no summary part
        self._delta_template(block)

    def _summary_part(self, block: Block, out: list[bytes]) -> None:
        """Open summary part ``block.content_index`` of a reasoning item."""
        if type(block.sent) is Compacted:  # a lean relay's: no run is joined across the mark
            block.sent.settle()
        block.mark = len(block.sent)
        part = {"type": "summary_text", "text": ""}
        self._event("response.reasoning_summary_part.added", out, **self._where(block), part=part)

    def _summary_done(self, block: Block, out: list[bytes]) -> None:
        """Close the reasoning item's summary part being written."""
        text = "".join(block.sent[block.mark :])
        where = self._where(block)
        self._event("response.reasoning_summary_text.done", out, **where, text=text)
        part = {"type": "summary_text", "text": text}
        self._event("response.reasoning_summary_part.done", out, **where, part=part)
        self._output[block.index]["summary"].append(part)

    def reasoning_break(self, block: Block, text: str, out: list[bytes]) -> None:
        """A new piece of the same reasoning item: its next summary part."""
        self._summary_done(block, out)
        block.content_index += 1
        self._summary_part(block, out)
        self._delta_template(block)

    def keeps(self, reasoning: ReasoningBlock) -> bool:
        return reasoning.id is not None or reasoning.encrypted_content is not None

    def _open_part(self, block: Block, out: list[bytes]) -> None:
        """A text or refusal part, in the open message item (opened first if need be).

        A part that starts another of the source's message items closes the open one.
        """
        item = self._message
        source = block.source_item
        if item is not None and source and item["id"] != source:
            self._close_message(out)
            item = None
        if item is None:
            opening: dict[str, Any] = {
                "type": "message",
                "status": "in_progress",
                "content": [],
                "role": "assistant",
            }
            if source:  # the source's own: what a client sends back
                opening = {"id": source, **opening}
            item = self._message = self._add_item("msg", opening, out)
        part: dict[str, Any] = (
            {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
            if block.kind == "text"
            else {"type": "refusal", "refusal": ""}
        )
        block.item_id = item["id"]
        block.index = len(self._output) - 1
        block.content_index = len(item["content"])
        item["content"].append(part)
        self._event("response.content_part.added", out, **self._where(block), part=part)

    def _where(self, block: Block) -> dict[str, Any]:
        """The fields that say which item (and part) an event is about."""
        where: dict[str, Any] = {"item_id": block.item_id, "output_index": block.index}
        if block.kind == "text" or block.kind == "refusal":
            where["content_index"] = block.content_index
        elif block.kind == "reasoning":
            where["summary_index"] = block.content_index
        return where

    def _delta_template(self, block: Block) -> None:
        kind = _BLOCKS[_kind(block)][1]
        where = self._where(block)
        logprobs = block.kind == "text"

        def write(text: str, number: str) -> bytes:
            payload = {"type": kind, "sequence_number": number, **where, "delta": text}
            if logprobs:
                payload["logprobs"] = []
            return json_frame(f"event: {kind}\nid: {number}\n", payload)

        block.template = template(write, 2)
        block.numbered = True  # a delta is the template filled, with the next number

    def block_delta(self, block: Block, text: str, out: list[bytes]) -> None:
        number = self.sequence
        self.sequence = number + 1
        out.append(fill(block.template, text, number, number))

    def close_block(self, block: Block, out: list[bytes]) -> None:
        kind = _kind(block)
        if kind == "reasoning":
            self._close_reasoning(block, out)
            return
        text = block.arguments if block.arguments is not None else block.text
        _, _, done, field = _BLOCKS[kind]
        where = self._where(block)
        if kind == "text":
            self._event(done, out, **where, text=text, logprobs=[])
        else:
            self._event(done, out, **where, **{field: text})
        item = self._output[block.index]
        if kind == "text" or kind == "refusal":
            part = item["content"][block.content_index]
            part[field] = text
            self._event("response.content_part.done", out, **where, part=part)
            return
        item[field] = text
        item["status"] = "completed"
        self._event("response.output_item.done", out, output_index=block.index, item=item)

    def _close_reasoning(self, block: Block, out: list[bytes]) -> None:
        if block.content_index >= 0:
            self._summary_done(block, out)
        item = self._output[block.index]
        reasoning = block.reasoning
        if reasoning is not None and reasoning.encrypted_content is not None:
            item["encrypted_content"] = reasoning.encrypted_content
        self._event("response.output_item.done", out, output_index=block.index, item=item)

    # -- the end ---------------------------------------------------------------------

    def finish(self, finish: Finish, out: list[bytes]) -> None:
        failure = failure_of(finish)
        self.flush(failure is None, out)
        usage = usage_to_wire(self.usage) if self.usage is not None else None
        if failure is not None:
            self._mark_unfinished()
            self._event(
                "error", out, code=failure.code, message=failure.message, param=failure.param
            )
            error = {"code": failure.code or "server_error", "message": failure.message}
            response = self._response("failed", error=error, usage=usage)
            self._event("response.failed", out, response=response)
            return
        self._close_message(out)
        reason = INCOMPLETE_REASONS.get(finish.reason)
        if reason is None and finish.reason == "other" and finish.outcome is Outcome.INCOMPLETE:
            reason = "max_output_tokens"
        if reason is not None:
            response = self._response(
                "incomplete", incomplete_details={"reason": reason}, usage=usage
            )
            self._event("response.incomplete", out, response=response)
            return
        self._event("response.completed", out, response=self._response("completed", usage=usage))

    def _mark_unfinished(self) -> None:
        """Items still open when the source failed: what arrived, marked incomplete."""
        for block in self.choices[0].queue if self.choices else ():
            if not block.opened:
                continue
            item = self._output[block.index]
            if block.kind == "text" or block.kind == "refusal":
                item["content"][block.content_index][_BLOCKS[block.kind][3]] = block.text
            elif block.kind == "reasoning":
                if block.content_index >= 0:
                    text = "".join(block.sent[block.mark :])
                    item["summary"].append({"type": "summary_text", "text": text})
            else:
                item[_BLOCKS[_kind(block)][3]] = block.text
            item["status"] = "incomplete"
        if self._message is not None:
            self._message["status"] = "incomplete"
