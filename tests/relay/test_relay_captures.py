"""Every bundled capture through every pairing: what the target's SDK and our lane make of it.

For each capture (``sse_engine/captures/*.sse``, read by its own lane) and
each target, the relayed bytes are read by the target's official SDK and by
our own target lane (through a ``PartStream``): the text, reasoning, tool
calls (name, input), usage and finish must be what the source held, and a
source that failed or was cut must end the target with an error.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from relay_oracles import NO_REFUSAL, OBJECT_ARGS, SEEN, WHOLE_CALLS, Seen, finish_word

from sse_engine import FORMATS, Lane, Outcome, ResponsesLane
from sse_engine.parts import PartStream, RefusalDelta, TextDelta, ToolCall, Turn
from sse_engine.relay import Relay

CAPTURES_DIR = Path(__file__).resolve().parents[2] / "sse_engine" / "captures"
CAPTURES = sorted(path.name for path in CAPTURES_DIR.glob("*.sse"))
TARGETS: tuple[str, ...] = tuple(FORMATS)
LANES: dict[str, type[Lane[Any]]] = {
    **{name: row.lane for name, row in FORMATS.items()},
    "sample": ResponsesLane,  # the CLI's sample is a Responses stream
}
BAD = (Outcome.FAILED, Outcome.TRUNCATED)


def capture(name: str) -> bytes:
    return (CAPTURES_DIR / name).read_bytes()


def lane_for(name: str) -> Lane[Any]:
    return LANES[name.split("_")[0].removesuffix(".sse")]()


def source(name: str) -> tuple[PartStream, list[Any]]:
    """The capture read by its own lane, as parts."""
    stream = PartStream(lane_for(name))
    parts = stream.feed(capture(name)) + stream.close()
    return stream, parts


def relay(name: str, target: str, reads: list[bytes] | None = None) -> tuple[Relay, bytes]:
    relayed = Relay(lane_for(name), to=target, created=1754000000)
    out = b"".join(relayed.feed(read) for read in (reads or [capture(name)]))
    return relayed, out + relayed.close()


def client_tools(turn: Turn, target: str = "") -> tuple[tuple[str, Any], ...]:
    """The tool calls a client of the relay is asked to run: those the server did not run
    (of a ``target`` that writes calls whole, those that completed)."""
    return tuple(
        (c.name, _input(c, target) if c.done else None)
        for c in turn.tool_calls
        if not c.server and (c.done or target not in WHOLE_CALLS)
    )


def _input(call: ToolCall, target: str) -> Any:
    return {"input": call.input} if call.plain and target in OBJECT_ARGS else call.input


def expected(name: str, target: str) -> Seen:
    """What a client of the relay should see, from the source's parts."""
    stream, parts = source(name)
    turn = stream.turn
    bad = stream.outcome in BAD
    refusal = turn.refusal
    text = turn.text
    if target in NO_REFUSAL:  # no refusal field: the explanation is text, in stream order
        text = "".join(
            p.text for p in parts if type(p) in (TextDelta, RefusalDelta) and not p.choice
        )
        refusal = ""
    usage = turn.usage
    counts = None if usage is None else (usage.input_tokens or 0, usage.output_tokens or 0)
    if target == "messages" and counts is None:
        counts = (0, 0)
    word = None
    if not bad:
        assert turn.finish_reason is not None
        word = finish_word(turn.finish_reason, stream.outcome, target)
    return Seen(
        text=text,
        refusal=refusal,
        reasoning=turn.reasoning,
        tools=client_tools(turn, target),
        usage=counts,
        finish=word,
        error=turn.error.message if bad and turn.error is not None else None,
    )


def comparable(seen: Seen, want: Seen, target: str, bad: bool) -> Seen:
    """``seen``, less what a failed stream cannot carry to this target."""
    if not bad:
        return seen
    # A call cut short is never closed; the client holds what streamed of it.
    seen = attrs.evolve(seen, tools=tuple((n, None) for n, _ in seen.tools))
    if target != "responses":
        # Chat's error frame and Messages' error event carry no final usage.
        seen = attrs.evolve(seen, usage=want.usage)
    return seen


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", CAPTURES)
def test_the_target_sdk_sees_what_the_source_held(name: str, target: str) -> None:
    stream, _ = source(name)
    bad = stream.outcome in BAD
    want = expected(name, target)
    if bad:
        want = attrs.evolve(want, tools=tuple((n, None) for n, _ in want.tools))
    relayed, body = relay(name, target)
    assert relayed.outcome is stream.outcome
    seen = SEEN[target](body)
    assert comparable(seen, want, target, bad) == want
    if bad:
        assert seen.error is not None and seen.finish is None  # an error, never a clean finish


def target_outcome(stream: PartStream, target: str) -> Outcome:
    """The verdict the relayed stream should carry."""
    if stream.outcome in BAD:
        return Outcome.FAILED  # every bad ending becomes the target's in-stream error
    if FORMATS[target].emitter.many_choices:  # Chat, Gemini: every choice, as the source
        return stream.outcome  # type: ignore[return-value]
    # Responses and Messages carry choice 0: its own reason decides.
    reason = stream.turn.finish_reason
    cut = reason in ("length", "content_filter", "refusal") or (
        reason == "other" and stream.outcome is Outcome.INCOMPLETE
    )
    return Outcome.INCOMPLETE if cut else Outcome.COMPLETED


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", CAPTURES)
def test_our_target_lane_reads_the_same_turn_and_verdict(name: str, target: str) -> None:
    stream, _ = source(name)
    _, body = relay(name, target)
    back = PartStream(LANES[target](strict=True))
    back.feed(body)
    back.close()
    turn, again = stream.turn, back.turn
    assert back.outcome is target_outcome(stream, target)
    ignorable = {"empty_message", "empty_completion"}
    assert {w.code for w in back.warnings} <= ignorable
    assert again.reasoning == turn.reasoning
    if target in NO_REFUSAL:
        assert again.text == expected(name, target).text and again.refusal == ""
    else:
        assert (again.text, again.refusal) == (turn.text, turn.refusal)
    if stream.outcome in BAD:
        assert back.error is not None and turn.error is not None
        assert (back.error.message, back.error.retryable) == (
            turn.error.message,
            turn.error.retryable,
        )
        assert [c.name for c in again.tool_calls] == [n for n, _ in client_tools(turn, target)]
        return
    assert client_tools(again) == client_tools(turn, target)
    if turn.usage is not None:
        assert again.usage is not None
        assert (again.usage.input_tokens, again.usage.output_tokens) == (
            turn.usage.input_tokens,
            turn.usage.output_tokens,
        )


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    bounds = [0, *sorted({c % (len(data) + 1) for c in cuts}), len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


@pytest.mark.parametrize("target", TARGETS)
@settings(max_examples=examples(5, thorough=60), deadline=None)
@given(
    name=st.sampled_from(CAPTURES),
    cuts=st.lists(st.integers(0, 20000), max_size=12),
    small=st.booleans(),
)
def test_the_relayed_stream_does_not_depend_on_how_the_upstream_was_read(
    target: str, name: str, cuts: list[int], small: bool
) -> None:
    data = capture(name)
    whole = relay(name, target)[1]
    reads = [data[i : i + 7] for i in range(0, len(data), 7)] if small else split(data, cuts)
    pieces = relay(name, target, reads)[1]
    # The same bytes, each forwarded keepalive included, where it came upstream.
    assert pieces == whole
