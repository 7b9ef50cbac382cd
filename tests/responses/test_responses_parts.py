"""The Responses events as parts (``responses/_parts.py``): texts, final texts, calls, items.

The translator shows each delta as it comes and takes its texts from the
lane's items: ``Turn.text`` and ``Turn.refusal`` are the snapshot's
whatever the deltas, ``.done`` events, final items and terminal response
said (a contradiction: a ``text_replaced`` warning, the parts staying what
was shown). Events about an item before its ``output_item.added`` give the
same parts however the bytes are split, and one call per call item.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from sse_engine import Outcome, ResponsesLane, encode_responses_event
from sse_engine.parts import (
    Finish,
    MessageItemStart,
    Part,
    PartStream,
    ReasoningDelta,
    RefusalDelta,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)
from sse_engine.responses import ResponseSnapshot
from sse_engine.responses._wire import CALL_ITEMS

CAPTURES = Path(__file__).resolve().parents[2] / "sse_engine" / "captures"
RESPONSES_CAPTURES = sorted(
    p.name for p in CAPTURES.iterdir() if p.name.startswith("responses_") and p.suffix == ".sse"
)


def capture(name: str) -> bytes:
    return (CAPTURES / name).read_bytes()


def everything(stream: PartStream, data: bytes) -> list[Part]:
    return stream.feed(data) + stream.close()


def run(data: bytes, cuts: list[int] | None = None) -> tuple[list[Part], PartStream]:
    """Feed ``data`` cut at ``cuts`` (whole without), close; the parts and the stream."""
    stream = PartStream(ResponsesLane())
    bounds = [0, *sorted(cuts or []), len(data)]
    parts: list[Part] = []
    for a, b in itertools.pairwise(bounds):
        parts += stream.feed(data[a:b])
    return parts + stream.close(), stream


def payloads_of(body: bytes) -> list[dict[str, Any]]:
    """The JSON payloads of ``body``'s whole events (a cut capture's last one is left out)."""
    payloads = []
    for line in body.splitlines():
        if line.startswith(b"data: "):
            try:
                payloads.append(json.loads(line[6:]))
            except ValueError:
                continue
    return payloads


def body_of(payloads: list[dict[str, Any]]) -> bytes:
    """The payloads as a stream, numbered in their order."""
    numbered = [{**p, "sequence_number": n} for n, p in enumerate(payloads)]
    return b"".join(encode_responses_event(p) for p in numbered)


def refusal_of(snapshot: ResponseSnapshot) -> str:
    return "".join(item.refusal or "" for item in snapshot.items if item.type == "message")


def codes(stream: PartStream) -> list[str]:
    return [w.code for w in stream.warnings]


# -- calls, reasoning and final items ---------------------------------------------------------


def test_responses_custom_tool_input_is_plain_text() -> None:
    stream = PartStream(ResponsesLane())
    parts = everything(stream, capture("responses_kindo_agent.sse"))
    custom = next(c for c in stream.turn.tool_calls if c.type == "custom_tool_call")
    assert custom.input == custom.arguments == "Incident 2731 mitigated; p99 back to 412 ms."
    assert not custom.server and custom.id == "call_ctc_01"
    servers = {c.type for c in stream.turn.tool_calls if c.server}
    assert servers == {"web_search_call", "mcp_call", "kindo_call"}
    kindo = next(c for c in stream.turn.tool_calls if c.type == "kindo_call")
    assert kindo.input == {"incident_id": 2731, "fields": ["status", "owner"]}
    assert not any(isinstance(p, ToolCallEnd) and p.input_error for p in parts)


def test_responses_reasoning_delivered_as_one_final_item_is_streamed_then() -> None:
    """MindsHub sends reasoning as a finished item, without deltas."""
    payloads = [p for p in payloads_of(capture("responses_reasoning.sse"))
                if "reasoning_summary" not in p["type"]]
    stream = PartStream(ResponsesLane())
    everything(stream, body_of(payloads))
    full = PartStream(ResponsesLane())
    everything(full, capture("responses_reasoning.sse"))
    assert stream.turn.reasoning == full.turn.reasoning != ""
    assert stream.turn == full.turn


def test_responses_final_items_only_assemble_the_same_turn() -> None:
    """What a resume past its window, or a gateway that does not stream, sends."""
    payloads = [p for p in payloads_of(capture("responses_basic.sse"))
                if p["type"] in ("response.created", "response.output_item.done",
                                 "response.completed")]
    finals = PartStream(ResponsesLane())
    everything(finals, body_of(payloads))
    only_terminal = PartStream(ResponsesLane())
    everything(only_terminal, body_of([payloads[0], payloads[-1]]))
    streamed = PartStream(ResponsesLane())
    everything(streamed, capture("responses_basic.sse"))
    assert finals.turn == streamed.turn == only_terminal.turn


def test_a_final_arguments_text_that_adds_to_the_fragments_is_streamed() -> None:
    stream = PartStream(ResponsesLane())
    payloads = [
        {"type": "response.output_item.added", "output_index": 0,
         "item": {"id": "fc", "type": "function_call", "call_id": "c", "name": "f",
                  "arguments": ""}},
        {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": '{"a"'},
        {"type": "response.output_item.done", "output_index": 0,
         "item": {"id": "fc", "type": "function_call", "call_id": "c", "name": "f",
                  "arguments": '{"a": 2}'}},
        {"type": "response.completed", "response": {"status": "completed"}},
    ]
    parts = everything(stream, body_of(payloads))
    deltas = [p.text for p in parts if isinstance(p, ToolCallDelta)]
    assert deltas == ['{"a"', ": 2}"]
    assert stream.turn.tool_calls[0].input == {"a": 2}


def test_a_responses_call_the_response_did_not_finish_gets_no_end() -> None:
    """response.failed lists what was produced before the failure, marked incomplete."""
    item = {"id": "fc", "type": "function_call", "call_id": "c", "name": "f", "arguments": ""}
    payloads = [
        {"type": "response.created", "response": {"id": "r", "status": "in_progress"}},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": '{"a'},
        {"type": "response.failed", "response": {
            "id": "r", "status": "failed", "error": {"code": "server_error", "message": "x"},
            "output": [{**item, "arguments": '{"a": 1', "status": "incomplete"}]}},
    ]
    stream = PartStream(ResponsesLane())
    parts = everything(stream, body_of(payloads))
    assert [type(p) for p in parts] == [ToolCallStart, ToolCallDelta, ToolCallDelta, Finish]
    call = stream.turn.tool_calls[0]
    assert not call.done and call.arguments == '{"a": 1' and call.input == {"a": 1}
    assert isinstance(parts[-1], Finish) and parts[-1].reason == "error"


# -- item ids: MessageItemStart and ToolCallStart.item_id ---------------------------------


def parts_of(data: bytes) -> list[Part]:
    stream = PartStream(ResponsesLane())
    return stream.feed(data) + stream.close()


def added_items(data: bytes) -> list[dict[str, Any]]:
    """The items the capture's ``output_item.added`` events open, in order."""
    items = []
    for line in data.decode().splitlines():
        if line.startswith("data:") and '"response.output_item.added"' in line:
            items.append(json.loads(line[5:])["item"])
    return items


@pytest.mark.parametrize("name", ["responses_basic.sse", "responses_kindo_agent.sse",
                                  "responses_refusal.sse", "responses_truncated.sse"])
def test_each_responses_item_id_is_in_the_part_that_opens_it(name: str) -> None:
    data = capture(name)
    parts = parts_of(data)
    items = added_items(data)
    assert [p.id for p in parts if isinstance(p, MessageItemStart)] == [
        i["id"] for i in items if i["type"] == "message"]
    calls = [p for p in parts if isinstance(p, ToolCallStart)]
    client = [i for i in items if i["type"] in ("function_call", "custom_tool_call")
              or (i["type"] == "shell_call" and i.get("environment") is None)]
    assert [(p.id, p.item_id) for p in calls if p.call is not None and not p.call.server] == [
        (i["call_id"], i["id"]) for i in client]


def test_a_message_item_opens_before_its_text() -> None:
    parts = parts_of(capture("responses_basic.sse"))
    kinds = [type(p) for p in parts]
    assert kinds.index(MessageItemStart) < kinds.index(TextDelta)


def frames(*payloads: dict[str, Any]) -> bytes:
    return body_of(list(payloads))


def response(status: str, output: list[Any]) -> dict[str, Any]:
    return {"id": "resp_1", "object": "response", "created_at": 1, "status": status,
            "model": "m", "output": output}


MESSAGE = {"id": "msg_9", "type": "message", "role": "assistant", "status": "completed",
           "content": [{"type": "output_text", "text": "Hi.", "annotations": []}]}


def test_a_message_item_only_the_final_response_holds_is_told_once_before_its_text() -> None:
    data = frames({"type": "response.created", "response": response("in_progress", [])},
                  {"type": "response.completed", "response": response("completed", [MESSAGE])})
    parts = parts_of(data)
    told = [(type(p), getattr(p, "id", None) or getattr(p, "text", None))
            for p in parts if isinstance(p, MessageItemStart | TextDelta)]
    assert told == [(MessageItemStart, "msg_9"), (TextDelta, "Hi.")]


def test_a_message_item_announced_and_done_is_told_once() -> None:
    opened = {**MESSAGE, "status": "in_progress", "content": []}
    data = frames({"type": "response.created", "response": response("in_progress", [])},
                  {"type": "response.output_item.added", "output_index": 0, "item": opened},
                  {"type": "response.output_item.done", "output_index": 0, "item": MESSAGE},
                  {"type": "response.completed", "response": response("completed", [MESSAGE])})
    parts = parts_of(data)
    assert [p.id for p in parts if isinstance(p, MessageItemStart)] == ["msg_9"]


# -- final texts -----------------------------------------------------------------------------

WHERE = {"item_id": "m", "output_index": 0, "content_index": 0}
OPENED = {"id": "m", "type": "message", "role": "assistant", "content": []}


def test_a_final_text_that_contradicts_the_deltas_is_the_turns_with_a_warning() -> None:
    payloads = [
        {"type": "response.created", "response": {"id": "r", "model": "x"}},
        {"type": "response.output_item.added", "output_index": 0, "item": OPENED},
        {"type": "response.output_text.delta", **WHERE, "delta": "Hello"},
        {"type": "response.output_text.done", **WHERE, "text": "Goodbye"},
        {"type": "response.completed", "response": {"id": "r", "status": "completed"}},
    ]
    parts, stream = run(body_of(payloads))
    assert [p.text for p in parts if isinstance(p, TextDelta)] == ["Hello"]  # what was shown
    assert stream.turn.text == "Goodbye" == stream.lane.snapshot.output_text
    [warning] = [w for w in stream.warnings if w.code == "text_replaced"]
    assert "'Goodbye'" in warning.message and "'Hello'" in warning.message


def test_a_final_text_that_says_more_is_shown_as_one_more_delta() -> None:
    payloads = [
        {"type": "response.output_item.added", "output_index": 0, "item": OPENED},
        {"type": "response.output_text.delta", **WHERE, "delta": "Hel"},
        {"type": "response.output_text.done", **WHERE, "text": "Hello"},
        {"type": "response.content_part.done", **WHERE,
         "part": {"type": "output_text", "text": "Hello", "annotations": []}},
        {"type": "response.completed", "response": {"status": "completed"}},
    ]
    parts, stream = run(body_of(payloads))
    assert [p.text for p in parts if isinstance(p, TextDelta)] == ["Hel", "lo"]
    assert stream.turn.text == "Hello" and "text_replaced" not in codes(stream)


def test_a_refusal_that_contradicts_its_deltas_is_the_turns_refusal() -> None:
    payloads = [
        {"type": "response.output_item.added", "output_index": 0, "item": OPENED},
        {"type": "response.refusal.delta", **WHERE, "delta": "I can"},
        {"type": "response.refusal.done", **WHERE, "refusal": "Sorry, no."},
        {"type": "response.completed", "response": {"status": "completed"}},
    ]
    parts, stream = run(body_of(payloads))
    assert [p.text for p in parts if isinstance(p, RefusalDelta)] == ["I can"]
    assert stream.turn.refusal == "Sorry, no." == refusal_of(stream.lane.snapshot)
    assert "text_replaced" in codes(stream)


def test_a_contradicted_reasoning_text_keeps_what_was_shown_with_a_warning() -> None:
    ref = {"item_id": "rs", "output_index": 0, "summary_index": 0}
    payloads = [
        {"type": "response.output_item.added", "output_index": 0,
         "item": {"id": "rs", "type": "reasoning", "summary": []}},
        {"type": "response.reasoning_summary_text.delta", **ref, "delta": "Think"},
        {"type": "response.reasoning_summary_text.done", **ref, "text": "Ponder"},
        {"type": "response.completed", "response": {"status": "completed"}},
    ]
    parts, stream = run(body_of(payloads))
    assert stream.turn.reasoning == "Think"
    assert [p.text for p in parts if isinstance(p, ReasoningDelta)] == ["Think"]
    assert "text_replaced" in codes(stream)


def test_a_final_item_without_a_part_that_streamed_takes_its_text_away() -> None:
    payloads = [
        {"type": "response.output_item.added", "output_index": 0, "item": OPENED},
        {"type": "response.output_text.delta", **WHERE, "delta": "draft"},
        {"type": "response.output_item.done", "output_index": 0, "item": {**OPENED}},
        {"type": "response.completed", "response": {"status": "completed"}},
    ]
    _, stream = run(body_of(payloads))
    assert stream.turn.text == "" == stream.lane.snapshot.output_text
    assert "text_replaced" in codes(stream)


def test_a_final_part_without_its_text_keeps_the_text_shown() -> None:
    payloads = [
        {"type": "response.output_item.added", "output_index": 0, "item": OPENED},
        {"type": "response.output_text.delta", **WHERE, "delta": "kept"},
        {"type": "response.content_part.done", **WHERE, "part": {"type": "output_text"}},
        {"type": "response.completed", "response": {"status": "completed"}},
    ]
    _, stream = run(body_of(payloads))
    assert stream.turn.text == "kept" == stream.lane.snapshot.output_text
    assert "text_replaced" not in codes(stream)


def test_a_late_final_for_an_earlier_part_replaces_instead_of_appending() -> None:
    two = {"item_id": "m", "output_index": 0}
    payloads = [
        {"type": "response.output_item.added", "output_index": 0, "item": OPENED},
        {"type": "response.output_text.delta", **two, "content_index": 0, "delta": "A"},
        {"type": "response.output_text.delta", **two, "content_index": 1, "delta": "B"},
        {"type": "response.output_text.done", **two, "content_index": 0, "text": "AA"},
        {"type": "response.completed", "response": {"status": "completed"}},
    ]
    parts, stream = run(body_of(payloads))
    assert [p.text for p in parts if isinstance(p, TextDelta)] == ["A", "B"]
    assert stream.turn.text == "AAB" == stream.lane.snapshot.output_text


# -- the invariant: the turn's texts are the snapshot's ---------------------------------------

_TEXT = st.text(alphabet="abcé ", min_size=0, max_size=8)


@st.composite
def part_script(draw: st.DrawFn) -> dict[str, Any]:
    """One content part: what its deltas say, and what each final form says about it."""
    deltas = draw(st.lists(_TEXT.filter(bool), max_size=4))
    streamed = "".join(deltas)
    final = draw(st.one_of(
        st.just(streamed),  # the same
        st.builds(lambda more: streamed + more, _TEXT),  # says more
        _TEXT,  # anything: a contradiction, or a prefix
        st.just(streamed[: len(streamed) // 2]),  # says less
    ))
    return {
        "kind": draw(st.sampled_from(["output_text", "output_text", "refusal"])),
        "deltas": deltas,
        "final": final,
        "text_done": draw(st.booleans()),
        "part_done": draw(st.sampled_from(["no", "text", "without text"])),
    }


@st.composite
def stream_script(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[int]]:
    """A response of message items, each part streamed or not, finished or not, then a terminal."""
    items = draw(st.lists(st.lists(part_script(), min_size=1, max_size=2), max_size=3))
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": "r", "status": "in_progress"}}]
    output = []
    for index, parts in enumerate(items):
        ident = f"msg_{index}"
        ref = {"item_id": ident, "output_index": index}
        final_item = {"id": ident, "type": "message", "role": "assistant", "status": "completed",
                      "content": [_final_part(p) for p in parts]}
        output.append(final_item)
        if draw(st.booleans()):  # streamed (else: only the final item or the terminal has it)
            events.append({"type": "response.output_item.added", "output_index": index,
                           "item": {**final_item, "status": "in_progress", "content": []}})
            for position, part in enumerate(parts):
                where = {**ref, "content_index": position}
                delta = "response.refusal.delta" if part["kind"] == "refusal" \
                    else "response.output_text.delta"
                events += [{"type": delta, **where, "delta": d} for d in part["deltas"]]
                if part["text_done"]:
                    kind, field = ("response.refusal.done", "refusal") \
                        if part["kind"] == "refusal" else ("response.output_text.done", "text")
                    events.append({"type": kind, **where, field: part["final"]})
                if part["part_done"] != "no":
                    done = _final_part(part)
                    if part["part_done"] == "without text":
                        done = {"type": done["type"]}
                    events.append({"type": "response.content_part.done", **where, "part": done})
        if draw(st.booleans()):
            events.append({"type": "response.output_item.done", "output_index": index,
                           "item": final_item})
    ending = draw(st.sampled_from(["output", "no output", "none"]))
    if ending != "none":
        final: dict[str, Any] = {"id": "r", "status": "completed"}
        if ending == "output":
            final["output"] = output
        events.append({"type": "response.completed", "response": final})
    body = body_of(events)
    cuts = draw(st.lists(st.integers(0, len(body)), max_size=8))
    return events, cuts


def _final_part(part: dict[str, Any]) -> dict[str, Any]:
    if part["kind"] == "refusal":
        return {"type": "refusal", "refusal": part["final"]}
    return {"type": "output_text", "text": part["final"], "annotations": []}


@settings(
    max_examples=examples(6, thorough=300),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(script=stream_script())
def test_the_turns_text_and_refusal_are_the_snapshots_however_the_finals_disagree(
    script: tuple[list[dict[str, Any]], list[int]],
) -> None:
    """Random deltas against .done texts (prefixes, extensions, contradictions), items done
    without deltas, final items only, the terminal response only, cut anywhere."""
    events, cuts = script
    body = body_of(events)
    parts, stream = run(body, cuts)
    whole, whole_stream = run(body)
    snapshot = stream.lane.snapshot
    assert stream.turn.text == snapshot.output_text
    assert stream.turn.refusal == refusal_of(snapshot)
    assert parts == whole and stream.turn == whole_stream.turn  # however the bytes were cut
    assert [p for p in parts if isinstance(p, Finish)] == [parts[-1]]
    shown = "".join(p.text for p in parts if isinstance(p, TextDelta))
    assert (shown == stream.turn.text) or "text_replaced" in codes(stream)


# -- items referred to before they were announced -------------------------------------------


def _item_of(payload: dict[str, Any]) -> int | None:
    """The output index of an event about one item (its added and done included)."""
    index = payload.get("output_index")
    return index if type(index) is int else None


@st.composite
def late_announcements(draw: st.DrawFn) -> tuple[str, list[dict[str, Any]], list[int]]:
    """A capture whose ``output_item.added`` events come later, among or after their item's."""
    name = draw(st.sampled_from(RESPONSES_CAPTURES))
    payloads = payloads_of(capture(name))
    for added in [p for p in payloads if p["type"] == "response.output_item.added"]:
        if not draw(st.booleans()):
            continue
        index = added["output_index"]
        payloads.remove(added)
        after = [n for n, p in enumerate(payloads) if _item_of(p) == index]
        if after:
            payloads.insert(draw(st.sampled_from(after)) + 1, added)
        else:
            payloads.append(added)
    if draw(st.booleans()):  # some gateways name the item by its id only
        for payload in payloads:
            if "item_id" in payload and payload["type"] != "response.output_item.added":
                payload.pop("output_index", None)
    body = body_of(payloads)
    return name, payloads, draw(st.lists(st.integers(0, len(body)), max_size=12))


def _call_items(payloads: list[dict[str, Any]]) -> set[str]:
    """The ids of the items that are calls of the turn (``CALL_ITEMS``, client or server)."""
    items = [p["item"] for p in payloads if p["type"].startswith("response.output_item")]
    return {i["id"] for i in items if i["type"] in CALL_ITEMS and CALL_ITEMS[i["type"]].is_call(i)}


@settings(
    max_examples=examples(18, thorough=200),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(script=late_announcements())
def test_events_before_their_items_announcement_give_the_same_parts_however_split(
    script: tuple[str, list[dict[str, Any]], list[int]],
) -> None:
    name, payloads, cuts = script
    body = body_of(payloads)
    whole, whole_stream = run(body)
    split, split_stream = run(body, cuts)
    assert split == whole and split_stream.turn == whole_stream.turn
    turn = whole_stream.turn
    starts = [p for p in whole if isinstance(p, ToolCallStart)]
    assert len(starts) == len(turn.tool_calls) == len(_call_items(payloads))
    assert len({p.item_id for p in starts}) == len(starts)  # one call per item
    assert turn.text == whole_stream.lane.snapshot.output_text
    # The same turn as the capture in its own order: nothing is lost or doubled.
    _, ordered = run(capture(name))
    assert (turn.text, turn.reasoning, turn.refusal) == (
        ordered.turn.text, ordered.turn.reasoning, ordered.turn.refusal)
    assert [(c.id, c.name, c.arguments, c.input, c.done) for c in turn.tool_calls] == [
        (c.id, c.name, c.arguments, c.input, c.done) for c in ordered.turn.tool_calls]
    assert whole_stream.outcome is ordered.outcome


def test_arguments_before_their_item_make_one_call_with_its_name_however_split() -> None:
    """Issue 20: function_call_arguments.delta before output_item.added."""
    item = {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "f",
            "arguments": ""}
    ref = {"item_id": "fc_1", "output_index": 0}
    payloads = [
        {"type": "response.function_call_arguments.delta", **ref, "delta": '{"a":'},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.function_call_arguments.delta", **ref, "delta": " 1}"},
        {"type": "response.output_item.done", "output_index": 0,
         "item": {**item, "arguments": '{"a": 1}', "status": "completed"}},
        {"type": "response.completed", "response": {"status": "completed"}},
    ]
    body = body_of(payloads)
    cut = body.index(b"response.output_item.added")
    whole, stream = run(body)
    assert run(body, [cut])[0] == whole
    assert [type(p) for p in whole] == [
        ToolCallStart, ToolCallDelta, ToolCallDelta, type(whole[3]), Finish]
    [call] = stream.turn.tool_calls
    assert (call.id, call.name, call.input, call.done) == ("call_1", "f", {"a": 1}, True)
    assert stream.outcome is Outcome.COMPLETED


def test_text_before_its_item_is_shown_at_once_after_its_opening() -> None:
    """Kindo's example: deltas naming their item by id, no output_item.added at all."""
    payloads = [
        {"type": "response.created", "response": {"id": "r"}},
        {"type": "response.output_text.delta", "item_id": "msg_xyz", "delta": "Logs flow"},
        {"type": "response.output_text.delta", "item_id": "msg_xyz", "delta": " through"},
        {"type": "response.output_text.done", "item_id": "msg_xyz", "text": "Logs flow through."},
        {"type": "response.completed", "response": {"id": "r", "status": "completed"}},
    ]
    parts = PartStream(ResponsesLane()).feed(body_of(payloads)[: body_of(payloads).index(
        b"response.output_text.done")])
    assert parts == [MessageItemStart("msg_xyz"), TextDelta("Logs flow"), TextDelta(" through")]
    parts, stream = run(body_of(payloads))
    assert stream.turn.text == "Logs flow through." == stream.lane.snapshot.output_text


def test_a_call_whose_item_never_comes_is_shown_at_the_end_without_an_end() -> None:
    ref = {"item_id": "fc_1", "output_index": 0}
    payloads = [{"type": "response.function_call_arguments.delta", **ref, "delta": '{"a": 1}'}]
    parts, stream = run(body_of(payloads))
    [call] = stream.turn.tool_calls
    assert (call.id, call.arguments, call.done) == ("fc_1", '{"a": 1}', False)
    assert isinstance(parts[-1], Finish) and parts[-1].reason == "truncated"


# -- built-in tools the client runs ------------------------------------------------------------


def _checked(model: Any, item: dict[str, Any]) -> dict[str, Any]:
    """``item``, once the openai SDK's own type for it accepts it (the oracle of its shape)."""
    model.model_validate(item)
    return item


def _one_item(item: dict[str, Any]) -> tuple[list[Part], PartStream]:
    opening = {**item, "status": "in_progress"}
    return run(body_of([
        {"type": "response.output_item.added", "output_index": 0, "item": opening},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": {"status": "completed"}},
    ]))


def _built_in_items() -> list[tuple[dict[str, Any], str, str]]:
    """Client-run items as the openai SDK types them: (item, tool name, input field)."""
    from openai.types.responses.response_apply_patch_tool_call import ResponseApplyPatchToolCall
    from openai.types.responses.response_function_shell_tool_call import (
        ResponseFunctionShellToolCall,
    )
    from openai.types.responses.response_output_item import LocalShellCall

    action = {"commands": ["ls -la"], "timeout_ms": 1000, "max_output_length": 4096}
    shell = {"id": "sh_1", "type": "shell_call", "call_id": "call_sh", "status": "completed",
             "action": action}
    return [
        (_checked(LocalShellCall, {
            "id": "lsh_1", "type": "local_shell_call", "call_id": "call_lsh",
            "status": "completed",
            "action": {"type": "exec", "command": ["ls"], "env": {"A": "1"}}}),
         "local_shell", "action"),
        (_checked(ResponseFunctionShellToolCall, shell), "shell", "action"),
        (_checked(ResponseFunctionShellToolCall, {**shell, "environment": {"type": "local"}}),
         "shell", "action"),
        (_checked(ResponseApplyPatchToolCall, {
            "id": "ap_1", "type": "apply_patch_call", "call_id": "call_ap",
            "status": "completed",
            "operation": {"type": "update_file", "path": "a.py", "diff": "@@ -1 +1 @@\n-a\n+b"}}),
         "apply_patch", "operation"),
    ]


def test_built_in_tools_the_client_runs_are_tool_calls_of_the_turn() -> None:
    for item, name, field in _built_in_items():
        parts, stream = _one_item(item)
        [call] = stream.turn.tool_calls
        assert (call.id, call.name, call.type) == (item["call_id"], name, item["type"])
        assert call.done and not call.server and call.input == item[field]
        assert json.loads(call.arguments) == item[field] and call.input_error is None
        start = next(p for p in parts if isinstance(p, ToolCallStart))
        assert start.item_id == item["id"]
        assert isinstance(parts[-1], Finish) and parts[-1].reason == "tool_calls"


def test_a_shell_call_in_a_container_is_hosted_and_makes_no_call() -> None:
    from openai.types.responses.response_function_shell_tool_call import (
        ResponseFunctionShellToolCall,
    )

    item = _checked(ResponseFunctionShellToolCall, {
        "id": "sh_1", "type": "shell_call", "call_id": "call_sh", "status": "completed",
        "action": {"commands": ["ls"]},
        "environment": {"type": "container_reference", "container_id": "cntr_1"}})
    parts, stream = _one_item(item)
    assert stream.turn.tool_calls == [] and not any(isinstance(p, ToolCallStart) for p in parts)
    assert isinstance(parts[-1], Finish) and parts[-1].reason == "stop"


def test_the_kindo_captures_shell_call_is_the_clients_with_its_action() -> None:
    """No environment: the client runs it (the openai SDK's ResponseFunctionShellToolCall)."""
    _, stream = run(capture("responses_kindo_agent.sse"))
    shell = next(c for c in stream.turn.tool_calls if c.type == "shell_call")
    assert (shell.id, shell.name, shell.server) == ("call_sh_01", "shell", False)
    assert shell.input == {"commands": ["kubectl get pods -n api",
                                        "kubectl logs deploy/api --tail=20"],
                           "timeout_ms": 10000, "max_output_length": 4096}
    (web,) = [c for c in stream.turn.tool_calls if c.type == "web_search_call"]
    assert web.server and web.name == "web_search"  # the server ran it: nothing to run
