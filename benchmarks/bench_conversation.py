"""Request translation: a body of one format read into a Conversation and written as another.

For every pair of formats with a request codec (the same format too: a round
trip), bodies of 2 to 2,000 messages are translated:
``Conversation.from_body(source, body).to_body(target, model=...)``. The
bodies are one agent conversation written in each source format: a system
prompt, three tools, and turns that cycle through a user question with an
inline PNG image, an assistant answer with a tool call, and the tool's
result. Reported: microseconds per message at each size, the largest size's
cost per message over the smallest-but-one's, and the same measured against
``copy.deepcopy`` of the body (a linear walk that allocates as much), timed
in the same rounds: a big body costs more per message on this machine even
for a linear pass (its memory caches), and the ratio to the copy says
whether translation grows faster than that.

LiteLLM, when installed (in this interpreter, or in the one named by
``SSE_ENGINE_LITELLM_PYTHON``: it is a heavy optional peer, best kept in a
virtual environment of its own), translates the same Chat Completions bodies
to Anthropic Messages and to Gemini (``benchmarks/litellm_requests.py``: its
parameter mapping and message transformation, as ``litellm.completion``
does before sending), beside ours again in that interpreter, call by call
interleaved (the ratio is taken in one process, on one heap). Both sides'
outputs are checked to hold the same number of tool calls and results.

Timing as the other benchmarks (:mod:`benchmarks.timing`): samples of k
complete calls (k the same for every contender of a body: large for the small
bodies, 1 for the largest), CPU time, garbage collector off, best of N rounds,
contenders interleaved. (The LiteLLM comparison times single calls: each of
its calls needs a fresh copy of the body, made outside the timed region.)

    python -m benchmarks.bench_conversation [--quick] [--no-write]
"""

from __future__ import annotations

import copy
import datetime as _dt
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import lanes, report
from benchmarks.timing import RULE, Contender, best_of
from sse_engine import (
    FORMATS,
    Conversation,
    Image,
    Message,
    Native,
    Settings,
    Text,
    Tool,
    ToolCall,
    ToolResult,
)

__all__ = ["SIZES", "build", "main"]

SIZES = (2, 20, 200, 2000)
QUICK_SIZES = (2, 20, 200)
#: Translation should be linear: cost per message at the largest size over the smallest's.
TARGET = 1.5
#: The linear reference measured beside each translation.
BASELINE = "deepcopy"
#: A 1x1 PNG, inline: every format carries base64 images.
PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9aw"
       "AAAABJRU5ErkJggg==")
FORMAT_NAMES = tuple(name for name, row in FORMATS.items() if row.request is not None)
LITELLM_TARGETS = ("messages", "gemini")


def build(n: int) -> Conversation:
    """The benchmark's conversation of ``n`` messages (question, call, result, ...)."""
    schema = {"type": "object", "properties": {"city": {"type": "string"}},
              "required": ["city"]}
    tools: list[Tool | Native] = [Tool(f"tool_{k}", f"Tool number {k}", schema)
                                  for k in range(3)]
    messages: list[Message] = []
    for i in range(n):
        turn = i // 3
        if i % 3 == 0:
            messages.append(Message("user", [
                Text(f"Question {turn}: what is the weather in city {turn}? " * 3),
                Image(data=PNG, media_type="image/png")]))
        elif i % 3 == 1:
            call = ToolCall(f"call_{turn}", "tool_0", json.dumps({"city": f"city {turn}"}),
                            done=True)
            messages.append(Message("assistant", [Text(f"Looking up city {turn}."), call]))
        else:
            messages.append(Message("user", [ToolResult(f"call_{turn}", f"{turn} degrees")]))
    if messages[-1].role == "assistant":
        messages.pop()  # a body ends with the user's turn
        messages.append(Message("user", [Text("And now?")]))
    return Conversation(messages, system="Be brief.", tools=tools,
                        settings=Settings(max_tokens=1024, temperature=0.5))


def translate(source: str, target: str) -> Callable[[dict[str, Any]], Any]:
    def run(body: dict[str, Any]) -> Any:
        return Conversation.from_body(source, body).to_body(target, model="the-model")

    return run


def _litellm(bodies: dict[int, dict[str, Any]], rounds: int) -> dict[str, Any] | None:
    """LiteLLM's times (seconds) by ``"<size>:<target>"``, or None without LiteLLM."""
    python = os.environ.get("SSE_ENGINE_LITELLM_PYTHON", sys.executable)
    script = Path(__file__).with_name("litellm_requests.py")
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump({str(n): body for n, body in bodies.items()}, fh)
    try:
        done = subprocess.run([python, str(script), fh.name, str(rounds)], capture_output=True,
                              text=True, timeout=3600, check=False,
                              env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"})
    finally:
        os.unlink(fh.name)
    if done.returncode != 0:
        print(f"  LiteLLM not measured: {done.stderr.strip().splitlines()[-1:]}")
        return None
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _version(python: str) -> str:
    done = subprocess.run([python, "-c", "import importlib.metadata as m;"
                           "print(m.version('litellm'))"], capture_output=True, text=True,
                          check=False)
    return done.stdout.strip() or "unknown"


def run(quick: bool) -> tuple[str, bool]:
    sizes = QUICK_SIZES if quick else SIZES
    rounds = 2 if quick else 7
    log = print
    load = report.load1()
    per_message: dict[tuple[str, str], dict[int, float]] = {}
    calls: dict[int, list[int]] = {}
    chat_bodies: dict[int, dict[str, Any]] = {}
    for n in sizes:
        conversation = build(n)
        for source in FORMAT_NAMES:
            body = conversation.to_body(source, model="the-model").body
            if source == "chat":
                chat_bodies[n] = body
            contenders: list[Contender[dict[str, Any]]] = [
                (target, translate(source, target)) for target in FORMAT_NAMES]
            contenders.append((BASELINE, copy.deepcopy))
            timed = best_of(contenders, body, rounds)
            best = timed.seconds
            calls.setdefault(n, []).append(timed.calls)
            for target, seconds in best.items():
                per_message.setdefault((source, target), {})[n] = seconds / n * 1e6
            log(f"  {n:>5} messages from {source:<9} "
                + "  ".join(f"{t} {best[t] / n * 1e6:6.1f}" for t in [*FORMAT_NAMES, BASELINE])
                + f" µs/msg (k = {timed.calls})")
    rows = []
    slopes = []
    small, large = sizes[1], sizes[-1]
    for (source, target), by_size in per_message.items():
        if target == BASELINE:
            rows.append([source, f"({BASELINE} of the body)",
                         *(f"{by_size[n]:.1f}" for n in sizes), "", ""])
            continue
        copies = per_message[source, BASELINE]
        at_small = by_size[small] / copies[small]
        at_large = by_size[large] / copies[large]
        slopes.append(at_large / at_small)
        rows.append([source, target, *(f"{by_size[n]:.1f}" for n in sizes),
                     f"{by_size[large] / by_size[small]:.2f}{lanes.TIMES}",
                     f"{at_small:.2f}{lanes.TIMES} → {at_large:.2f}{lanes.TIMES}"])
    linear = all(slope <= TARGET for slope in slopes)

    python = os.environ.get("SSE_ENGINE_LITELLM_PYTHON", sys.executable)
    peer = _litellm(chat_bodies, rounds)
    peer_rows = []
    problems = []
    for n in sizes:
        for target in LITELLM_TARGETS:
            if peer is None:
                break
            row = peer[f"{n}:{target}"]
            if row["counts"] != row["ours"]:
                problems.append(f"{n} messages to {target}: LiteLLM wrote (calls, results)"
                                f" {row['counts']}, we wrote {row['ours']}")
            mine, theirs = row["sse_engine"], row["litellm"]
            peer_rows.append([f"{n:,}", f"chat to {target}", f"{mine / n * 1e6:.1f}",
                              f"{theirs / n * 1e6:.1f}", f"{theirs / mine:.1f}{lanes.TIMES}"])
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load_text = "unknown" if load is None else f"{load:.2f}"
    head = ["Source", "Target", *(f"{n:,} msgs" for n in sizes),
            f"{sizes[-1]:,} vs {sizes[1]:,}", f"vs {BASELINE}, {sizes[1]:,} → {sizes[-1]:,}"]
    lines = [
        "## Request translation",
        "",
        f"Measured {now}, sse_engine {report.git_revision()}; 1-minute load average at the"
        f" start {load_text} on {os.cpu_count() or 1} CPU(s).",
        "",
        "`Conversation.from_body(source, body).to_body(target, model=...)` on one agent"
        " conversation written in each source format: a system prompt, three tools, and"
        " messages cycling through a user question with an inline PNG image, an assistant"
        " answer with a tool call, and the tool's result (a body of"
        f" {sizes[-1]:,} messages is about"
        f" {len(json.dumps(chat_bodies[sizes[-1]])) // 1000:,} kB as Chat Completions JSON)."
        " The same format as source and target is a round trip. Figures are microseconds per"
        f" message, best of {rounds} rounds, each target and the copy sampled once a round. "
        + RULE + " k by body size, one per source format ("
        + ", ".join(FORMAT_NAMES) + "): "
        + "; ".join(f"{n:,} messages {', '.join(map(str, ks))}" for n, ks in calls.items())
        + ". Next: the cost"
        f" per message at the largest size over that at {sizes[1]:,} messages. Even a linear"
        " pass costs more per message on a big body on this machine (its memory caches), so"
        " each source's body is also copied with `copy.deepcopy` (a linear walk building as"
        " many objects) in the same rounds: the last column is the translation's time over"
        " that copy's, at both sizes; the same ratio at both sizes is linear.",
        "",
        report.markdown_table(head, rows, "ll" + "r" * (len(sizes) + 2)),
        "",
    ]
    if peer is not None:
        lines += [
            "### Against LiteLLM",
            "",
            f"LiteLLM {_version(python)} translating the same Chat Completions bodies, as"
            " `litellm.completion` does before sending (`map_openai_params` and the"
            " provider's message transformation: `AnthropicConfig.transform_request`,"
            " Gemini's `_transform_request_body`), and ours again beside it: both in"
            " LiteLLM's interpreter (`benchmarks/litellm_requests.py`), on the same heap,"
            " call by call interleaved, single calls timed with the wall clock, best of"
            f" {rounds * 50:,} calls for the smallest bodies to {rounds * 3} for the largest"
            " (not k-call samples: each LiteLLM call needs its own copy of the body; a"
            " process's memory state"
            " changes what a large body costs per message, so the ratio is taken in one"
            " process). Each LiteLLM call gets a fresh copy of the body, made outside the"
            " timed region, since LiteLLM changes the messages it is given; one untimed call"
            " per target comes first (LiteLLM imports some of its modules on first use)."
            " Checked: both wrote the same number of tool calls and results."
            " Microseconds per message; the last column is LiteLLM's time over ours.",
            "",
            report.markdown_table(["Messages", "Translation", "sse_engine µs/msg",
                                   "LiteLLM µs/msg", "LiteLLM / sse_engine"], peer_rows,
                                  "llrrr"),
            "",
        ]
    else:
        lines += ["LiteLLM was not measured (not installed here, and no"
                  " `SSE_ENGINE_LITELLM_PYTHON` naming an interpreter that has it).", ""]
    if problems:
        lines += ["### Mismatches", "", *(f"- {p}" for p in problems), ""]
    worst = max(slopes)
    lines += [
        "### Target",
        "",
        *report.target_lines([(
            f"linear in the body: the time over a deepcopy's of the same body at"
            f" {sizes[-1]:,} messages at most {TARGET:g}{lanes.TIMES} that at {sizes[1]:,},"
            " every pair", linear, f"worst {worst:.2f}{lanes.TIMES}")]),
        "",
    ]
    return "\n".join(lines), linear and not problems


def main(write: bool = True, quick: bool = False) -> int:
    """Run, print the section, write it to docs/benchmarks.md if ``write``; 1 if missed."""
    print(f"request translation benchmark ({'quick' if quick else 'full'})")
    text, ok = run(quick)
    print()
    print(text)
    if write:
        path = report.update_section("conversation", text)
        print(f"wrote {path.relative_to(report.REPO_ROOT)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(report.module_cli(__doc__, main))
