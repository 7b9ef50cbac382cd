"""The relay's fast paths write exactly what the general routing writes.

Three of them: the relay writes a text, reasoning or refusal delta that
continues its choice's open block with no part made (``PartStream.write_text_with``,
``Emitter.write_live``), it keeps a usage report that comes before a read's
parts with no part made (``Emitter.take_usage``: a Gemini chunk brings one
with every delta), and ``Emitter.emit`` sends a delta's part straight to the
target's ``block_delta``; every other part goes through the routing table.
The property: for every source and target, over generated turns and the
bundled captures cut into any reads, default and lean, the relay's bytes are
the same with the fast paths as with every delta and usage report made a part
and every part routed. Also over streams one step from those (a frame
dropped, doubled or replaced by a malformed one, a keepalive comment, a cut
anywhere, text with a lone surrogate, Chat choices interleaved) and over a
Responses upstream resumed mid-stream; and the verdict, error, warnings and
turn are the same too. A target whose delta frame is its template filled
(``Block.fills``) is written by the emitter itself, never by its
``block_delta``: the general path writes every delta through ``block_delta``,
so the same bytes say the two agree.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from wire_turns import ALL_LANES, TurnSpec, render, turn_specs

from sse_engine import (
    FORMATS,
    ChatCompletionsLane,
    Lane,
    ResponsesLane,
    encode_chat_event,
    encode_gemini_event,
)
from sse_engine.relay import Emitter, Relay, _emitter

CAPTURES = {p.name: p.read_bytes()
            for p in sorted((Path(__file__).resolve().parents[2] / "sse_engine" / "captures")
                            .glob("*.sse"))}
TARGETS: tuple[str, ...] = tuple(FORMATS)
LANES: dict[str, type[Lane[Any]]] = {name: row.lane for name, row in FORMATS.items()}


@contextmanager
def general_path() -> Iterator[None]:
    """Every delta and usage report made a part, and every part through the routing
    table: the relay's writer of deltas refuses them all, it has no taker of usage
    reports, and the emitter's fast path's table is emptied."""
    with mock.patch.dict(_emitter._TEXT_KINDS, clear=True), \
            mock.patch.object(_emitter.Emitter, "write_live", _refuse), \
            mock.patch.object(_emitter.Emitter, "take_usage", None):
        yield


def _refuse(self: Any, kind: str, text: str, choice: int) -> bool:
    return False


def relayed(lane: type[Lane[Any]], target: str, data: bytes, read: int, lean: bool) -> bytes:
    relay = Relay(lane(), to=target, lean=lean, created=1700000000)
    out = [relay.feed(data[i : i + read]) for i in range(0, len(data), read)]
    out.append(relay.close())
    return b"".join(out)


def observed(
    lane: type[Lane[Any]], target: str, data: bytes, reads: list[int], lean: bool
) -> tuple[Any, ...]:
    """What a client and a gateway see of ``data`` relayed in reads cut at ``reads``: the
    bytes (and what the relay raised, if it did), the verdict, error, warnings and turn."""
    relay = Relay(lane(), to=target, lean=lean, created=1700000000)
    bounds = [0, *sorted(r % (len(data) + 1) for r in reads), len(data)]
    out: list[bytes] = []
    try:
        out += [relay.feed(data[a:b]) for a, b in itertools.pairwise(bounds)]
        out.append(relay.close())
    except Exception as exc:  # the same exception either way (the fuzz tests say which)
        out.append(repr(exc).encode())
    turn = relay.turn
    return (b"".join(out), relay.outcome, relay.error, relay.warnings, turn.text,
            turn.reasoning, turn.refusal, turn.tool_calls, turn.finish_reason, turn.usage)


def check(lane: type[Lane[Any]], data: bytes, read: int, lean: bool) -> None:
    for target in TARGETS:
        fast = relayed(lane, target, data, read, lean)
        with general_path():
            general = relayed(lane, target, data, read, lean)
        assert fast == general, target


def check_all(lane: type[Lane[Any]], data: bytes, reads: list[int], lean: bool) -> None:
    for target in TARGETS:
        fast = observed(lane, target, data, reads, lean)
        with general_path():
            general = observed(lane, target, data, reads, lean)
        assert fast == general, target


@settings(
    max_examples=examples(6, thorough=60), deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(spec=turn_specs(), source=st.sampled_from(sorted(ALL_LANES)), read=st.integers(1, 400),
       lean=st.booleans())
def test_generated_turns_relay_the_same_bytes_by_either_path(
    spec: TurnSpec, source: str, read: int, lean: bool,
) -> None:
    check(ALL_LANES[source], render(source, spec), read, lean)


@settings(
    max_examples=examples(8, thorough=40), deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(name=st.sampled_from(sorted(CAPTURES)), read=st.integers(1, 300), lean=st.booleans())
def test_captures_relay_the_same_bytes_by_either_path(name: str, read: int, lean: bool) -> None:
    lane = LANES.get(name.split("_", 1)[0], ResponsesLane)  # sample.sse is a Responses stream
    check(lane, CAPTURES[name], read, lean)


def test_the_general_path_is_really_taken() -> None:
    """The switch works: with the table emptied, no delta reaches the fast path."""
    data = CAPTURES["messages_thinking.sse"]
    calls: list[Any] = []
    original = _emitter.Emitter._on_reasoning

    def counted(self: Any, part: Any, out: list[bytes]) -> None:
        calls.append(part)
        original(self, part, out)

    with mock.patch.dict(_emitter._ROUTES, {_emitter.ReasoningDelta: counted}):
        relayed(LANES["messages"], "chat", data, 64, False)
        fast_calls = len(calls)
        with general_path():
            relayed(LANES["messages"], "chat", data, 64, False)
    assert len(calls) - fast_calls > fast_calls


def test_the_relay_writes_most_deltas_without_a_part() -> None:
    """The switch is not idle: most deltas of a long text never become a part."""
    data = CAPTURES["messages_basic.sse"]
    written: list[bool] = []
    original = _emitter.Emitter.write_live

    def counted(self: Any, kind: str, text: str, choice: int) -> bool:
        written.append(original(self, kind, text, choice))
        return written[-1]

    with mock.patch.object(_emitter.Emitter, "write_live", counted):
        relayed(LANES["messages"], "responses", data, 64, False)
    assert written.count(True) > written.count(False) >= 1


def test_the_relay_keeps_most_gemini_usage_reports_without_a_part() -> None:
    """The usage switch is not idle either: a Gemini chunk's usage, reported before any
    part of its read, is taken by the emitter with no part; the general path makes every
    report a part."""
    data = b"".join(
        b"data: " + json.dumps({
            "candidates": [{"content": {"parts": [{"text": f"word {n} "}], "role": "model"}}],
            "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": n},
        }).encode() + b"\r\n\r\n"
        for n in range(1, 21)
    )
    chunk_ends = [m.end() for m in re.finditer(rb"\r\n\r\n", data)]  # a chunk per read
    taken: list[Any] = []
    routed: list[Any] = []
    original_take, original_route = _emitter.Emitter.take_usage, _emitter.Emitter._on_usage

    def take(self: Any, usage: Any) -> None:
        taken.append(usage)
        original_take(self, usage)

    def route(self: Any, part: Any, out: list[bytes]) -> None:
        routed.append(part)
        original_route(self, part, out)

    with mock.patch.object(_emitter.Emitter, "take_usage", take), \
            mock.patch.dict(_emitter._ROUTES, {_emitter.UsageUpdate: route}):
        fast = observed(LANES["gemini"], "messages", data, chunk_ends, False)
        # The first chunk's text opens the block (a part): its read's usage comes after it.
        assert (len(taken), len(routed)) == (19, 1)
        taken.clear()
        routed.clear()
        with general_path():
            general = observed(LANES["gemini"], "messages", data, chunk_ends, False)
        assert (len(taken), len(routed)) == (0, 20)
    assert fast == general



@st.composite
def gemini_usage_streams(draw: st.DrawFn) -> bytes:
    """Gemini chunks whose usage comes in any pattern: in every chunk or some, its counts
    grown, repeated or (a wire object with more in it) the same, beside text, thinking
    or a call (a part before it in the read), for one candidate or two."""
    chunks: list[bytes] = []
    output = 0
    for n in range(draw(st.integers(1, 12))):
        candidates = []
        for index in range(draw(st.sampled_from([1, 1, 1, 2]))):
            kind = draw(st.sampled_from(["text", "text", "thought", "call", "none"]))
            part: dict[str, Any] = (
                {"text": draw(st.text(max_size=6))} if kind == "text"
                else {"text": draw(st.text(max_size=6)), "thought": True} if kind == "thought"
                else {"functionCall": {"name": "f", "args": {"n": n}}} if kind == "call"
                else {}
            )
            candidate: dict[str, Any] = {"index": index}
            if part:
                candidate["content"] = {"parts": [part], "role": "model"}
            candidates.append(candidate)
        payload: dict[str, Any] = {"candidates": candidates, "modelVersion": "gemini-x"}
        if draw(st.integers(0, 4)):  # most chunks report usage
            output += draw(st.sampled_from([0, 0, 1, 3]))  # repeated counts too
            usage: dict[str, Any] = {"promptTokenCount": 7, "candidatesTokenCount": output,
                                     "totalTokenCount": 7 + output}
            if draw(st.booleans()):
                usage["trafficType"] = draw(st.sampled_from(["ON_DEMAND", "PROVISIONED"]))
            payload["usageMetadata"] = usage
        chunks.append(encode_gemini_event(payload))
    if draw(st.booleans()):  # a clean end; or cut short: truncated
        chunks.append(encode_gemini_event({"candidates": [
            {"index": 0, "finishReason": "STOP", "content": {"parts": [{"text": ""}]}}],
            "usageMetadata": {"promptTokenCount": 7, "candidatesTokenCount": output + 1}}))
    return b"".join(chunks)


@settings(
    max_examples=examples(80, thorough=400), deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=gemini_usage_streams(), reads=st.lists(st.integers(0), max_size=8),
       lean=st.booleans())
def test_gemini_usage_in_any_pattern_relays_the_same_by_either_path(
    data: bytes, reads: list[int], lean: bool
) -> None:
    """A usage report the relay takes is counted only when written or read (its counts
    are left to the format's reader until then): the bytes, verdict and turn, its usage
    included, are those of every report made a part and compared as it came."""
    check_all(LANES["gemini"], data, reads, lean)


# -- one step from a well-formed stream --------------------------------------------------------

#: Frames no lane reads as the one it was (JSON cut short, not JSON, a wrong type, an error).
_MALFORMED = [
    b'data: {"type":\n\n',
    b"data: not json\n\n",
    b"data: []\n\n",
    b'data: {"choices": 3, "type": 3, "candidates": 3}\n\n',
    b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
    b'"delta":{"type":"text_delta","text":3}}\n\n',
    b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error",'
    b'"message":"busy"}}\n\n',
    b"\xff\xfe\n\n",
]
_SURROGATES = st.sampled_from(["\ud800", "\udfff", "a\ud83d", "\udc00b"])
#: Text with a lone surrogate now and then (no UTF-8 form: JSON's escapes carry it).
_TEXTS = st.lists(st.text(min_size=1, max_size=8) | _SURROGATES, max_size=5)


@st.composite
def near_turns(draw: st.DrawFn) -> tuple[str, bytes]:
    """A generated turn (its text perhaps with lone surrogates), rendered, then changed
    by a few steps: a frame dropped, doubled, or replaced by a malformed one, a keepalive
    comment put in, the stream cut short."""
    spec = draw(turn_specs())
    if draw(st.booleans()):
        spec = dataclasses.replace(spec, text=tuple(draw(_TEXTS)),
                                   reasoning=tuple(draw(_TEXTS)))
    source = draw(st.sampled_from(sorted(ALL_LANES)))
    frames = [f + b"\n\n" for f in render(source, spec).split(b"\n\n") if f.strip()]
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(frames)))
        step = draw(st.sampled_from(["drop", "double", "malformed", "comment"]))
        if step == "comment":
            frames.insert(at, b": keepalive\n\n")
        elif step == "malformed":
            frames[at:at + 1] = [draw(st.sampled_from(_MALFORMED))]
        elif at < len(frames):
            frames[at:at + 1] = [] if step == "drop" else [frames[at]] * 2
    data = b"".join(frames)
    if draw(st.booleans()):
        data = data[: draw(st.integers(0, len(data)))]
    return source, data


_READS = st.lists(st.integers(0, 10**6), max_size=12)


@settings(max_examples=examples(9, thorough=300), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(case=near_turns(), reads=_READS, lean=st.booleans())
def test_streams_one_step_from_a_turn_relay_the_same_by_either_path(
    case: tuple[str, bytes], reads: list[int], lean: bool,
) -> None:
    source, data = case
    check_all(ALL_LANES[source], data, reads, lean)


def _chunk(choice: int, delta: dict[str, Any], **more: Any) -> bytes:
    return encode_chat_event({"id": "c1", "object": "chat.completion.chunk", "created": 1,
                              "model": "m", "choices": [{"index": choice, "delta": delta,
                                                         **more}]})


_FIELDS = ["content", "reasoning_content", "refusal"]


@settings(max_examples=examples(20, thorough=300), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(
    deltas=st.lists(st.tuples(st.integers(0, 2), st.sampled_from(_FIELDS),
                              st.text(max_size=6) | _SURROGATES), max_size=25),
    roles=st.booleans(), finished=st.booleans(), reads=_READS, lean=st.booleans(),
)
@example(deltas=[(1, "content", "a"), (0, "content", "b"), (1, "content", "c")],
         roles=False, finished=True, reads=[], lean=False)
def test_interleaved_chat_choices_relay_the_same_by_either_path(
    deltas: list[tuple[int, str, str]], roles: bool, finished: bool, reads: list[int],
    lean: bool,
) -> None:
    """Several choices, each with its own open block (and a first delta that says its role,
    for a Chat target), in any order."""
    frames = [_chunk(c, {"role": "assistant"}) for c in range(3)] if roles else []
    frames += [_chunk(choice, {field: text}) for choice, field, text in deltas]
    if finished:
        frames += [_chunk(c, {}, finish_reason="stop") for c in range(3)]
        frames.append(b"data: [DONE]\n\n")
    check_all(ChatCompletionsLane, b"".join(frames), reads, lean)


def _events_of(data: bytes) -> list[bytes]:
    return [e + b"\n\n" for e in data.split(b"\n\n") if e.strip()]


def resumed(target: str, data: bytes, cut: int, replay: bool, lean: bool) -> bytes | None:
    """``data`` relayed, cut at ``cut`` and resumed (from the start, for ``replay``)."""
    relay = Relay(ResponsesLane(), to=target, lean=lean)
    out = relay.feed(data[: cut % len(data)])
    plan = relay.resume_plan()
    if plan is None:
        return None
    out += relay.resume()
    rest = b"".join(
        e for e in _events_of(data)
        if replay or json.loads(e.split(b"data: ", 1)[1])["sequence_number"]
        > plan.starting_after
    )
    # The rest in small reads: most deltas after the seam are read one by one.
    return out + b"".join(relay.feed(rest[i:i + 97]) for i in range(0, len(rest), 97)) \
        + relay.close()


@settings(max_examples=examples(8, thorough=100), deadline=None)
@given(name=st.sampled_from(["responses_basic.sse", "responses_reasoning.sse"]),
       cut=st.integers(0, 10_000), replay=st.booleans(), lean=st.booleans())
def test_a_resumed_upstream_relays_the_same_by_either_path(
    name: str, cut: int, replay: bool, lean: bool
) -> None:
    """A replay from the start is checked part by part (no delta is written without a
    part once it began): the bytes are the general path's."""
    data = CAPTURES[name]
    if replay:  # agent runs replay from the start
        data = data.replace(b"resp_", b"resp_run_")
    for target in TARGETS:
        fast = resumed(target, data, cut, replay, lean)
        with general_path():
            general = resumed(target, data, cut, replay, lean)
        assert fast == general, target


def test_a_filled_delta_never_calls_the_targets_block_delta() -> None:
    """The switch is not idle: a target whose deltas are its template filled (Responses':
    numbered too, ``Block.numbered``) writes a long text's deltas without its
    ``block_delta``; the general path writes each through it."""
    frames = [b'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1",'
              b'"type":"message","role":"assistant","model":"m","content":[],'
              b'"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,'
              b'"output_tokens":1}}}\n\n',
              b'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
              b'"content_block":{"type":"text","text":""}}\n\n']
    frames += [b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
               b'"delta":{"type":"text_delta","text":"word %d "}}\n\n' % n for n in range(50)]
    data = b"".join(frames)
    for target in ("chat", "messages", "gemini", "responses"):
        emitter: type[Emitter] = FORMATS[target].emitter
        calls: list[str] = []
        original = emitter.block_delta

        def counted(self: Any, block: Any, text: str, out: list[bytes],
                    original: Any = original, calls: list[str] = calls) -> None:
            calls.append(text)
            original(self, block, text, out)

        with mock.patch.object(emitter, "block_delta", counted):
            relayed(LANES["messages"], target, data, 64, False)
            fast = len(calls)
            with general_path():
                relayed(LANES["messages"], target, data, 64, False)
        assert len(calls) - fast == 50 and fast <= 1, (target, fast)  # Chat: the role's delta
