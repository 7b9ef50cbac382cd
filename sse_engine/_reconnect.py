"""The decisions behind iter_events / aiter_events: no I/O, no waiting.

:class:`Driver` holds what the sync and async loops share: feeding chunks
under the liveness budgets, deciding what a dropped connection leads to (a
reconnect after a wait, or the end), reading a reconnect's answer (a refused
resume is a :class:`StreamError`, not a connection), and closing the lane with
the error that says why the stream ended. :class:`Reconnecting` is the event
the loops yield before each reconnect; :class:`LaneLike` is what they drive
(a lane, or a ``PartStream`` over one), typed by what its ``feed()`` returns.
"""

from __future__ import annotations

import json
import time
import typing
from collections.abc import Callable, Sequence
from typing import Any, Generic, Protocol, TypeVar

import attrs

from sse_engine._headers import content_type, is_event_stream
from sse_engine._lane import Headers, Lane, LaneEvent
from sse_engine._liveness import DEFAULT_KEEPALIVE_ONLY_TIMEOUT, Liveness, LivenessVerdict
from sse_engine._outcome import Outcome, StreamError
from sse_engine._retry import RetryPolicy

__all__ = ["DEFAULT_MAX_RECONNECTS", "LaneLike", "Reconnecting"]

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)

#: How many reconnects in a row without progress the default :class:`RetryPolicy`
#: allows: its ``max_attempts`` (6) counts the connection that failed first too.
DEFAULT_MAX_RECONNECTS = 5

#: How much of a refused reconnect's body is read for its error (a JSON envelope).
MAX_ERROR_BODY = 1 << 20

Clock = Callable[[], float]


@typing.final
@attrs.frozen
class Reconnecting(LaneEvent):
    """The connection dropped and the glue is about to reconnect: a UI can say "reconnecting…".

    Yielded by :func:`iter_events` / :func:`aiter_events` (with ``reconnect``)
    before each attempt, then the glue waits ``delay`` seconds and calls
    ``reconnect(plan)``. ``attempt`` counts the attempts in a row that
    brought no new event, the connection that failed first included (1
    before the first reconnect, and again after a connection that moved the
    stream on), as :meth:`RetryPolicy.delay` counts them; ``plan`` is the
    lane's resume plan (a :class:`~sse_engine.responses.ResumePlan` for
    Responses).
    """

    attempt: int
    delay: float
    plan: Any


class LaneLike(Protocol[T_co]):
    """What :func:`iter_events` and :func:`aiter_events` drive: a lane, or a ``PartStream``.

    ``T_co`` is what ``feed()`` returns a list of: a lane's events
    (``LaneLike[ChatEvent]`` for a :class:`~sse_engine.ChatCompletionsLane`),
    or parts (``LaneLike[Part]`` for a :class:`~sse_engine.parts.PartStream`);
    the glue yields those, and :class:`Reconnecting`. Structural: any object
    with these members is one. ``close(error=...)`` is how the glue ends a
    stream it knows more about than "the bytes ended" (the transport's
    exception, an expired deadline, a refused resume).
    """

    @property
    def outcome(self) -> Outcome | None:
        """The verdict; None while the stream is open."""

    @property
    def error(self) -> StreamError | None:
        """Why the stream failed or was cut."""

    @property
    def retry(self) -> int | None:
        """The stream's last ``retry:`` (ms)."""

    def feed(self, data: bytes) -> Sequence[T_co]:
        """Read the next bytes; what they complete."""

    def close(self, *, error: StreamError | None = None) -> Sequence[T_co]:
        """The transport ended (``error``: why, for a ``TRUNCATED`` end); the last items."""

    def resume_plan(self) -> Any:
        """How to reconnect the dropped stream, or None when it cannot be resumed."""

    def resume(self) -> Sequence[T_co]:
        """Ready the stream for the reconnection's bytes; the items that says."""


@attrs.define
class Drop:
    """Why the current connection is over (before the outcome was known).

    ``error`` is what the retry policy judges: the truncation, the expired
    budget, or the error of a refused reconnect (``refused``: it is then the
    error the stream ends with).
    """

    error: StreamError
    exc: BaseException | None = None
    verdict: LivenessVerdict | None = None
    refused: bool = False


#: The error of a connection whose bytes simply ended before the outcome was known.
_ENDED = StreamError(
    message="the connection dropped before the outcome was known (the bytes ended)",
    code="stream_truncated",
    retryable=True,
)


def split_answer(opened: Any) -> tuple[Any, int | None, Headers | None]:
    """A reconnect's return value as (chunks, status, headers).

    ``reconnect`` returns either the new connection's chunks or the HTTP
    answer as ``(status, headers, chunks)``; only the second lets the glue
    see that a resume was refused.
    """
    if (
        type(opened) is tuple
        and len(opened) == 3
        and isinstance(opened[0], int)
        and not isinstance(opened[0], bool)
    ):
        status, headers, chunks = opened
        return chunks, status, headers
    return opened, None, None


def accepted(status: int | None, headers: Headers | None) -> bool:
    """Whether an answer is a stream to resume (what ``Lane.start`` reads as one)."""
    if status is None:
        return True
    return is_event_stream(status, content_type(headers))


class Refusal:
    """A refused reconnect's answer, read the way every lane reads a pre-stream error body.

    ``take`` each chunk of the body until it returns True (enough read:
    :data:`MAX_ERROR_BODY`), then ``drop()`` is the failure the policy judges
    and, unless retried, the error the stream ends with.
    """

    def __init__(self, status: int, headers: Headers | None, json_loads: Any) -> None:
        self._lane: Lane[Any] = Lane(json_loads=json_loads, max_event_size=MAX_ERROR_BODY)
        self._lane.start(status, headers)
        self._size = 0

    def take(self, chunk: bytes) -> bool:
        """Read one chunk of the body; True once no more is needed."""
        self._lane.feed(chunk)
        self._size += len(chunk)
        return self._size >= MAX_ERROR_BODY

    def drop(self) -> Drop:
        self._lane.close()
        assert self._lane.error is not None
        return Drop(self._lane.error, refused=True)


class Driver(Generic[T]):
    """The decisions iter_events and aiter_events share; no I/O, no waiting.

    One instance per stream. ``feed`` handles a chunk, ``expired`` checks the
    budgets at a chunk's arrival (``quiet`` the default keepalive-only cap
    when no :class:`Liveness` was given), ``dropped`` and ``next_attempt``
    decide what a dropped connection leads to (a reconnect after a wait, or
    the end), ``refusal`` reads a refused reconnect's answer, ``resumed``
    prepares the lane for a new connection and ``finish`` closes the lane with
    the error that says why it ended.

    ``attempts`` counts the consecutive attempts without progress: a
    connection that brought events the stream had not had yet (further than
    any connection before it got, for a replay from the start) sets it back
    to 1, so a long stream cut many times is resumed as long as each
    connection moves it on, while one that keeps failing at the same place
    stops after the policy's ``max_attempts``.
    """

    def __init__(
        self,
        lane: LaneLike[T],
        can_reconnect: bool,
        policy: RetryPolicy | None,
        liveness: Liveness | None,
        clock: Clock | None,
    ) -> None:
        if liveness is None and clock is not None:
            liveness = Liveness()
        elif liveness is not None and clock is None:
            clock = time.monotonic
        self.lane = lane
        self.can_reconnect = can_reconnect
        self.policy = policy if policy is not None else RetryPolicy()
        #: Attempts since the last progress, the current one included (RetryPolicy's ``attempt``).
        self.attempts = 1
        self.liveness = liveness
        self.clock: Clock = clock if clock is not None else time.monotonic
        self.retry_ms: int | None = None
        if liveness is not None and liveness.started_at is None:
            liveness.start(self.clock())
        #: Without a Liveness, the documented cap on a keepalive-only stretch still applies.
        self.cap = DEFAULT_KEEPALIVE_ONLY_TIMEOUT if liveness is None else None
        self._quiet_since: float | None = None  # the first event-less chunk of this stretch
        self._quiet_mark = -1  # the connection's event count when that stretch began
        # Progress: events of the current run (reset by a replay from the start),
        # and the most any run reached.
        self._run_events = 0
        self._best = 0
        self._plan: Any = None

    # -- per chunk ---------------------------------------------------------------

    def expired(self) -> LivenessVerdict | None:
        """At a chunk's arrival: has a budget run out while waiting for it?"""
        liveness = self.liveness
        if liveness is None:
            return None
        verdict = liveness.check(self.clock())
        return None if verdict is LivenessVerdict.OK else verdict

    def feed(self, chunk: bytes) -> Sequence[T]:
        """Feed one chunk, telling the liveness about bytes and events."""
        events = self.lane.feed(chunk)
        liveness = self.liveness
        if liveness is not None and chunk:
            now = self.clock()
            if events:
                liveness.on_event(now)
            else:
                liveness.on_bytes(now)
        return events

    def quiet(self, produced: int) -> LivenessVerdict | None:
        """A chunk brought no event: has the default keepalive-only cap run out?

        Only without a :class:`Liveness` (``cap`` set), and only for chunks
        without events, so a stream that has events pays nothing. ``produced``
        is the connection's event count so far: when it moved since the last
        quiet chunk, an event came in between and the stretch starts again
        here. The cap is thus measured from the first event-less chunk after
        the last event (a keepalive comes within 15 s of it).
        """
        cap = self.cap
        if cap is None:
            return None
        now = self.clock()
        since = self._quiet_since
        if since is None or produced != self._quiet_mark:
            self._quiet_since, self._quiet_mark = now, produced
            return None
        return LivenessVerdict.KEEPALIVE_ONLY_TIMEOUT if now - since >= cap else None

    def read_timeout(self) -> tuple[float | None, float]:
        """How long the next read may block, and the clock time when that runs out."""
        liveness = self.liveness
        if liveness is None:
            return None, 0.0
        now = self.clock()
        timeout = liveness.next_deadline(now)
        return timeout, now + (timeout or 0.0)

    def timed_out(self, deadline: float) -> LivenessVerdict:
        """A bounded read ran out of time: which budget expired.

        Timers may fire a hair before the clock agrees, so the verdict is taken
        at the deadline if that is later than now.
        """
        assert self.liveness is not None
        verdict = self.liveness.check(max(self.clock(), deadline))
        return LivenessVerdict.IDLE_TIMEOUT if verdict is LivenessVerdict.OK else verdict

    # -- when a connection ends ----------------------------------------------------

    def dropped(
        self, exc: BaseException | None, verdict: LivenessVerdict | None, produced: int
    ) -> Drop | None:
        """The connection ended (``exc`` None: the bytes simply ended).

        ``produced`` is how many items the connection's bytes gave. Returns
        None when the outcome is already known (nothing was lost: a late
        exception is not re-raised), else the drop to handle.
        """
        self._run_events += produced
        if self._run_events > self._best:  # progress: count the failures from here
            self._best = self._run_events
            self.attempts = 1
        if self.lane.outcome is not None:
            return None
        if verdict is None and exc is not None and self.liveness is not None:
            # A transport read timeout set from the liveness budgets fires here:
            # report which budget it was.
            checked = self.liveness.check(self.clock())
            verdict = None if checked is LivenessVerdict.OK else checked
        retry = self.lane.retry
        if retry is not None:
            self.retry_ms = retry
        if verdict is not None:
            return Drop(self._expiry(verdict), exc, verdict)
        return self.failed(exc) if exc is not None else Drop(_ENDED)

    def next_attempt(self, drop: Drop) -> tuple[Any, float] | None:
        """``(plan, delay)`` when this drop is to be reconnected after ``delay`` s, else None.

        The policy decides from the drop's error and the attempts so far; the
        wait is the server's ``retry_after`` for a refused reconnect, else the
        stream's ``retry:`` (capped at the policy's ``max_delay``), else the
        policy's backoff.
        """
        if not self.can_reconnect or drop.verdict is LivenessVerdict.KEEPALIVE_ONLY_TIMEOUT:
            return None
        plan = self.lane.resume_plan()
        if plan is None:
            return None
        policy = self.policy
        delay = policy.delay(drop.error, self.attempts)
        if delay is None:
            return None
        if drop.error.retry_after is None and self.retry_ms is not None:
            delay = policy.retry_field_delay(self.retry_ms, self.attempts)
        return plan, delay

    def attempting(self, plan: Any, delay: float) -> Reconnecting:
        """The event announcing the next attempt; the attempt is counted from here."""
        event = Reconnecting(self.attempts, delay, plan)
        self.attempts += 1
        self._plan = plan
        return event

    def failed(self, exc: BaseException) -> Drop:
        """The transport, or ``reconnect``, raised ``exc``: judge it.

        An exception that carries an HTTP answer (``raise_for_status()`` in
        ``reconnect``) is that answer, a refusal judged by its status like
        one returned as ``(status, headers, chunks)``: a 404 ends the stream
        at once, and it is not re-raised. Any other exception is a transport
        failure (retryable), re-raised when the stream ends on it.
        """
        error = StreamError.from_exception(exc)
        if error.status is not None:
            return Drop(error, refused=True)
        return Drop(error, exc)

    def refusal(self, status: int, headers: Headers | None) -> Refusal:
        """What reads a refused answer's body (see :class:`Refusal`)."""
        return Refusal(status, headers, getattr(self.lane, "json_loads", json.loads))

    def resumed(self) -> Sequence[T]:
        """A new connection is open: prepare the lane (and the clocks) for its bytes.

        After a replay from the start, progress is counted again from 0: the
        replay moves the stream on only once it gets further than before.
        """
        events = self.lane.resume()
        if getattr(self._plan, "full_replay", False):
            self._run_events = 0
        self._quiet_since = None
        if self.liveness is not None:
            self.liveness.start(self.clock())
        return events

    def _expiry(self, verdict: LivenessVerdict) -> StreamError:
        """The error of an expired budget: the Liveness's, or the default keepalive-only cap's."""
        now = self.clock()
        if self.liveness is not None:
            return self.liveness.error(verdict, now)
        waited = now - (self._quiet_since if self._quiet_since is not None else now)
        return StreamError(
            message=(
                f"no event for {waited:.3g} s, only keepalives: the stream is stalled "
                f"(the default cap without a Liveness: {self.cap:.0f} s)"
            ),
            code=verdict.value,
            retryable=True,
        )

    def finish(self, drop: Drop | None) -> Sequence[T]:
        """Close the lane; a truncation caused by ``drop`` says why in its error.

        The cause is given to ``close(error=...)``, which ends a ``TRUNCATED``
        stream with it: the transport's exception, the expired budget, or a
        refused reconnect's answer (a 404 once the response is gone, say; not
        retryable). Bytes that simply ended leave the lane's own error.
        """
        error: StreamError | None = None
        if drop is not None:
            if drop.verdict is not None and not drop.refused:
                error = self._expiry(drop.verdict)  # measured now, not when it was found
            elif drop.refused or drop.exc is not None:
                error = drop.error
        return self.lane.close(error=error)
