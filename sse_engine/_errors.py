"""The exception hierarchy: every error the engine raises derives from SSEEngineError."""

from __future__ import annotations

from typing import Any


class SSEEngineError(Exception):
    """Base class of every exception raised by sse_engine."""


class ProtocolError(SSEEngineError):
    """The bytes cannot be interpreted: invalid JSON, an oversized event, a broken rule.

    ``events`` holds what was decoded from the same ``feed()`` call before the
    failure, so that nothing already received is lost.
    """

    def __init__(self, message: str, *, events: list[Any] | None = None) -> None:
        super().__init__(message)
        self.events: list[Any] = events if events is not None else []


class EventTooLarge(ProtocolError):
    """One event (its lines up to the blank line) grew past ``max_event_size``."""

    def __init__(self, limit: int, offset: int, *, events: list[Any] | None = None) -> None:
        super().__init__(
            f"an SSE event grew past max_event_size={limit} characters "
            f"(detected at byte {offset} of the stream)",
            events=events,
        )
        self.limit = limit
        self.offset = offset


class UsageError(SSEEngineError, RuntimeError):
    """The API was called out of order (for example ``feed()`` after ``close()``)."""
