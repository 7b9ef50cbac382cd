"""The relay's fast paths for text deltas write exactly what the general routing writes.

Two of them: the relay writes a text, reasoning or refusal delta that continues
its choice's open block with no part made (``PartStream.write_text_with``,
``Emitter.write_live``), and ``Emitter.emit`` sends such a delta's part
straight to the target's ``block_delta``; every other part goes through the
routing table. The property: for every source and target, over generated
turns and the bundled captures cut into any reads, default and lean, the
relay's bytes are the same with the fast paths as with every delta made a
part and every part routed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from wire_turns import ALL_LANES, TurnSpec, render, turn_specs

from sse_engine import FORMATS, Lane, ResponsesLane
from sse_engine.relay import Relay, _emitter

CAPTURES = {p.name: p.read_bytes()
            for p in sorted((Path(__file__).resolve().parents[2] / "sse_engine" / "captures")
                            .glob("*.sse"))}
TARGETS: tuple[str, ...] = tuple(FORMATS)
LANES: dict[str, type[Lane[Any]]] = {name: row.lane for name, row in FORMATS.items()}


@contextmanager
def general_path() -> Iterator[None]:
    """Every delta made a part, and every part through the routing table: the relay's
    writer of deltas refuses them all, and the emitter's fast path's table is emptied."""
    with mock.patch.dict(_emitter._TEXT_KINDS, clear=True), \
            mock.patch.object(_emitter.Emitter, "write_live", _refuse):
        yield


def _refuse(self: Any, kind: str, text: str, choice: int, out: list[bytes]) -> bool:
    return False


def relayed(lane: type[Lane[Any]], target: str, data: bytes, read: int, lean: bool) -> bytes:
    relay = Relay(lane(), to=target, lean=lean, created=1700000000)
    out = [relay.feed(data[i : i + read]) for i in range(0, len(data), read)]
    out.append(relay.close())
    return b"".join(out)


def check(lane: type[Lane[Any]], data: bytes, read: int, lean: bool) -> None:
    for target in TARGETS:
        fast = relayed(lane, target, data, read, lean)
        with general_path():
            general = relayed(lane, target, data, read, lean)
        assert fast == general, target


@settings(
    max_examples=examples(20, thorough=60), deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(spec=turn_specs(), source=st.sampled_from(sorted(ALL_LANES)), read=st.integers(1, 400),
       lean=st.booleans())
def test_generated_turns_relay_the_same_bytes_by_either_path(
    spec: TurnSpec, source: str, read: int, lean: bool,
) -> None:
    check(ALL_LANES[source], render(source, spec), read, lean)


@settings(
    max_examples=examples(15, thorough=40), deadline=None,
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

    def counted(self: Any, kind: str, text: str, choice: int, out: list[bytes]) -> bool:
        written.append(original(self, kind, text, choice, out))
        return written[-1]

    with mock.patch.object(_emitter.Emitter, "write_live", counted):
        relayed(LANES["messages"], "responses", data, 64, False)
    assert written.count(True) > written.count(False) >= 1
