"""LiteLLM's request translation beside ours, in LiteLLM's interpreter: the peer side of
``benchmarks/bench_conversation.py``.

LiteLLM is an optional benchmark peer with many dependencies of its own, so it
lives in a virtual environment of its own; ``bench_conversation`` runs this
file with that environment's Python, hands it the Chat Completions bodies (a
JSON file), and reads the times back (JSON on stdout). sse_engine is imported
from this checkout (it needs only attrs), so both translations run in the
same process, on the same heap, interleaved call by call: a process's memory
state changes what a large body costs per message, so times from two
processes would not compare.

What is timed per body, for LiteLLM as ``litellm.completion`` does before it
sends a request: the OpenAI parameters mapped to the provider's
(``map_openai_params``: tools, max tokens, temperature) and the messages
transformed (Anthropic: ``AnthropicConfig.transform_request``; Gemini:
``_transform_request_body``); for sse_engine,
``Conversation.from_body("chat", body).to_body(target, ...)``. LiteLLM
changes the messages it is given, so each of its calls gets its own copy,
made outside the timed region; one untimed call per target comes first
(LiteLLM imports some of its modules on first use).

    python benchmarks/litellm_requests.py BODIES.json ROUNDS
"""

from __future__ import annotations

import copy
import gc
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network at import
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from litellm.llms.anthropic.chat.transformation import AnthropicConfig
from litellm.llms.vertex_ai.gemini.transformation import _transform_request_body
from litellm.llms.vertex_ai.gemini.vertex_and_google_ai_studio_gemini import (
    VertexGeminiConfig,
)

from sse_engine import Conversation

CLAUDE = "claude-sonnet-4-5"
GEMINI = "gemini-2.5-flash"


def _params(body: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key not in ("model", "messages")}


def to_messages(body: dict[str, Any]) -> dict[str, Any]:
    config = AnthropicConfig()
    optional = config.map_openai_params(
        non_default_params=_params(body), optional_params={}, model=CLAUDE, drop_params=False)
    request: dict[str, Any] = config.transform_request(
        model=CLAUDE, messages=body["messages"], optional_params=optional, litellm_params={},
        headers={})
    return request


def to_gemini(body: dict[str, Any]) -> dict[str, Any]:
    config = VertexGeminiConfig()
    optional = config.map_openai_params(
        non_default_params=_params(body), optional_params={}, model=GEMINI, drop_params=False)
    return dict(_transform_request_body(
        messages=body["messages"], model=GEMINI, optional_params=optional,
        custom_llm_provider="gemini", litellm_params={}, cached_content=None))


TARGETS = {"messages": to_messages, "gemini": to_gemini}


def _count(value: Any, keys: tuple[str, ...]) -> int:
    """How many objects in ``value`` hold one of ``keys`` or have it as their ``type``."""
    stack, found = [value], 0
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found += any(k in node or node.get("type") == k for k in keys)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def ours(target: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def run(body: dict[str, Any]) -> dict[str, Any]:
        return Conversation.from_body("chat", body).to_body(target, model="the-model").body

    return run


def _timed(fn: Callable[[dict[str, Any]], Any], body: dict[str, Any]) -> tuple[float, Any]:
    gc.collect()
    gc.disable()
    try:
        t0 = time.perf_counter()
        written = fn(body)
        gc.collect()  # what the call left in reference cycles, freed on its clock (as timing's)
        return time.perf_counter() - t0, written
    finally:
        gc.enable()


def main() -> None:
    path, rounds = sys.argv[1], int(sys.argv[2])
    with open(path, encoding="utf-8") as fh:
        bodies: dict[str, dict[str, Any]] = json.load(fh)
    out: dict[str, dict[str, Any]] = {}
    for translate in TARGETS.values():
        translate(copy.deepcopy(next(iter(bodies.values()))))  # warm: LiteLLM imports lazily
    # What is alive now (LiteLLM's modules) out of the collector's reach, as
    # benchmarks.timing does: the collection before each call stays cheap.
    gc.collect()
    gc.freeze()
    for size, body in bodies.items():
        repeat = min(50, max(3, 2000 // int(size)))  # as bench_conversation's own
        for target, translate in TARGETS.items():
            best = {"litellm": float("inf"), "sse_engine": float("inf")}
            theirs: Any = None
            mine: Any = None
            for _ in range(rounds * repeat):  # interleaved: a load spike hits both alike
                seconds, theirs = _timed(translate, copy.deepcopy(body))
                best["litellm"] = min(best["litellm"], seconds)
                seconds, mine = _timed(ours(target), body)
                best["sse_engine"] = min(best["sse_engine"], seconds)
            calls = ("tool_use", "function_call", "functionCall")
            results = ("tool_result", "function_response", "functionResponse")
            out[f"{size}:{target}"] = {
                **best,
                "counts": [_count(theirs, calls), _count(theirs, results)],
                "ours": [_count(mine, calls), _count(mine, results)],
            }
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
