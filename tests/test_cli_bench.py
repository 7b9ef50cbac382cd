"""``sse-engine bench``: runs benchmarks/run.py from a checkout; one line and exit 3 without it.

The real benchmarks take about a minute even with ``--quick``, so these tests
put stand-in modules in ``sys.modules`` and check what is called with what.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest

from sse_engine import _cli_bench
from sse_engine._cli import main


@pytest.fixture
def fake_benchmarks(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    calls: dict[str, Any] = {"run": [], "lanes": []}
    runner = types.ModuleType("benchmarks.run")

    def run_main(argv: list[str] | None = None) -> int:
        calls["run"].append(argv)
        print("| parser table |")
        return calls.get("status", 0)

    runner.main = run_main  # type: ignore[attr-defined]
    runner.MODULES = ["benchmarks.bench_parser", "benchmarks.bench_chat"]  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "benchmarks.run", runner)
    for lane in ("chat", "responses", "messages"):
        module = types.ModuleType(f"benchmarks.bench_{lane}")

        def run(quick: bool = False, lane: str = lane) -> str:
            calls["lanes"].append((lane, quick))
            return f"## {lane} lane table\n"

        module.run = run  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, f"benchmarks.bench_{lane}", module)
    yield calls


def test_runs_benchmarks_run_and_the_lanes_it_does_not_list(
    fake_benchmarks: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "--quick"]) == 0
    out = capsys.readouterr().out
    assert fake_benchmarks["run"] == [["--quick", "--no-write"]]
    # bench_chat is in MODULES (run by benchmarks.run); the other two are run after it.
    assert fake_benchmarks["lanes"] == [("responses", True), ("messages", True)]
    assert out.index("| parser table |") < out.index("## responses lane table")
    assert "## messages lane table" in out and "## chat lane table" not in out


def test_flags_are_passed_through(
    fake_benchmarks: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    fake_benchmarks["status"] = 1
    assert main(["bench", "--write", "--only", "messages"]) == 1
    assert fake_benchmarks["run"] == [["--write", "--only", "messages"]]
    assert fake_benchmarks["lanes"] == [("messages", False)]
    capsys.readouterr()


def test_a_lane_benchmark_whose_sdk_is_missing_is_skipped(
    fake_benchmarks: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setitem(sys.modules, "benchmarks.bench_messages", None)  # import fails
    assert main(["bench"]) == 0
    assert "### benchmarks.bench_messages: skipped" in capsys.readouterr().out


def test_without_a_checkout_one_line_and_exit_3(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(_cli_bench, "find_benchmarks", lambda: None)
    assert main(["bench", "--quick"]) == 3
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith("sse-engine bench: the benchmarks are not installed")


def test_find_benchmarks_from_the_checkout_next_to_the_package(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    """Run from anywhere (an editable install): the checkout beside sse_engine is used."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".")])
    for name in [m for m in sys.modules if m == "benchmarks" or m.startswith("benchmarks.")]:
        monkeypatch.delitem(sys.modules, name)
    runner = _cli_bench.find_benchmarks()
    assert runner is not None and callable(runner.main)
