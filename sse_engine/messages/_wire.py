"""The Anthropic Messages vocabulary as data: what its words mean, in one place.

Frame types, stop reasons and the unified reason (and outcome) each means,
block kinds (tool calls, the ones the server runs, reasoning), the usage
object read and written, the error envelope and its error types, what a
stream of this format looks like (``recognize``). The lane, its parts and its
emitter all read these tables; no other room spells a Messages wire string.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from sse_engine._formats import Endpoint
from sse_engine._outcome import StreamError
from sse_engine.parts import FinishReason, Usage, count_tokens

__all__ = [
    "COMPLETED_STOP_REASONS",
    "ENDPOINT",
    "FRAME_TYPES",
    "INCOMPLETE_STOP_REASONS",
    "PATHS",
    "REASONING_BLOCKS",
    "RELAYED_CITATIONS",
    "SERVER_TOOL_BLOCKS",
    "STOP_REASONS",
    "TOOL_BLOCK_TYPES",
    "WIRE_REASONS",
    "citation_fields",
    "error_body",
    "recognize",
    "recognize_error",
    "server_result_of",
    "usage_from_wire",
    "usage_to_wire",
]

#: Where the API serves its streams.
PATHS: Final = ("/v1/messages",)

#: How the API is called: the key in ``x-api-key``, the API version on every request.
ENDPOINT: Final = Endpoint(
    key_header="x-api-key", fixed_headers=(("anthropic-version", "2023-06-01"),)
)

#: The frame types of the Messages stream (what ``recognize`` knows it by).
FRAME_TYPES: Final = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
    }
)

#: ``stop_reason`` -> the unified reason (any other is ``other``).
STOP_REASONS: Final[Mapping[str, FinishReason]] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "refusal",
    "pause_turn": "pause",
}
#: Stop reasons of a turn that finished as the model meant it to.
COMPLETED_STOP_REASONS: Final = frozenset({"end_turn", "tool_use", "stop_sequence", "pause_turn"})
#: Stop reasons of a turn cut short (the stream itself is complete).
INCOMPLETE_STOP_REASONS: Final = frozenset(
    {"max_tokens", "refusal", "model_context_window_exceeded"}
)
#: The unified reason -> the ``stop_reason`` a relayed message ends with.
WIRE_REASONS: Final[Mapping[FinishReason, str]] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
    "refusal": "refusal",
    "pause": "pause_turn",
}
#: The stop reason that says more than ``max_tokens`` and is kept when relayed.
CONTEXT_WINDOW_EXCEEDED: Final = "model_context_window_exceeded"

#: Blocks that are tool calls.
TOOL_BLOCK_TYPES: Final = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})
#: Tool blocks the server runs itself (the rest of TOOL_BLOCK_TYPES the client runs).
SERVER_TOOL_BLOCKS: Final = frozenset({"server_tool_use", "mcp_tool_use"})
#: The blocks of reasoning.
REASONING_BLOCKS: Final = frozenset({"thinking", "redacted_thinking"})


#: The citations a relay to Messages writes: those pointing at what the client's request
#: holds (its documents, its search results). A ``web_search_result_location`` points at
#: a server search whose blocks are not relayed (the upstream ran it), so it is not.
RELAYED_CITATIONS: Final = frozenset(
    {"char_location", "page_location", "content_block_location", "search_result_location"}
)


def server_result_of(kind: str, block: Any) -> str | None:
    """The id of the server call a block answers, if it is a server tool's result.

    ``web_search_tool_result``, ``web_fetch_tool_result``,
    ``code_execution_tool_result``, ``mcp_tool_result``, ... (every result
    block the server writes is ``<tool>_tool_result`` with the ``tool_use_id``
    of its ``server_tool_use`` or ``mcp_tool_use`` block); None otherwise.
    """
    if not kind.endswith("_tool_result"):
        return None
    ident = block.get("tool_use_id")
    return ident if type(ident) is str else None


def citation_fields(citation: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
    """A citation object's ``url``, title and quoted text, each None where its kind has none.

    ``web_search_result_location`` has a ``url`` and ``title``; the document
    locations (``char_location``, ``page_location``,
    ``content_block_location``) a ``document_title``; ``search_result_location``
    a ``title``; each the ``cited_text``.
    """
    url, title, cited = citation.get("url"), citation.get("title"), citation.get("cited_text")
    if title is None:
        title = citation.get("document_title")
    return (
        url if type(url) is str else None,
        title if type(title) is str else None,
        cited if type(cited) is str else None,
    )


def recognize(event: str, payload: Any) -> str | None:
    """A Messages frame (``message_start`` ... ``message_stop``, ``ping``), by name or type."""
    if event in FRAME_TYPES:
        return f"event: {event}"
    kind = payload.get("type") if type(payload) is dict else None
    if type(kind) is str and kind in FRAME_TYPES:
        return f"JSON type {kind}"
    return None


def recognize_error(event: str, payload: Any) -> str | None:
    """Anthropic's ``{"type": "error", "error": {"type": ...}}`` (no OpenAI ``code``)."""
    if type(payload) is not dict or payload.get("type") != "error":
        return None
    inner = payload.get("error")
    if type(inner) is not dict or "type" not in inner or "code" in inner:
        return None
    return "an Anthropic-shaped error event" if event else "an Anthropic-shaped JSON error body"


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


def error_body(error: StreamError) -> dict[str, Any]:
    """``error`` as Anthropic's error body: ``{"type": "error", "error": {type, message}}``.

    The same object is the data of an in-stream ``event: error``.
    """
    kind = error.type if error.type in _ERROR_TYPES else _TYPE_OF_CODE.get(error.code or "")
    if kind is None and error.status is not None:
        kind = _TYPE_OF_STATUS.get(error.status)
    if kind is None:
        kind = "api_error" if error.retryable else "invalid_request_error"
    body: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": error.message}}
    if error.request_id is not None:
        body["request_id"] = error.request_id
    return body


def usage_from_wire(usage: Mapping[str, Any]) -> Usage:
    """The lane's merged usage as :class:`~sse_engine.Usage`: the cache reads and
    writes are counted in ``input_tokens`` (the whole prompt) and each said apart
    (``cached_input_tokens``, ``cache_write_input_tokens``)."""
    fresh = count_tokens(usage, "input_tokens")
    read = count_tokens(usage, "cache_read_input_tokens")
    written = count_tokens(usage, "cache_creation_input_tokens")
    total_input = None if fresh is None else fresh + (read or 0) + (written or 0)
    if total_input == 0:
        total_input = None  # no prompt has zero tokens: the count is still to come
    output = count_tokens(usage, "output_tokens")
    thinking = count_tokens(usage, "output_tokens_details", "thinking_tokens")
    return Usage(
        input_tokens=total_input,
        output_tokens=output,
        total_tokens=None if total_input is None or output is None else total_input + output,
        cached_input_tokens=read,
        reasoning_tokens=thinking,
        cache_write_input_tokens=written,
        raw=usage,
    )


def usage_to_wire(usage: Usage | None) -> dict[str, Any]:
    """``usage`` as a Messages ``usage`` object: ``input_tokens`` without the cache
    reads and writes, which have fields of their own."""
    if usage is None:
        return {"input_tokens": 0, "output_tokens": 0}
    read = usage.cached_input_tokens
    written = usage.cache_write_input_tokens
    out: dict[str, Any] = {
        "input_tokens": max((usage.input_tokens or 0) - (read or 0) - (written or 0), 0),
        "output_tokens": usage.output_tokens or 0,
    }
    if written is not None:
        out["cache_creation_input_tokens"] = written
    if read is not None:
        out["cache_read_input_tokens"] = read
    return out
