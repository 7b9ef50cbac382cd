"""The docs' recipes (docs/examples/*.py) run against the real test server.

Each example is executed as a script (``__main__``, the server's base URL as its
first argument) and must print exactly the capture's text and the outcome, so a
recipe that stops working fails here. Faults are put under them through the
server's default query parameters.
"""

from __future__ import annotations

import os
import re
import runpy
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from server import StreamServer, capture_bytes

import sse_engine
from sse_engine import _liveness, _transport
from sse_engine._lane import Lane, LaneEvent
from sse_engine.chat import ChatCompletionsLane, ChatContentDelta
from sse_engine.messages import MessagesLane, TextDelta
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
        if isinstance(event, ChatContentDelta | TextDelta):
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
def run_example(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Runner:
    """``run_example(name, *args)``: ``python docs/examples/<name> <args>``, (exit code, stdout)."""

    def run(example: str, *args: str) -> tuple[int, str]:
        path = str(EXAMPLES / example)
        monkeypatch.setattr(sys, "argv", [path, *args])
        capsys.readouterr()
        with pytest.raises(SystemExit) as exited:
            runpy.run_path(path, run_name="__main__")
        return int(exited.value.code or 0), capsys.readouterr().out

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
    stream_server: StreamServer, example: str, run_example: Runner
) -> None:
    stream_server.defaults.update({"cut": "6:20,14:5", "chunk": "64"})
    code, out = run_example(example, f"{stream_server.url}/v1")
    assert out == expected_text("responses") + "\n[outcome: completed]\n"
    assert code == 0
    assert [s.method for s in stream_server.seen] == ["POST", "GET", "GET"]


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
    env = {**os.environ, "SSE_ENGINE_BASE_URL": f"{stream_server.url}/v1"}
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
    assert {name for name, _ in blocks} == set(LANE_OF)
    for name, excerpt in blocks:
        lines = (EXAMPLES / name).read_text().splitlines()
        size = len(excerpt.splitlines())
        assert any(
            textwrap.dedent("\n".join(lines[i : i + size])) == excerpt for i in range(len(lines))
        ), f"docs/transports.md shows an excerpt of {name} that is not in the file"
