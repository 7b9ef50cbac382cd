"""``sse-engine parse``: raw SSE events of a capture as JSON lines."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from sse_engine.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict[str, object]]]:
    status = main(list(argv))
    lines = capsys.readouterr().out.splitlines()
    return status, [json.loads(line) for line in lines]


def test_parse_bundled_sample(capsys: pytest.CaptureFixture[str]) -> None:
    status, records = run(capsys, "parse")
    assert status == 0
    assert [r["id"] for r in records[:-1]] == [str(n) for n in range(11)]
    assert records[1]["event"] == "response.output_item.added"
    assert records[-1] == {"last_event_id": "10", "retry": 3000}
    # The last event's data spans two data: lines, joined by LF.
    assert records[10]["data"].count("\n") == 1  # type: ignore[union-attr]


def test_parse_file_with_comments_and_unterminated_tail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cut.sse"
    path.write_bytes(b": ping\n\nid: 9\ndata: one\n\ndata: cut")
    status, records = run(capsys, "parse", "--comments", str(path))
    assert status == 0
    assert records == [
        {"comment": "ping"},
        {"event": "message", "data": "one", "id": "9"},
        {"last_event_id": "9", "retry": None, "discarded_unterminated_event": True},
    ]


def test_parse_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(b"event: x\ndata: y\n\n"))
    monkeypatch.setattr(sys, "stdin", stdin)
    status, records = run(capsys, "parse", "-")
    assert status == 0
    assert records[0] == {"event": "x", "data": "y", "id": ""}


def test_unreadable_input_is_one_line_and_exit_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["parse", str(tmp_path / "missing.sse")]) == 3
    err = capsys.readouterr().err
    assert err.startswith("sse-engine parse: ") and err.count("\n") == 1


def test_oversized_event_is_reported_not_raised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "big.sse"
    path.write_bytes(b"data: " + b"x" * 5000)
    assert main(["parse", "--max-event-size", "1000", str(path)]) == 3
    assert "max_event_size=1000" in capsys.readouterr().err


def test_module_entry_point_runs() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "sse_engine", "parse"], capture_output=True, text=True, check=True
    )
    assert json.loads(result.stdout.splitlines()[-1])["last_event_id"] == "10"
