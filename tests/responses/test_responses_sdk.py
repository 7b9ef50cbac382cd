"""Differential tests: on the same bytes, the lane's ``to_api()`` equals the openai SDK's object.

The oracle is the SDK's own streaming path, offline: ``openai.Stream`` over an
in-memory ``httpx.Response`` wrapped in ``ResponseStream`` (what
``client.responses.stream()`` gives), see ``test_responses_support.sdk_run``.
Completed streams compare with ``get_final_response()``; failed and incomplete
ones (where it raises) with the response object of the SDK's terminal event,
whose ``output`` the SDK fills from the items it saw. ``parsed`` and
``parsed_arguments`` are stripped from the SDK side: its structured-output
helpers add them, the API does not send them.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_responses_support import (
    capture,
    frames,
    function_call,
    message,
    reasoning,
    response_obj,
    run,
    sdk_final,
    sdk_run,
    sdk_terminal_response,
    stream_events,
    tool_item,
    usage,
)

from sse_engine import Outcome, StreamEnd, StreamRestarted

CITE = {
    "type": "url_citation",
    "url": "https://example.com/otel",
    "title": "OpenTelemetry",
    "start_index": 0,
    "end_index": 13,
}


def annotated() -> dict[str, Any]:
    item = message("msg_a", "Observability means logs, metrics and traces.")
    item["content"][0]["annotations"] = [CITE]
    return item


COMPLETED_STREAMS: dict[str, list[dict[str, Any]]] = {
    "text": [message("msg_1", "Hello! How can I help you today?")],
    "multi_part_text": [message("msg_1", "First part. ", "Second part.")],
    "function_call": [function_call("fc_1", "get_weather", '{"city":"Paris"}', "call_1")],
    "parallel_function_calls": [
        function_call("fc_1", "get_weather", '{"city":"Paris"}', "call_1"),
        function_call("fc_2", "get_weather", '{"city":"Tokyo","units":"metric"}', "call_2"),
    ],
    "text_tool_text": [
        message("msg_1", "Let me check."),
        function_call("fc_1", "lookup", '{"id":42}', "call_1"),
        message("msg_2", "Found it: the answer is 42."),
    ],
    "reasoning": [
        reasoning("rs_1", "**Thinking**\n\nThe user greets me.", "**Plan**\n\nGreet back."),
        message("msg_1", "Hi there!"),
    ],
    "refusal": [message("msg_1", refusal="I'm sorry, I can't help with that.")],
    "text_and_refusal": [message("msg_1", "Partly: ", refusal="the rest I can't share.")],
    "annotations": [annotated()],
    "hosted_tools": [
        tool_item(
            "web_search_call",
            "ws_1",
            status="completed",
            action={"type": "search", "query": "weather paris"},
        ),
        tool_item(
            "custom_tool_call", "ctc_1", call_id="call_c", name="apply_patch", input="*** patch"
        ),
        tool_item(
            "mcp_call",
            "mcp_1",
            name="search",
            server_label="docs",
            arguments='{"q":"otel"}',
            output="3 hits",
            error=None,
            status="completed",
        ),
        message("msg_1", "Done."),
    ],
}


def assert_same_events(body: bytes) -> None:
    """Both see the same events, in order, with the same type and sequence number."""
    _, sdk_events = sdk_run(body)
    _, ours = run(body)
    typed = [e for e in ours if not isinstance(e, StreamEnd | StreamRestarted)]
    assert [(e.type, e.sequence_number) for e in typed] == [
        (e.type, e.sequence_number) for e in sdk_events
    ]


@pytest.mark.parametrize("name", sorted(COMPLETED_STREAMS))
def test_completed_stream_equals_the_sdk_final_response(name: str) -> None:
    body = frames(stream_events(COMPLETED_STREAMS[name]))
    lane, _ = run(body, strict=True)
    assert lane.outcome is Outcome.COMPLETED and lane.warnings == []
    ours = lane.snapshot.to_api()
    assert ours == sdk_final(body)
    assert ours["usage"] == usage()
    assert_same_events(body)


@pytest.mark.parametrize("name", sorted(COMPLETED_STREAMS))
def test_completed_without_output_equals_the_sdk_final_response(name: str) -> None:
    body = frames(stream_events(COMPLETED_STREAMS[name], omit_output=True))
    lane, _ = run(body, strict=True)
    ours = lane.snapshot.to_api()
    assert ours == sdk_final(body)
    assert ours["output"] == COMPLETED_STREAMS[name]


@pytest.mark.parametrize(
    "name", ["responses_basic.sse", "responses_reasoning.sse", "responses_kindo_agent.sse"]
)
def test_bundled_captures_equal_the_sdk_final_response(name: str) -> None:
    body = capture(name)
    lane, _ = run(body)
    assert lane.snapshot.to_api() == sdk_final(body)
    assert_same_events(body)


def test_usage_equals_the_sdks() -> None:
    body = capture("responses_reasoning.sse")
    lane, _ = run(body)
    sdk_usage = sdk_final(body)["usage"]
    assert lane.snapshot.usage == sdk_usage
    assert sdk_usage["output_tokens_details"]["reasoning_tokens"] == 64


@pytest.mark.parametrize("name", ["responses_max_tokens.sse", "responses_refusal.sse"])
def test_incomplete_streams_equal_the_sdk_terminal_response(name: str) -> None:
    body = capture(name)
    lane, _ = run(body)
    assert lane.outcome is Outcome.INCOMPLETE
    assert lane.snapshot.to_api() == sdk_terminal_response(body)


def failed_midway(omit_output: bool) -> bytes:
    """Text and a function call streamed halfway, then response.failed."""
    items = [
        message("msg_1", "Checking the weather now."),
        function_call("fc_1", "get_weather", '{"city":"Paris","days":3}', "call_1"),
    ]
    events = stream_events(items)
    cut = [i for i, e in enumerate(events) if e["type"].endswith("arguments.delta")][2]
    final = response_obj("failed", error={"code": "server_error", "message": "upstream died"})
    if not omit_output:
        final["output"] = []
    return frames([*events[:cut], {"type": "response.failed", "response": final}])


@pytest.mark.parametrize("omit_output", [True, False])
def test_a_failed_stream_equals_the_sdk_terminal_response(omit_output: bool) -> None:
    body = failed_midway(omit_output)
    lane, _ = run(body)
    assert lane.outcome is Outcome.FAILED
    ours = lane.snapshot.to_api()
    assert ours == sdk_terminal_response(body)
    if omit_output:  # rebuilt from what was seen: the done message and the partial call
        assert [i["status"] for i in ours["output"]] == ["completed", "in_progress"]
        assert ours["output"][1]["arguments"] == '{"city":"Paris'  # two deltas of 7
    assert_same_events(body)


def test_a_slow_start_failure_equals_the_sdk_terminal_response() -> None:
    body = capture("responses_slow_start_failed.sse")
    lane, _ = run(body)
    assert lane.snapshot.to_api() == sdk_terminal_response(body)


def test_unknown_events_pass_through_like_the_sdks() -> None:
    events = stream_events([message("msg_1", "hi")])
    events.insert(3, {"type": "response.telemetry.tick", "phase": "decode", "ms": 12})
    body = frames(events)
    lane, _ = run(body)
    assert lane.snapshot.to_api() == sdk_final(body)
    assert_same_events(body)
