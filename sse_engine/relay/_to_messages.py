"""Parts to Anthropic Messages: ``message_start`` ... ``message_stop``.

``message_start`` opens the stream with the message's id, model and the
usage known so far (zeros when the source reports usage only at the end, as
MindsHub does for non-Claude models). Text is a ``text`` block, each block of
reasoning a ``thinking`` block (its ``signature_delta`` written before its
``content_block_stop`` when the source had one: only a Messages source does;
another source's thinking keeps the empty signature the block opens with, and
a source's reasoning without text is not written), a redacted thinking block
as it came, a refusal's explanation a ``text`` block (Messages has no
refusal field: its stop reason says it), a tool call a ``tool_use`` block
whose input streams as ``input_json_delta`` fragments. The end is
``message_delta`` (stop reason, cumulative usage) and ``message_stop``; a
failed or truncated source ends with ``event: error``, which every Anthropic
client raises.
"""

from __future__ import annotations

import json
from typing import Any, Final

from sse_engine._outcome import Outcome, StreamError
from sse_engine.messages import encode_messages_event
from sse_engine.parts import Finish, ReasoningBlock, Usage
from sse_engine.relay._blocks import Block
from sse_engine.relay._emitter import (
    Emitter,
    ErrorResponse,
    error_headers,
    error_status,
    failure_of,
)
from sse_engine.relay._template import TEXT, fill, template

__all__ = ["MessagesEmitter", "anthropic_error", "messages_usage"]

#: Each kind of block: its empty ``content_block`` and its delta's (type, field).
_BLOCKS: Final[dict[str, tuple[dict[str, Any], str, str]]] = {
    "text": ({"type": "text", "text": ""}, "text_delta", "text"),
    "refusal": ({"type": "text", "text": ""}, "text_delta", "text"),
    "reasoning": (
        {"type": "thinking", "thinking": "", "signature": ""},
        "thinking_delta",
        "thinking",
    ),
    "tool": ({"type": "tool_use", "input": {}}, "input_json_delta", "partial_json"),
}

#: Anthropic's error types; another lane's error is given the nearest one.
_ERROR_TYPES: Final = frozenset(
    {
        "invalid_request_error",
        "authentication_error",
        "billing_error",
        "permission_error",
        "not_found_error",
        "rate_limit_error",
        "timeout_error",
        "api_error",
        "overloaded_error",
    }
)
_TYPE_OF_CODE: Final = {
    "rate_limit_exceeded": "rate_limit_error",
    "insufficient_quota": "billing_error",
    "invalid_api_key": "authentication_error",
    "model_not_found": "not_found_error",
    "timeout": "timeout_error",
}
_TYPE_OF_STATUS: Final = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    408: "timeout_error",
    413: "invalid_request_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def messages_usage(usage: Usage | None) -> dict[str, Any]:
    """``usage`` as a Messages ``usage`` object (input without the cache reads)."""
    if usage is None:
        return {"input_tokens": 0, "output_tokens": 0}
    cached = usage.cached_input_tokens
    out: dict[str, Any] = {
        "input_tokens": max((usage.input_tokens or 0) - (cached or 0), 0),
        "output_tokens": usage.output_tokens or 0,
    }
    if cached is not None:
        out["cache_read_input_tokens"] = cached
    return out


def anthropic_error(error: StreamError) -> dict[str, Any]:
    """``error`` as Anthropic's error body: ``{"type": "error", "error": {type, message}}``."""
    kind = error.type if error.type in _ERROR_TYPES else _TYPE_OF_CODE.get(error.code or "")
    if kind is None and error.status is not None:
        kind = _TYPE_OF_STATUS.get(error.status)
    if kind is None:
        kind = "api_error" if error.retryable else "invalid_request_error"
    body: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": error.message}}
    if error.request_id is not None:
        body["request_id"] = error.request_id
    return body


#: The stop reason Messages gives for each unified one.
_STOP_REASONS: Final = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
    "refusal": "refusal",
    "pause": "pause_turn",
}


def stop_reason(finish: Finish, tool_calls: int) -> str:
    """What Messages says for a turn that ended with ``finish``."""
    if finish.reason == "length" and finish.raw_reason == "model_context_window_exceeded":
        return finish.raw_reason
    word = _STOP_REASONS.get(finish.reason) or (
        "end_turn" if finish.outcome is Outcome.COMPLETED else "max_tokens"
    )
    return "end_turn" if word == "tool_use" and not tool_calls else word


class MessagesEmitter(Emitter):
    """Writes a Messages stream (the first choice of the source)."""

    id_prefix = "msg_"
    opens_on_failure = False  # an error before any content is just `event: error`

    def __init__(self, *, model: str | None, id: str | None, created: int) -> None:
        super().__init__(model=model, id=id, created=created)
        self._count = 0

    def _event(self, payload: dict[str, Any], out: list[bytes]) -> None:
        out.append(encode_messages_event(payload))

    def open(self, out: list[bytes]) -> None:
        message: dict[str, Any] = {
            "id": self.id,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": messages_usage(self.usage),
        }
        self._event({"type": "message_start", "message": message}, out)

    def open_block(self, block: Block, out: list[bytes]) -> None:
        block.index = self._count
        self._count += 1
        content = _BLOCKS[block.kind][0]
        if block.kind == "tool":
            content = {"type": "tool_use", "id": block.id, "name": block.name, "input": {}}
        elif block.reasoning is not None and block.reasoning.redacted is not None:
            content = {"type": "redacted_thinking", "data": block.reasoning.redacted}
        self._event(
            {"type": "content_block_start", "index": block.index, "content_block": content}, out
        )
        _, kind, field = _BLOCKS[block.kind]
        delta = {
            "type": "content_block_delta",
            "index": block.index,
            "delta": {"type": kind, field: TEXT},
        }
        block.template = template(encode_messages_event(delta))

    def block_delta(self, block: Block, text: str, out: list[bytes]) -> None:
        if not block.plain:  # a plain-text input is not JSON: it goes whole at the end
            out.append(fill(block.template, text))

    def close_block(self, block: Block, out: list[bytes]) -> None:
        if block.plain:  # as a JSON string
            out.append(fill(block.template, json.dumps(block.final, ensure_ascii=False)))
        reasoning = block.reasoning
        if reasoning is not None and reasoning.signature is not None:
            delta = {"type": "signature_delta", "signature": reasoning.signature}
            self._event(
                {"type": "content_block_delta", "index": block.index, "delta": delta}, out
            )
        self._event({"type": "content_block_stop", "index": block.index}, out)

    def keeps(self, reasoning: ReasoningBlock) -> bool:
        return reasoning.signature is not None or reasoning.redacted is not None

    def finish(self, finish: Finish, out: list[bytes]) -> None:
        failure = failure_of(finish)
        self.flush(failure is None, out)
        if failure is not None:
            out.append(encode_messages_event(anthropic_error(failure)))
            return
        delta = {
            "stop_reason": stop_reason(finish, self.tool_calls.get(0, 0)),
            "stop_sequence": None,
        }
        self._event(
            {"type": "message_delta", "delta": delta, "usage": messages_usage(self.usage)}, out
        )
        self._event({"type": "message_stop"}, out)

    @classmethod
    def error_response(cls, error: StreamError) -> ErrorResponse:
        body = json.dumps(anthropic_error(error), ensure_ascii=False).encode()
        return error_status(error), error_headers(error, "request-id"), body
