"""The Gemini lane end to end against the google-genai SDK's own stream reading, on the same bytes.

The harness (:mod:`benchmarks.lanes`) feeds both sides the same ragged reads,
checks their final objects agree, times them and writes the section. Here:

- the SDK side: ``client.models.generate_content_stream(...)`` of a
  ``genai.Client`` whose httpx client answers from memory with a 200 whose
  body yields the reads: the SDK's line reader, its JSON, its conversion and
  its pydantic ``GenerateContentResponse`` per chunk (what a user's loop over
  the stream costs; the SDK merges nothing, so the chunks are its final object);
- the corpus: a realistic ~2,000-event Gemini stream (``data:`` frames with
  CRLF, Google's JSON spacing, ``usageMetadata`` in every chunk): thought
  summaries, a long answer, two function calls with a thought signature, the
  last chunk's ``finishReason``;
- the check: per candidate, the text, the thoughts, the calls (name, args,
  signature), the finish reason and the last usage read from the SDK's chunks
  equal those of the lane's merged response.

    python -m benchmarks.bench_gemini [--quick] [--no-write]
"""

from __future__ import annotations

import base64
import json
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import lanes, report
from sse_engine.gemini import GeminiLane

__all__ = ["BENCHMARK", "build_stream", "main"]

_WORDS = [
    "the", "of", "and", "to", "in", "is", "that", "for", "it", "as", "with", "stream",
    "event", "token", "parser", "buffer", "line", "response", "message", "content",
    "delta", "chunk", "value", "request", "latency", "throughput", "function", "argument",
    "result", "python", "bytes", "string", "json", "object", "array", "café", "naïve",
    "日本語", "🙂", "—",
]
MODEL = "gemini-2.5-flash"
RESPONSE_ID = "kD2IaN7vBcWnvgPm4q2x8Ao"


def _frame(payload: dict[str, Any]) -> str:
    return "data: " + json.dumps(payload, ensure_ascii=False, separators=(",", ": ")) + "\r\n\r\n"


def build_stream(n_events: int = 2000, seed: int = 20240611) -> bytes:
    """A Gemini stream of about ``n_events`` chunks: thoughts, a long answer, two calls."""
    rng = random.Random(seed)

    def words(n: int) -> str:
        return "".join((" " if i else "") + rng.choice(_WORDS) for i in range(n))

    n_thought = n_events // 5
    n_text = n_events - n_thought - 2
    prompt, answer, thoughts = 812, 0, 0

    def chunk(parts: list[dict[str, Any]], **candidate: Any) -> str:
        usage = {"promptTokenCount": prompt, "candidatesTokenCount": answer,
                 "totalTokenCount": prompt + answer + thoughts,
                 "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt}]}
        if thoughts:
            usage["thoughtsTokenCount"] = thoughts
        if not answer:
            del usage["candidatesTokenCount"]
        body = {"content": {"parts": parts, "role": "model"}, **candidate}
        return _frame({"candidates": [body], "usageMetadata": usage, "modelVersion": MODEL,
                       "responseId": RESPONSE_ID})

    out = []
    for _ in range(n_thought):
        thoughts += 4
        out.append(chunk([{"text": words(4), "thought": True}]))
    for _ in range(n_text):
        answer += 3
        out.append(chunk([{"text": words(3)}]))
    signature = base64.b64encode(bytes(rng.randrange(256) for _ in range(180))).decode()
    calls: list[dict[str, Any]] = [
        {"functionCall": {"name": "search", "args": {"query": words(12), "limit": 10,
                                                     "filters": {"lang": ["en", "de"]}}},
         "thoughtSignature": signature},
        {"functionCall": {"name": "get_weather", "args": {"city": "Zürich"}}},
    ]
    answer += 40
    out.append(chunk(calls))
    out.append(chunk([{"text": ""}], finishReason="STOP", index=0))
    return "".join(out).encode()


def _reduce_api(api: dict[str, Any]) -> dict[int, Any]:
    """Per candidate: text, thoughts, calls (name, args, signature), finish; and the usage."""
    out: dict[int, Any] = {}
    for position, candidate in enumerate(api.get("candidates", [])):
        parts = candidate.get("content", {}).get("parts", [])
        out[candidate.get("index", position)] = (
            "".join(p["text"] for p in parts if "text" in p and not p.get("thought")),
            "".join(p["text"] for p in parts if p.get("thought")),
            [(p["functionCall"]["name"], p["functionCall"].get("args"),
              p.get("thoughtSignature")) for p in parts if "functionCall" in p],
            candidate.get("finishReason"),
        )
    meta = api.get("usageMetadata") or {}
    out[-1] = (meta.get("promptTokenCount"), meta.get("candidatesTokenCount"),
               meta.get("thoughtsTokenCount"), meta.get("totalTokenCount"))
    return out


def _reduce_sdk(chunks: list[Any]) -> dict[int, Any]:
    """The same reduction of google-genai's chunks (a signature is bytes there)."""
    seen: dict[int, list[Any]] = {}
    usage = None
    for response in chunks:
        for candidate in response.candidates or ():
            entry = seen.setdefault(candidate.index or 0, ["", "", [], None])
            for part in (candidate.content.parts or ()) if candidate.content else ():
                if part.function_call is not None:
                    signature = part.thought_signature
                    entry[2].append((part.function_call.name, part.function_call.args,
                                     None if signature is None
                                     else base64.b64encode(signature).decode()))
                elif part.thought:
                    entry[1] += part.text or ""
                else:
                    entry[0] += part.text or ""
            if candidate.finish_reason is not None:
                entry[3] = candidate.finish_reason.value
        if response.usage_metadata is not None:
            meta = response.usage_metadata
            usage = (meta.prompt_token_count, meta.candidates_token_count,
                     meta.thoughts_token_count, meta.total_token_count)
    out: dict[int, Any] = {index: tuple(entry) for index, entry in seen.items()}
    out[-1] = usage
    return out


def _genai() -> Callable[[list[bytes]], Any]:
    """`client.models.generate_content_stream(...)` of a `genai.Client` whose httpx client
    answers from memory, run to its last chunk (the SDK merges nothing: its chunks are its
    final object)."""
    from google import genai
    from google.genai import types

    httpx, list_stream = lanes._http()
    reads: list[list[bytes]] = [[]]

    def answer(request: Any) -> Any:
        return httpx.Response(200, headers={"content-type": "text/event-stream"},
                              stream=list_stream(reads[0]))

    client = genai.Client(api_key="benchmark", http_options=types.HttpOptions(
        base_url="https://example.invalid", httpx_client=httpx.Client(
            transport=httpx.MockTransport(answer))))

    def final(chunks: list[bytes]) -> list[Any]:
        reads[0] = chunks
        stream: Iterator[Any] = client.models.generate_content_stream(model=MODEL,
                                                                      contents="hi")
        return list(stream)

    return final


def _same(ours: dict[str, Any], sdk: Any) -> None:
    """Per candidate, the text, the thoughts, the calls (name, args, signature) and the
    finish reason, and the last usage, read from the SDK's chunks equal those of the
    lane's merged response."""
    assert _reduce_api(ours) == _reduce_sdk(sdk), "the SDK's chunks say something else"


BENCHMARK = lanes.LaneBenchmark(
    section="gemini",
    title="Gemini lane vs the google-genai SDK",
    lane=GeminiLane,
    sdk="google-genai",
    sdk_runner=_genai,
    same=_same,
    corpora={"agent": (build_stream, "thought summaries, a long text answer, two function calls"
                       " (one with a thought signature), `usageMetadata` in every chunk,"
                       " CRLF frames")},
)
#: ``main(write=True, quick=False) -> int``, as ``benchmarks.run`` calls every module.
main = BENCHMARK.main


if __name__ == "__main__":
    sys.exit(report.module_cli(__doc__, main))
