"""The one log line of each request: what was asked, of whom, and how it ended.

``sse_engine.gateway`` logger, level INFO, for example::

    POST /v1/chat/completions chat->messages upstream=200 outcome=completed events=57 0.812s

``outcome`` is the upstream stream's (``completed``, ``incomplete``,
``failed``, ``truncated``) or what ended the request before it:
``bad_request`` (the client's body), ``upstream_unreachable``,
``client_closed`` (the client hung up; nothing else is logged for it).
``events`` counts the events written to the client.
"""

from __future__ import annotations

import logging
import time

__all__ = ["LOG", "Record"]

LOG = logging.getLogger("sse_engine.gateway")


class Record:
    """What one request's log line says, filled in as the request goes."""

    __slots__ = ("client", "events", "outcome", "path", "started", "status", "upstream")

    def __init__(self, path: str, client: str, upstream: str) -> None:
        self.path = path
        self.client = client
        self.upstream = upstream
        self.status: int | None = None
        self.outcome = ""
        self.events = 0
        self.started = time.monotonic()

    def line(self) -> str:
        """The log line (the duration counted from the record's making)."""
        status = "-" if self.status is None else str(self.status)
        return (
            f"POST {self.path} {self.client}->{self.upstream} upstream={status} "
            f"outcome={self.outcome or 'unknown'} events={self.events} "
            f"{time.monotonic() - self.started:.3f}s"
        )

    def log(self) -> None:
        """Write the line to the ``sse_engine.gateway`` logger."""
        LOG.info("%s", self.line())
