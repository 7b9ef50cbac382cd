"""``sse-engine demo``: every lane's bundled captures through inspect, and a resumed stream."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from sse_engine._outcome import Outcome
from sse_engine.cli import _demo as _cli_demo
from sse_engine.cli import main
from sse_engine.cli._demo import SCENARIOS, Scenario
from sse_engine.cli._input import bundled_capture
from sse_engine.cli._inspect import inspect_body
from sse_engine.cli._render import describe_error


@pytest.fixture(autouse=True)
def _width(monkeypatch: pytest.MonkeyPatch) -> None:
    # The demo fits the terminal (COLUMNS wins): pin it, whatever runs the tests.
    monkeypatch.setenv("COLUMNS", "100")


def demo(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    status = main(["demo", *argv])
    captured = capsys.readouterr()
    assert captured.err == ""
    return status, captured.out


def sections(out: str) -> dict[str, str]:
    """The demo's output split at its ``── title ───`` headings."""
    parts = re.split(r"^── (.+?) ─+$", out, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def test_every_lane_every_scenario_and_the_resume(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = demo(capsys)
    assert status == 0
    found = sections(out.split("\ndemo: ", 1)[0])
    assert len(found) == 17  # four scenarios of each of the four lanes, and the resume
    expected = {
        "chat_basic.sse: a normal stream: text and a tool call": "COMPLETED",
        "chat_truncated.sse: the connection dropped mid-stream": "TRUNCATED",
        "chat_error.sse: the server fails inside a 200 stream": "FAILED",
        "chat_prestream_429.json: a JSON error body instead of a stream (HTTP 429)": "FAILED",
        "responses_basic.sse: a normal stream: text and a tool call": "COMPLETED",
        "responses_truncated.sse: the connection dropped mid-stream": "TRUNCATED",
        "responses_error.sse: the server fails inside a 200 stream": "FAILED",
        "responses_prestream_429.json: a JSON error body instead of a stream (HTTP 429)": "FAILED",
        "messages_basic.sse: a normal stream: text and a tool call": "COMPLETED",
        "messages_truncated.sse: the connection dropped mid-stream": "TRUNCATED",
        "messages_error.sse: the server fails inside a 200 stream": "FAILED",
        "messages_prestream_429.json: a JSON error body instead of a stream (HTTP 429)": "FAILED",
        "gemini_basic.sse: a normal stream: text and a tool call": "COMPLETED",
        "gemini_truncated.sse: the connection dropped mid-stream": "TRUNCATED",
        "gemini_error.sse: the server fails inside a 200 stream": "FAILED",
        "gemini_prestream_429.json: a JSON error body instead of a stream (HTTP 429)": "FAILED",
    }
    for title, outcome in expected.items():
        assert f"outcome    {outcome}" in found[title], title
    basic = found["messages_basic.sse: a normal stream: text and a tool call"]
    assert "tool call  get_weather" in basic
    gemini = found["gemini_basic.sse: a normal stream: text and a tool call"]
    assert "tool call  get_weather" in gemini and "lane       Gemini" in gemini
    assert "retry after 27 s" in " ".join(found[
        "gemini_prestream_429.json: a JSON error body instead of a stream (HTTP 429)"
    ].split())
    assert "(retryable, HTTP 429)" in " ".join(found[
        "chat_prestream_429.json: a JSON error body instead of a stream (HTTP 429)"
    ].split())
    # The exit status is said once, at the end, then where to go next.
    assert "exit status" not in "".join(found.values())
    tail = out.split("\ndemo: ", 1)[1]
    assert tail.startswith("every capture ended as expected (exit status 0)\n")
    assert "next steps sse-engine inspect YOUR_CAPTURE.sse" in tail
    assert "docs/cli.md" in " ".join(tail.split())
    # Short enough for a terminal, and no colour when not on one.
    assert len(out.splitlines()) < 200
    assert "\x1b[" not in out


def test_event_counts_use_one_naming_in_every_lane(capsys: pytest.CaptureFixture[str]) -> None:
    _, out = demo(capsys)
    rows = re.findall(r"^events     \d+ typed events: (.*(?:\n {11}\S.*)*)", out, flags=re.M)
    assert len(rows) == 12  # the three streams of each lane
    for row in rows:
        for count in " ".join(row.split()).removesuffix(", …").split(", "):
            # "11 ResponseContentDeltaEvent", "26 ChatChunk", "5 TextBlockDelta": classes.
            assert re.fullmatch(r"\d+ [A-Z][A-Za-z]+", count), row


def _whole_texts() -> list[str]:
    """Every error and warning message the demo's captures produce, as inspect says them."""
    texts = []
    for lane, scenarios in SCENARIOS.items():
        for scenario in scenarios:
            report = inspect_body(
                bundled_capture(scenario.capture), source=scenario.capture,
                lane="auto" if scenario.status is None else lane, status=scenario.status,
            )
            if report["error"] is not None:
                texts.append(describe_error(report["error"]))
            texts += [w["message"] for w in report["warnings"]]
    assert any(len(text) > 100 for text in texts)  # some do not fit 80 columns
    return texts


def test_a_wide_terminal_shows_every_error_and_warning_whole_on_its_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "300")
    _, out = demo(capsys)
    lines = out.splitlines()
    for text in _whole_texts():
        assert any(text in line for line in lines), text
    assert "…" not in "".join(line for line in lines if line.startswith(("error", "  ")))


def test_a_narrow_terminal_wraps_errors_and_warnings_and_clips_none(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    _, out = demo(capsys)
    flat = " ".join(out.split())
    for text in _whole_texts():
        assert " ".join(text.split()) in flat, text
    for block in re.findall(r"^(?:error|  \w+ at) .*(?:\n {4,}\S.*)*", out, flags=re.M):
        assert all(len(line) <= 80 for line in block.splitlines()), block


def test_the_resume_section(capsys: pytest.CaptureFixture[str]) -> None:
    _, out = demo(capsys, "--lane", "responses")
    resume = sections(out)["responses_basic.sse cut mid-stream, then resumed"]
    assert re.search(r"cut +at byte \d+ of 8204 \(line \d+\): the connection dropped "
                     r"\(TRUNCATED if closed\), last sequence_number 16", resume)
    assert (
        "plan       GET https://api.openai.com/v1/responses/resp_68a1f0c2d4e84c3b9f1e2a7d6c5b4a39"
        "?stream=true&starting_after=16"
    ) in resume
    assert "no Last-Event-ID" in resume
    assert "10 events replayed after sequence_number 16" in resume
    assert re.search(r"^outcome    COMPLETED$", resume, flags=re.M)
    assert "snapshot   equals the uncut stream's to_api()" in resume


def test_one_lane_only(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = demo(capsys, "--lane", "chat")
    assert status == 0
    assert set(sections(out)) == {f"{s.capture}: {s.title}" for s in SCENARIOS["chat"]}


def test_a_capture_that_does_not_end_as_expected_fails_the_demo(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = Scenario("messages_basic.sse", "claimed to fail", Outcome.FAILED)
    monkeypatch.setitem(_cli_demo.SCENARIOS, "messages", [wrong])
    status, out = demo(capsys, "--lane", "messages")
    assert status == 1
    assert "expected FAILED" in out and "some captures did NOT end as expected" in out


def test_colour_on_request(capsys: pytest.CaptureFixture[str]) -> None:
    _, out = demo(capsys, "--lane", "chat", "--color", "always")
    assert "\x1b[1;32mCOMPLETED\x1b[0m" in out


def test_module_entry_point() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "sse_engine", "demo"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0 and result.stderr == ""
    assert "snapshot   equals the uncut stream's to_api()" in result.stdout
