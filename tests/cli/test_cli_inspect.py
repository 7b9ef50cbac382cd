"""``sse-engine inspect``: every bundled capture and lane, --json, --events, colour, bad input."""

from __future__ import annotations

import gzip
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import sse_engine
from sse_engine import (
    ChatCompletionsLane,
    MessagesLane,
    ResponsesLane,
    chat,
    encode_responses_event,
    messages,
    responses,
)
from sse_engine._parser import SSEParser
from sse_engine.cli import main
from sse_engine.cli._inspect import detect_lane
from sse_engine.parts import PartStream

CAPTURES = Path(__file__).resolve().parents[2] / "sse_engine" / "captures"

# capture -> (lane, outcome, exit status)
EXPECTED: dict[str, tuple[str | None, str, int]] = {
    "chat_azure_filter.sse": ("chat", "completed", 0),
    "chat_basic.sse": ("chat", "completed", 0),
    "chat_error.sse": ("chat", "failed", 2),
    "chat_gemini_tools.sse": ("chat", "completed", 0),
    "chat_kimi.sse": ("chat", "completed", 0),
    "chat_n2_length.sse": ("chat", "incomplete", 1),
    "chat_parallel_tools.sse": ("chat", "completed", 0),
    "chat_prestream_401.json": (None, "failed", 2),
    "chat_prestream_429.json": (None, "failed", 2),
    "chat_refusal.sse": ("chat", "completed", 0),
    "chat_slow_start_error.sse": ("chat", "failed", 2),
    "chat_truncated.sse": ("chat", "truncated", 2),
    "gemini_basic.sse": ("gemini", "completed", 0),
    "gemini_error.sse": ("gemini", "failed", 2),
    "gemini_max_tokens.sse": ("gemini", "incomplete", 1),
    "gemini_prestream_400.json": ("gemini", "failed", 2),  # Google's envelope, in an array
    "gemini_prestream_429.json": ("gemini", "failed", 2),
    "gemini_prompt_blocked.sse": ("gemini", "incomplete", 1),
    "gemini_safety.sse": ("gemini", "incomplete", 1),
    "gemini_thinking.sse": ("gemini", "completed", 0),
    "gemini_tools_two.sse": ("gemini", "completed", 0),
    "gemini_truncated.sse": ("gemini", "truncated", 2),
    "messages_basic.sse": ("messages", "completed", 0),
    "messages_error.sse": ("messages", "failed", 2),
    "messages_gateway.sse": ("messages", "completed", 0),
    "messages_max_tokens.sse": ("messages", "incomplete", 1),
    "messages_prestream_429.json": ("messages", "failed", 2),
    "messages_prestream_529.json": ("messages", "failed", 2),
    "messages_thinking.sse": ("messages", "completed", 0),
    "messages_truncated.sse": ("messages", "truncated", 2),
    "messages_web_search.sse": ("messages", "completed", 0),
    "responses_basic.sse": ("responses", "completed", 0),
    "responses_error.sse": ("responses", "failed", 2),
    "responses_kindo_agent.sse": ("responses", "completed", 0),
    "responses_max_tokens.sse": ("responses", "incomplete", 1),
    "responses_prestream_429.json": (None, "failed", 2),
    "responses_reasoning.sse": ("responses", "completed", 0),
    "responses_refusal.sse": ("responses", "incomplete", 1),
    "responses_slow_start_failed.sse": ("responses", "failed", 2),
    "responses_truncated.sse": ("responses", "truncated", 2),
    "sample.sse": ("responses", "completed", 0),
}


@pytest.fixture(autouse=True)
def _width(monkeypatch: pytest.MonkeyPatch) -> None:
    # Reports wrap at the terminal's width (COLUMNS wins): pin it, whatever runs the tests.
    monkeypatch.setenv("COLUMNS", "100")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["inspect", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def report(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    status, out, err = run(capsys, *argv, "--json")
    assert err == ""
    (line,) = out.splitlines()
    return status, json.loads(line)


def write(tmp_path: Path, name: str, body: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(body)
    return str(path)


def test_the_table_covers_every_bundled_capture() -> None:
    assert set(EXPECTED) == {p.name for p in CAPTURES.iterdir() if p.suffix in (".sse", ".json")}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_bundled_capture(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    lane, outcome, exit_status = EXPECTED[name]
    status, data = report(capsys, str(CAPTURES / name))
    assert (data["lane"], data["outcome"], data["exit_status"]) == (lane, outcome, exit_status)
    assert status == exit_status
    assert sum(data["event_counts"].values()) >= 1
    assert data["event_counts"]["StreamEnd"] == 1
    assert (data["error"] is None) == (outcome in ("completed", "incomplete"))
    # The text form says the same, one labelled line per fact.
    status, out, err = run(capsys, str(CAPTURES / name), "--color", "never")
    assert status == exit_status and err == ""
    assert f"outcome    {outcome.upper()}" in out


# -- what the report holds, per lane ---------------------------------------------------------------


def test_chat_text_tool_call_and_usage(capsys: pytest.CaptureFixture[str]) -> None:
    _, data = report(capsys, str(CAPTURES / "chat_basic.sse"))
    assert data["lane_reason"] == "object chat.completion.chunk"
    assert data["text"] == "I'll check the current weather in Paris for you."
    assert data["tool_calls"] == [
        {
            "name": "get_weather",
            "id": "call_Jz8kQp2VbN4mXr7tLw1cYs5e",
            "kind": "function",
            "arguments": '{"location":"Paris, France","unit":"celsius"}',
            "complete": True,
            "arguments_error": None,
        }
    ]
    # Usage and finish in the one shape the parts layer gives every lane.
    assert data["usage"] == {"input_tokens": 84, "output_tokens": 31, "total_tokens": 115,
                             "cached_input_tokens": 0, "reasoning_tokens": 0}
    assert data["finish"] == {"reason": "tool_calls", "raw_reason": "tool_calls"}
    assert data["stop"] == "tool_calls"
    assert data["event_counts"]["ChatToolCallArgumentsDelta"] == 12
    status, out, _ = run(capsys, str(CAPTURES / "chat_basic.sse"))
    assert status == 0
    assert "tool call  get_weather [function] (call_Jz8kQp2VbN4mXr7tLw1cYs5e) {\"location\"" in out
    assert "usage      input_tokens=84 output_tokens=31 total_tokens=115" in out
    assert "outcome    COMPLETED (tool_calls)" in out
    assert "warnings   none" in out


def test_chat_reasoning_and_several_choices(capsys: pytest.CaptureFixture[str]) -> None:
    _, kimi = report(capsys, str(CAPTURES / "chat_kimi.sse"))
    assert kimi["reasoning"] == "The user wants a haiku."
    _, two = report(capsys, str(CAPTURES / "chat_n2_length.sse"))
    assert two["stop"] == "choice 0: stop, choice 1: length"
    assert two["text"].startswith("choice 0: ") and "\nchoice 1: " in two["text"]


def test_responses_agent_tools_and_reasoning(capsys: pytest.CaptureFixture[str]) -> None:
    _, data = report(capsys, str(CAPTURES / "responses_kindo_agent.sse"))
    kinds = {(c["name"], c.get("kind")) for c in data["tool_calls"]}
    assert ("incidents.lookup", "kindo_call") in kinds
    assert ("grafana_query", "mcp_call") in kinds
    assert data["reasoning"].startswith("**Planning**")
    assert data["event_counts"]["ResponseCallDeltaEvent(response.kindo_call_arguments.delta)"] == 7
    assert data["usage"]["total_tokens"] == 2359


def test_responses_incomplete_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    status, data = report(capsys, str(CAPTURES / "responses_refusal.sse"))
    assert status == 1
    assert data["stop"] == "content_filter"
    assert data["finish"] == {"reason": "content_filter", "raw_reason": "content_filter"}
    assert data["refusal"]


def test_messages_thinking_and_truncated_tool_input(capsys: pytest.CaptureFixture[str]) -> None:
    _, thinking = report(capsys, str(CAPTURES / "messages_thinking.sse"))
    assert thinking["reasoning"].startswith("Let me solve this step by step")
    status, cut = report(capsys, str(CAPTURES / "messages_truncated.sse"))
    assert status == 2
    (call,) = cut["tool_calls"]
    # Cut off: never complete (the lane warns that its input is not JSON).
    assert call["complete"] is False and call["arguments"] == '{"location": "Zürich, CH"'
    assert cut["finish"] == {"reason": "truncated", "raw_reason": None}
    assert cut["error"]["code"] == "stream_truncated" and cut["error"]["retryable"]
    codes = [(w["code"], w["sse_event"], w["line"]) for w in cut["warnings"]]
    assert codes == [("unterminated_event", None, 44), ("tool_input_invalid", None, 44)]
    _, out, _ = run(capsys, str(CAPTURES / "messages_truncated.sse"))
    assert "<- incomplete: the stream ended inside it" in out
    assert "unterminated_event at end of input, line 44 (byte 2067)" in out


def test_in_stream_error_with_retryable(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, str(CAPTURES / "messages_error.sse"))
    assert status == 2
    # The error frame's own request_id is kept on the error (issue 15).
    assert "error      overloaded_error: Overloaded (retryable, request req_011" in out
    assert "text       Here is a summary of the report:" in out


# -- where problems sit ----------------------------------------------------------------------------


def frames(name: str) -> list[bytes]:
    return [f + b"\n\n" for f in (CAPTURES / name).read_bytes().split(b"\n\n") if f.strip()]


def test_a_sequence_gap_is_located(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parts = frames("responses_basic.sse")
    del parts[5]  # sequence_number 5 never arrives
    path = write(tmp_path, "gap.sse", b"".join(parts))
    status, data = report(capsys, path)
    assert status == 0
    (gap,) = [w for w in data["warnings"] if w["code"] == "sequence_gap"]
    assert gap["sse_event"] == 5
    assert gap["line"] == 16  # three lines per frame (event, data, blank): #5 starts on 16
    assert gap["offset"] == len(b"".join(parts[:6]))
    _, out, _ = run(capsys, path)
    assert f"sequence_gap at SSE event #5, line 16 (byte {gap['offset']})" in out


def test_out_of_order_items_are_located(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The function call opens before the message item is done (renumbered, re-encoded)."""
    payloads = [json.loads(f.split(b"data: ", 1)[1]) for f in frames("responses_basic.sse")]
    payloads.insert(15, payloads.pop(18))  # output_item.added #1 before #0's text is done
    for number, payload in enumerate(payloads):
        payload["sequence_number"] = number
    path = write(tmp_path, "overlap.sse", b"".join(encode_responses_event(p) for p in payloads))
    status, data = report(capsys, path)
    assert status == 0
    overlap = [w for w in data["warnings"] if w["code"] == "item_overlap"]
    assert (overlap[0]["sse_event"], overlap[0]["line"]) == (15, 46)
    assert "output item #1 before item #0 was done" in overlap[0]["message"]


def test_invalid_tool_json_is_reported_where_the_call_ended(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    call = {"index": 0, "id": "call_1", "type": "function",
            "function": {"name": "f", "arguments": '{"a": '}}
    chunks = [
        {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [call]}}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    body = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)
    status, data = report(capsys, write(tmp_path, "bad.sse", body + b"data: [DONE]\n\n"))
    assert status == 0
    (warning,) = data["warnings"]
    assert warning["code"] == "tool_input_invalid" and warning["source"] == "lane"
    assert (warning["sse_event"], warning["line"]) == (1, 3)
    assert "not valid JSON" in data["tool_calls"][0]["arguments_error"]


def test_trailing_bytes_after_the_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = (CAPTURES / "messages_basic.sse").read_bytes() + b"event: ping\ndata: {}\n\n"
    status, data = report(capsys, write(tmp_path, "trail.sse", body))
    assert status == 0
    (warning,) = data["warnings"]
    assert warning["code"] == "event_after_end" and warning["sse_event"] == 19


def test_an_unreadable_event_mid_stream_keeps_what_came_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parts = frames("chat_basic.sse")
    body = b"".join(parts[:4]) + b"data: {not json\n\n" + b"".join(parts[4:])
    status, data = report(capsys, write(tmp_path, "broken.sse", body))
    assert status == 2 and data["outcome"] == "failed"
    assert data["error"]["code"] == "protocol_error"
    assert data["problem"]["sse_event"] == 4 and data["problem"]["line"] == 9
    assert data["text"] == "I'll check the"
    _, out, err = run(capsys, write(tmp_path, "broken.sse", body))
    assert "unreadable SSE event #4, line 9" in out and err == ""


def test_cr_only_line_endings_give_the_same_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, lf = report(capsys, str(CAPTURES / "responses_basic.sse"))
    body = (CAPTURES / "responses_basic.sse").read_bytes().replace(b"\n", b"\r")
    _, cr = report(capsys, write(tmp_path, "cr.sse", body))
    for key in ("outcome", "text", "tool_calls", "event_counts", "sse_events", "usage"):
        assert cr[key] == lf[key]


# -- --events, --lane, --status, stdin -------------------------------------------------------------


def test_events_lists_every_typed_event(capsys: pytest.CaptureFixture[str]) -> None:
    _, data = report(capsys, str(CAPTURES / "messages_basic.sse"), "--events")
    events = data["events"]
    assert len(events) == sum(data["event_counts"].values())
    assert events[0] == {
        "event": "MessageStart",
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "model": "claude-sonnet-4-5-20250929",
        "usage": events[0]["usage"],
        "sse_event": 0,
        "line": 1,
    }
    # The verdict comes with message_stop, the last of 19 SSE events (3 lines each).
    assert events[-1] == {
        "event": "StreamEnd", "outcome": "completed", "error": None, "sse_event": 18,
        "line": 55,
    }
    status, out, _ = run(capsys, str(CAPTURES / "messages_basic.sse"), "--events")
    assert status == 0
    assert "event list 20 typed events" in out
    assert "TextBlockDelta index=0 text=" in out


def test_parts_lists_the_part_sequence(capsys: pytest.CaptureFixture[str]) -> None:
    _, data = report(capsys, str(CAPTURES / "messages_basic.sse"), "--parts")
    parts = data["parts"]
    kinds = [p["part"] for p in parts]
    assert kinds[-1] == "Finish" and kinds.count("Finish") == 1
    assert parts[-1] == {"part": "Finish", "reason": "tool_calls", "outcome": "completed",
                         "error": None, "raw_reason": "tool_use", "sse_event": 18, "line": 55}
    end = next(p for p in parts if p["part"] == "ToolCallEnd")
    assert end["name"] == "get_weather" and end["input"] == json.loads(end["arguments"])
    usage = next(p for p in parts if p["part"] == "UsageUpdate")
    assert usage["usage"]["input_tokens"] > 0 and "raw" not in usage["usage"]
    assert "".join(p["text"] for p in parts if p["part"] == "TextDelta") == data["text"]
    status, out, _ = run(capsys, str(CAPTURES / "messages_basic.sse"), "--parts")
    assert status == 0
    assert f"part list  {len(parts)} parts (SSE event #, line, class, fields)" in out
    assert "Finish reason='tool_calls' outcome='completed'" in out


@pytest.mark.parametrize("name", ["chat_kimi.sse", "responses_reasoning.sse",
                                  "messages_thinking.sse"])
def test_every_lane_is_summarised_through_the_turn(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The report's content is the turn the parts layer assembles, whatever the lane."""

    _, data = report(capsys, str(CAPTURES / name))
    lane = {"chat": ChatCompletionsLane, "responses": ResponsesLane,
            "messages": MessagesLane}[name.split("_")[0]]()
    stream = PartStream(lane)
    stream.feed((CAPTURES / name).read_bytes())
    stream.close()
    turn = stream.turn
    assert (data["text"], data["reasoning"]) == (turn.text, turn.reasoning or None)
    assert data["finish"] == {"reason": turn.finish_reason, "raw_reason": turn.raw_finish_reason}
    assert turn.usage is not None
    assert data["usage"]["total_tokens"] == turn.usage.total_tokens


def test_lane_override(capsys: pytest.CaptureFixture[str]) -> None:
    _, data = report(capsys, str(CAPTURES / "sample.sse"), "--lane", "responses")
    assert (data["lane"], data["lane_reason"]) == ("responses", "--lane")
    # The wrong lane reads nothing it knows, and says so without a traceback.
    status, data = report(capsys, str(CAPTURES / "responses_basic.sse"), "--lane", "messages")
    assert data["lane"] == "messages" and status == 2
    assert data["event_counts"]["UnknownEvent(response.created)"] == 1


def test_prestream_error_body_without_and_with_status(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = str(CAPTURES / "chat_prestream_401.json")
    status, out, err = run(capsys, path)
    assert status == 2 and err == ""
    assert "outcome    FAILED: the server sent an error instead of a stream" in out
    assert "HTTP status not given: replayed as 400; pass --status" in out
    assert "invalid_api_key: Incorrect API key provided" in out and "(not retryable)" in out
    status, data = report(capsys, str(CAPTURES / "messages_prestream_529.json"), "--status", "529")
    assert (data["input"], data["status"], data["lane"]) == ("error_body", 529, "messages")
    assert data["error"]["status"] == 529 and data["error"]["retryable"]


def test_status_2xx_reads_a_stream_and_non_2xx_an_error_body(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, data = report(capsys, str(CAPTURES / "chat_basic.sse"), "--status", "200")
    assert (status, data["input"]) == (0, "stream")
    path = write(tmp_path, "html.txt", b"<html>502 Bad Gateway</html>")
    status, data = report(capsys, path, "--status", "502")
    assert (status, data["input"], data["outcome"]) == (2, "error_body", "failed")
    assert data["error"]["message"] == "<html>502 Bad Gateway</html>"
    assert data["error"]["retryable"]


def test_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    body = (CAPTURES / "chat_error.sse").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(body)))
    status, data = report(capsys, "-")
    assert (status, data["source"], data["error"]["code"]) == (2, "<stdin>", "server_error")


def test_default_is_the_bundled_sample_and_it_is_clean(capsys: pytest.CaptureFixture[str]) -> None:
    # The first thing a newcomer runs: a completed stream with nothing to warn about.
    status, data = report(capsys)
    assert (status, data["source"], data["lane"]) == (0, "sample.sse (bundled)", "responses")
    assert (data["outcome"], data["warnings"], data["error"]) == ("completed", [], None)
    assert data["text"] == "Logs flow through the gate, one event at a time."
    assert data["usage"]["total_tokens"] == 26
    status, out, err = run(capsys)
    assert (status, err) == (0, "")
    assert "warnings   none" in out


def test_event_counts_name_classes_in_every_lane(capsys: pytest.CaptureFixture[str]) -> None:
    # One naming for every lane: the class (what isinstance tells apart), with the wire
    # type in parentheses where one class stands for several types.
    classes = {
        name for module in (sse_engine, chat, responses, messages) for name in module.__all__
        if isinstance(getattr(module, name), type)
    }
    for name in ("chat_basic.sse", "responses_basic.sse", "messages_basic.sse"):
        _, data = report(capsys, str(CAPTURES / name))
        for label in data["event_counts"]:
            cls, _, wire = label.partition("(")
            assert cls in classes, (name, label)
            if isinstance(getattr(responses, cls, None), type):
                assert wire.startswith("response.") and wire.endswith(")"), label
    _, data = report(capsys, str(CAPTURES / "responses_basic.sse"))
    assert data["event_counts"]["ResponseContentDeltaEvent(response.output_text.delta)"] == 11


# -- colour ----------------------------------------------------------------------------------------


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def colour_run(monkeypatch: pytest.MonkeyPatch, *argv: str) -> str:
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    main(["inspect", str(CAPTURES / "chat_truncated.sse"), *argv])
    return terminal.getvalue()


def test_colour_only_on_a_terminal_and_without_no_color(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert "\x1b[1;31mTRUNCATED\x1b[0m" in colour_run(monkeypatch)
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in colour_run(monkeypatch)
    assert "\x1b[" in colour_run(monkeypatch, "--color", "always")
    monkeypatch.setenv("NO_COLOR", "")  # empty: not set, per no-color.org
    assert "\x1b[" in colour_run(monkeypatch)
    monkeypatch.delenv("NO_COLOR")
    assert "\x1b[" not in colour_run(monkeypatch, "--color", "never")
    # Not a terminal (capsys): no colour.
    _, out, _ = run(capsys, str(CAPTURES / "chat_truncated.sse"))
    assert "\x1b[" not in out


# -- bad input: one line on stderr, exit 3, never a traceback --------------------------------------


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"", "empty input"),
        (b"\n\n  \n", "empty input"),
        (bytes(range(256)) * 4, "binary data, not a text event stream (a NUL byte at offset 0)"),
        ("\ufffd".encode() * 10 + b"\xff\xfe" * 200, "binary data"),
        (gzip.compress(b"data: {}\n\n", mtime=0), "gzip-compressed data"),
        (b"Hello,\nthis is prose, not a stream.\n", "not an event stream: no SSE event"),
        (b'{"id": "c1", "object": "chat.completion"}', "a JSON object, not an event stream"),
        (b"[1, 2, 3]", "a JSON list, not an event stream"),
        (b"data: hello\n\ndata: world\n\n", "cannot tell which API sent this stream"),
        (b"event: heartbeat\ndata: {}\n\n", "pass --lane chat|gemini|messages|responses"),
    ],
)
def test_unreadable_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: bytes, message: str
) -> None:
    path = write(tmp_path, "in.sse", body)
    status, out, err = run(capsys, path)
    assert status == 3 and out == ""
    assert err.startswith(f"sse-engine inspect: {path}: ") and err.count("\n") == 1
    assert message in err


def test_lane_given_for_bytes_it_cannot_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(capsys, write(tmp_path, "x.sse", b"data: hello\n\n"), "--lane", "chat")
    assert status == 3 and out == ""
    assert "not a Chat Completions stream: invalid JSON in SSE event #0" in err


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, str(tmp_path / "nope.sse"))
    assert status == 3 and out == "" and err.count("\n") == 1
    assert "No such file" in err


# -- lane detection --------------------------------------------------------------------------------


def sse(body: bytes) -> list[Any]:
    parser: SSEParser[Any] = SSEParser()
    return parser.feed(body)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"event: response.created\ndata: {}\n\n", ("responses", "event: response.created")),
        (b'data: {"type":"response.created"}\n\n', ("responses", "JSON type response.created")),
        (b'event: ping\ndata: {}\n\nevent: message_start\ndata: {}\n\n',
         ("messages", "event: ping")),
        (b'data: {"type":"content_block_delta"}\n\n',
         ("messages", "JSON type content_block_delta")),
        (b'data: {"choices":[]}\n\n', ("chat", "a choices list")),
        (b": keepalive\n\ndata: [DONE]\n\n", ("chat", "data: [DONE]")),
        (b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error"}}\n\n',
         ("messages", "an Anthropic-shaped error event")),
        (b'data: {"error":{"code":"server_error","message":"x"}}\n\n',
         ("chat", "a data-only error frame")),
        (b'data: {"hello":1}\n\n', None),
    ],
)
def test_detect_lane(body: bytes, expected: tuple[str, str] | None) -> None:
    assert detect_lane(sse(body)) == expected


def test_module_entry_point_exit_status() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "sse_engine", "inspect", str(CAPTURES / "chat_n2_length.sse")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1 and result.stderr == ""
    assert "outcome    INCOMPLETE" in result.stdout


def test_a_command_line_error_is_not_an_outcome_status(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["inspect", "--lane", "bogus"])
    assert exit_info.value.code == 64
    assert "invalid choice: 'bogus'" in capsys.readouterr().err


def test_a_reader_that_stops_early_is_not_an_error(tmp_path: Path) -> None:
    """``sse-engine inspect --events big.sse | head``: no traceback, exit 0."""
    base = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    chunks = [{**base, "choices": [{"index": 0, "delta": {"content": f"word{i} "}}]}
              for i in range(3000)]
    chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    body = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)
    path = write(tmp_path, "big.sse", body + b"data: [DONE]\n\n")
    with subprocess.Popen(
        [sys.executable, "-m", "sse_engine", "inspect", "--events", path],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.read(100)
        process.stdout.close()
        err = process.stderr.read()
        assert process.wait(timeout=60) == 0
    assert err == b""

