"""Transport glue: drive a lane from a sync or async iterator of byte chunks.

:func:`iter_events` and :func:`aiter_events` feed every chunk to the lane, yield
its events as they come and close it at the end. They drive anything with the
lane's interface (:class:`LaneLike`: a lane, or a ``PartStream`` over one) and
are typed by it: ``iter_events(ChatCompletionsLane(), chunks)`` yields
``ChatEvent | Reconnecting``, ``iter_events(PartStream(lane), chunks)`` yields
``Part | Reconnecting``. Around that core they add, each only when asked for:

- **Transport failures.** An exception raised by the chunk iterator (or by
  ``iter(chunks)`` itself) ends the lane (``lane.close()``, normally
  ``TRUNCATED``), the final events (the ``StreamEnd``) are yielded, then the
  exception is re-raised so the caller sees the cause: the ``StreamEnd``'s
  error names the exception (the glue passes it to ``close(error=...)``). An
  exception after the outcome was already known (a server that resets the
  connection after its terminal event) is not re-raised: the stream is
  complete. Whatever the glue leaves on (a cancelled task, an interrupted
  wait), the lane has a verdict; only a consumer that stops early leaves it
  open.
- **Resume** (``reconnect=``): on a dropped connection (a transport exception,
  an idle timeout, or bytes that end before the outcome is known) the loop
  asks the lane for its resume plan and the :class:`RetryPolicy` (``retry=``)
  for a wait, yields :class:`Reconnecting`, sleeps (the injectable ``sleep``),
  calls ``reconnect(plan)`` for the new connection, calls ``lane.resume()``
  and goes on. A reconnect answered with an error status, a redirect or a
  body that is not an event stream (or that raised the client's HTTP error:
  ``raise_for_status()``) ends the stream at once when the policy says it is
  not worth retrying (a refused resume: 404), with that answer's error. The
  attempts count the failures in a row without progress. Lanes that cannot
  resume (``resume_plan()`` is None) end as without ``reconnect``. The
  decisions live in ``_reconnect.py``.
- **Liveness** (``liveness=`` and/or ``clock=``): a :class:`Liveness` is told
  about every chunk (bytes) and every chunk that produced lane events
  (events). A sync iterator can only be checked between chunks, so the
  transport's own read timeout must bound a silent read (set it to
  ``liveness.idle_timeout``, or before each read to ``next_deadline()``);
  :func:`aiter_events` bounds each read itself under asyncio and trio. An
  expired budget ends the stream as ``TRUNCATED`` with a ``StreamError`` whose
  ``code`` is the verdict (``idle_timeout`` or ``keepalive_only_timeout``).
  Without either, the documented cap still holds: chunks without an event for
  :data:`DEFAULT_KEEPALIVE_ONLY_TIMEOUT` (30 minutes, counted from the first
  such chunk after an event) end the stream with ``keepalive_only_timeout``;
  ``Liveness(idle_timeout=None, keepalive_only_timeout=None)`` switches it off.

The lane's own exceptions (``ProtocolError``, including ``EventTooLarge``)
propagate after the events decoded before them have been yielded; the lane is
then ``FAILED`` with ``error.code == "protocol_error"``.
"""

from __future__ import annotations

import asyncio
import contextlib
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
from typing import Any, TypeVar

from sse_engine._errors import ProtocolError
from sse_engine._lane import Headers
from sse_engine._liveness import Liveness, LivenessVerdict
from sse_engine._outcome import StreamError
from sse_engine._reconnect import (
    DEFAULT_MAX_RECONNECTS,
    Clock,
    Driver,
    Drop,
    LaneLike,
    Reconnecting,
    accepted,
    split_answer,
)
from sse_engine._retry import RetryPolicy

__all__ = ["DEFAULT_MAX_RECONNECTS", "LaneLike", "Reconnecting", "aiter_events", "iter_events"]

T = TypeVar("T")

#: What ``reconnect`` may return: the new connection's chunks, or the HTTP
#: answer as ``(status, headers, chunks)`` so that a refused resume is seen.
Answer = tuple[int, Headers, Iterable[bytes]]
AsyncAnswer = tuple[int, Headers, AsyncIterable[bytes]]
Reconnect = Callable[[Any], Iterable[bytes] | Answer]
AsyncReconnect = Callable[
    [Any],
    AsyncIterable[bytes] | AsyncAnswer | Awaitable[AsyncIterable[bytes]] | Awaitable[AsyncAnswer],
]


def iter_events(
    lane: LaneLike[T],
    chunks: Iterable[bytes],
    *,
    reconnect: Reconnect | None = None,
    retry: RetryPolicy | None = None,
    sleep: Callable[[float], object] = time.sleep,
    liveness: Liveness | None = None,
    clock: Clock | None = None,
) -> Generator[T | Reconnecting, None, None]:
    """Feed ``chunks`` to ``lane`` and yield its events; close the lane at the end.

    ``lane`` is a lane or a ``PartStream`` (anything :class:`LaneLike`): the
    items yielded are what its ``feed()`` returns (its event union, or parts),
    and a :class:`Reconnecting` before each reconnect.

    A transport exception from ``chunks`` ends the lane as ``TRUNCATED``; its
    final events (the ``StreamEnd``) are yielded, then the exception is
    re-raised. With ``reconnect``, a dropped connection is resumed instead:
    ``reconnect(lane.resume_plan())`` returns the new connection, as its
    chunks or as ``(status, headers, chunks)``; the second form lets a
    refused resume (a 4xx/5xx answer) end the stream with that answer's
    error, at once when it is not retryable. An exception from ``reconnect``
    is a failed attempt. ``retry`` (a :class:`RetryPolicy`, default
    ``RetryPolicy()``: 5 reconnects) decides each wait: the answer's
    ``retry_after``, else the stream's ``retry:`` capped at its
    ``max_delay``, else exponential backoff with jitter (a server's wait is
    honoured exactly once; a failure after that waits at least the backoff).
    The attempts count the failures in a row: a connection that brought new
    events starts the count again. A :class:`Reconnecting` event is yielded
    before each wait, and ``sleep`` waits (inject one in tests).

    With ``liveness`` (or ``clock``), budgets are checked at each chunk's
    arrival: a chunk that arrives after one ran out is not fed. A silent sync
    read can only be bounded by the transport: give it a read timeout of
    ``liveness.idle_timeout`` (or ``next_deadline()`` before each read); when
    that timeout fires, the stream ends with the ``idle_timeout`` code and
    the transport's exception is re-raised. Without ``liveness`` and
    ``clock``, a stretch of chunks without an event (keepalives) is still
    capped at :data:`DEFAULT_KEEPALIVE_ONLY_TIMEOUT`.
    """
    driver = Driver(lane, reconnect is not None, retry, liveness, clock)
    return _iter(driver, chunks, reconnect, sleep)


def _iter(
    driver: Driver[T],
    chunks: Iterable[bytes],
    reconnect: Reconnect | None,
    sleep: Callable[[float], object],
) -> Generator[T | Reconnecting, None, None]:
    lane = driver.lane
    watch = driver.liveness is not None
    capped = driver.cap is not None
    try:
        source = iter(chunks)
    except Exception as error:  # an iterable that cannot even open failed like a read
        source = _Raising(error)
    produced = 0  # items the current connection gave
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
                    if events:
                        produced += len(events)
                        yield from events
                        continue
                    if capped:
                        verdict = driver.quiet(produced)
                    if verdict is None:
                        continue
            # The connection is over: resume it, or end the stream.
            drop = driver.dropped(exc, verdict, produced)
            produced = 0
            opened: Iterator[bytes] | None = None
            while drop is not None and (step := driver.next_attempt(drop)) is not None:
                plan, delay = step
                _close(source)
                yield driver.attempting(plan, delay)
                if delay > 0:
                    sleep(delay)
                assert reconnect is not None
                try:
                    answer, status, headers = split_answer(reconnect(plan))
                    opened = iter(answer)
                except Exception as error:
                    drop = driver.failed(error)
                    continue
                if accepted(status, headers):
                    break
                assert status is not None
                drop = _read_refusal(driver, status, headers, opened)
                opened = None
            if opened is not None:
                source = opened
                yield from driver.resumed()
                continue
            yield from driver.finish(drop)
            if drop is not None and drop.exc is not None:
                raise drop.exc
            return
    except BaseException as error:
        _close_on(driver, error)
        raise
    finally:
        _close(source)


class _Raising:
    """An iterator (sync and async) whose first read raises ``exc``: an iterable that
    could not even open fails as its first read would."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    def __iter__(self) -> Iterator[bytes]:
        return self

    def __next__(self) -> bytes:
        raise self.exc

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self

    async def __anext__(self) -> bytes:
        raise self.exc


def _close_on(driver: Driver[Any], error: BaseException) -> None:
    """The glue is leaving on ``error``: a lane still without a verdict gets one.

    Only what the loop did not already end (a cancelled task, an interrupted
    sleep, a ``reconnect`` that raised a ``BaseException``): the lane closes
    as ``TRUNCATED`` with ``error`` as the cause (its ``StreamEnd`` cannot be
    yielded any more). A consumer that stops early (``GeneratorExit``)
    leaves the lane as it is.
    """
    if isinstance(error, GeneratorExit) or driver.lane.outcome is not None:
        return
    with contextlib.suppress(Exception):  # the error being raised is the one to report
        driver.lane.close(error=StreamError.from_exception(error))


def _read_refusal(
    driver: Driver[Any], status: int, headers: Headers | None, body: Iterator[bytes]
) -> Drop:
    """Read a refused answer's error body (bounded), close it, and judge it."""
    refusal = driver.refusal(status, headers)
    try:
        with contextlib.suppress(Exception):  # a body cut short still says what it said
            for chunk in body:
                if refusal.take(chunk):
                    break
    finally:
        _close(body)
    return refusal.drop()


def _close(source: object) -> None:
    close = getattr(source, "close", None)
    if close is not None:
        close()


async def aiter_events(
    lane: LaneLike[T],
    chunks: AsyncIterable[bytes],
    *,
    reconnect: AsyncReconnect | None = None,
    retry: RetryPolicy | None = None,
    sleep: Callable[[float], Awaitable[object]] | None = None,
    liveness: Liveness | None = None,
    clock: Clock | None = None,
) -> AsyncGenerator[T | Reconnecting, None]:
    """The async twin of :func:`iter_events` (asyncio, trio, anyio).

    It yields what ``lane.feed()`` returns (the lane's events, or parts for a
    ``PartStream``), and a :class:`Reconnecting` before each reconnect.

    ``reconnect`` may return what ``iter_events``' does with async chunks
    (an async iterable of bytes, or ``(status, headers, chunks)``), or an
    awaitable of either. ``sleep`` defaults to the running library's sleep.
    With ``liveness`` (or ``clock``), each read is bounded by
    ``liveness.next_deadline()`` under asyncio and trio, so a silent
    connection ends the stream (``idle_timeout`` or
    ``keepalive_only_timeout``) without any help from the transport; under
    another event loop only the between-chunk checks apply. Without either,
    the default keepalive-only cap is checked between chunks, as in
    :func:`iter_events`.
    """
    driver = Driver(lane, reconnect is not None, retry, liveness, clock)
    try:
        source = aiter(chunks)
    except Exception as error:  # an iterable that cannot even open failed like a read
        source = _Raising(error)
    bounded = _bounded_reader() if driver.liveness is not None else None
    capped = driver.cap is not None
    produced = 0  # items the current connection gave
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
                    if events:
                        produced += len(events)
                        for event in events:
                            yield event
                        continue
                    if capped:
                        verdict = driver.quiet(produced)
                    if verdict is None:
                        continue
            drop = driver.dropped(exc, verdict, produced)
            produced = 0
            reopened: AsyncIterator[bytes] | None = None
            while drop is not None and (step := driver.next_attempt(drop)) is not None:
                plan, delay = step
                await _aclose(source)
                yield driver.attempting(plan, delay)
                if delay > 0:
                    await (sleep or _library_sleep)(delay)
                assert reconnect is not None
                try:
                    opened: Any = reconnect(plan)
                    if inspect.isawaitable(opened):
                        opened = await opened
                    answer, status, headers = split_answer(opened)
                    reopened = aiter(answer)
                except Exception as error:
                    drop = driver.failed(error)
                    continue
                if accepted(status, headers):
                    break
                assert status is not None
                drop = await _aread_refusal(driver, status, headers, reopened)
                reopened = None
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
    except BaseException as error:
        _close_on(driver, error)
        raise
    finally:
        await _aclose(source)


async def _aread_refusal(
    driver: Driver[Any], status: int, headers: Headers | None, body: AsyncIterator[bytes]
) -> Drop:
    """The async twin of :func:`_read_refusal`."""
    refusal = driver.refusal(status, headers)
    try:
        with contextlib.suppress(Exception):
            async for chunk in body:
                if refusal.take(chunk):
                    break
    finally:
        await _aclose(body)
    return refusal.drop()


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
        chunk: bytes | None = None  # stays None when the timeout ran out
        with trio.move_on_after(timeout):
            chunk = await anext(source)
        return chunk

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
