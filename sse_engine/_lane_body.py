"""A body sent instead of a stream: the JSON error envelope a lane collects and reads at the end.

A non-2xx status, or a 2xx whose content type is not ``text/event-stream``,
means the body is no stream: the lane holds an :class:`ErrorBody` that keeps
the bytes (bounded, like one event) and, when the body has ended, says what
the failure was.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from sse_engine._headers import content_type, is_event_stream
from sse_engine._outcome import StreamError

__all__ = ["ErrorBody", "only_element"]


def only_element(payload: Any) -> Mapping[str, Any] | None:
    """The object a one-element JSON array holds (``[{"error": ...}]``), else None."""
    if type(payload) is list and len(payload) == 1 and isinstance(payload[0], Mapping):
        return payload[0]
    return None


class ErrorBody:
    """The bytes of a body that is not a stream, up to ``limit`` (None: all of them)."""

    __slots__ = ("_bytes", "_limit", "content_type", "status")

    def __init__(self, status: int, content_type: str | None, limit: int | None) -> None:
        self.status = status
        self.content_type = content_type
        self._limit = limit
        self._bytes = bytearray()

    @classmethod
    def instead_of_stream(
        cls, status: int, headers: Mapping[str, str], limit: int | None
    ) -> ErrorBody | None:
        """The body to collect for a response that is no event stream, else None."""
        media_type = content_type(headers)
        return None if is_event_stream(status, media_type) else cls(status, media_type, limit)

    def add(self, data: bytes | bytearray | memoryview) -> None:
        """More of the body; what goes past the limit is dropped."""
        room = (self._limit or 1 << 62) - len(self._bytes)
        if room > 0:
            self._bytes += bytes(data[:room])

    def error(self, loads: Callable[[str], Any]) -> StreamError:
        """The failure the body reports: its error envelope, or the body itself as the message.

        The envelope may come alone or as the one element of a JSON array (Google
        answers a streaming request that way); ``raw`` keeps the body as sent. A
        2xx that is not an event stream and carries no error envelope is
        ``not_an_event_stream`` (not retryable: asking again gets the same).
        """
        text = self._bytes.decode("utf-8", "replace")
        try:
            payload = loads(text)
        except (ValueError, TypeError, RecursionError):
            payload = None
        status = self.status
        envelope = payload if isinstance(payload, Mapping) else only_element(payload)
        # "error": null (a response object, say) is no error envelope.
        if envelope is not None and (envelope.get("error") or envelope.get("type") == "error"):
            error = StreamError.from_payload(envelope, status=status)
            return error if envelope is payload else attrs.evolve(error, raw=payload)
        if 200 <= status < 300:
            return StreamError(
                message=f"expected text/event-stream, got {self.content_type}: {text[:200]}",
                code="not_an_event_stream",
                status=status,
                retryable=False,
                raw=payload if payload is not None else text,
            )
        return StreamError.from_text(text, status=status)
