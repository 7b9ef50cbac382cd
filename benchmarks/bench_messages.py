"""The Messages lane end to end against the anthropic SDK's streaming path, on the same bytes.

The harness (:mod:`benchmarks.lanes`) feeds both sides the same ragged reads,
checks their final objects agree, times them and writes the section. Here:

- the SDK side: ``anthropic.Stream`` over the in-memory response, wrapped in
  ``MessageStream`` (what ``client.messages.stream()`` returns), then
  ``get_final_message()``;
- the corpus: a realistic ~2,000-event Anthropic stream (a thinking block
  with its signature, a long text answer, a tool call whose input streams as
  JSON fragments, pings, a final ``message_delta``);
- the check: the SDK's final message as JSON (``to_dict(mode="json")``) equals
  the lane's.

    python -m benchmarks.bench_messages [--quick] [--no-write]
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import lanes, report
from sse_engine.messages import MessagesLane

__all__ = ["BENCHMARK", "build_stream", "main"]

_WORDS = [
    "the", "of", "and", "to", "in", "is", "that", "for", "it", "as", "with", "stream",
    "event", "token", "parser", "buffer", "line", "response", "message", "content",
    "delta", "chunk", "value", "request", "latency", "throughput", "function", "argument",
    "result", "python", "bytes", "string", "json", "object", "array", "café", "naïve",
    "日本語", "🙂", "—",
]


def _frame(payload: dict[str, Any]) -> str:
    data = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return f"event: {payload['type']}\ndata: {data}\n\n"


def _delta(index: int, delta: dict[str, Any]) -> str:
    return _frame({"type": "content_block_delta", "index": index, "delta": delta})


def build_stream(n_events: int = 2000, seed: int = 20240611) -> bytes:
    """A Messages stream of about ``n_events`` events: thinking, text, a tool call."""
    rng = random.Random(seed)

    def words(n: int) -> list[str]:
        return [(" " if i else "") + rng.choice(_WORDS) for i in range(n)]

    n_thinking = n_events // 5
    n_tool = n_events // 10
    n_text = n_events - n_thinking - n_tool - 12
    parts = [
        _frame({"type": "message_start", "message": {
            "id": "msg_01BenchmarkStream0000001", "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5-20250929", "content": [], "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 2187, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": 1024, "output_tokens": 1,
                      "service_tier": "standard"}}}),
        _frame({"type": "ping"}),
        _frame({"type": "content_block_start", "index": 0,
                "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
    ]
    parts += [_delta(0, {"type": "thinking_delta", "thinking": w}) for w in words(n_thinking)]
    parts.append(_delta(0, {"type": "signature_delta", "signature": "Eq" + "A1b2" * 60}))
    parts.append(_frame({"type": "content_block_stop", "index": 0}))
    parts.append(_frame({"type": "content_block_start", "index": 1,
                         "content_block": {"type": "text", "text": ""}}))
    for i, w in enumerate(words(n_text)):
        parts.append(_delta(1, {"type": "text_delta", "text": w}))
        if i % 500 == 499:
            parts.append(_frame({"type": "ping"}))
    parts.append(_frame({"type": "content_block_stop", "index": 1}))
    tool_input = json.dumps({"query": "".join(words(n_tool * 2)), "limit": 10,
                             "filters": {"lang": ["en", "de"], "recent": True}})
    step = max(1, len(tool_input) // n_tool)
    parts.append(_frame({"type": "content_block_start", "index": 2, "content_block": {
        "type": "tool_use", "id": "toolu_01BenchmarkTool00000001", "name": "search",
        "input": {}}}))
    parts += [
        _delta(2, {"type": "input_json_delta", "partial_json": tool_input[i : i + step]})
        for i in range(0, len(tool_input), step)
    ]
    parts.append(_frame({"type": "content_block_stop", "index": 2}))
    parts.append(_frame({"type": "message_delta",
                         "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                         "usage": {"input_tokens": 2187, "output_tokens": n_events}}))
    parts.append(_frame({"type": "message_stop"}))
    return "".join(parts).encode()


def _anthropic() -> Callable[[list[bytes]], Any]:
    """``anthropic.Stream`` wrapped in ``MessageStream`` (what ``client.messages.stream()``
    returns), then ``get_final_message()``."""
    import anthropic
    from anthropic.lib.streaming import MessageStream
    from anthropic.types import RawMessageStreamEvent

    def final(chunks: list[bytes]) -> Any:
        raw = lanes.sdk_stream("anthropic", cast(Any, RawMessageStreamEvent), chunks,
                               "/v1/messages")
        return MessageStream(raw, output_format=anthropic.NOT_GIVEN).get_final_message()

    return final


def _same(ours: dict[str, Any], sdk: Any) -> None:
    """The SDK's final message as JSON (``to_dict(mode="json")``) equals the lane's."""
    assert ours == sdk.to_dict(mode="json", warnings=False), "the final messages differ"


BENCHMARK = lanes.LaneBenchmark(
    section="messages",
    title="Messages lane vs the anthropic SDK",
    lane=MessagesLane,
    sdk="anthropic",
    sdk_runner=_anthropic,
    same=_same,
    corpora={"agent": (build_stream, "a thinking block with its signature, a long text answer,"
                       " a tool call whose input streams as JSON fragments, pings and a final"
                       " `message_delta`")},
)
#: ``main(write=True, quick=False) -> int``, as ``benchmarks.run`` calls every module.
main = BENCHMARK.main


if __name__ == "__main__":
    sys.exit(report.module_cli(__doc__, main))
