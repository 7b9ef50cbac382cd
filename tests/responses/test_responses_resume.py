"""Resuming a dropped Responses stream: the plan, the reconnect, the assembled result."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from test_responses_support import (
    RESP_ID,
    capture,
    event_spans,
    frames,
    function_call,
    message,
    reasoning,
    response_obj,
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


# -- a resume that skips sequence numbers (issue 20, item 9) -----------------------------------


def assembled(lane: ResponsesLane) -> list[tuple[Any, ...]]:
    """What each item holds: its type, text, refusal, tool-call input and summaries."""
    return [
        (item.type, item.id, item.text, item.refusal, item.arguments, item.summary_text)
        for item in lane.snapshot.items
    ]


def resume_skipping(
    events: list[dict[str, Any]], cut: int, skipped: set[int]
) -> ResponsesLane:
    """Events ``[:cut]`` on the first connection; the resume sends the rest but ``skipped``.

    Every event keeps its own sequence number, so each skipped run is a gap.
    """
    lane = ResponsesLane()
    lane.feed(frames(events[:cut]))
    lane.close()
    assert lane.resume() == []
    for number in range(cut, len(events)):
        if number not in skipped:
            lane.feed(frames(events[number : number + 1], start=number))
    lane.close()
    return lane


@settings(max_examples=examples(18, thorough=300), deadline=None)
@given(
    data=st.data(),
    terminal=st.sampled_from(["response.completed", "response.incomplete"]),
    omit_output=st.booleans(),
)
def test_a_resume_that_skips_events_is_complete_only_with_the_whole_text(
    data: st.DataObject, terminal: str, omit_output: bool
) -> None:
    """Issue 20: a server that skipped sequence numbers on a resume gave COMPLETED, text missing.

    ``.done`` events and the terminal object are authoritative: whatever the
    gaps took, the stream either ends as the uncut one did with the same
    text, tool input and summaries in every item, or it says it is not
    complete (TRUNCATED, ``events_missing``), and only when something was
    skipped.
    """
    events = stream_events(ITEMS, terminal=terminal, omit_output=omit_output)
    whole, _ = run(frames(events))
    cut = data.draw(st.integers(2, len(events) - 1), label="cut")
    last = len(events) - 1  # the terminal event always arrives
    skipped = data.draw(st.sets(st.integers(cut, last - 1)) if cut < last else st.just(set()))
    lane = resume_skipping(events, cut, skipped)
    if lane.outcome is whole.outcome:
        assert assembled(lane) == assembled(whole)
        assert lane.snapshot.output_text == whole.snapshot.output_text
    else:
        assert skipped, "nothing was skipped, yet the stream is not what it was"
        assert lane.outcome is Outcome.TRUNCATED and lane.error is not None
        assert (lane.error.code, lane.error.retryable) == ("events_missing", True)
    if not omit_output:  # the terminal object names every item: nothing is ever missing
        assert lane.outcome is whole.outcome
        assert lane.snapshot.to_api() == whole.snapshot.to_api()


KINDO = [  # the Kindo document's example: no item events, a terminal object without output
    {"type": "response.created", "response": {"id": RESP_ID, "status": "in_progress"}},
    {"type": "response.output_text.delta", "item_id": "msg_xyz", "delta": "Logs flow through"},
    {"type": "response.output_text.delta", "item_id": "msg_xyz", "delta": " the gate;"},
    {"type": "response.output_text.delta", "item_id": "msg_xyz", "delta": " Metrics rise"},
    {
        "type": "response.output_text.done",
        "item_id": "msg_xyz",
        "text": "Logs flow through the gate; Metrics rise",
    },
    {"type": "response.completed", "response": {"id": RESP_ID, "status": "completed"}},
]


def test_a_gap_in_the_deltas_is_restored_by_the_done_text() -> None:
    lane = resume_skipping(KINDO, 2, {2})
    assert [w.code for w in lane.warnings].count("sequence_gap") == 1
    assert lane.outcome is Outcome.COMPLETED and lane.error is None
    assert lane.snapshot.output_text == "Logs flow through the gate; Metrics rise"


def test_a_gap_that_took_the_done_text_is_not_completed_and_load_restores_it() -> None:
    lane = resume_skipping(KINDO, 2, {2, 4})
    assert lane.snapshot.output_text == "Logs flow through Metrics rise"  # what arrived
    assert lane.outcome is Outcome.TRUNCATED and lane.error is not None
    assert lane.error.code == "events_missing" and lane.error.retryable
    assert "sequence numbers 2, 4 never arrived" in lane.error.message
    # The remedy the message names: the plain GET's final object.
    plan = lane.resume_plan()
    assert plan is not None and plan.retrieve().path == f"/responses/{RESP_ID}"
    lane.load(response_obj("completed", [message("msg_xyz", KINDO[4]["text"])]))
    assert lane.outcome is Outcome.COMPLETED
    assert lane.snapshot.output_text == KINDO[4]["text"]


def test_the_terminal_output_settles_items_a_gap_left_open() -> None:
    # The gap took the end of the answer and every .done event; response.completed
    # carries the output: the items read as it says, not as the deltas left them.
    events = stream_events(ITEMS)
    deltas = [i for i, e in enumerate(events) if e["type"] == "response.output_text.delta"]
    lane = resume_skipping(events, deltas[1] + 1, set(range(deltas[1] + 1, len(events) - 1)))
    whole, _ = run(frames(events))
    assert lane.outcome is Outcome.COMPLETED
    assert assembled(lane) == assembled(whole)
    assert all(item.done for item in lane.snapshot.items)
