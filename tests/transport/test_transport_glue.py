"""iter_events / aiter_events on in-memory iterators, with a small resumable test lane.

These pin the glue's rules independently of the real lanes (those are driven
over real HTTP in test_transport_http.py): transport exceptions, EOF, protocol
errors, the reconnect loop and its bounds, retry delays, liveness budgets.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

import attrs
import pytest
import trio

from sse_engine._errors import EventTooLarge
from sse_engine._lane import Lane, LaneEvent, StreamEnd
from sse_engine._liveness import Liveness
from sse_engine._outcome import Outcome
from sse_engine._reconnect import DEFAULT_MAX_RECONNECTS, Reconnecting
from sse_engine._retry import RetryPolicy
from sse_engine._sse import ServerSentEvent
from sse_engine._transport import aiter_events, iter_events


@attrs.frozen
class Item(LaneEvent):
    seq: int
    data: str


class ToyLane(Lane[list[str]]):
    """Events carry ``id: N``; ``event: done`` ends the stream; resumes after the last id."""

    terminal_event_name = "event: done"

    def __init__(self, *, resumable: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.items: list[str] = []
        self.last = 0
        self.resumable = resumable
        self.resumes = 0

    @property
    def snapshot(self) -> list[str]:
        return self.items

    def _on_event(self, sse: ServerSentEvent, out: list[LaneEvent]) -> None:
        if sse.event == "done":
            self._end(Outcome.COMPLETED, None, out)
            return
        seq = int(sse.id)
        if seq <= self.last:
            return  # a replayed duplicate
        self.last = seq
        self.items.append(sse.data)
        out.append(Item(seq, sse.data))

    def resume_plan(self) -> Any:
        return {"starting_after": self.last} if self.resumable else None

    def resume(self) -> list[LaneEvent]:
        self.resumes += 1
        self._reopen()
        return []


def event(seq: int) -> bytes:
    return f"id: {seq}\ndata: item {seq}\n\n".encode()


DONE = b"event: done\ndata: {}\n\n"
FULL = b"".join(event(i) for i in range(1, 7)) + DONE


def pieces(data: bytes, size: int = 7) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


class Cut(ConnectionError):
    pass


def cut_after(data: bytes, offset: int, size: int = 7) -> Iterator[bytes]:
    """A connection that delivers ``data[:offset]`` and then fails."""
    yield from pieces(data[:offset], size)
    raise Cut(f"connection reset at byte {offset}")


def items(events: Iterable[LaneEvent]) -> list[int]:
    return [e.seq for e in events if isinstance(e, Item)]


def ends(events: Iterable[LaneEvent]) -> list[StreamEnd]:
    return [e for e in events if isinstance(e, StreamEnd)]


def recorder(calls: list[Any]) -> Any:
    """A reconnect callable that only records its plans (and opens an empty connection)."""

    def reconnect(plan: Any) -> list[bytes]:
        calls.append(plan)
        return []

    return reconnect


def direct(data: bytes) -> list[LaneEvent]:
    lane = ToyLane()
    return lane.feed(data) + lane.close()


def never_sleep(seconds: float) -> None:
    """The sleep of tests that reconnect but do not look at the waits."""
    assert 0 <= seconds <= RetryPolicy().max_delay


def policy(max_attempts: int = 6) -> RetryPolicy:
    """A policy without jitter: the backoff is exactly 0.5, 1, 2, ... seconds."""
    return RetryPolicy(max_attempts=max_attempts, random=lambda: 0.0)


# -- without reconnect ---------------------------------------------------------------


def test_normal_stream_equals_direct_feeding() -> None:
    lane = ToyLane()
    got = list(iter_events(lane, pieces(FULL)))
    assert got == direct(FULL)
    assert ends(got) == [StreamEnd(Outcome.COMPLETED)]
    assert lane.snapshot == [f"item {i}" for i in range(1, 7)]


def test_transport_exception_truncates_yields_the_end_then_reraises() -> None:
    lane = ToyLane()
    got: list[LaneEvent] = []
    with pytest.raises(Cut, match="byte 40"):
        for ev in iter_events(lane, cut_after(FULL, 40)):
            got.append(ev)
    assert items(got) == [1, 2]
    (end,) = ends(got)
    assert end.outcome is Outcome.TRUNCATED and end.error is not None
    assert end.error.code == "stream_truncated" and end.error.retryable
    assert "Cut: connection reset at byte 40" in end.error.message
    assert lane.outcome is Outcome.TRUNCATED and lane.error == end.error


def test_eof_before_the_outcome_is_truncated_without_exception() -> None:
    lane = ToyLane()
    got = list(iter_events(lane, pieces(FULL[:45])))
    assert items(got) == [1, 2]
    assert [e.outcome for e in ends(got)] == [Outcome.TRUNCATED]
    assert lane.error is not None and lane.error.code == "stream_truncated"


def test_exception_after_the_outcome_is_known_is_not_raised() -> None:
    lane = ToyLane()
    got = list(iter_events(lane, cut_after(FULL + b": trailing\n", len(FULL) + 3)))
    assert ends(got) == [StreamEnd(Outcome.COMPLETED)]


def test_protocol_error_yields_what_was_decoded_then_raises() -> None:
    lane = ToyLane(max_event_size=64)
    data = event(1) + b"data: " + b"x" * 200
    got: list[LaneEvent] = []
    with pytest.raises(EventTooLarge):
        for ev in iter_events(lane, [data]):
            got.append(ev)
    assert items(got) == [1]
    assert lane.outcome is Outcome.FAILED
    assert lane.error is not None and lane.error.code == "protocol_error"


def test_consumer_stopping_early_closes_the_source() -> None:
    closed: list[bool] = []

    def source() -> Iterator[bytes]:
        try:
            yield from pieces(FULL)
        finally:
            closed.append(True)

    stream = iter_events(ToyLane(), source())
    next(stream)
    stream.close()  # what a `break` out of the for loop does
    assert closed == [True]


def test_non_resumable_lane_ignores_reconnect() -> None:
    calls: list[Any] = []
    lane = ToyLane(resumable=False)
    with pytest.raises(Cut):
        list(iter_events(lane, cut_after(FULL, 40), reconnect=recorder(calls)))
    assert calls == [] and lane.outcome is Outcome.TRUNCATED


# -- the reconnect loop ----------------------------------------------------------------


def replay_after(n: int, data: bytes = FULL, overlap: int = 1) -> list[bytes]:
    """The server's answer to starting_after=n (with ``overlap`` events re-sent)."""
    body = b"".join(event(i) for i in range(max(1, n + 1 - overlap), 7)) + DONE
    return pieces(body, 5)


def test_reconnect_resumes_and_every_event_is_seen_once() -> None:
    plans: list[Any] = []

    def reconnect(plan: Any) -> list[bytes]:
        plans.append(plan)
        return replay_after(plan["starting_after"], overlap=2)

    lane = ToyLane()
    got = list(iter_events(lane, cut_after(FULL, 52), reconnect=reconnect, sleep=never_sleep))
    assert items(got) == [1, 2, 3, 4, 5, 6]
    assert ends(got) == [StreamEnd(Outcome.COMPLETED)]
    assert plans == [{"starting_after": 2}] and lane.resumes == 1


def test_eof_before_the_outcome_also_reconnects() -> None:
    lane = ToyLane()
    got = list(
        iter_events(
            lane, pieces(FULL[:30]), reconnect=lambda p: replay_after(1), sleep=never_sleep
        )
    )
    assert items(got) == [1, 2, 3, 4, 5, 6]
    assert lane.outcome is Outcome.COMPLETED


def test_reconnects_are_bounded_and_the_last_cause_is_raised() -> None:
    calls: list[Any] = []

    def reconnect(plan: Any) -> Iterator[bytes]:
        calls.append(plan)
        return cut_after(b"", 0)

    lane = ToyLane()
    got: list[LaneEvent] = []
    slept: list[float] = []
    stream = iter_events(
        lane, cut_after(FULL, 40), reconnect=reconnect, retry=policy(4), sleep=slept.append
    )
    with pytest.raises(Cut):
        for ev in stream:
            got.append(ev)
    assert len(calls) == 3
    assert [e.outcome for e in ends(got)] == [Outcome.TRUNCATED]
    assert slept == [0.5, 1.0, 2.0]  # exponential backoff: no retry: field
    assert [e for e in got if isinstance(e, Reconnecting)] == [
        Reconnecting(attempt, delay, {"starting_after": 2})
        for attempt, delay in ((1, 0.5), (2, 1.0), (3, 2.0))
    ]


def test_a_failing_reconnect_call_counts_as_an_attempt() -> None:
    attempts: list[int] = []

    def reconnect(plan: Any) -> list[bytes]:
        attempts.append(plan["starting_after"])
        if len(attempts) < 3:
            raise Cut("connection refused")
        return replay_after(plan["starting_after"])

    lane = ToyLane()
    got = list(
        iter_events(
            lane, cut_after(FULL, 40), reconnect=reconnect, retry=policy(4), sleep=never_sleep
        )
    )
    assert attempts == [2, 2, 2]
    assert items(got) == [1, 2, 3, 4, 5, 6] and lane.outcome is Outcome.COMPLETED
    assert lane.resumes == 1


def test_a_single_attempt_policy_is_no_reconnect() -> None:
    def reconnect(plan: Any) -> list[bytes]:
        raise AssertionError("must not reconnect")

    got: list[LaneEvent] = []
    stream = iter_events(ToyLane(), cut_after(FULL, 40), reconnect=reconnect, retry=policy(1))
    with pytest.raises(Cut):
        got.extend(stream)
    assert not [e for e in got if isinstance(e, Reconnecting)]
    assert [e.outcome for e in ends(got)] == [Outcome.TRUNCATED]


def test_the_default_policy_allows_the_default_number_of_reconnects() -> None:
    calls: list[Any] = []

    def reconnect(plan: Any) -> Iterator[bytes]:
        calls.append(plan)
        return cut_after(b"", 0)

    with pytest.raises(Cut):
        list(iter_events(ToyLane(), cut_after(FULL, 40), reconnect=reconnect, sleep=never_sleep))
    assert len(calls) == DEFAULT_MAX_RECONNECTS == RetryPolicy().max_attempts - 1


def test_the_streams_retry_time_is_waited_before_reconnecting() -> None:
    slept: list[float] = []
    data = b"retry: 1500\n\n" + FULL
    lane = ToyLane()
    got = list(
        iter_events(
            lane,
            cut_after(data, 60),
            reconnect=lambda p: replay_after(p["starting_after"]),
            sleep=slept.append,
        )
    )
    assert slept == [1.5]
    assert items(got) == [1, 2, 3, 4, 5, 6]


def test_retry_is_remembered_across_connections() -> None:
    slept: list[float] = []
    connections = iter([cut_after(FULL, 60), iter(replay_after(3))])
    lane = ToyLane()
    list(
        iter_events(
            lane,
            cut_after(b"retry: 20\n\n" + FULL, 40),
            reconnect=lambda p: next(connections),
            sleep=slept.append,
        )
    )
    assert slept == [0.02, 0.02] and lane.outcome is Outcome.COMPLETED


def test_no_retry_field_means_backoff_with_jitter() -> None:
    slept: list[float] = []
    # The second connection brings nothing new (it fails where the first did), so
    # the backoff doubles; one that made progress would start again at 0.5 s.
    connections = iter([cut_after(FULL, 40), iter(replay_after(2))])
    shares = iter([0.5, 1.0])  # the jitter cuts up to half of each backoff
    jittered = RetryPolicy(random=lambda: next(shares))
    lane = ToyLane()
    got = list(
        iter_events(
            lane,
            cut_after(FULL, 40),
            reconnect=lambda p: next(connections),
            retry=jittered,
            sleep=slept.append,
        )
    )
    assert slept == [0.5 * 0.75, 1.0 * 0.5] and lane.outcome is Outcome.COMPLETED
    assert [(e.attempt, e.delay) for e in got if isinstance(e, Reconnecting)] == [
        (1, 0.375),
        (2, 0.5),
    ]


# -- liveness between chunks -------------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def timed(clock: FakeClock, steps: Iterable[tuple[float, bytes]]) -> Iterator[bytes]:
    """Chunks that arrive after the given number of (fake) seconds each."""
    for wait, chunk in steps:
        clock.now += wait
        yield chunk


KEEPALIVE = b": keepalive\n\n"


def test_keepalives_keep_a_thinking_stream_alive() -> None:
    clock = FakeClock()
    steps = [(0.1, event(1))] + [(15.0, KEEPALIVE)] * 80 + [(1.0, FULL[len(event(1)) :])]
    lane = ToyLane()
    liveness = Liveness(idle_timeout=60, keepalive_only_timeout=1800)
    got = list(iter_events(lane, timed(clock, steps), liveness=liveness, clock=clock))
    assert items(got) == [1, 2, 3, 4, 5, 6] and lane.outcome is Outcome.COMPLETED


def test_keepalive_only_cap_ends_the_stream_and_does_not_reconnect() -> None:
    clock = FakeClock()
    closed: list[bool] = []

    def source() -> Iterator[bytes]:
        try:
            yield from timed(clock, [(0.1, event(1))] + [(15.0, KEEPALIVE)] * 200)
        finally:
            closed.append(True)

    calls: list[Any] = []
    lane = ToyLane()
    got = list(
        iter_events(
            lane,
            source(),
            liveness=Liveness(idle_timeout=60, keepalive_only_timeout=300),
            clock=clock,
            reconnect=recorder(calls),
        )
    )
    (end,) = ends(got)
    assert end.outcome is Outcome.TRUNCATED and end.error is not None
    assert end.error.code == "keepalive_only_timeout" and lane.error == end.error
    assert calls == [] and closed == [True]
    assert clock.now - 1000.1 == pytest.approx(300.0)


@pytest.mark.parametrize("resumable", [False, True])
def test_a_chunk_after_the_idle_budget_is_not_fed(resumable: bool) -> None:
    # Event 2 arrives 61 s after event 1 with a 60 s budget: the connection counts as
    # dead. Without a way to resume, the stream ends (idle_timeout); with one, it
    # resumes after event 1 and completes.
    clock = FakeClock()
    lane = ToyLane(resumable=resumable)
    got = list(
        iter_events(
            lane,
            timed(clock, [(1.0, event(1)), (61.0, event(2))]),
            liveness=Liveness(idle_timeout=60),
            clock=clock,
            reconnect=lambda p: replay_after(p["starting_after"]),
            sleep=never_sleep,
        )
    )
    if resumable:
        assert items(got) == [1, 2, 3, 4, 5, 6] and lane.outcome is Outcome.COMPLETED
    else:
        assert items(got) == [1]
        assert lane.error is not None and lane.error.code == "idle_timeout"


def test_a_transport_read_timeout_is_reported_as_idle_timeout_and_reraised() -> None:
    clock = FakeClock()

    def source() -> Iterator[bytes]:
        yield event(1)
        clock.now += 30.0  # the transport's read timeout (= idle_timeout) fired
        raise TimeoutError("read timed out")

    lane = ToyLane()
    with pytest.raises(TimeoutError):
        list(iter_events(lane, source(), liveness=Liveness(idle_timeout=30), clock=clock))
    assert lane.outcome is Outcome.TRUNCATED
    assert lane.error is not None and lane.error.code == "idle_timeout"


def test_a_clock_alone_brings_default_budgets() -> None:
    clock = FakeClock()
    lane = ToyLane()
    list(iter_events(lane, timed(clock, [(1.0, event(1)), (126.0, event(2))]), clock=clock))
    assert lane.error is not None and lane.error.code == "idle_timeout"


# -- the async twin --------------------------------------------------------------------------


async def apieces(
    chunks: Iterable[bytes], fail: BaseException | None = None
) -> AsyncIterator[bytes]:
    for chunk in chunks:
        await asyncio.sleep(0)
        yield chunk
    if fail is not None:
        raise fail


async def collect(stream: AsyncIterator[LaneEvent], into: list[LaneEvent]) -> None:
    async for ev in stream:
        into.append(ev)


def test_async_normal_and_truncated() -> None:
    lane = ToyLane()
    got: list[LaneEvent] = []
    asyncio.run(collect(aiter_events(lane, apieces(pieces(FULL))), got))
    assert got == direct(FULL)

    lane = ToyLane()
    got = []
    with pytest.raises(Cut):
        asyncio.run(collect(aiter_events(lane, apieces(pieces(FULL[:40]), Cut("reset"))), got))
    assert items(got) == [1, 2] and [e.outcome for e in ends(got)] == [Outcome.TRUNCATED]


@pytest.mark.parametrize("awaitable", [False, True])
def test_async_reconnect_accepts_an_iterator_or_an_awaitable(awaitable: bool) -> None:
    async def open_async(plan: Any) -> AsyncIterator[bytes]:
        return apieces(replay_after(plan["starting_after"], overlap=2))

    def open_sync(plan: Any) -> AsyncIterator[bytes]:
        return apieces(replay_after(plan["starting_after"], overlap=2))

    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    lane = ToyLane()
    got: list[LaneEvent] = []
    source = apieces(pieces(b"retry: 5\n\n" + FULL[:50]), Cut("reset"))
    stream = aiter_events(
        lane, source, reconnect=open_async if awaitable else open_sync, sleep=sleep
    )
    asyncio.run(collect(stream, got))
    assert items(got) == [1, 2, 3, 4, 5, 6] and lane.outcome is Outcome.COMPLETED
    assert slept == [0.005]


def test_async_reconnects_are_bounded() -> None:
    calls: list[Any] = []

    async def reconnect(plan: Any) -> AsyncIterator[bytes]:
        calls.append(plan)
        raise Cut("refused")

    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    lane = ToyLane()
    got: list[LaneEvent] = []
    stream = aiter_events(
        lane, apieces([event(1)], Cut("reset")), reconnect=reconnect, retry=policy(3), sleep=sleep
    )
    with pytest.raises(Cut, match="refused"):
        asyncio.run(collect(stream, got))
    assert len(calls) == 2 and lane.outcome is Outcome.TRUNCATED
    assert slept == [0.5, 1.0]
    assert [e.attempt for e in got if isinstance(e, Reconnecting)] == [1, 2]


async def silent_after(first: bytes, clock_log: list[float]) -> AsyncIterator[bytes]:
    yield first
    await asyncio.sleep(5)  # a dead connection: no bytes, no close (bounded for safety)
    clock_log.append(1.0)
    yield DONE


def test_asyncio_bounds_a_silent_read_by_itself() -> None:
    lane = ToyLane()
    got: list[LaneEvent] = []
    late: list[float] = []
    loop_time: list[float] = []

    async def main() -> None:
        start = asyncio.get_running_loop().time()
        stream = aiter_events(
            lane, silent_after(event(1), late), liveness=Liveness(idle_timeout=0.15)
        )
        await collect(stream, got)
        loop_time.append(asyncio.get_running_loop().time() - start)

    asyncio.run(main())
    assert items(got) == [1] and late == []
    assert lane.error is not None and lane.error.code == "idle_timeout"
    assert 0.14 <= loop_time[0] < 1.0


def test_asyncio_bound_covers_the_keepalive_only_cap() -> None:
    async def thinking() -> AsyncIterator[bytes]:
        yield event(1)
        for _ in range(100):
            await asyncio.sleep(0.02)
            yield KEEPALIVE

    lane = ToyLane()
    got: list[LaneEvent] = []
    liveness = Liveness(idle_timeout=0.5, keepalive_only_timeout=0.2)
    asyncio.run(collect(aiter_events(lane, thinking(), liveness=liveness), got))
    assert lane.error is not None and lane.error.code == "keepalive_only_timeout"


def test_a_transport_timeout_error_is_not_mistaken_for_the_bound() -> None:
    async def source() -> AsyncIterator[bytes]:
        yield event(1)
        raise TimeoutError("the transport's own timeout")

    lane = ToyLane()
    with pytest.raises(TimeoutError, match="transport"):
        asyncio.run(collect(aiter_events(lane, source(), liveness=Liveness(idle_timeout=30)), []))
    assert lane.error is not None and lane.error.code == "stream_truncated"


def test_trio_bounds_a_silent_read_and_sleeps_with_trio() -> None:
    async def silent() -> AsyncIterator[bytes]:
        yield b"retry: 10\n\n" + event(1)
        await trio.sleep(5)
        yield DONE

    async def reconnect(plan: Any) -> AsyncIterator[bytes]:
        async def rest() -> AsyncIterator[bytes]:
            for chunk in replay_after(plan["starting_after"]):
                await trio.sleep(0)
                yield chunk

        return rest()

    lane = ToyLane()
    got: list[LaneEvent] = []
    elapsed: list[float] = []

    async def main() -> None:
        start = trio.current_time()
        stream = aiter_events(
            lane, silent(), reconnect=reconnect, liveness=Liveness(idle_timeout=0.1)
        )
        async for ev in stream:
            got.append(ev)
        elapsed.append(trio.current_time() - start)

    trio.run(main)
    assert items(got) == [1, 2, 3, 4, 5, 6] and lane.outcome is Outcome.COMPLETED
    assert 0.1 <= elapsed[0] < 1.0  # the idle bound and the 10 ms retry wait, not 5 s


def test_reconnecting_is_a_frozen_public_lane_event() -> None:
    import sse_engine

    event = sse_engine.Reconnecting(1, 0.5, {"starting_after": 2})
    assert isinstance(event, LaneEvent) and "Reconnecting" in sse_engine.__all__
    assert getattr(sse_engine.Reconnecting, "__final__", False)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        event.delay = 0.0  # type: ignore[misc]
    assert event == sse_engine.Reconnecting(1, 0.5, {"starting_after": 2})
