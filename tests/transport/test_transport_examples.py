"""The docs' recipes (docs/examples/*.py) run against the real test server.

Each example is executed as a script (``__main__``, the server's base URL as its
first argument) and must print exactly the capture's text and the outcome, so a
recipe that stops working fails here. Faults are put under them through the
server's default query parameters.
"""

from __future__ import annotations

import asyncio
import os
import re
import runpy
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from server import StreamServer, capture_bytes

import sse_engine
from sse_engine import Outcome, _liveness, _transport
from sse_engine._lane import Lane, LaneEvent
from sse_engine.chat import ChatCompletionsLane, ChatContentDelta
from sse_engine.messages import MessagesLane, TextBlockDelta
from sse_engine.responses import ResponseContentDeltaEvent, ResponsesLane

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
LANE_OF = {
    "httpx_sync.py": "responses",
    "httpx_async.py": "chat",
    "requests_sync.py": "messages",
    "aiohttp_async.py": "responses",
    "asyncio_streams.py": "messages",
    "anyio_h11.py": "chat",
}
TEXT_DELTA = "response.output_text.delta"
RESUMING = ("httpx_sync.py", "aiohttp_async.py")
#: Whether sse_engine exports the transport names itself (before any test lends them).
EXPORTED = all(hasattr(sse_engine, name) for name in ("iter_events", "aiter_events", "Liveness"))
PUBLIC = {
    "iter_events": _transport.iter_events,
    "aiter_events": _transport.aiter_events,
    "Liveness": _liveness.Liveness,
}


def expected_text(lane_name: str) -> str:
    """The text deltas of the lane's basic capture, joined, as the examples print them."""
    lanes: dict[str, type[Lane[Any]]] = {
        "chat": ChatCompletionsLane,
        "messages": MessagesLane,
        "responses": ResponsesLane,
    }
    lane = lanes[lane_name]()
    events: list[LaneEvent] = lane.feed(capture_bytes(f"{lane_name}_basic")) + lane.close()
    pieces = []
    for event in events:
        if isinstance(event, ChatContentDelta | TextBlockDelta):
            pieces.append(event.text)
        elif isinstance(event, ResponseContentDeltaEvent) and event.type == TEXT_DELTA:
            pieces.append(event.delta)
    assert pieces
    return "".join(pieces)


@pytest.fixture(autouse=True)
def _public_names(monkeypatch: pytest.MonkeyPatch) -> None:
    # The examples import iter_events, aiter_events and Liveness from `sse_engine`, as
    # users will. Until sse_engine/__init__.py exports them, lend them for the test.
    for name, value in PUBLIC.items():
        if not hasattr(sse_engine, name):
            monkeypatch.setattr(sse_engine, name, value, raising=False)


Runner = Callable[..., tuple[int, str]]


@pytest.fixture
def stderr_of_examples() -> list[str]:
    """What the examples run by ``run_example`` wrote to stderr, one entry per run."""
    return []


@pytest.fixture
def run_example(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    stderr_of_examples: list[str],
) -> Runner:
    """``run_example(name, *args)``: ``python docs/examples/<name> <args>``, (exit code, stdout)."""

    def run(example: str, *args: str) -> tuple[int, str]:
        path = str(EXAMPLES / example)
        monkeypatch.setattr(sys, "argv", [path, *args])
        capsys.readouterr()
        with pytest.raises(SystemExit) as exited:
            runpy.run_path(path, run_name="__main__")
        captured = capsys.readouterr()
        stderr_of_examples.append(captured.err)
        return int(exited.value.code or 0), captured.out

    return run


@pytest.mark.parametrize("example", sorted(LANE_OF))
def test_example_streams_the_text_and_completes(
    stream_server: StreamServer, example: str, run_example: Runner
) -> None:
    code, out = run_example(example, f"{stream_server.url}/v1")
    assert out == expected_text(LANE_OF[example]) + "\n[outcome: completed]\n"
    assert code == 0


def test_the_anyio_example_runs_on_asyncio_too(
    stream_server: StreamServer, run_example: Runner
) -> None:
    code, out = run_example("anyio_h11.py", f"{stream_server.url}/v1", "asyncio")
    assert (code, out) == (0, expected_text("chat") + "\n[outcome: completed]\n")


@pytest.mark.parametrize("example", RESUMING)
def test_resuming_examples_survive_cuts(
    stream_server: StreamServer, example: str, run_example: Runner, stderr_of_examples: list[str]
) -> None:
    # retry: 0 from the server: the examples reconnect without waiting.
    stream_server.defaults.update({"cut": "6:20,14:5", "chunk": "64", "retry": "0"})
    code, out = run_example(example, f"{stream_server.url}/v1")
    assert out == expected_text("responses") + "\n[outcome: completed]\n"
    assert code == 0
    assert [s.method for s in stream_server.seen] == ["POST", "GET", "GET"]
    assert stderr_of_examples == ["[reconnecting in 0.0 s]\n" * 2]


@pytest.mark.parametrize("example", RESUMING)
def test_resuming_examples_fetch_the_final_object_when_a_resume_is_refused(
    stream_server: StreamServer, example: str, run_example: Runner, stderr_of_examples: list[str]
) -> None:
    # Past the resume window the server refuses the streamed resume (404); the
    # examples GET the final response and print the text that never streamed.
    stream_server.defaults.update({"cut": "6:20", "refuse": "404", "retry": "0"})
    code, out = run_example(example, f"{stream_server.url}/v1")
    assert out == expected_text("responses") + "\n[outcome: completed]\n"
    assert code == 0
    methods = [(s.method, "stream" in s.query) for s in stream_server.seen]
    assert methods == [("POST", False), ("GET", True), ("GET", False)]
    assert stderr_of_examples == ["[reconnecting in 0.0 s]\n"]


@pytest.mark.parametrize("example", RESUMING)
def test_resuming_examples_report_what_the_final_object_says(
    stream_server: StreamServer, example: str, run_example: Runner
) -> None:
    # A refused resume of a stream that failed: the final object says failed.
    stream_server.defaults.update(
        {"capture": "responses_error", "cut": "3:10", "refuse": "404", "retry": "0"}
    )
    code, out = run_example(example, f"{stream_server.url}/v1")
    assert code == 1 and out.rstrip().endswith("]")
    assert "\n[outcome: failed: " in out


@pytest.mark.parametrize("example", sorted(set(LANE_OF) - set(RESUMING)))
def test_examples_report_a_cut_as_truncated(
    stream_server: StreamServer, example: str, run_example: Runner
) -> None:
    stream_server.defaults.update({"cut": "6:20"})
    code, out = run_example(example, f"{stream_server.url}/v1")
    assert "[transport error: " in out
    assert out.rstrip().endswith("]") and "[outcome: truncated: stream_truncated: " in out
    assert code == 1


@pytest.mark.parametrize("example", sorted(LANE_OF))
def test_examples_report_a_pre_stream_error(
    stream_server: StreamServer, example: str, run_example: Runner
) -> None:
    stream_server.defaults.update({"status": "429"})
    code, out = run_example(example, f"{stream_server.url}/v1")
    assert code == 1
    assert out.startswith("\n[outcome: failed: rate_limit")


def test_an_example_runs_as_a_real_script(stream_server: StreamServer) -> None:
    if not EXPORTED:
        pytest.skip("sse_engine/__init__.py does not export iter_events/aiter_events/Liveness yet")
    # The package under test, not whichever copy is installed in the environment.
    root = str(EXAMPLES.parents[1])
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "SSE_ENGINE_BASE_URL": f"{stream_server.url}/v1", "PYTHONPATH": path}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "httpx_sync.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected_text("responses") + "\n[outcome: completed]\n"


def test_the_code_in_transports_md_is_the_code_of_the_examples() -> None:
    # docs/transports.md shows excerpts of the scripts; each must be in its file as is.
    doc = (EXAMPLES.parent / "transports.md").read_text()
    blocks = re.findall(r"<!-- excerpt: (\S+) -->\n```python\n(.*?)\n```", doc, re.DOTALL)
    assert {name for name, _ in blocks} == {*LANE_OF, RETRY_RECIPE.name}
    for name, excerpt in blocks:
        lines = (EXAMPLES / name).read_text().splitlines()
        size = len(excerpt.splitlines())
        assert any(
            textwrap.dedent("\n".join(lines[i : i + size])) == excerpt for i in range(len(lines))
        ), f"docs/transports.md shows an excerpt of {name} that is not in the file"


# -- retry it yourself: docs/examples/retry_httpx.py -------------------------------------------

RETRY_RECIPE = EXAMPLES / "retry_httpx.py"
#: How each lane names the two failures of the scripted server below.
FAILURE_NAMES = {
    "chat": ("overloaded", "rate_limit_exceeded"),
    "messages": ("overloaded_error", "rate_limit_error"),
}


def retry_with(
    server: StreamServer, api: str, mode: str, policy: Any = None
) -> tuple[Lane[Any], list[float]]:
    """The recipe's retry loop over httpx (sync or async), with a recording sleep."""
    recipe = runpy.run_path(str(RETRY_RECIPE), run_name="retry_recipe")
    policy = policy or sse_engine.RetryPolicy(random=lambda: 0.0)
    base = f"{server.url}/v1"
    slept: list[float] = []
    if mode == "sync":
        with httpx.Client(verify=False) as client:
            lane = recipe["post_with_retries"](client, base, api, policy, slept.append)
    else:

        async def sleep(seconds: float) -> None:
            slept.append(seconds)

        async def run() -> Lane[Any]:
            async with httpx.AsyncClient(verify=False) as client:
                lane: Lane[Any] = await recipe["apost_with_retries"](
                    client, base, api, policy, sleep
                )
                return lane

        lane = asyncio.run(run())
    return lane, slept


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("api", ["chat", "messages"])
def test_the_retry_recipe_resends_an_in_stream_failure_and_a_rate_limit(
    stream_server: StreamServer, api: str, mode: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # 1st POST: an early 200, keepalives, then an overload inside the stream (no SDK
    # retries that); 2nd: a 429 before the stream with Retry-After: 2; 3rd: the answer.
    stream_server.queue.extend(
        [
            {"late_status": "529", "prelude": "2", "keepalive": "1"},
            {"status": "429", "retry_after": "2"},
            {},
        ]
    )
    lane, slept = retry_with(stream_server, api, mode)
    assert [s.method for s in stream_server.seen] == ["POST"] * 3
    assert slept == [0.5, 2.0]  # the backoff after the overload, then what the server asked
    assert lane.outcome is Outcome.COMPLETED and lane.error is None
    overload, rate_limit = FAILURE_NAMES[api]
    assert capsys.readouterr().out == (
        f"\n[attempt 1 failed ({overload}): retry in 0.50 s]\n"
        f"\n[attempt 2 failed ({rate_limit}): retry in 2.00 s]\n" + expected_text(api)
    )


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("api", ["chat", "messages"])
def test_the_retry_recipe_resends_a_truncated_stream(
    stream_server: StreamServer, api: str, mode: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Chat and Messages cannot resume: a cut stream is sent again from the start.
    stream_server.queue.extend([{"cut": "3:10"}, {}])
    lane, slept = retry_with(stream_server, api, mode)
    assert lane.outcome is Outcome.COMPLETED and slept == [0.5]
    out = capsys.readouterr().out
    assert "[transport error: " in out and "(stream_truncated): retry in 0.50 s]" in out
    assert out.endswith("s]\n" + expected_text(api))


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("late", [False, True])
def test_the_retry_recipe_does_not_resend_what_would_fail_again(
    stream_server: StreamServer, mode: str, late: bool
) -> None:
    # A 400 fails again however often it is sent, before the stream or inside it.
    stream_server.queue.append({"late_status" if late else "status": "400"})
    lane, slept = retry_with(stream_server, "chat", mode)
    assert lane.outcome is Outcome.FAILED and slept == []
    assert len(stream_server.seen) == 1


def test_the_retry_recipe_gives_up_after_max_attempts(stream_server: StreamServer) -> None:
    stream_server.defaults.update({"status": "529"})
    policy = sse_engine.RetryPolicy(max_attempts=3, random=lambda: 0.0)
    lane, slept = retry_with(stream_server, "messages", "sync", policy)
    assert lane.outcome is Outcome.FAILED and lane.error is not None
    assert lane.error.status == 529 and slept == [0.5, 1.0] and len(stream_server.seen) == 3


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("api", ["chat", "messages"])
def test_the_retry_recipe_runs_as_a_script(
    stream_server: StreamServer, api: str, mode: str, run_example: Runner
) -> None:
    code, out = run_example("retry_httpx.py", f"{stream_server.url}/v1", api, mode)
    assert (code, out) == (0, expected_text(api) + "\n[outcome: completed]\n")
