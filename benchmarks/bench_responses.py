"""The Responses lane end to end against the openai SDK's streaming path, on the same bytes.

The harness (:mod:`benchmarks.lanes`) feeds both sides the same ragged reads,
checks their final objects agree, times them and writes the section. Here:

- the SDK side: ``openai.Stream`` over the in-memory response, wrapped in
  ``ResponseStream`` (which runs ``ResponseStreamState``), iterated to the
  end, then ``get_final_response()``: what ``client.responses.stream()`` does
  after the HTTP request;
- the corpora (~2,000 SSE events each): ``text``, the shared
  ``corpora.responses`` stream (one message item, ~200 B text deltas), and
  ``agent``: a reasoning summary, a text answer, a function call and an MCP
  call whose arguments stream as fragments, then ``response.completed``;
- the check: both final responses are equal (without the ``parsed`` fields
  the SDK's parsing helpers add).

    python -m benchmarks.bench_responses [--quick] [--no-write]
"""

from __future__ import annotations

import json
import random
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import corpora, lanes, report
from sse_engine.responses import ResponsesLane

__all__ = ["BENCHMARK", "agent_stream", "main"]

N_EVENTS = 2000


def agent_stream(n_events: int = N_EVENTS, seed: int = corpora.TEXT_SEED) -> bytes:
    """Reasoning summary, text, a function call and an MCP call, all streamed as deltas."""
    rng = random.Random(seed)
    base = json.loads(corpora.responses(9, seed).split(b"\n\n", 1)[0].split(b"data: ", 1)[1])
    response = base["response"]
    seq = 0
    parts: list[str] = []

    def emit(payload: dict[str, Any]) -> None:
        nonlocal seq
        payload = {"type": payload["type"], "sequence_number": seq, **payload}
        data = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        parts.append(f"event: {payload['type']}\ndata: {data}\n\n")
        seq += 1

    n_summary, n_args = n_events // 5, n_events // 10
    n_text = n_events - n_summary - 2 * n_args - 24
    summary_tokens = corpora._tokens(n_summary, seed + 5)
    text_tokens = corpora._tokens(n_text, seed + 6)
    emit({"type": "response.created", "response": response})
    emit({"type": "response.in_progress", "response": response})
    output: list[dict[str, Any]] = []

    def item(index: int, opened: dict[str, Any], final: dict[str, Any], body: list[Any]) -> None:
        emit({"type": "response.output_item.added", "output_index": index, "item": opened})
        for event in body:
            emit({"output_index": index, "item_id": final["id"], **event})
        emit({"type": "response.output_item.done", "output_index": index, "item": final})
        output.append(final)

    summary = "".join(summary_tokens)
    ref = {"summary_index": 0}
    item(
        0,
        {"id": "rs_bench", "type": "reasoning", "summary": []},
        {
            "id": "rs_bench",
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": summary}],
        },
        [
            {
                "type": "response.reasoning_summary_part.added",
                **ref,
                "part": {"type": "summary_text", "text": ""},
            },
            *(
                {"type": "response.reasoning_summary_text.delta", **ref, "delta": t}
                for t in summary_tokens
            ),
            {"type": "response.reasoning_summary_text.done", **ref, "text": summary},
            {
                "type": "response.reasoning_summary_part.done",
                **ref,
                "part": {"type": "summary_text", "text": summary},
            },
        ],
    )
    text = "".join(text_tokens)
    part = {"type": "output_text", "annotations": [], "logprobs": [], "text": text}
    cref = {"content_index": 0}
    item(
        1,
        {
            "id": "msg_bench",
            "type": "message",
            "status": "in_progress",
            "content": [],
            "role": "assistant",
        },
        {
            "id": "msg_bench",
            "type": "message",
            "status": "completed",
            "content": [part],
            "role": "assistant",
        },
        [
            {"type": "response.content_part.added", **cref, "part": {**part, "text": ""}},
            *(
                {"type": "response.output_text.delta", **cref, "delta": t, "logprobs": []}
                for t in text_tokens
            ),
            {"type": "response.output_text.done", **cref, "text": text, "logprobs": []},
            {"type": "response.content_part.done", **cref, "part": part},
        ],
    )
    for index, kind, name in (
        (2, "function_call", "function_call_arguments"),
        (3, "mcp_call", "mcp_call_arguments"),
    ):
        args = json.dumps(
            {"query": "".join(corpora._tokens(n_args, seed + index)), "limit": rng.randint(1, 50)},
            ensure_ascii=False,
        )
        step = max(1, len(args) // n_args)
        fragments = [args[i : i + step] for i in range(0, len(args), step)]
        extra = (
            {"call_id": "call_bench", "name": "search"}
            if kind == "function_call"
            else {"name": "search", "server_label": "docs"}
        )
        ident = f"{kind}_bench"
        item(
            index,
            {"id": ident, "type": kind, "status": "in_progress", "arguments": "", **extra},
            {"id": ident, "type": kind, "status": "completed", "arguments": args, **extra},
            [
                *({"type": f"response.{name}.delta", "delta": f} for f in fragments),
                {"type": f"response.{name}.done", "arguments": args},
            ],
        )
    final = {
        **response,
        "status": "completed",
        "output": output,
        "usage": {
            "input_tokens": 2187,
            "input_tokens_details": {"cached_tokens": 1024},
            "output_tokens": seq,
            "output_tokens_details": {"reasoning_tokens": n_summary},
            "total_tokens": 2187 + seq,
        },
    }
    emit({"type": "response.completed", "response": final})
    return "".join(parts).encode()


def _openai() -> Callable[[list[bytes]], Any]:
    """``openai.Stream`` wrapped in ``ResponseStream`` (which runs ``ResponseStreamState``),
    iterated to the end, then ``get_final_response()``: what ``client.responses.stream()``
    does after the HTTP request."""
    import openai
    from openai.lib.streaming.responses import ResponseStream
    from openai.types.responses import ResponseStreamEvent

    def final(chunks: list[bytes]) -> Any:
        raw = lanes.sdk_stream("openai", ResponseStreamEvent, chunks, "/responses")
        stream = ResponseStream(
            raw_stream=raw, text_format=openai.omit, input_tools=openai.omit, starting_after=None
        )
        for _ in stream:
            pass
        return stream.get_final_response()

    return final


def _without_sdk_additions(value: Any) -> Any:
    """Drop ``parsed`` / ``parsed_arguments``: added by the SDK's parsing helpers, not the API."""
    if isinstance(value, dict):
        return {
            k: _without_sdk_additions(v)
            for k, v in value.items()
            if k not in ("parsed", "parsed_arguments")
        }
    if isinstance(value, list):
        return [_without_sdk_additions(v) for v in value]
    return value


def _same(ours: dict[str, Any], sdk: Any) -> None:
    """Both sides assembled the same final response (without the ``parsed`` fields the
    SDK's helpers add)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _without_sdk_additions(sdk.model_dump(mode="json", exclude_unset=True))
    assert ours == theirs, "the final responses differ"


BENCHMARK = lanes.LaneBenchmark(
    section="responses",
    title="Responses lane vs the openai SDK",
    lane=ResponsesLane,
    sdk="openai",
    sdk_runner=_openai,
    same=_same,
    corpora={
        "text": (corpora.responses, "one message item, ~200 B text deltas"),
        "agent": (agent_stream, "a reasoning summary, a text answer, a function call and an"
                  " MCP call whose arguments stream as fragments"),
    },
)
#: ``main(write=True, quick=False) -> int``, as ``benchmarks.run`` calls every module.
main = BENCHMARK.main


if __name__ == "__main__":
    sys.exit(report.module_cli(__doc__, main))
