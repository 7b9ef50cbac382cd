"""InvalidRequest: a request body that cannot be read, with the path of what was wrong."""

from __future__ import annotations

from typing import Any

from sse_engine._errors import SSEEngineError
from sse_engine._formats import FORMATS
from sse_engine._outcome import StreamError

__all__ = ["InvalidRequest", "request_codec"]


class InvalidRequest(SSEEngineError, ValueError):
    """A request body is malformed: ``path`` says where (``messages[3].content[0].type``).

    The only exception :meth:`Conversation.from_body
    <sse_engine.conversation.Conversation.from_body>` raises for a body, whatever
    is in it. ``problem`` says what is wrong there; ``str(error)`` is both.
    A gateway answers it with :meth:`error_body` and status 400.
    """

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path or 'the body'}: {problem}")
        self.path = path
        self.problem = problem

    @property
    def error(self) -> StreamError:
        """The failure as a :class:`~sse_engine.StreamError` (status 400, not retryable)."""
        # No type of its own: each format's envelope names a bad request its own way.
        return StreamError(
            message=str(self),
            param=self.path or None,
            status=400,
            retryable=False,
        )

    def error_body(self, format: str) -> dict[str, Any]:
        """The 400 body the API of ``format`` answers a bad request with, in its own envelope."""
        body: dict[str, Any] = request_codec(format).error_body(self.error)
        return body


def request_codec(format: str) -> Any:
    """The request codec of the wire format named ``format`` (``FORMATS[format].request``).

    Raises ``ValueError`` naming the formats that have one, for an unknown
    format or one without a codec: a mistake in the program, not in a body.
    """
    row = FORMATS.get(format)
    if row is None or row.request is None:
        known = ", ".join(name for name, r in FORMATS.items() if r.request is not None)
        raise ValueError(f"no request codec for format {format!r} (known: {known})")
    return row.request
