"""The Chat Completions lane end to end against the openai SDK's streaming path.

Both sides get the same bytes in the same ragged 40-700 B reads (fixed seed):

- ``sse_engine``: ``ChatCompletionsLane.feed()`` per read, ``close()``, then
  ``snapshot.to_api()``: SSE parsing, JSON decoding, typed events, snapshot,
  outcome. Once with stdlib ``json.loads``, once with ``orjson.loads`` injected.
- ``openai``: ``openai.Stream`` over an in-memory response (``httpx2.Response``,
  the SDK's own HTTP types; ``httpx`` for SDKs before 3.x) whose byte stream
  yields the same reads, wrapped in ``ChatCompletionStream`` (which runs
  ``ChatCompletionStreamState``), iterated to the end, then
  ``get_final_completion()``: what ``client.chat.completions.stream()`` does
  after the HTTP request.

Corpora (~2,000 SSE events each): ``text``, the shared ``corpora.chat_completions``
stream (role chunk, content deltas, finish, usage chunk, ``[DONE]``), and
``tools``, text followed by three tool calls streamed as argument fragments.
Before timing, both sides' final completions are checked to agree.

Timing: ``time.perf_counter`` around one complete run, garbage collector
disabled during it, best of N rounds, sides interleaved round by round.

    python -m benchmarks.bench_chat [--quick]
"""

from __future__ import annotations

import gc
import json
import sys
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import corpora
from sse_engine.chat import ChatCompletionsLane

__all__ = ["main", "run", "tool_stream"]

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


CORPORA: dict[str, Callable[[], bytes]] = {
    "text": lambda: corpora.chat_completions(N_EVENTS),
    "tools": tool_stream,
}


# -- the two sides -----------------------------------------------------------------------


def lane_run(chunks: list[bytes], loads: Callable[[str], Any]) -> dict[str, Any]:
    lane = ChatCompletionsLane(json_loads=loads)
    feed = lane.feed
    for chunk in chunks:
        feed(chunk)
    lane.close()
    return lane.snapshot.to_api()


def _sdk_runner() -> Callable[[list[bytes]], Any] | None:
    try:
        import openai
        from openai.lib.streaming.chat import ChatCompletionStream
        from openai.types.chat import ChatCompletionChunk
    except ImportError:  # pragma: no cover - the bench extra is not installed
        return None
    httpx: Any
    try:  # the HTTP library the installed SDK itself uses (openai 3.x: httpx2)
        import httpx2 as httpx
    except ImportError:  # pragma: no cover
        import httpx
    client = openai.OpenAI(api_key="sk-dummy", base_url="https://example.invalid/v1")
    request = httpx.Request("POST", "https://example.invalid/v1/chat/completions")

    class Reads(httpx.SyncByteStream):  # type: ignore[misc]
        def __init__(self, chunks: list[bytes]) -> None:
            self.chunks = chunks

        def __iter__(self) -> Iterator[bytes]:
            return iter(self.chunks)

    def sdk_run(chunks: list[bytes]) -> Any:
        response = httpx.Response(
            200, headers={"content-type": "text/event-stream"}, stream=Reads(chunks),
            request=request,
        )
        raw = openai.Stream(cast_to=ChatCompletionChunk, response=response, client=client)
        stream = ChatCompletionStream(
            raw_stream=raw, response_format=openai.omit, input_tools=openai.omit
        )
        for _ in stream:
            pass
        return stream.get_final_completion()

    return sdk_run


def _orjson_loads() -> Callable[[str], Any] | None:
    try:
        import orjson
    except ImportError:  # pragma: no cover
        return None
    loads: Callable[[str], Any] = orjson.loads
    return loads


def _time(fn: Callable[[list[bytes]], Any], chunks: list[bytes]) -> float:
    """Seconds for one complete run, with the garbage collector off."""
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        fn(chunks)
        return time.perf_counter() - start
    finally:
        gc.enable()


def _check(ours: dict[str, Any], sdk: Any) -> None:
    """Both sides assembled the same completion (content, tool calls, finish, usage)."""
    theirs = sdk.model_dump(mode="json")
    mine = ours["choices"][0]
    their = theirs["choices"][0]
    assert mine["message"]["content"] == their["message"]["content"]
    assert mine["finish_reason"] == their["finish_reason"]
    assert ours["usage"] == sdk.usage.model_dump(mode="json", exclude_unset=True)
    mine_calls = [(c["id"], c["function"]["arguments"]) for c in mine["message"].get(
        "tool_calls", [])]
    their_calls = [(c["id"], c["function"]["arguments"]) for c in their["message"]["tool_calls"]
                   or []]
    assert mine_calls == their_calls


def run(quick: bool = False) -> str:
    """Time every corpus on both sides; return a markdown section."""
    rounds = 3 if quick else 9
    sdk_run = _sdk_runner()
    orjson_loads = _orjson_loads()
    lines = [
        "## Chat Completions lane vs the openai SDK",
        "",
        "Same bytes, same ragged 40-700 B reads. `sse_engine`: `ChatCompletionsLane` feed + "
        "close + `snapshot.to_api()`. `openai`: `Stream` + `ChatCompletionStream` over an "
        "in-memory httpx response, then `get_final_completion()`. Best of "
        f"{rounds} rounds, GC off while timed.",
        "",
        "| corpus | events | MB | side | MB/s | events/s | vs openai |",
        "|---|---:|---:|---|---:|---:|---:|",
    ]
    for name, build in CORPORA.items():
        data = build()
        chunks = corpora.chunked(data, "ragged")
        n_events = data.count(b"\n\n")
        sides: dict[str, Callable[[list[bytes]], Any]] = {
            "sse_engine (json)": partial(lane_run, loads=json.loads),
        }
        if orjson_loads is not None:
            sides["sse_engine (orjson)"] = partial(lane_run, loads=orjson_loads)
        if sdk_run is not None:
            _check(lane_run(chunks, json.loads), sdk_run(chunks))
            sides["openai"] = sdk_run
        best = {side: float("inf") for side in sides}
        for _ in range(rounds):  # interleaved, one round of each side at a time
            for side, fn in sides.items():
                best[side] = min(best[side], _time(fn, chunks))
        sdk_time = best.get("openai")
        for side, seconds in best.items():
            ratio = "" if sdk_time is None else f"{sdk_time / seconds:.1f}\u00d7"
            lines.append(
                f"| {name} | {n_events} | {len(data) / 1e6:.2f} | {side} | "
                f"{len(data) / seconds / 1e6:.1f} | {n_events / seconds:,.0f} | {ratio} |"
            )
    if sdk_run is None:
        lines += ["", "openai is not installed: no SDK column."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    print(run(quick="--quick" in args))


if __name__ == "__main__":
    main()
