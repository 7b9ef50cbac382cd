"""Resuming a dropped Responses stream: the plan, the reconnect, the assembled result."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from test_responses_support import (
    RESP_ID,
    capture,
    event_spans,
    frames,
    function_call,
    message,
    reasoning,
    run,
    stream_events,
)

from sse_engine import LaneEvent, Outcome, StreamEnd, StreamRestarted, UsageError
from sse_engine.responses import ResponsesEvent, ResponsesLane, ResumePlan

ITEMS = [
    reasoning("rs_1", "**Plan**\n\nLook it up, then answer."),
    message("msg_1", "Let me look that up for you."),
    function_call("fc_1", "lookup", '{"query":"sse resume","limit":3}', "call_1"),
    message("msg_2", "Here is what I found about resuming streams."),
]
EVENTS = stream_events(ITEMS)


def typed(events: list[LaneEvent]) -> list[ResponsesEvent]:
    return [e for e in events if not isinstance(e, StreamEnd | StreamRestarted)]


def cut_points(body: bytes) -> list[int]:
    """Every event boundary and the middle of every event."""
    points = []
    for start, end in event_spans(body):
        points += [start + (end - start) // 2, end]
    return points


def uncut(body: bytes) -> tuple[dict[str, Any], list[ResponsesEvent]]:
    lane, events = run(body)
    assert lane.outcome is Outcome.COMPLETED
    return lane.snapshot.to_api(), typed(events)


# -- the plan -------------------------------------------------------------------------------------


def test_no_plan_before_response_created() -> None:
    lane = ResponsesLane()
    lane.feed(frames(EVENTS)[:40])  # inside response.created
    assert lane.close()[0] == StreamEnd(Outcome.TRUNCATED, lane.error)
    assert lane.resume_plan() is None
    with pytest.raises(UsageError, match="send the POST again"):
        lane.resume()


def test_the_plan_is_a_get_on_the_response_after_the_last_sequence_number() -> None:
    body = frames(EVENTS)
    lane = ResponsesLane()
    lane.feed(body[: event_spans(body)[9][1]])  # events 0..9
    plan = lane.resume_plan()
    assert plan is not None
    assert plan.method == "GET"
    assert plan.path == f"/responses/{RESP_ID}"
    assert plan.query == {"stream": "true", "starting_after": "9"}
    assert plan.headers == {}
    assert not plan.full_replay
    assert plan.url("https://api.kindo.ai/v1/") == (
        f"https://api.kindo.ai/v1/responses/{RESP_ID}?stream=true&starting_after=9"
    )
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        plan.starting_after = 3  # type: ignore[misc]


def test_the_plan_sends_last_event_id_when_the_stream_set_ids() -> None:
    body = frames(EVENTS, ids=True)
    lane = ResponsesLane()
    lane.feed(body[: event_spans(body)[4][1] + 10])  # events 0..4 and a bit of event 5
    plan = lane.resume_plan()
    assert plan is not None
    assert plan.headers == {"Last-Event-ID": "4"}
    assert plan.query["starting_after"] == "4"


def test_agent_runs_replay_from_the_start() -> None:
    body = capture("responses_kindo_agent.sse")
    lane = ResponsesLane()
    lane.feed(body[: len(body) // 2])
    plan = lane.resume_plan()
    assert plan is not None and plan.full_replay
    assert plan.response_id.startswith("resp_run_")
    assert plan.query == {"stream": "true", "starting_after": "0"}
    assert plan.headers == {}
    assert "starting_after=0" in plan.url("https://api.kindo.ai/v1")


def test_a_stream_without_sequence_numbers_replays_from_the_start() -> None:
    body = frames(EVENTS, numbered=False)
    lane = ResponsesLane()
    lane.feed(body[: len(body) // 2])
    plan = lane.resume_plan()
    assert plan == ResumePlan(RESP_ID, None, None, full_replay=True)
    assert plan.query == {"stream": "true"}


@pytest.mark.parametrize(
    "name", ["responses_basic.sse", "responses_max_tokens.sse", "responses_error.sse"]
)
def test_no_plan_once_the_outcome_is_known(name: str) -> None:
    lane, _ = run(capture(name))
    assert lane.outcome is not Outcome.TRUNCATED
    assert lane.resume_plan() is None
    with pytest.raises(UsageError, match="nothing to resume"):
        lane.resume()


def test_a_plan_after_truncation() -> None:
    lane, _ = run(capture("responses_truncated.sse"))
    assert lane.outcome is Outcome.TRUNCATED
    assert lane.resume_plan() is not None


def test_the_response_id_is_quoted_in_the_path() -> None:
    assert ResumePlan("resp/../x y", 3).path == "/responses/resp%2F..%2Fx%20y"


# -- resuming ----------------------------------------------------------------------------------


def resume_from_cut(
    body: bytes, events: list[dict[str, Any]], cut: int, *, closed: bool = True, **opts: Any
) -> tuple[ResponsesLane, list[LaneEvent], list[LaneEvent]] | None:
    """Cut at ``cut``, resume as the plan says, feed what the server replays (Kindo rules)."""
    lane = ResponsesLane(strict=True, **opts)
    first = lane.feed(body[:cut])
    if closed:
        first += lane.close()
    plan = lane.resume_plan()
    if plan is None:
        return None
    restarted = lane.resume()
    after = plan.starting_after if not plan.full_replay else None
    start = 0 if after is None else after + 1
    second = restarted + lane.feed(frames(events[start:], start=start)) + lane.close()
    return lane, first, second


@pytest.mark.parametrize("closed", [True, False])
def test_cut_anywhere_then_resume_equals_the_uncut_stream(closed: bool) -> None:
    body = frames(EVENTS)
    expected_api, expected_events = uncut(body)
    first_event_end = event_spans(body)[0][1]
    for cut in cut_points(body)[:-1]:
        result = resume_from_cut(body, EVENTS, cut, closed=closed)
        if result is None:  # before response.created was complete: a new POST
            assert cut < first_event_end
            continue
        lane, first, second = result
        assert lane.outcome is Outcome.COMPLETED, cut
        assert lane.snapshot.to_api() == expected_api, cut
        assert typed(first) + typed(second) == expected_events, cut
        assert lane.warnings == [] or [w.code for w in lane.warnings] == ["unterminated_event"]
        ends = [e for e in first + second if isinstance(e, StreamEnd)]
        truncated = [StreamEnd(Outcome.TRUNCATED, ends[0].error)] if closed else []
        assert ends == [*truncated, StreamEnd(Outcome.COMPLETED, None)]


def test_resume_with_ids_carries_last_event_id_across_connections() -> None:
    body = frames(EVENTS, ids=True)
    spans = event_spans(body)
    lane = ResponsesLane()
    lane.feed(body[: spans[6][1]])
    lane.close()
    assert lane.resume() == []
    plan = lane.resume_plan()  # nothing arrived yet on the new connection
    assert plan is not None and plan.headers == {"Last-Event-ID": "6"}


def test_replayed_events_at_or_below_the_cut_are_dropped() -> None:
    body = frames(EVENTS)
    expected_api, _ = uncut(body)
    lane = ResponsesLane()
    lane.feed(body[: event_spans(body)[12][1]])
    lane.close()
    lane.resume()
    lane.feed(frames(EVENTS[9:], start=9))  # a server that repeats three events
    lane.close()
    assert [w.code for w in lane.warnings] == ["duplicate_event"] * 4
    assert lane.snapshot.to_api() == expected_api


def test_a_gap_on_the_resumed_connection_is_reported() -> None:
    body = frames(EVENTS)
    lane = ResponsesLane()
    lane.feed(body[: event_spans(body)[12][1]])
    lane.close()
    lane.resume()
    lane.feed(frames(EVENTS[15:], start=15))
    assert [w.code for w in lane.warnings] == ["sequence_gap"]
    assert "jumped from 12 to 15" in lane.warnings[0].message


def test_a_full_replay_restarts_the_snapshot() -> None:
    body = capture("responses_kindo_agent.sse")
    expected_api, expected_events = uncut(body)
    spans = event_spans(body)
    for cut in (spans[1][1], spans[20][0] + 30, spans[-2][1]):
        lane = ResponsesLane(strict=True)
        lane.feed(body[:cut])
        lane.close()
        assert lane.snapshot.items or cut == spans[1][1]
        restarted = lane.resume()
        assert len(restarted) == 1 and isinstance(restarted[0], StreamRestarted)
        assert lane.snapshot.items == [] and lane.snapshot.response is None
        second = lane.feed(body) + lane.close()
        assert typed(second) == expected_events
        assert lane.snapshot.to_api() == expected_api
        assert lane.outcome is Outcome.COMPLETED


def test_a_resume_past_the_window_gets_final_items_and_assembles() -> None:
    body = frames(EVENTS)
    expected_api, _ = uncut(body)
    spans = event_spans(body)
    for omit_output in (False, True):
        for cut_event in (3, 12, 25, len(spans) - 3):
            lane = ResponsesLane(strict=True)
            lane.feed(body[: spans[cut_event][1]])
            lane.close()
            plan = lane.resume_plan()
            assert plan is not None and plan.starting_after == cut_event
            lane.resume()
            fallback = [
                *(
                    {"type": "response.output_item.done", "output_index": i, "item": item}
                    for i, item in enumerate(ITEMS)
                ),
                stream_events(ITEMS, omit_output=omit_output)[-1],
            ]
            events = lane.feed(frames(fallback, start=cut_event + 1)) + lane.close()
            assert lane.outcome is Outcome.COMPLETED
            assert lane.snapshot.to_api() == expected_api
            assert not any(t.type.endswith("delta") for t in typed(events))
            assert lane.warnings == []


def test_resume_continues_an_item_that_was_open_at_the_cut() -> None:
    body = frames(EVENTS)
    deltas = [i for i, e in enumerate(EVENTS) if e["type"] == "response.output_text.delta"]
    lane = ResponsesLane()
    lane.feed(body[: event_spans(body)[deltas[1]][1]])
    lane.close()
    item = lane.snapshot.item(1)
    assert item is not None and not item.done and item.text == "Let me look th"
    lane.resume()
    lane.feed(frames(EVENTS[deltas[1] + 1 :], start=deltas[1] + 1))
    assert item.done and lane.snapshot.item(1) is item
    assert item.text == "Let me look that up for you."
