"""Responses annotations and server tool results as parts (issue 20 item 12).

A text part's annotations are ``Citation`` parts, each once, however many of
the stream's forms carry it (``response.output_text.annotation.added``,
``content_part.done``, ``output_item.done``, the terminal response), and
``Turn.citations`` holds what the openai SDK's final response holds. A call
the server ran (``web_search_call``, ``mcp_call``, ``kindo_call``) is a
server ``ToolCall`` whose ``ServerToolResult`` is its final item, as the SDK's
final response has it.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from openai.types.responses import (
    ResponseFunctionWebSearch,
    ResponseOutputItem,
    ResponseOutputTextAnnotationAddedEvent,
)
from pydantic import TypeAdapter
from test_responses_support import (
    capture,
    frames,
    message,
    response_obj,
    sdk_final,
    stream_events,
    tool_item,
    usage,
)
from wire_turns import read

from sse_engine.parts import Citation, Part, ServerToolResult, ToolCallEnd

URL = {"type": "url_citation", "url": "https://example.com/otel", "title": "OpenTelemetry",
       "start_index": 0, "end_index": 13}
FILE = {"type": "file_citation", "file_id": "file_1", "filename": "notes.pdf", "index": 20}
CONTAINER = {"type": "container_file_citation", "container_id": "cntr_1", "file_id": "cfile_1",
             "filename": "out.csv", "start_index": 3, "end_index": 9}
PATH = {"type": "file_path", "file_id": "file_2", "index": 5}


def _cited_message() -> dict[str, Any]:
    item = message("msg_a", "Observability means logs, metrics and traces.", "See the file.")
    item["content"][0]["annotations"] = [URL, FILE]
    item["content"][1]["annotations"] = [CONTAINER, PATH]
    return item


def _server_items() -> list[dict[str, Any]]:
    return [
        tool_item("web_search_call", "ws_1", status="completed",
                  action={"type": "search", "query": "otel signals"}),
        tool_item("mcp_call", "mcp_1", name="search", server_label="docs",
                  arguments='{"q":"otel"}', output="3 hits", error=None, status="completed"),
        tool_item("mcp_call", "mcp_2", name="fetch", server_label="docs",
                  arguments='{"id":7}', output=None, status="failed",
                  error={"type": "http_error", "code": 404, "message": "not found"}),
    ]


OUTPUT = [*_server_items(), _cited_message()]


def _sdk_annotations(final: dict[str, Any]) -> list[Any]:
    return [a for item in final["output"] if item["type"] == "message"
            for part in item["content"] if part["type"] == "output_text"
            for a in part.get("annotations") or ()]


def _bodies() -> dict[str, bytes]:
    return {
        # Each annotation four times: annotation.added, content_part.done, output_item.done,
        # the terminal response.
        "streamed": frames(stream_events(OUTPUT)),
        # Only final items (a gateway that sends little else), then the terminal response.
        "final_items": frames(stream_events(OUTPUT, deltas=False)),
        # The terminal response alone (a resume past its window, a gateway).
        "terminal_only": frames([
            {"type": "response.created", "response": response_obj("in_progress", [])},
            {"type": "response.completed",
             "response": response_obj("completed", OUTPUT, usage=usage())},
        ]),
    }


@pytest.mark.parametrize("name", sorted(_bodies()))
def test_each_annotation_is_one_citation_as_the_sdks_final_response_has_it(name: str) -> None:
    body = _bodies()[name]
    parts, stream = read("responses", body)
    citations = [p for p in parts if isinstance(p, Citation)]
    assert [c.raw for c in citations] == _sdk_annotations(sdk_final(body)) == [
        URL, FILE, CONTAINER, PATH]
    assert stream.turn.citations == citations == [
        Citation("url_citation", "https://example.com/otel", "OpenTelemetry"),
        Citation("file_citation", None, "notes.pdf"),
        Citation("container_file_citation", None, "out.csv"),
        Citation("file_path"),
    ]


def test_the_annotation_event_is_the_sdks_and_a_citation_at_once() -> None:
    events = stream_events([_cited_message()])
    added = next(e for e in events if e["type"] == "response.output_text.annotation.added")
    # The payload is the SDK's event type (the test stream is real-shaped).
    ResponseOutputTextAnnotationAddedEvent.model_validate({**added, "sequence_number": 0})
    body = frames(events)
    cut = body.index(b"response.output_text.done")
    parts, _ = read("responses", body[:cut])
    assert [p.raw for p in parts if isinstance(p, Citation)] == [URL, FILE]


def test_an_annotation_sent_again_is_cited_once_and_the_final_adds_the_rest() -> None:
    events = stream_events([_cited_message()])
    added = [e for e in events if e["type"] == "response.output_text.annotation.added"]
    first = events.index(added[0])
    events.insert(first + 1, dict(added[0]))  # the same annotation index again
    events.remove(added[-1])  # the last one only the final forms carry
    parts, stream = read("responses", frames(events))
    assert [p.raw for p in parts if isinstance(p, Citation)] == [URL, FILE, CONTAINER, PATH]
    assert stream.turn.citations == [p for p in parts if isinstance(p, Citation)]


def test_server_calls_carry_their_final_items_as_the_sdks_final_response_has_them() -> None:
    body = _bodies()["streamed"]
    parts, stream = read("responses", body)
    final = sdk_final(body)
    results = [p for p in parts if isinstance(p, ServerToolResult)]
    assert [r.id for r in results] == ["ws_1", "mcp_1", "mcp_2"]
    for result in results:
        call = stream.turn.tool_calls[result.index]
        assert call.server and call.id == result.id and call.done
        assert result.result == call.result == final["output"][result.index]
    web = stream.turn.tool_calls[0]
    assert (web.name, web.input) == ("web_search", {"type": "search", "query": "otel signals"})
    ResponseFunctionWebSearch.model_validate(web.result)
    TypeAdapter(ResponseOutputItem).validate_python(stream.turn.tool_calls[2].result)
    # Each result follows its call's end.
    for result in results:
        end = next(i for i, p in enumerate(parts)
                   if isinstance(p, ToolCallEnd) and p.id == result.id)
        assert parts.index(result) == end + 1
    # Nothing for the client to run: the turn ends as a text turn.
    assert parts[-1].reason == "stop"  # type: ignore[union-attr]


def test_a_server_call_the_response_did_not_finish_has_no_result() -> None:
    item = tool_item("web_search_call", "ws_1", status="in_progress",
                     action={"type": "search", "query": "q"})
    body = frames(stream_events([item], terminal="response.incomplete",
                                final=response_obj("incomplete", [item], usage=usage())))
    parts, stream = read("responses", body)
    assert not [p for p in parts if isinstance(p, ServerToolResult)]
    assert stream.turn.tool_calls[0].result is None and not stream.turn.tool_calls[0].done


def test_the_kindo_captures_server_calls_have_results() -> None:
    parts, _ = read("responses", capture("responses_kindo_agent.sse"))
    final = sdk_final(capture("responses_kindo_agent.sse"))
    by_id = {item.get("id"): item for item in final["output"]}
    results = [p for p in parts if isinstance(p, ServerToolResult)]
    assert [r.id for r in results] == ["ws_01", "kc_01", "mcp_01"]
    assert all(r.result == by_id[r.id] for r in results)


def _significant(parts: list[Part]) -> list[Part]:
    return [p for p in parts if isinstance(p, Citation | ServerToolResult)]


@settings(max_examples=examples(10, thorough=60), suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_split_gives_the_same_citations_and_results(data: st.DataObject) -> None:
    body = _bodies()[data.draw(st.sampled_from(sorted(_bodies())))]
    whole, whole_stream = read("responses", body)
    cuts = data.draw(st.lists(st.integers(0, len(body)), max_size=10))
    parts, stream = read("responses", body, cuts)
    assert parts == whole and len(_significant(parts)) == 7
    assert stream.turn.citations == whole_stream.turn.citations
    assert [c.result for c in stream.turn.tool_calls] == [
        c.result for c in whole_stream.turn.tool_calls]
