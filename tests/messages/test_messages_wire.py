"""The Messages vocabulary as data (``messages/_wire.py``): usage read and written.

Anthropic counts a prompt in three parts: ``input_tokens`` (not cached),
``cache_read_input_tokens`` and ``cache_creation_input_tokens``. A
:class:`~sse_engine.Usage` keeps the whole prompt in ``input_tokens`` and says
the cache reads and the cache writes apart, so Messages -> parts -> Messages
gives back the counts the server sent.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from relay_oracles import message_stream

from sse_engine import MessagesLane, PartStream, Usage, encode_messages_event
from sse_engine.messages._wire import usage_from_wire, usage_to_wire
from sse_engine.parts import UsageUpdate
from sse_engine.relay import Relay

_COUNT = st.integers(0, 10**7)


@st.composite
def wire_usages(draw: st.DrawFn) -> dict[str, Any]:
    """A Messages usage object: the counts always sent, and the cache counts when sent."""
    usage = {"input_tokens": draw(_COUNT), "output_tokens": draw(_COUNT)}
    for key in ("cache_creation_input_tokens", "cache_read_input_tokens"):
        if draw(st.booleans()):
            usage[key] = draw(_COUNT)
    return usage


@given(usage=wire_usages())
def test_messages_usage_to_parts_and_back_is_the_same_usage(usage: dict[str, Any]) -> None:
    assert usage_to_wire(usage_from_wire(usage)) == usage


@given(usage=wire_usages())
def test_cache_writes_are_part_of_the_input_and_said_apart(usage: dict[str, Any]) -> None:
    read = usage.get("cache_read_input_tokens")
    written = usage.get("cache_creation_input_tokens")
    whole = usage["input_tokens"] + (read or 0) + (written or 0)
    assert usage_from_wire(usage) == Usage(
        input_tokens=whole or None,  # a zero prompt is a count still to come
        output_tokens=usage["output_tokens"],
        total_tokens=None if not whole else whole + usage["output_tokens"],
        cached_input_tokens=read,
        cache_write_input_tokens=written,
    )


@given(
    fresh=_COUNT, output=_COUNT, read=st.none() | _COUNT, written=st.none() | _COUNT,
)
def test_a_usage_to_messages_and_back_is_the_same_usage(
    fresh: int, output: int, read: int | None, written: int | None
) -> None:
    whole = fresh + (read or 0) + (written or 0)
    usage = Usage(
        input_tokens=whole or None, output_tokens=output,
        total_tokens=None if not whole else whole + output,
        cached_input_tokens=read, cache_write_input_tokens=written,
    )
    assert usage_from_wire(usage_to_wire(usage)) == usage


def test_a_usage_without_cache_counts_writes_none() -> None:
    # What a Chat or Responses source gives: the OpenAI formats count no cache writes.
    assert usage_to_wire(Usage(input_tokens=120, output_tokens=7, cached_input_tokens=100)) == {
        "input_tokens": 20, "output_tokens": 7, "cache_read_input_tokens": 100,
    }


def _stream(start_usage: dict[str, Any], end_usage: dict[str, Any]) -> bytes:
    message = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
               "content": [], "stop_reason": None, "stop_sequence": None, "usage": start_usage}
    frames = [
        {"type": "message_start", "message": message},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "text_delta", "text": "Hi."}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
         "usage": end_usage},
        {"type": "message_stop"},
    ]
    return b"".join(encode_messages_event(frame) for frame in frames)


_START = {"input_tokens": 12, "cache_creation_input_tokens": 1500,
          "cache_read_input_tokens": 300, "output_tokens": 1}
_END = {"output_tokens": 42}


def test_the_parts_of_a_messages_stream_say_its_cache_writes() -> None:
    stream = PartStream(MessagesLane())
    parts = stream.feed(_stream(_START, _END)) + stream.close()
    usage = [p for p in parts if isinstance(p, UsageUpdate)][-1].usage
    assert usage == Usage(input_tokens=1812, output_tokens=42, total_tokens=1854,
                          cached_input_tokens=300, cache_write_input_tokens=1500)
    assert stream.turn.usage == usage


def test_messages_to_messages_the_sdk_reads_the_sources_cache_counts() -> None:
    relay = Relay(MessagesLane(), to="messages")
    body = relay.feed(_stream(_START, _END)) + relay.close()
    message = message_stream(body).get_final_message()
    usage = message.usage
    assert (usage.input_tokens, usage.cache_creation_input_tokens,
            usage.cache_read_input_tokens, usage.output_tokens) == (12, 1500, 300, 42)
    # And the relayed message_start says the counts the source's did.
    start = json.loads(body.split(b"data: ", 1)[1].split(b"\n", 1)[0])
    assert start["message"]["usage"] == _START
