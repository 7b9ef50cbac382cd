"""What the two OpenAI targets (Chat Completions, Responses) share: the error shape."""

from __future__ import annotations

import json
from typing import Any

from sse_engine._outcome import StreamError
from sse_engine.relay._emitter import ErrorResponse, error_headers, error_status

__all__ = ["openai_error", "openai_error_response"]


def openai_error(error: StreamError) -> dict[str, Any]:
    """``error`` as OpenAI's error object (the ``error`` of an error body or frame)."""
    return {
        "message": error.message,
        "type": error.type or ("server_error" if error.retryable else "invalid_request_error"),
        "param": error.param,
        "code": error.code,
    }


def openai_error_response(error: StreamError) -> ErrorResponse:
    """A failure before the stream as OpenAI answers it: ``{"error": {...}}``."""
    body = json.dumps({"error": openai_error(error)}, ensure_ascii=False).encode()
    return error_status(error), error_headers(error, "x-request-id"), body
