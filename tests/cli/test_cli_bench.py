"""``sse-engine bench``: runs benchmarks/run.py from a checkout; one line and exit 3 without it.

The real benchmarks take a while even with ``--quick``, so these tests put a
stand-in ``benchmarks.run`` in ``sys.modules`` and check what it is called with.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sse_engine.cli import _bench as _cli_bench
from sse_engine.cli import main


@pytest.fixture
def fake_run(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """A stand-in ``benchmarks.run`` that records its argv and prints a table."""
    calls: dict[str, Any] = {"run": []}
    runner = types.ModuleType("benchmarks.run")

    def run_main(argv: list[str] | None = None) -> int:
        calls["run"].append(argv)
        print("| parser and lane tables |")
        status: int = calls.get("status", 0)
        return status

    runner.main = run_main  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "benchmarks.run", runner)
    yield calls


def test_runs_benchmarks_run_once_printing_only(
    fake_run: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "--quick"]) == 0
    assert fake_run["run"] == [["--quick", "--no-write"]]
    assert capsys.readouterr().out == "| parser and lane tables |\n"


def test_flags_are_passed_through_and_the_status_returned(
    fake_run: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    fake_run["status"] = 1
    assert main(["bench", "--write", "--only", "messages"]) == 1
    assert fake_run["run"] == [["--write", "--only", "messages"]]
    capsys.readouterr()


def test_benchmarks_run_lists_the_parser_and_every_lane() -> None:
    """Nothing is run behind benchmarks.run's back: every benchmark is one of its modules,
    each with the same entry point."""
    run = pytest.importorskip("benchmarks.run")
    folder = Path(run.__file__).parent
    on_disk = {f"benchmarks.{path.stem}" for path in folder.glob("bench_*.py")}
    assert set(run.MODULES) == on_disk | {"benchmarks.peer_correctness"}
    assert run.MODULES[:2] == ["benchmarks.peer_correctness", "benchmarks.bench_parser"]
    for name in run.MODULES:
        params = inspect.signature(importlib.import_module(name).main).parameters
        assert [(p.name, p.default) for p in params.values()] == [
            ("write", True), ("quick", False)
        ], name


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
