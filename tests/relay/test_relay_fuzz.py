"""Whatever the upstream sends, the relay writes a stream its target reads without a protocol error.

The upstream bytes are bundled captures with garbage spliced in, parts cut
out, or frames of the wrong lane; the relay must not raise (an upstream that
cannot be read is a failure, reported in the stream), and the target's own
lane must read every byte it wrote, in strict mode, to a verdict: a clean one
only when the source's was clean (and, on Messages, every tool call's input
could be written: tests/messages/test_messages_emit.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from sse_engine import FORMATS, Lane, Outcome, ResponsesLane
from sse_engine.relay import Relay

CAPTURES_DIR = Path(__file__).resolve().parents[2] / "sse_engine" / "captures"
CAPTURES = {path.name: path.read_bytes() for path in sorted(CAPTURES_DIR.glob("*.sse"))}
LANES: dict[str, type[Lane[Any]]] = {name: row.lane for name, row in FORMATS.items()}
TARGETS: tuple[str, ...] = tuple(FORMATS)
GARBAGE = st.one_of(
    st.binary(max_size=40),
    st.sampled_from(
        [
            b"data: {not json\n\n",
            b"data: [DONE]\n\n",
            b": keepalive\n",
            b"\n\n",
            b'event: error\ndata: {"error":{"message":"boom"}}\n\n',
            b"data: 42\n\n",
            b'data: {"choices":"x"}\n\n',
            b'event: message_stop\ndata: {"type":"message_stop"}\n\n',
            b'event: response.completed\ndata: {"type":"response.completed"}\n\n',
            b'data: {"candidates": "x"}\r\n\r\n',
            b'data: {"candidates": [{"finishReason": "STOP"}]}\r\n\r\n',
            b'data: {"error": {"code": 503, "message": "down", "status": "UNAVAILABLE"}}\r\n\r\n',
            b"\xff\xfe",
        ]
    ),
)


@st.composite
def upstreams(draw: st.DrawFn) -> tuple[str, bytes]:
    """A capture, mutated: garbage spliced in, or a slice cut out; and the lane to read it."""
    name = draw(st.sampled_from(sorted(CAPTURES)))
    data = CAPTURES[name]
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(data)))
        if draw(st.booleans()):
            data = data[:at] + draw(GARBAGE) + data[at:]
        else:
            data = data[:at] + data[at + draw(st.integers(1, 200)) :]
    lane = (
        draw(st.sampled_from(sorted(LANES)))
        if draw(st.integers(0, 4)) == 0
        else (name.split("_")[0].removesuffix(".sse"))
    )
    return LANES.get(lane, ResponsesLane).__name__, data


@pytest.mark.parametrize("target", TARGETS)
@settings(
    max_examples=examples(5, thorough=120),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(upstream=upstreams(), read=st.integers(1, 600))
def test_any_upstream_is_relayed_as_a_stream_the_target_reads(
    target: str, upstream: tuple[str, bytes], read: int
) -> None:
    lane_name, data = upstream
    source = {cls.__name__: cls for cls in LANES.values()}[lane_name]()
    relay = Relay(source, to=target)
    out = b"".join(relay.feed(data[i : i + read]) for i in range(0, len(data), read))
    out += relay.close()
    assert relay.outcome is not None
    back = LANES[target](strict=True)
    back.feed(out)
    back.close()
    unwritable = target == "messages" and any(
        call.input_error for call in relay.turn.tool_calls if not call.server
    )  # a call whose input is not JSON: Messages cannot carry it, and says so in an error
    if relay.outcome in (Outcome.FAILED, Outcome.TRUNCATED) or unwritable:
        assert back.outcome is Outcome.FAILED
    else:
        assert back.outcome in (Outcome.COMPLETED, Outcome.INCOMPLETE)
