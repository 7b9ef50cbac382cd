"""What the two OpenAI formats (Chat Completions, Responses) share: their error object
and how their APIs are called over HTTP.

Both read errors through :meth:`~sse_engine.StreamError.from_payload`; this
room writes one, for a relay serving either format.
"""

from __future__ import annotations

from typing import Any, Final

from sse_engine._formats import Endpoint
from sse_engine._outcome import StreamError

__all__ = ["OPENAI_ENDPOINT", "openai_error"]

#: How both OpenAI APIs are called: a bearer key, ``"stream": true`` in the body.
OPENAI_ENDPOINT: Final = Endpoint(key_header="authorization", key_prefix="Bearer ")


def openai_error(error: StreamError) -> dict[str, Any]:
    """``error`` as OpenAI's error object: ``{"error": {message, type, param, code}}``."""
    return {
        "error": {
            "message": error.message,
            "type": error.type
            or ("server_error" if error.retryable else "invalid_request_error"),
            "param": error.param,
            "code": error.code,
        }
    }
