"""The Responses lane end to end against the openai SDK's streaming path, on the same bytes.

Both sides get the same bytes in the same ragged 40-700 B reads (fixed seed):

- ``sse_engine``: ``ResponsesLane.feed()`` per read, ``close()``, then
  ``snapshot.to_api()``: SSE parsing, JSON decoding, typed events, sequence
  checks, snapshot, outcome, final object. Once with stdlib ``json.loads``,
  once with ``orjson.loads`` injected.
- ``openai``: ``openai.Stream`` over an in-memory response (``httpx2.Response``,
  the SDK's own HTTP types) whose byte stream yields the same reads, wrapped in
  ``ResponseStream`` (which runs ``ResponseStreamState``), iterated to the end,
  then ``get_final_response()``: what ``client.responses.stream()`` does after
  the HTTP request.

Corpora (~2,000 SSE events each): ``text``, the shared ``corpora.responses``
stream (one message item, ~200 B text deltas), and ``agent``: a reasoning
summary, a text answer, a function call and an MCP call whose arguments stream
as fragments, then ``response.completed``. Before timing, both sides' final
responses are checked to be equal.

Timing: ``time.perf_counter`` around one complete run, garbage collector off
during it, best of N rounds, sides interleaved round by round.

    python -m benchmarks.bench_responses [--quick]
"""

from __future__ import annotations

import json
import random
import sys
import warnings
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import corpora
from benchmarks.bench_chat import _orjson_loads, _time
from sse_engine.responses import ResponsesLane

__all__ = ["agent_stream", "main", "run"]

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


CORPORA: dict[str, Callable[[], bytes]] = {
    "text": lambda: corpora.responses(N_EVENTS),
    "agent": agent_stream,
}


# -- the two sides -----------------------------------------------------------------------


def lane_run(chunks: list[bytes], loads: Callable[[str], Any]) -> dict[str, Any]:
    lane = ResponsesLane(json_loads=loads)
    feed = lane.feed
    for chunk in chunks:
        feed(chunk)
    lane.close()
    return lane.snapshot.to_api()


def _sdk_runner() -> Callable[[list[bytes]], Any] | None:
    try:
        import openai
        from openai.lib.streaming.responses import ResponseStream
        from openai.types.responses import ResponseStreamEvent
    except ImportError:  # pragma: no cover - the bench extra is not installed
        return None
    httpx: Any
    try:  # the HTTP library the installed SDK itself uses (openai 3.x: httpx2)
        import httpx2 as httpx
    except ImportError:  # pragma: no cover
        import httpx
    client = openai.OpenAI(api_key="sk-dummy", base_url="https://example.invalid/v1")
    request = httpx.Request("POST", "https://example.invalid/v1/responses")

    class Reads(httpx.SyncByteStream):  # type: ignore[misc]
        def __init__(self, chunks: list[bytes]) -> None:
            self.chunks = chunks

        def __iter__(self) -> Iterator[bytes]:
            return iter(self.chunks)

    def sdk_run(chunks: list[bytes]) -> Any:
        response = httpx.Response(
            200,
            headers={"content-type": "text/event-stream"},
            stream=Reads(chunks),
            request=request,
        )
        raw: Any = openai.Stream(cast_to=ResponseStreamEvent, response=response, client=client)  # type: ignore[arg-type]
        stream = ResponseStream(
            raw_stream=raw, text_format=openai.omit, input_tools=openai.omit, starting_after=None
        )
        for _ in stream:
            pass
        return stream.get_final_response()

    return sdk_run


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


def _check(ours: dict[str, Any], sdk: Any) -> None:
    """Both sides assembled the same final response."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _without_sdk_additions(sdk.model_dump(mode="json", exclude_unset=True))
    if ours != theirs:
        raise AssertionError("the lane and the SDK assembled different final responses")


def run(quick: bool = False) -> str:
    """Time every corpus on both sides; return a markdown section."""
    rounds = 3 if quick else 9
    n_events = 400 if quick else N_EVENTS
    sdk_run = _sdk_runner()
    orjson_loads = _orjson_loads()
    lines = [
        "## Responses lane vs the openai SDK",
        "",
        "Same bytes, same ragged 40-700 B reads. `sse_engine`: `ResponsesLane` feed + close + "
        "`snapshot.to_api()`. `openai`: `Stream` + `ResponseStream` over an in-memory "
        "httpx response, then `get_final_response()`. Both final responses checked equal "
        f"first. Best of {rounds} rounds, GC off while timed.",
        "",
        "| corpus | events | MB | side | MB/s | events/s | vs openai |",
        "|---|---:|---:|---|---:|---:|---:|",
    ]
    builders = {
        "text": lambda: corpora.responses(n_events),
        "agent": lambda: agent_stream(n_events),
    }
    for name, build in builders.items():
        data = build()
        chunks = corpora.chunked(data, "ragged")
        count = data.count(b"\n\n")
        sides: dict[str, Callable[[list[bytes]], Any]] = {
            "sse_engine (json)": partial(lane_run, loads=json.loads),
        }
        if orjson_loads is not None:
            sides["sse_engine (orjson)"] = partial(lane_run, loads=orjson_loads)
        if sdk_run is not None:
            _check(lane_run(chunks, json.loads), sdk_run(chunks))
            sides["openai"] = sdk_run
        best = {side: float("inf") for side in sides}
        for _ in range(rounds):  # interleaved, one run of each side at a time
            for side, fn in sides.items():
                best[side] = min(best[side], _time(fn, chunks))
        sdk_time = best.get("openai")
        for side, seconds in best.items():
            ratio = "" if sdk_time is None else f"{sdk_time / seconds:.1f}\u00d7"
            lines.append(
                f"| {name} | {count} | {len(data) / 1e6:.2f} | {side} | "
                f"{len(data) / seconds / 1e6:.1f} | {count / seconds:,.0f} | {ratio} |"
            )
    if sdk_run is None:
        lines += ["", "openai is not installed: no SDK column."]
    return "\n".join(lines) + "\n"


def main(write: bool = False, quick: bool = False) -> int:
    """Print the section (``benchmarks.run`` entry point; the lead wires it into the docs)."""
    del write
    print(run(quick=quick))
    return 0


if __name__ == "__main__":
    sys.exit(main(quick="--quick" in sys.argv[1:]))
