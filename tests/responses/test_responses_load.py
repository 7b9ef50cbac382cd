"""``ResumePlan.retrieve()`` and ``ResponsesLane.load()``: past the resume window (issue 16).

The Kindo document: after the resume window the final object is fetched with a
plain GET. ``retrieve()`` describes that request; ``load(response)`` makes the
lane's snapshot that object, sets the outcome from its ``status`` and returns
the one ``StreamEnd``, on a fresh lane or after a TRUNCATED stream.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from sse_engine import Outcome, ProtocolError, StreamEnd, StreamError, UsageError
from sse_engine.responses import ResponsesLane, ResumePlan, RetrievePlan
from sse_engine.responses._load import STATUS_OUTCOMES

CAPTURES = Path(__file__).resolve().parents[2] / "sse_engine" / "captures"
BASIC = (CAPTURES / "responses_basic.sse").read_bytes()


def streamed(data: bytes = BASIC) -> ResponsesLane:
    lane = ResponsesLane()
    lane.feed(data)
    lane.close()
    return lane


UNCUT = streamed()
FINAL: dict[str, Any] = UNCUT.snapshot.to_api()


def final(**changes: Any) -> dict[str, Any]:
    """The basic capture's final response object, with some fields changed."""
    response = json.loads(json.dumps(FINAL))
    response.update(changes)
    return response


# -- retrieve() ---------------------------------------------------------------------------------


def test_retrieve_is_a_plain_get_of_the_response() -> None:
    plan = ResumePlan.after("resp_abc123", 4, "4")
    request = plan.retrieve()
    assert request == RetrievePlan("resp_abc123")
    assert (request.method, request.path, request.query, request.headers) == (
        "GET",
        "/responses/resp_abc123",
        {},
        {},
    )
    assert request.url("https://api.kindo.ai/v1/") == "https://api.kindo.ai/v1/responses/resp_abc123"


def test_retrieve_works_for_agent_runs_and_quotes_the_id() -> None:
    assert ResumePlan.after("resp_run_9", None, None).retrieve().path == "/responses/resp_run_9"
    assert ResumePlan.after("a/b?c", 1, None).retrieve().url("http://x") == "http://x/responses/a%2Fb%3Fc"


# -- load() on a fresh lane ---------------------------------------------------------------------


def test_a_completed_response_completes_a_fresh_lane() -> None:
    lane = ResponsesLane()
    events = lane.load(final())
    assert events == [StreamEnd(Outcome.COMPLETED)]
    assert lane.outcome is Outcome.COMPLETED and lane.error is None
    assert lane.snapshot.to_api() == FINAL
    assert lane.snapshot.output_text == UNCUT.snapshot.output_text != ""
    assert [item.done for item in lane.snapshot.items] == [True] * len(FINAL["output"])
    assert [item.arguments for item in lane.snapshot.items] == [
        item.arguments for item in UNCUT.snapshot.items
    ]
    assert lane.snapshot.terminal and lane.warnings == []


def test_an_incomplete_response_is_incomplete_with_its_reason() -> None:
    lane = ResponsesLane()
    details = {"reason": "max_output_tokens"}
    events = lane.load(final(status="incomplete", incomplete_details=details))
    assert events == [StreamEnd(Outcome.INCOMPLETE)]
    assert lane.snapshot.incomplete_reason == "max_output_tokens"


def test_a_failed_response_is_failed_with_its_error() -> None:
    lane = ResponsesLane()
    error = {"code": "server_error", "message": "upstream stream interrupted"}
    events = lane.load(final(status="failed", error=error))
    want = StreamError.from_payload(error)
    assert events == [StreamEnd(Outcome.FAILED, want)] and lane.error == want
    assert want.code == "server_error" and want.retryable


def test_a_failed_response_without_an_error_object_is_still_failed() -> None:
    lane = ResponsesLane()
    (end,) = lane.load(final(status="failed", error=None))
    assert isinstance(end, StreamEnd) and end.outcome is Outcome.FAILED
    assert end.error is not None and "without an error object" in end.error.message


def test_a_cancelled_response_is_incomplete() -> None:
    lane = ResponsesLane()
    assert lane.load(final(status="cancelled")) == [StreamEnd(Outcome.INCOMPLETE)]
    assert lane.snapshot.status == "cancelled"


@pytest.mark.parametrize("status", ["queued", "in_progress"])
def test_a_response_still_running_leaves_the_stream_truncated_until_loaded_again(
    status: str,
) -> None:
    lane = ResponsesLane()
    (end,) = lane.load(final(status=status, output=[]))
    assert isinstance(end, StreamEnd) and end.outcome is Outcome.TRUNCATED
    assert end.error is not None and end.error.code == "response_in_progress"
    assert end.error.retryable and status in end.error.message
    assert not lane.snapshot.terminal and lane.snapshot.status == status
    # Poll again later: the finished object ends the stream.
    assert lane.load(final()) == [StreamEnd(Outcome.COMPLETED)]
    assert lane.snapshot.to_api() == FINAL


def test_an_error_envelope_instead_of_a_response_is_its_failure() -> None:
    lane = ResponsesLane()
    envelope = {"error": {"message": "No response found", "code": "not_found"}}
    (end,) = lane.load(envelope)
    assert isinstance(end, StreamEnd) and end.outcome is Outcome.FAILED
    assert end.error is not None and (end.error.code, end.error.retryable) == ("not_found", False)


def test_an_unknown_status_fails_naming_it() -> None:
    lane = ResponsesLane()
    (end,) = lane.load(final(status="expired"))
    assert isinstance(end, StreamEnd) and end.outcome is Outcome.FAILED
    assert end.error is not None and end.error.code == "unexpected_response"
    assert "'expired'" in end.error.message and not end.error.retryable


def test_every_status_the_api_documents_has_an_outcome() -> None:
    documented = {"completed", "failed", "in_progress", "cancelled", "queued", "incomplete"}
    assert set(STATUS_OUTCOMES) == documented


# -- load() after a stream ------------------------------------------------------------------------


def test_a_truncated_stream_is_completed_from_the_final_object() -> None:
    cut = BASIC.index(b"event: response.function_call_arguments.delta")
    lane = streamed(BASIC[:cut])
    assert lane.outcome is Outcome.TRUNCATED
    assert lane.load(final()) == [StreamEnd(Outcome.COMPLETED)]
    assert lane.outcome is Outcome.COMPLETED and lane.error is None
    assert lane.snapshot.to_api() == FINAL
    assert lane.snapshot.output_text == UNCUT.snapshot.output_text


def test_a_stream_cut_mid_event_is_completed_too() -> None:
    lane = ResponsesLane()
    lane.feed(BASIC[: len(BASIC) // 2])  # no close(): the connection is just gone
    assert lane.load(final()) == [StreamEnd(Outcome.COMPLETED)]
    assert lane.snapshot.to_api() == FINAL


def test_a_response_without_output_keeps_the_items_streamed() -> None:
    cut = BASIC.index(b"event: response.function_call_arguments.delta")
    lane = streamed(BASIC[:cut])
    text = lane.snapshot.output_text
    response = final()
    del response["output"]
    assert lane.load(response) == [StreamEnd(Outcome.COMPLETED)]
    assert lane.snapshot.output_text == text != ""
    assert lane.snapshot.to_api()["output"] == lane.snapshot.output


def test_a_different_response_id_is_a_warning() -> None:
    lane = streamed(BASIC[: BASIC.index(b"event: response.output_item.added")])
    lane.load(final(id="resp_other"))
    assert [w.code for w in lane.warnings] == ["response_id_changed"]


def test_a_loaded_lane_is_over() -> None:
    lane = ResponsesLane()
    lane.load(final())
    with pytest.raises(UsageError):
        lane.feed(b"event: response.created\ndata: {}\n\n")
    assert lane.close() == []


@pytest.mark.parametrize("ending", ["completed", "failed"])
def test_load_refuses_a_stream_that_already_ended(ending: str) -> None:
    lane = UNCUT if ending == "completed" else streamed(b'event: error\ndata: {"code":"x"}\n\n')
    with pytest.raises(UsageError, match="already ended"):
        lane.load(final())


def test_an_output_entry_that_is_no_item_is_a_warning_and_kept_in_to_api() -> None:
    lane = ResponsesLane()
    output = [*FINAL["output"], {"type": ["message"]}, "text"]
    assert lane.load(final(output=output)) == [StreamEnd(Outcome.COMPLETED)]
    assert [w.code for w in lane.warnings] == ["malformed_event", "malformed_event"]
    assert len(lane.snapshot.items) == len(FINAL["output"])
    assert lane.snapshot.to_api()["output"] == output


def test_a_strict_lane_refuses_an_output_entry_that_is_no_item() -> None:
    lane = ResponsesLane(strict=True)
    with pytest.raises(ProtocolError, match="output"):
        lane.load(final(output=[{"type": 7}]))
    assert lane.outcome is None  # nothing changed


def test_load_takes_a_dict() -> None:
    with pytest.raises(UsageError, match="dict"):
        ResponsesLane().load(json.dumps(FINAL))  # type: ignore[arg-type]


json_values = st.recursive(
    # Finite floats: NaN and Infinity in snapshots are issue 11 item 1 (the snapshot's copy).
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=10,
)
items = st.fixed_dictionaries(
    {"type": st.sampled_from(["message", "function_call", "reasoning", "x"]) | json_values},
    optional={"id": json_values, "content": json_values, "arguments": json_values},
)
responses = st.fixed_dictionaries(
    {},
    optional={
        "id": st.text(max_size=8) | json_values,
        "status": st.sampled_from(sorted(STATUS_OUTCOMES)) | json_values,
        "output": st.lists(items | json_values, max_size=4) | json_values,
        "error": json_values,
        "incomplete_details": json_values,
    },
)


@settings(max_examples=examples(21, thorough=200), deadline=None)
@given(response=responses, truncated_first=st.booleans())
def test_any_object_gives_exactly_one_stream_end_and_plain_json(
    response: dict[str, Any], truncated_first: bool
) -> None:
    lane = streamed(BASIC[: len(BASIC) // 3]) if truncated_first else ResponsesLane()
    events = lane.load(response)
    assert len(events) == 1 and isinstance(events[0], StreamEnd)
    assert events[0].outcome is lane.outcome is not None and events[0].error == lane.error
    status = response.get("status")
    want = STATUS_OUTCOMES.get(status) if isinstance(status, str) else None
    assert lane.outcome is (want or Outcome.FAILED)
    json.dumps(lane.snapshot.to_api(), allow_nan=False)
