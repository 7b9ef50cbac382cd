"""LiteLLM's request translation, timed in LiteLLM's own interpreter: the peer side of
``benchmarks/bench_conversation.py``.

LiteLLM is an optional benchmark peer with many dependencies of its own, so it
lives in a separate virtual environment; ``bench_conversation`` runs this file
with that environment's Python, hands it the Chat Completions bodies it
translates itself (a JSON file), and reads the times back (JSON on stdout).
It imports nothing of sse_engine.

What is timed per body, as ``litellm.completion`` does before it sends a
request: the OpenAI parameters mapped to the provider's
(``map_openai_params``: tools, max tokens, temperature) and the messages
transformed (Anthropic: ``AnthropicConfig.transform_request``; Gemini:
``_transform_request_body``). LiteLLM changes the messages it is given, so
each call gets its own copy, made outside the timed region.

    python benchmarks/litellm_requests.py BODIES.json ROUNDS
"""

from __future__ import annotations

import copy
import gc
import json
import os
import sys
import time
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network at import

from litellm.llms.anthropic.chat.transformation import AnthropicConfig
from litellm.llms.vertex_ai.gemini.transformation import _transform_request_body
from litellm.llms.vertex_ai.gemini.vertex_and_google_ai_studio_gemini import (
    VertexGeminiConfig,
)

CLAUDE = "claude-sonnet-4-5"
GEMINI = "gemini-2.5-flash"


def _params(body: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key not in ("model", "messages")}


def to_messages(body: dict[str, Any]) -> dict[str, Any]:
    config = AnthropicConfig()
    optional = config.map_openai_params(
        non_default_params=_params(body), optional_params={}, model=CLAUDE, drop_params=False)
    return config.transform_request(model=CLAUDE, messages=body["messages"],
                                    optional_params=optional, litellm_params={}, headers={})


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


def main() -> None:
    path, rounds = sys.argv[1], int(sys.argv[2])
    with open(path, encoding="utf-8") as fh:
        bodies: dict[str, dict[str, Any]] = json.load(fh)
    out: dict[str, dict[str, Any]] = {}
    for size, body in bodies.items():
        for target, translate in TARGETS.items():
            best = float("inf")
            written: dict[str, Any] = {}
            for _ in range(rounds):
                mine = copy.deepcopy(body)
                gc.collect()
                gc.disable()
                t0 = time.perf_counter()
                written = translate(mine)
                elapsed = time.perf_counter() - t0
                gc.enable()
                best = min(best, elapsed)
            calls = _count(written, ("tool_use", "function_call", "functionCall"))
            results = _count(written, ("tool_result", "function_response", "functionResponse"))
            out[f"{size}:{target}"] = {"seconds": best, "calls": calls, "results": results}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
