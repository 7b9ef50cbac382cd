"""``sse-engine inspect`` on a ``curl -i`` capture: the status line and headers are read.

The head's status and headers go to the lane's ``start()`` as a client would
pass them; lines and byte offsets in the report count from the start of the
file. Whatever the head's shape, the report on the body is the report on the
same body saved without a head.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from sse_engine.cli import main
from sse_engine.cli._head import split_head
from sse_engine.cli._inspect import inspect_body

CAPTURES = Path(__file__).resolve().parents[2] / "sse_engine" / "captures"
SSE_HEAD = (
    b"HTTP/1.1 200 OK\r\n"
    b"date: Mon, 01 Dec 2025 00:00:00 GMT\r\n"
    b"content-type: text/event-stream; charset=utf-8\r\n"
    b"transfer-encoding: chunked\r\n"
    b"x-request-id: req_123\r\n"
    b"\r\n"
)
RATE_LIMITED_HEAD = (
    b"HTTP/2 429 \r\n"
    b"content-type: application/json\r\n"
    b"retry-after: 20\r\n"
    b"\r\n"
)


@pytest.fixture(autouse=True)
def _width(monkeypatch: pytest.MonkeyPatch) -> None:
    # Reports wrap at the terminal's width (COLUMNS wins): pin it, whatever runs the tests.
    monkeypatch.setenv("COLUMNS", "100")


def inspect(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, body: bytes, *argv: str
) -> tuple[int, dict[str, Any]]:
    path = tmp_path / "capture.txt"
    path.write_bytes(body)
    status = main(["inspect", str(path), "--json", *argv])
    captured = capsys.readouterr()
    assert captured.err == ""
    return status, json.loads(captured.out)


def capture(name: str) -> bytes:
    return (CAPTURES / name).read_bytes()


def test_a_stream_with_its_head(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, data = inspect(capsys, tmp_path, SSE_HEAD + capture("chat_truncated.sse"))
    assert status == 2
    assert data["http"] == {
        "version": "HTTP/1.1",
        "status": 200,
        "reason": "OK",
        "headers": [
            ["date", "Mon, 01 Dec 2025 00:00:00 GMT"],
            ["content-type", "text/event-stream; charset=utf-8"],
            ["transfer-encoding", "chunked"],
            ["x-request-id", "req_123"],
        ],
    }
    assert (data["input"], data["lane"], data["outcome"]) == ("stream", "chat", "truncated")
    # Without the head the warning sits on line 17, byte 2741: now 6 lines further down.
    (warning,) = data["warnings"]
    assert (warning["line"], warning["offset"]) == (17 + 6, 2741 + len(SSE_HEAD))
    assert data["bytes"] == len(SSE_HEAD) + 2741


def test_a_pre_stream_error_with_its_head(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    body = RATE_LIMITED_HEAD + capture("messages_prestream_429.json")
    status, data = inspect(capsys, tmp_path, body)
    assert status == 2
    assert (data["input"], data["lane"], data["outcome"]) == ("error_body", "messages", "failed")
    # The status came from the capture: known, not assumed.
    assert (data["status"], data["status_assumed"]) == (429, None)
    assert data["error"]["status"] == 429 and data["error"]["retryable"]
    assert data["error"]["code"] in ("rate_limit_error", None)
    assert data["http"]["version"] == "HTTP/2" and data["http"]["reason"] == ""


def test_the_text_report_shows_the_head(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "capture.txt"
    path.write_bytes(RATE_LIMITED_HEAD + capture("messages_prestream_429.json"))
    assert main(["inspect", str(path)]) == 2
    out = capsys.readouterr().out
    assert (
        "response   HTTP/2 429, content-type application/json "
        "(the capture's status line and 2 headers)"
    ) in out
    assert "outcome    FAILED: the server sent an error instead of a stream (HTTP 429)" in out
    assert "HTTP status not given" not in out


def test_an_html_error_page_behind_a_proxy(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    body = (
        b"HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/html\r\n\r\n"
        b"<html><body>502 Bad Gateway</body></html>\r\n"
    )
    status, data = inspect(capsys, tmp_path, body)
    assert (status, data["outcome"], data["status"]) == (2, "failed", 502)
    assert data["error"]["message"] == "<html><body>502 Bad Gateway</body></html>"
    assert data["error"]["retryable"]


def test_a_200_that_is_not_a_stream(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # stream: true was forgotten: the body is the finished object, with its content type.
    head = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n"
    path = tmp_path / "capture.txt"
    path.write_bytes(head + b'{"id": "chatcmpl-1", "object": "chat.completion", "choices": []}')
    assert main(["inspect", str(path)]) == 3
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert "a JSON object, not an event stream (a response fetched without stream: true?)" in (
        captured.err
    )
    path.write_bytes(head + b"plain text")
    assert main(["inspect", str(path)]) == 3
    err = capsys.readouterr().err
    assert "content type is application/json, not text/event-stream" in err


def test_a_200_json_error_body(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    head = b"HTTP/1.1 200 OK\ncontent-type: application/json\n\n"
    status, data = inspect(capsys, tmp_path, head + capture("chat_prestream_401.json"))
    assert (status, data["input"], data["status"]) == (2, "error_body", 200)
    assert data["outcome"] == "failed"


def test_a_head_with_no_body(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "capture.txt"
    path.write_bytes(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n")
    assert main(["inspect", str(path)]) == 3
    err = capsys.readouterr().err
    assert "an HTTP response head (HTTP/1.1 200 OK) with no blank line after it" in err
    path.write_bytes(SSE_HEAD)
    assert main(["inspect", str(path)]) == 3
    assert "empty input" in capsys.readouterr().err


def test_status_given_on_the_command_line_wins(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    head = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n"
    status, data = inspect(
        capsys, tmp_path, head + capture("chat_prestream_429.json"), "--status", "429"
    )
    assert (status, data["status"], data["error"]["status"]) == (2, 429, 429)
    assert data["http"]["status"] == 200  # what the capture said, still reported


def test_the_last_of_several_heads_describes_the_body() -> None:
    body = b"data: [DONE]\n\n"
    capture_ = (
        b"HTTP/1.1 100 Continue\r\n\r\n"
        b"HTTP/1.1 200 Connection established\r\n\r\n"
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n" + body
    )
    head, rest = split_head(capture_)
    assert head is not None and rest == body
    assert (head.status, head.reason) == (200, "OK")
    assert head.header("Content-Type") == "text/event-stream"
    assert head.size == len(capture_) - len(body) and head.lines == 7


def test_a_body_without_a_head_is_left_alone() -> None:
    body = capture("responses_basic.sse")
    assert split_head(body) == (None, body)
    # "HTTP/" inside the body is not a head.
    assert split_head(b"data: HTTP/1.1 200 OK\n\n")[0] is None


_COMPARED = ("lane", "outcome", "error", "text", "tool_calls", "event_counts", "usage", "stop")


@settings(max_examples=examples(10, thorough=30), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(sorted(p.name for p in CAPTURES.glob("*_*.sse"))),
    version=st.sampled_from([b"HTTP/1.1 200 OK", b"HTTP/2 200", b"HTTP/1.0 200 OK"]),
    newline=st.sampled_from([b"\r\n", b"\n"]),
    extra=st.lists(
        st.sampled_from([b"x-request-id: req_1", b"cache-control: no-cache", b"server: edge",
                         b"data: not a body line", b"id: 7"]),
        max_size=4,
    ),
    interim=st.booleans(),
)
def test_a_head_changes_nothing_but_where_things_are_counted_from(
    name: str, version: bytes, newline: bytes, extra: list[bytes], interim: bool
) -> None:
    body = capture(name)
    lines = [version, b"content-type: text/event-stream", *extra]
    head = newline.join(lines) + newline + newline
    if interim:
        head = b"HTTP/1.1 100 Continue" + newline + newline + head
    plain = inspect_body(body, source=name, events=True)
    headed = inspect_body(head + body, source=name, events=True)
    if headed["error"] is not None:  # the head's x-request-id reaches the error (issue 15)
        in_body = plain["error"].pop("request_id")  # an error frame's own id wins
        in_head = "req_1" if b"x-request-id: req_1" in extra else None
        assert headed["error"].pop("request_id") == (in_body or in_head)
    for key in _COMPARED:
        assert headed[key] == plain[key], key
    shift_lines, shift_bytes = head.count(b"\n"), len(head)
    for ours, theirs in zip(headed["warnings"], plain["warnings"], strict=True):
        assert ours["line"] == theirs["line"] + shift_lines
        assert ours["offset"] == theirs["offset"] + shift_bytes
    for ours, theirs in zip(headed["events"], plain["events"], strict=True):
        assert ours["line"] == (None if theirs["line"] is None else theirs["line"] + shift_lines)
