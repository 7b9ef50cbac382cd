"""iter_events and aiter_events drive a PartStream as they drive a lane, and yield its parts.

Including what the glue does around the feeding: a transport error ends the
stream as TRUNCATED with the cause in the error (the ``Finish`` says it too),
a dropped Responses stream is resumed (the turn goes on), an agent run is
replayed from the start (a ``Restart`` part, and the turn begins again).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from sse_engine import (
    MessagesLane,
    Outcome,
    Reconnecting,
    ResponsesLane,
    aiter_events,
    iter_events,
)
from sse_engine.parts import Finish, Part, PartStream, Restart, TextDelta

CAPTURES = Path(__file__).resolve().parents[2] / "sse_engine" / "captures"
BASIC = (CAPTURES / "responses_basic.sse").read_bytes()


class Reset(ConnectionError):
    pass


def reads(data: bytes, size: int = 97) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def cut_after(data: bytes, offset: int) -> Iterator[bytes]:
    yield from reads(data[:offset])
    raise Reset(f"connection reset at byte {offset}")


def glue(
    stream: PartStream, chunks: Iterable[bytes], **options: Any
) -> list[Part | Reconnecting]:
    """What iter_events yields for ``stream``: its parts, and Reconnecting before a resume."""
    options.setdefault("sleep", lambda seconds: None)
    return list(iter_events(stream, chunks, **options))


def parts_of(items: list[Any]) -> list[Part]:
    return [item for item in items if not isinstance(item, Reconnecting)]


def alone(data: bytes) -> tuple[list[Part], PartStream]:
    stream = PartStream(ResponsesLane())
    return stream.feed(data) + stream.close(), stream


def test_iter_events_yields_the_parts_of_the_stream() -> None:
    stream = PartStream(ResponsesLane())
    parts = list(glue(stream, reads(BASIC)))
    expected, direct = alone(BASIC)
    assert parts == expected and stream.turn == direct.turn
    assert isinstance(parts[-1], Finish) and parts[-1].outcome is Outcome.COMPLETED


def test_aiter_events_yields_the_parts_of_the_stream() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for chunk in reads(BASIC):
            yield chunk

    async def main() -> list[Part]:
        stream = PartStream(ResponsesLane())
        return [part async for part in aiter_events(stream, chunks()) if isinstance(part, Part)]

    expected, _ = alone(BASIC)
    assert asyncio.run(main()) == expected


def test_a_transport_error_finishes_truncated_with_the_cause_in_the_finish() -> None:
    stream = PartStream(MessagesLane())
    body = (CAPTURES / "messages_basic.sse").read_bytes()
    parts: list[Part] = []
    with pytest.raises(Reset):
        for part in iter_events(stream, cut_after(body, len(body) // 2)):
            assert not isinstance(part, Reconnecting)  # no reconnect= given
            parts.append(part)
    finish = parts[-1]
    assert isinstance(finish, Finish) and finish.reason == "truncated"
    assert finish.error is not None and "Reset: connection reset" in finish.error.message
    assert finish.error == stream.error == stream.lane.error == stream.turn.error
    assert [p for p in parts if isinstance(p, Finish)] == [finish]


def test_a_dropped_responses_stream_resumes_and_the_turn_goes_on() -> None:
    cut = BASIC.index(b"\n\n", len(BASIC) // 2) + 2
    plans: list[Any] = []

    def reconnect(plan: Any) -> list[bytes]:
        plans.append(plan)
        return reads(BASIC[cut:])  # the events after the last one received

    stream = PartStream(ResponsesLane())
    items = glue(stream, cut_after(BASIC, cut), reconnect=reconnect)
    expected, direct = alone(BASIC)
    assert len(plans) == 1 and not plans[0].full_replay
    assert [type(i) for i in items].count(Reconnecting) == 1
    assert parts_of(items) == expected and stream.turn == direct.turn


def test_an_agent_run_replays_from_the_start_with_a_restart_part() -> None:
    run = BASIC.replace(b"resp_", b"resp_run_")
    cut = run.index(b"\n\n", len(run) // 2) + 2

    def reconnect(plan: Any) -> list[bytes]:
        assert plan.full_replay
        return reads(run)

    stream = PartStream(ResponsesLane())
    parts = parts_of(glue(stream, cut_after(run, cut), reconnect=reconnect))
    restart = next(i for i, p in enumerate(parts) if isinstance(p, Restart))
    before, after = parts[:restart], parts[restart + 1 :]
    assert any(isinstance(p, TextDelta) for p in before)
    expected, direct = alone(run)
    assert after == expected and stream.turn == direct.turn
    assert [p for p in parts if isinstance(p, Finish)] == [parts[-1]]


def test_a_refused_resume_finishes_truncated_with_the_refusal_in_the_finish() -> None:
    cut = BASIC.index(b"\n\n", len(BASIC) // 2) + 2
    gone = b'{"error": {"message": "No response found", "type": "invalid_request_error", ' \
        b'"code": "not_found"}}'

    def reconnect(plan: Any) -> tuple[int, dict[str, str], list[bytes]]:
        return 404, {"content-type": "application/json"}, [gone]

    stream = PartStream(ResponsesLane())
    parts = parts_of(glue(stream, cut_after(BASIC, cut), reconnect=reconnect))
    finish = parts[-1]
    assert isinstance(finish, Finish) and finish.reason == "truncated"
    assert finish.error is not None and finish.error.status == 404
    assert finish.error == stream.error == stream.turn.error
    assert not finish.error.retryable


def test_a_lane_without_resume_cannot_be_resumed() -> None:
    from sse_engine import UsageError

    stream = PartStream(MessagesLane())
    assert stream.resume_plan() is None
    with pytest.raises(UsageError, match="cannot be resumed"):
        stream.resume()


def test_a_lane_without_load_cannot_load() -> None:
    from sse_engine import UsageError

    with pytest.raises(UsageError, match="cannot load"):
        PartStream(MessagesLane()).load({})
