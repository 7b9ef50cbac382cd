"""Liveness: deadlines for a stream, from clock values the caller passes in.

Two different silences matter on an LLM stream, and confusing them is the
classic bug:

- **No bytes at all** (``idle_timeout``): the connection is dead. Servers that
  expect long model pauses send keepalive comments (``: keepalive``) every
  15 s of silence, and the edge in front of the documented API closes a
  connection that sends nothing for 125 s, so a stretch with no bytes well
  past that is a connection nobody will ever write to again.
- **No events** (``keepalive_only_timeout``): the model is thinking and the
  stream carries keepalive comments only. That is normal for minutes at a
  time; a client that times out on it closes healthy streams. It is still
  capped: the documented API ends a stream that sends nothing but keepalives
  for 30 minutes, so waiting longer than that is pointless.

Keepalive comments count as bytes, never as events. :class:`Liveness` reads no
clock: every method takes ``now`` (any monotonic float in seconds, such as
``time.monotonic()`` or ``loop.time()``), so it is deterministic and testable.
"""

from __future__ import annotations

import enum

from sse_engine._outcome import StreamError

__all__ = [
    "DEFAULT_IDLE_TIMEOUT",
    "DEFAULT_KEEPALIVE_ONLY_TIMEOUT",
    "Liveness",
    "LivenessVerdict",
]

#: Seconds without a single byte before a connection counts as dead: the
#: documented edge closes a connection that has been silent this long.
DEFAULT_IDLE_TIMEOUT = 125.0
#: Seconds of keepalive-only traffic (no event) before a stream is given up:
#: the documented cap on a stream that sends nothing but keepalives.
DEFAULT_KEEPALIVE_ONLY_TIMEOUT = 30 * 60.0


class LivenessVerdict(enum.Enum):
    """What :meth:`Liveness.check` found; the value is the ``StreamError.code``."""

    #: Every budget still has time left.
    OK = "ok"
    #: No bytes at all (not even a keepalive) for ``idle_timeout`` seconds.
    IDLE_TIMEOUT = "idle_timeout"
    #: Bytes (keepalives) but no event for ``keepalive_only_timeout`` seconds.
    KEEPALIVE_ONLY_TIMEOUT = "keepalive_only_timeout"


class Liveness:
    """Deadlines for "no bytes" (dead connection) and "no events" (keepalives only).

    ``idle_timeout`` is the budget for a stretch without any byte, keepalives
    included; ``keepalive_only_timeout`` the budget for a stretch without any
    event (it counts from :meth:`start` until the first event, so it also
    bounds a slow start that sends only keepalives). ``None`` switches a
    budget off. The clocks start at :meth:`start`, or at the first call of any
    other method when ``start`` was not called.

    Typical use, for a transport that reads with a timeout::

        liveness.start(now())
        while True:
            timeout = liveness.next_deadline(now())   # how long this read may block
            chunk = read(timeout)                     # a timeout here: check(now())
            liveness.on_bytes(now())
            events = lane.feed(chunk)
            if events:
                liveness.on_event(now())
            if liveness.check(now()) is not LivenessVerdict.OK: ...
    """

    __slots__ = (
        "idle_timeout",
        "keepalive_only_timeout",
        "last_bytes_at",
        "last_event_at",
        "started_at",
    )

    def __init__(
        self,
        idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
        keepalive_only_timeout: float | None = DEFAULT_KEEPALIVE_ONLY_TIMEOUT,
    ) -> None:
        for name, value in (
            ("idle_timeout", idle_timeout),
            ("keepalive_only_timeout", keepalive_only_timeout),
        ):
            if value is not None and not value > 0:
                raise ValueError(f"{name} must be a positive number of seconds or None")
        self.idle_timeout = idle_timeout
        self.keepalive_only_timeout = keepalive_only_timeout
        #: When the clocks started (None until the first call).
        self.started_at: float | None = None
        #: When the last byte arrived (the start time until one does).
        self.last_bytes_at: float | None = None
        #: When the last event arrived (the start time until one does).
        self.last_event_at: float | None = None

    def start(self, now: float) -> None:
        """Start (or restart) both clocks: the response headers arrived at ``now``.

        Call it again when a reconnect opens a new connection.
        """
        self.started_at = self.last_bytes_at = self.last_event_at = now

    def on_bytes(self, now: float) -> None:
        """Bytes arrived (any bytes: a keepalive comment counts here, not as an event)."""
        if self.started_at is None:
            self.start(now)
        self.last_bytes_at = now

    def on_event(self, now: float) -> None:
        """An event arrived (it came in bytes, so this also counts as bytes)."""
        if self.started_at is None:
            self.start(now)
        self.last_bytes_at = self.last_event_at = now

    def _deadlines(self, now: float) -> tuple[float | None, float | None]:
        """The absolute times at which each budget expires (None: no budget)."""
        if self.started_at is None:
            self.start(now)
        assert self.last_bytes_at is not None and self.last_event_at is not None
        idle = None if self.idle_timeout is None else self.last_bytes_at + self.idle_timeout
        cap = (
            None
            if self.keepalive_only_timeout is None
            else self.last_event_at + self.keepalive_only_timeout
        )
        return idle, cap

    def check(self, now: float) -> LivenessVerdict:
        """Whether a budget has run out at ``now`` (a budget expires when its time is up).

        When both have, the one that expired first is reported.
        """
        idle, cap = self._deadlines(now)
        expired = [
            (deadline, verdict)
            for deadline, verdict in (
                (idle, LivenessVerdict.IDLE_TIMEOUT),
                (cap, LivenessVerdict.KEEPALIVE_ONLY_TIMEOUT),
            )
            if deadline is not None and now >= deadline
        ]
        if not expired:
            return LivenessVerdict.OK
        return min(expired, key=lambda pair: pair[0])[1]

    def next_deadline(self, now: float) -> float | None:
        """How many seconds the caller may block on its next read (0.0 once expired).

        None means no budget is set: block as long as the transport allows.
        Use it as the read timeout of the next read.
        """
        idle, cap = self._deadlines(now)
        deadlines = [d for d in (idle, cap) if d is not None]
        if not deadlines:
            return None
        return max(0.0, min(deadlines) - now)

    def error(self, verdict: LivenessVerdict, now: float) -> StreamError:
        """The :class:`StreamError` that reports an expired budget (``code`` = verdict value).

        Both expiries are retryable: the connection (or the upstream) stalled,
        the request itself was fine.
        """
        if verdict is LivenessVerdict.IDLE_TIMEOUT:
            since = self.last_bytes_at
            message = "no bytes (not even a keepalive) for {:.3g} s: the connection is dead"
        elif verdict is LivenessVerdict.KEEPALIVE_ONLY_TIMEOUT:
            since = self.last_event_at
            message = "no event for {:.3g} s, only keepalives: the stream is stalled"
        else:
            raise ValueError("LivenessVerdict.OK is not an error")
        waited = now - (since if since is not None else now)
        return StreamError(message=message.format(waited), code=verdict.value, retryable=True)

    def __repr__(self) -> str:
        return (
            f"Liveness(idle_timeout={self.idle_timeout!r}, "
            f"keepalive_only_timeout={self.keepalive_only_timeout!r})"
        )
