"""Transport glue: drive a lane from a sync or async iterator of byte chunks.

:func:`iter_events` and :func:`aiter_events` feed every chunk to the lane, yield
its events as they come and close it at the end. Around that core they add,
each only when asked for:

- **Transport failures.** An exception raised by the chunk iterator ends the
  lane (``lane.close()``, normally ``TRUNCATED``), the final events (the
  ``StreamEnd``) are yielded, then the exception is re-raised so the caller
  sees the cause. An exception after the outcome was already known (a server
  that resets the connection after its terminal event) is not re-raised: the
  stream is complete.
- **Resume** (``reconnect=``): on a dropped connection (a transport exception,
  an idle timeout, or bytes that end before the outcome is known) the loop
  asks the lane for its resume plan, calls ``reconnect(plan)`` for a new byte
  iterator, calls ``lane.resume()`` and goes on, at most ``max_reconnects``
  times per stream. It waits the stream's ``retry:`` time first (via the
  injectable ``sleep``). Lanes that cannot resume (``resume_plan()`` is None)
  end as without ``reconnect``.
- **Liveness** (``liveness=`` and/or ``clock=``): a :class:`Liveness` is told
  about every chunk (bytes) and every chunk that produced lane events
  (events). A sync iterator can only be checked between chunks, so the
  transport's own read timeout must bound a silent read (set it to
  ``liveness.idle_timeout``, or before each read to ``next_deadline()``);
  :func:`aiter_events` bounds each read itself under asyncio and trio. An
  expired budget ends the stream as ``TRUNCATED`` with a ``StreamError`` whose
  ``code`` is the verdict (``idle_timeout`` or ``keepalive_only_timeout``).

The lane's own exceptions (``ProtocolError``, including ``EventTooLarge``)
propagate after the events decoded before them have been yielded; the lane is
then ``FAILED`` with ``error.code == "protocol_error"``.
"""

from __future__ import annotations

import asyncio
import inspect
import sys
import time
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Awaitable,
    Callable,
    Generator,
    Iterable,
    Iterator,
)
from typing import Any

import attrs

from sse_engine._errors import ProtocolError
from sse_engine._lane import Lane, LaneEvent, StreamEnd
from sse_engine._liveness import Liveness, LivenessVerdict
from sse_engine._outcome import Outcome, StreamError

__all__ = ["DEFAULT_MAX_RECONNECTS", "aiter_events", "iter_events"]

#: How many times one stream may be reconnected when ``reconnect`` is given.
DEFAULT_MAX_RECONNECTS = 5

Clock = Callable[[], float]
Reconnect = Callable[[Any], Iterable[bytes]]
AsyncReconnect = Callable[[Any], AsyncIterable[bytes] | Awaitable[AsyncIterable[bytes]]]


@attrs.define
class _Drop:
    """Why the current connection is over (before the outcome was known)."""

    exc: BaseException | None = None
    verdict: LivenessVerdict | None = None


class _Driver:
    """The decisions iter_events and aiter_events share; no I/O, no waiting.

    One instance per stream. ``feed`` handles a chunk, ``expired`` checks the
    budgets at a chunk's arrival, ``dropped`` and ``plan`` decide what a
    dropped connection leads to (a reconnect or the end), ``resumed`` prepares
    the lane for a new connection and ``finish`` closes the lane with the
    error that says why it ended.
    """

    def __init__(
        self,
        lane: Lane[Any],
        can_reconnect: bool,
        max_reconnects: int,
        liveness: Liveness | None,
        clock: Clock | None,
    ) -> None:
        if max_reconnects < 0:
            raise ValueError("max_reconnects must be >= 0")
        if liveness is None and clock is not None:
            liveness = Liveness()
        elif liveness is not None and clock is None:
            clock = time.monotonic
        self.lane = lane
        self.can_reconnect = can_reconnect
        self.max_reconnects = max_reconnects
        self.reconnects = 0
        self.liveness = liveness
        self.clock: Clock = clock if clock is not None else time.monotonic
        self.retry_ms: int | None = None
        if liveness is not None and liveness.started_at is None:
            liveness.start(self.clock())

    # -- per chunk ---------------------------------------------------------------

    def expired(self) -> LivenessVerdict | None:
        """At a chunk's arrival: has a budget run out while waiting for it?"""
        liveness = self.liveness
        if liveness is None:
            return None
        verdict = liveness.check(self.clock())
        return None if verdict is LivenessVerdict.OK else verdict

    def feed(self, chunk: bytes) -> list[LaneEvent]:
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

    def dropped(self, exc: BaseException | None, verdict: LivenessVerdict | None) -> _Drop | None:
        """The connection ended (``exc`` None: the bytes simply ended).

        Returns None when the outcome is already known (nothing was lost: a
        late exception is not re-raised), else the drop to handle.
        """
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
        return _Drop(exc, verdict)

    def plan(self, drop: _Drop) -> Any:
        """The lane's resume plan when this drop may be reconnected, else None."""
        if (
            not self.can_reconnect
            or self.reconnects >= self.max_reconnects
            or drop.verdict is LivenessVerdict.KEEPALIVE_ONLY_TIMEOUT
        ):
            return None
        plan = self.lane.resume_plan()
        if plan is not None:
            self.reconnects += 1
        return plan

    def delay(self) -> float:
        """Seconds to wait before reconnecting: the stream's ``retry:`` time, if it set one."""
        return 0.0 if self.retry_ms is None else self.retry_ms / 1000.0

    def resumed(self) -> list[LaneEvent]:
        """A new connection is open: prepare the lane (and the clocks) for its bytes."""
        resume: Callable[[], Any] = self.lane.resume  # type: ignore[attr-defined]
        events = resume()
        if self.liveness is not None:
            self.liveness.start(self.clock())
        return list(events) if events else []

    def finish(self, drop: _Drop | None) -> list[LaneEvent]:
        """Close the lane; a truncation caused by ``drop`` says why in its error."""
        lane = self.lane
        out = lane.close()
        if drop is None or lane.outcome is not Outcome.TRUNCATED or not out:
            return out
        error: StreamError | None
        if drop.verdict is not None and self.liveness is not None:
            error = self.liveness.error(drop.verdict, self.clock())
        elif drop.exc is not None and lane.error is not None:
            exc = drop.exc
            error = attrs.evolve(
                lane.error, message=f"{lane.error.message} ({type(exc).__name__}: {exc})"
            )
        else:
            return out
        lane.error = error
        return [StreamEnd(Outcome.TRUNCATED, error) if type(e) is StreamEnd else e for e in out]


def iter_events(
    lane: Lane[Any],
    chunks: Iterable[bytes],
    *,
    reconnect: Reconnect | None = None,
    max_reconnects: int = DEFAULT_MAX_RECONNECTS,
    sleep: Callable[[float], object] = time.sleep,
    liveness: Liveness | None = None,
    clock: Clock | None = None,
) -> Generator[LaneEvent, None, None]:
    """Feed ``chunks`` to ``lane`` and yield its events; close the lane at the end.

    A transport exception from ``chunks`` ends the lane as ``TRUNCATED``; its
    final events (the ``StreamEnd``) are yielded, then the exception is
    re-raised. With ``reconnect``, a dropped connection is resumed instead:
    ``reconnect(lane.resume_plan())`` must return the new connection's byte
    iterator (raise from it if the reconnect fails; that counts as an attempt).
    ``sleep`` waits the stream's ``retry:`` time before each reconnect.

    With ``liveness`` (or ``clock``), budgets are checked at each chunk's
    arrival: a chunk that arrives after one ran out is not fed. A silent sync
    read can only be bounded by the transport: give it a read timeout of
    ``liveness.idle_timeout`` (or ``next_deadline()`` before each read); when
    that timeout fires, the stream ends with the ``idle_timeout`` code and
    the transport's exception is re-raised.
    """
    driver = _Driver(lane, reconnect is not None, max_reconnects, liveness, clock)
    return _iter(driver, iter(chunks), reconnect, sleep)


def _iter(
    driver: _Driver,
    source: Iterator[bytes],
    reconnect: Reconnect | None,
    sleep: Callable[[float], object],
) -> Generator[LaneEvent, None, None]:
    lane = driver.lane
    watch = driver.liveness is not None
    try:
        while True:
            verdict: LivenessVerdict | None = None
            exc: BaseException | None = None
            try:
                chunk = next(source)
            except StopIteration:
                pass
            except Exception as error:
                exc = error
            else:
                if watch:
                    verdict = driver.expired()
                if verdict is None:
                    try:
                        events = driver.feed(chunk) if watch else lane.feed(chunk)
                    except ProtocolError as error:
                        yield from error.events
                        raise
                    yield from events
                    continue
            # The connection is over: resume it, or end the stream.
            drop = driver.dropped(exc, verdict)
            opened: Iterator[bytes] | None = None
            while drop is not None and (plan := driver.plan(drop)) is not None:
                _close(source)
                delay = driver.delay()
                if delay > 0:
                    sleep(delay)
                try:
                    assert reconnect is not None
                    opened = iter(reconnect(plan))
                    break
                except Exception as error:
                    drop = _Drop(error)
            if opened is not None:
                source = opened
                yield from driver.resumed()
                continue
            yield from driver.finish(drop)
            if drop is not None and drop.exc is not None:
                raise drop.exc
            return
    finally:
        _close(source)


def _close(source: object) -> None:
    close = getattr(source, "close", None)
    if close is not None:
        close()


async def aiter_events(
    lane: Lane[Any],
    chunks: AsyncIterable[bytes],
    *,
    reconnect: AsyncReconnect | None = None,
    max_reconnects: int = DEFAULT_MAX_RECONNECTS,
    sleep: Callable[[float], Awaitable[object]] | None = None,
    liveness: Liveness | None = None,
    clock: Clock | None = None,
) -> AsyncGenerator[LaneEvent, None]:
    """The async twin of :func:`iter_events` (asyncio, trio, anyio).

    ``reconnect`` may return an async iterator of bytes or an awaitable of one.
    ``sleep`` defaults to the running library's sleep. With ``liveness`` (or
    ``clock``), each read is bounded by ``liveness.next_deadline()`` under
    asyncio and trio, so a silent connection ends the stream (``idle_timeout``
    or ``keepalive_only_timeout``) without any help from the transport; under
    another event loop only the between-chunk checks apply.
    """
    driver = _Driver(lane, reconnect is not None, max_reconnects, liveness, clock)
    source = aiter(chunks)
    bounded = _bounded_reader() if driver.liveness is not None else None
    try:
        while True:
            verdict: LivenessVerdict | None = None
            exc: BaseException | None = None
            try:
                if bounded is None:
                    chunk = await anext(source)
                else:
                    timeout, deadline = driver.read_timeout()
                    read = await bounded(source, timeout)
                    if read is None:
                        verdict = driver.timed_out(deadline)
                    else:
                        chunk = read
            except StopAsyncIteration:
                pass
            except Exception as error:
                exc = error
            else:
                if verdict is None and bounded is not None:
                    verdict = driver.expired()
                if verdict is None:
                    try:
                        events = driver.feed(chunk)
                    except ProtocolError as error:
                        for event in error.events:
                            yield event
                        raise
                    for event in events:
                        yield event
                    continue
            drop = driver.dropped(exc, verdict)
            reopened: AsyncIterator[bytes] | None = None
            while drop is not None and (plan := driver.plan(drop)) is not None:
                await _aclose(source)
                delay = driver.delay()
                if delay > 0:
                    await (sleep or _library_sleep)(delay)
                try:
                    assert reconnect is not None
                    opened = reconnect(plan)
                    if inspect.isawaitable(opened):
                        opened = await opened
                    reopened = aiter(opened)
                    break
                except Exception as error:
                    drop = _Drop(error)
            if reopened is not None:
                source = reopened
                for event in driver.resumed():
                    yield event
                continue
            for event in driver.finish(drop):
                yield event
            if drop is not None and drop.exc is not None:
                raise drop.exc
            return
    finally:
        await _aclose(source)


async def _aclose(source: object) -> None:
    aclose = getattr(source, "aclose", None)
    if aclose is not None:
        await aclose()


BoundedRead = Callable[[AsyncIterator[bytes], float | None], Awaitable[bytes | None]]


def _bounded_reader() -> BoundedRead | None:
    """A read with a timeout for the running async library (None: not supported).

    The reader returns None when the timeout ran out; it never raises for that.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        return _asyncio_read
    trio: Any = sys.modules.get("trio")
    if trio is not None:
        try:
            trio.lowlevel.current_task()
        except RuntimeError:
            return None
        return _trio_reader(trio)
    return None


async def _asyncio_read(source: AsyncIterator[bytes], timeout: float | None) -> bytes | None:
    if timeout is None:
        return await anext(source)
    scope = asyncio.timeout(timeout)
    try:
        async with scope:
            return await anext(source)
    except TimeoutError:
        if scope.expired():
            return None
        raise


def _trio_reader(trio: Any) -> BoundedRead:
    async def read(source: AsyncIterator[bytes], timeout: float | None) -> bytes | None:
        if timeout is None:
            return await anext(source)
        with trio.move_on_after(timeout) as scope:
            return await anext(source)
        assert scope.cancelled_caught
        return None

    return read


async def _library_sleep(seconds: float) -> None:
    """Sleep with the running async library (asyncio or trio)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        trio: Any = sys.modules.get("trio")
        if trio is None:
            raise
        await trio.sleep(seconds)
    else:
        await asyncio.sleep(seconds)
