"""The Chat Completions lane end to end against the openai SDK's streaming path.

The harness (:mod:`benchmarks.lanes`) feeds both sides the same ragged reads,
checks their final objects agree, times them and writes the section. Here:

- the SDK side: ``openai.Stream`` over the in-memory response, wrapped in
  ``ChatCompletionStream`` (which runs ``ChatCompletionStreamState``), iterated
  to the end, then ``get_final_completion()``: what
  ``client.chat.completions.stream()`` does after the HTTP request;
- the corpora (~2,000 SSE events each): ``text``, the shared
  ``corpora.chat_completions`` stream (role chunk, content deltas, finish,
  usage chunk, ``[DONE]``), and ``tools``, text followed by three tool calls
  streamed as argument fragments;
- the check: the same content, finish reason, usage and tool calls.

    python -m benchmarks.bench_chat [--quick] [--no-write]
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import corpora, lanes, report
from sse_engine.chat import ChatCompletionsLane

__all__ = ["BENCHMARK", "main", "tool_stream"]

N_EVENTS = 2000


def tool_stream(n_events: int = N_EVENTS) -> bytes:
    """Text, then three tool calls whose JSON arguments stream in small fragments."""
    n_tool_fragments = n_events // 3
    text = corpora.chat_completions(n_events - n_tool_fragments).decode()
    head, _, _ = text.rpartition('data: {"id"')  # drop the usage chunk ...
    head, _, _ = head.rpartition('data: {"id"')  # ... and the finish chunk
    first = json.loads(text.split("\n\n", 1)[0][6:])
    base = {k: first[k] for k in ("id", "object", "created", "model", "system_fingerprint")}

    def frame(delta: dict[str, Any] | None, finish: str | None = None, usage: Any = None) -> str:
        choices = [] if delta is None else [
            {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        ]
        payload = {**base, "choices": choices, "usage": usage}
        return "data: " + json.dumps(payload, separators=(",", ":"), ensure_ascii=False) + "\n\n"

    parts = [head]
    per_call = max(1, (n_tool_fragments - 3) // 3)
    for t in range(3):
        opening = {"index": t, "id": f"call_{t}Qx8vN2kLp5rT7wYz", "type": "function",
                   "function": {"name": "search_documents", "arguments": ""}}
        parts.append(frame({"tool_calls": [opening]}))
        words = [f'{{"query":"topic {t}","filters":["', *(f"w{i}" for i in range(per_call - 2)),
                 '"]}']
        for i, word in enumerate(words):
            piece = word if i in (0, len(words) - 1) or i == 1 else '","' + word
            parts.append(frame({"tool_calls": [{"index": t, "function": {"arguments": piece}}]}))
    parts.append(frame({}, "tool_calls"))
    usage = {"prompt_tokens": 1187, "completion_tokens": n_events, "total_tokens": 1187 + n_events}
    parts.append(frame(None, usage=usage))
    parts.append("data: [DONE]\n\n")
    return "".join(parts).encode()


def _openai() -> Callable[[list[bytes]], Any]:
    """``openai.Stream`` wrapped in ``ChatCompletionStream`` (which runs
    ``ChatCompletionStreamState``), iterated to the end, then ``get_final_completion()``:
    what ``client.chat.completions.stream()`` does after the HTTP request."""
    import openai
    from openai.lib.streaming.chat import ChatCompletionStream
    from openai.types.chat import ChatCompletionChunk

    def final(chunks: list[bytes]) -> Any:
        raw = lanes.sdk_stream("openai", ChatCompletionChunk, chunks, "/chat/completions")
        stream = ChatCompletionStream(
            raw_stream=raw, response_format=openai.omit, input_tools=openai.omit
        )
        for _ in stream:
            pass
        return stream.get_final_completion()

    return final


def _same(ours: dict[str, Any], sdk: Any) -> None:
    """Both sides assembled the same completion (content, tool calls, finish, usage)."""
    theirs = sdk.model_dump(mode="json")
    mine = ours["choices"][0]
    their = theirs["choices"][0]
    assert mine["message"]["content"] == their["message"]["content"], "content"
    assert mine["finish_reason"] == their["finish_reason"], "finish_reason"
    assert ours["usage"] == sdk.usage.model_dump(mode="json", exclude_unset=True), "usage"
    mine_calls = [(c["id"], c["function"]["arguments"]) for c in mine["message"].get(
        "tool_calls", [])]
    their_calls = [(c["id"], c["function"]["arguments"]) for c in their["message"]["tool_calls"]
                   or []]
    assert mine_calls == their_calls, "tool calls"


BENCHMARK = lanes.LaneBenchmark(
    section="chat",
    title="Chat Completions lane vs the openai SDK",
    lane=ChatCompletionsLane,
    sdk="openai",
    sdk_runner=_openai,
    same=_same,
    corpora={
        "text": (corpora.chat_completions,
                 "role chunk, ~250 B content deltas, finish, usage chunk, `[DONE]`"),
        "tools": (tool_stream, "text, then three tool calls whose arguments stream as fragments"),
    },
)
#: ``main(write=True, quick=False) -> int``, as ``benchmarks.run`` calls every module.
main = BENCHMARK.main


if __name__ == "__main__":
    sys.exit(report.module_cli(__doc__, main))
