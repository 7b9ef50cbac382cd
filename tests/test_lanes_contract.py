"""What every lane promises alike (issues 11, 15, 16): wrong lanes, headers, warnings, input.

Each test runs every lane of ``FORMATS`` on the bundled captures, so a rule
lives here once instead of in each lane folder.
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sse_engine import (
    FORMATS,
    ChatCompletionsLane,
    Lane,
    MessagesLane,
    Outcome,
    ProtocolError,
    ResponsesLane,
    ServerSentEvent,
    SSEParser,
    StreamEnd,
    StreamError,
    UsageError,
    is_retryable,
)

CAPTURES = Path(__file__).resolve().parents[1] / "sse_engine" / "captures"
LANES: dict[str, type[Lane[Any]]] = {name: row.lane for name, row in FORMATS.items()}
STREAMS = sorted(p.name for p in CAPTURES.glob("*.sse") if p.name != "sample.sse")
#: Captures whose verdict comes from an error report: every lane reads a
#: server failure as that failure, whatever lane it was meant for.
ERRORS = {
    "chat_error.sse",
    "chat_slow_start_error.sse",
    "gemini_error.sse",
    "messages_error.sse",
    "responses_error.sse",
}


def lane_of(name: str) -> str:
    return name.split("_", 1)[0]


def body(name: str) -> bytes:
    return (CAPTURES / name).read_bytes()


def run(lane: Lane[Any], data: bytes) -> list[Any]:
    try:
        events = lane.feed(data)
    except ProtocolError as exc:
        return list(exc.events)
    return events + lane.close()


# -- issue 11 item 6: the wrong lane --------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "lane_name"),
    [(name, lane) for name in STREAMS for lane in sorted(LANES) if lane != lane_of(name)],
)
def test_a_capture_fed_to_the_wrong_lane_fails_naming_its_lane(name: str, lane_name: str) -> None:
    lane = LANES[lane_name]()
    events = run(lane, body(name))
    assert lane.outcome is Outcome.FAILED
    ends = [e for e in events if isinstance(e, StreamEnd)]
    assert ends == [StreamEnd(Outcome.FAILED, lane.error)]
    assert lane.error is not None
    if name in ERRORS:
        assert lane.error.code != "wrong_lane"  # a server failure is that failure
        return
    assert lane.error.code == "wrong_lane" and not lane.error.retryable
    right = LANES[lane_of(name)]
    assert f"it looks like a {right.api_name} stream" in lane.error.message
    assert right.__name__ in lane.error.message


@pytest.mark.parametrize("name", STREAMS)
def test_a_capture_in_its_own_lane_is_never_a_wrong_lane(name: str) -> None:
    lane = LANES[lane_of(name)]()
    run(lane, body(name))
    assert lane.error is None or lane.error.code != "wrong_lane"


@pytest.mark.parametrize("cls", LANES.values())
def test_a_stream_no_lane_recognises_is_a_wrong_lane_too(cls: type[Lane[Any]]) -> None:
    lane = cls()
    run(lane, b'data: {"hello": "world"}\n\ndata: {"hello": "again"}\n\n')
    assert lane.error is not None and lane.error.code == "wrong_lane"
    assert "no lane recognises it" in lane.error.message


@pytest.mark.parametrize("cls", LANES.values())
def test_only_keepalives_or_nothing_is_truncated_not_a_wrong_lane(cls: type[Lane[Any]]) -> None:
    for data in (b"", b": keepalive\n\n: keepalive\n\n", b"data: [DONE]\n\n"):
        lane = cls()
        run(lane, data)
        assert lane.error is not None and lane.error.code != "wrong_lane", data


def test_recognize_names_each_lane_and_no_other() -> None:
    for name in STREAMS:
        if name in ERRORS:
            continue
        own = lane_of(name)
        first = SSEParser().feed(body(name))
        payloads = [(e.event, json.loads(e.data) if e.data != "[DONE]" else None) for e in first]
        claims = {
            lane
            for lane, cls in LANES.items()
            for event, payload in payloads
            if cls.recognize(event, payload)
        }
        assert claims == {own}, name


# -- issue 15: headers, retry_after and request_id on every StreamError ---------------------------

HEADERS = {
    "Content-Type": "text/event-stream",
    "Retry-After-Ms": "1500",
    "X-Request-Id": "req_123",
    "X-MindsHub-Dropped-Params": "file_search, code_interpreter",
}


def started(cls: type[Lane[Any]], status: int = 200, **headers: str) -> Lane[Any]:
    lane = cls()
    lane.start(status, {**HEADERS, **headers})
    return lane


def every_error(name: str) -> list[tuple[str, StreamError | None, list[Any]]]:
    """The lane's error in each way a stream can fail, with the events each gave."""
    cls = LANES[lane_of(name)]
    other = LANES["chat" if cls is not ChatCompletionsLane else "messages"]
    data = body(name)
    cases = []
    for how, lane, feed in (
        ("in-stream", started(cls), data),
        ("truncated", started(cls), data[: len(data) // 2]),
        ("protocol", started(cls), data[:40] + b"\n\ndata: {not json\n\n"),
        ("wrong lane", started(other), data),
    ):
        events = run(lane, feed)
        cases.append((how, lane.error, events))
    pre = started(cls, 429, **{"Content-Type": "application/json"})
    events = pre.feed(b'{"error": {"message": "slow down", "type": "rate_limit_error"}}')
    events += pre.close()
    cases.append(("pre-stream", pre.error, events))
    return cases


@pytest.mark.parametrize("name", ["chat_error.sse", "responses_error.sse", "messages_error.sse"])
def test_every_stream_error_carries_retry_after_and_request_id(name: str) -> None:
    in_body = json.loads(body(name).split(b"data: ")[-1]).get("request_id")  # the error frame
    for how, error, events in every_error(name):
        assert error is not None, how
        # The error frame's own request_id wins (a wrong lane reads that frame too).
        expected_id = in_body if how in ("in-stream", "wrong lane") and in_body else "req_123"
        assert (error.retry_after, error.request_id) == (1.5, expected_id), how
        carried = [getattr(e, "error", None) for e in events if getattr(e, "error", None)]
        assert carried and all(e == error for e in carried), how


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after-ms": "250"}, 0.25),
        ({"Retry-After": "7"}, 7.0),
        ({"retry-after-ms": "x", "Retry-After": "3"}, 3.0),
        ({"Retry-After": "Wed, 21 Oct 2026 07:28:05 GMT", "Date": "Wed, 21 Oct 2026 07:28:00 GMT"},
         5.0),
        ({"Retry-After": "Wed, 21 Oct 2026 07:28:05 GMT"}, None),  # no Date: no clock to read
        ({"Retry-After": "-1"}, None),
        ({"Retry-After": "9" * 400}, None),
        ({"retry-after-ms": "nan"}, None),
        ({}, None),
    ],
)
def test_retry_after_is_read_from_the_headers(headers: dict[str, str], expected: float) -> None:
    lane = ChatCompletionsLane()
    lane.start(429, {"content-type": "application/json", **headers})
    lane.feed(b'{"error": {"message": "slow down", "code": "rate_limit_exceeded"}}')
    lane.close()
    assert lane.error is not None and lane.error.retry_after == expected


def test_request_id_falls_back_to_anthropics_header() -> None:
    lane = MessagesLane()
    lane.start(529, [("content-type", "application/json"), ("request-id", "req_ant")])
    lane.feed(b'{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}')
    lane.close()
    assert lane.error is not None and lane.error.request_id == "req_ant"


def test_headers_are_read_only_and_case_insensitive() -> None:
    lane = started(ResponsesLane)
    assert lane.headers["x-request-id"] == lane.headers["X-REQUEST-ID"] == "req_123"
    assert "Content-Type" in lane.headers and "content-type" in list(lane.headers)
    with pytest.raises(TypeError):
        lane.headers["x"] = "y"  # type: ignore[index]
    assert dict(ResponsesLane().headers) == {}


def test_a_repeated_header_reads_as_its_values_joined() -> None:
    lane = ChatCompletionsLane()
    lane.start(200, [("X-MindsHub-Dropped-Params", "a"), ("x-mindshub-dropped-params", "b")])
    assert lane.headers["x-mindshub-dropped-params"] == "a, b"
    assert lane.dropped_params == ["a", "b"]


@pytest.mark.parametrize("cls", LANES.values())
def test_dropped_params_are_listed_and_warned_about(cls: type[Lane[Any]]) -> None:
    lane = started(cls)
    assert lane.dropped_params == ["file_search", "code_interpreter"]
    (warning,) = lane.warnings
    assert warning.code == "dropped_params"
    assert "file_search, code_interpreter" in warning.message
    assert cls().dropped_params == []


# -- issue 11 item 4: exactly one StreamEnd, also on a ProtocolError ----------------------------


@pytest.mark.parametrize("cls", LANES.values())
def test_a_protocol_error_ends_its_events_with_the_stream_end(cls: type[Lane[Any]]) -> None:
    lane = cls()
    with pytest.raises(ProtocolError) as info:
        lane.feed(b"data: {not json\n\n")
    assert info.value.events == [StreamEnd(Outcome.FAILED, lane.error)]
    with pytest.raises(ProtocolError, match="failed earlier") as again:
        lane.close()
    assert again.value.events == []  # the StreamEnd was given once


@pytest.mark.parametrize("name", STREAMS)
def test_a_strict_lane_failing_anywhere_gives_one_stream_end(name: str) -> None:
    data = body(name)
    for cut in range(0, len(data), max(1, len(data) // 25)):
        lane = LANES[lane_of(name)](strict=True)
        mangled = data[:cut] + b"\n\nevent: x\ndata: [1\n\n" + data[cut:]
        ends = [e for e in run(lane, mangled) if isinstance(e, StreamEnd)]
        assert len(ends) == 1 and lane.outcome is not None


# -- issue 11 item 5: warnings after the end stay bounded ------------------------------------------


@pytest.mark.parametrize("name", ["chat_basic.sse", "responses_basic.sse", "messages_basic.sse"])
def test_events_after_the_end_fold_into_one_warning(name: str) -> None:
    lane = LANES[lane_of(name)]()
    lane.feed(body(name))
    before = len(lane.warnings)
    tracemalloc.start()
    try:
        chunk = b'data: {"x": 1}\n\n' * 1000
        for _ in range(10):
            lane.feed(chunk)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    lane.close()
    after = lane.warnings[before:]
    assert [(w.code, w.count) for w in after] == [("event_after_end", 10_000)]
    assert peak < 500_000  # 10,000 warnings would take ~2.5 MB


# -- issue 15: str is not bytes; invalid UTF-8 is reported -----------------------------------------


@pytest.mark.parametrize("cls", LANES.values())
@pytest.mark.parametrize("status", [200, 500])
def test_feeding_str_is_a_usage_error(cls: type[Lane[Any]], status: int) -> None:
    lane = cls()
    lane.start(status, {"content-type": "text/event-stream" if status == 200 else "text/plain"})
    with pytest.raises(UsageError, match="bytes"):
        lane.feed("data: [DONE]\n\n")  # type: ignore[arg-type]
    assert lane.outcome is None  # nothing happened: the lane goes on


CAFE = {
    "chat": b'data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":'
    b'{"content":"caf\xe9"}}]}\n\n',
    "responses": b'event: response.created\ndata: {"type":"response.created","sequence_number":0,'
    b'"response":{"id":"resp_1","object":"response","status":"in_progress","x":"caf\xe9"}}\n\n',
    "messages": b'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1",'
    b'"model":"caf\xe9\xe9","content":[],"usage":{}}}\n\n',
    "gemini": b'data: {"candidates": [{"content": {"parts": [{"text": "caf\xe9"}]}}]}\r\n\r\n',
}


def counting(lane_name: str, comments: bool) -> Lane[Any]:
    lane = LANES[lane_name]()
    if comments:
        lane.feed_with_comments(b"")  # the parser then returns comments too (a relay keeps them)
    return lane


@pytest.mark.parametrize("comments", [False, True])
@pytest.mark.parametrize("lane_name", sorted(LANES))
def test_invalid_utf8_is_one_warning_with_its_offset_and_count(
    lane_name: str, comments: bool
) -> None:
    data = b": keepalive \xe9\n\n" + CAFE[lane_name] + b": ka\n" + CAFE[lane_name]
    whole = counting(lane_name, comments)
    whole.feed(data)
    warnings = [w for w in whole.warnings if w.code == "invalid_utf8"]
    assert len(warnings) == 1
    (warning,) = warnings
    offset = data.index(b"\xe9")
    assert f"byte {offset} " in warning.message
    assert warning.count == data.count(b"\xe9")
    assert warning.event_index == 0
    codes = [(w.code, w.event_index) for w in whole.warnings]
    for cut in range(len(data) + 1):
        lane = counting(lane_name, comments)
        lane.feed(data[:cut])
        lane.feed(data[cut:])
        assert [(w.code, w.event_index) for w in lane.warnings] == codes, cut
        assert [w.count for w in lane.warnings] == [w.count for w in whole.warnings], cut


@pytest.mark.parametrize("cls", LANES.values())
def test_a_u_fffd_the_server_sent_is_not_invalid_utf8(cls: type[Lane[Any]]) -> None:
    lane = cls()
    lane.feed('data: {"x": "\ufffd"}\n\n'.encode())
    assert "invalid_utf8" not in [w.code for w in lane.warnings]


# -- issue 15: Anthropic errors have a code ------------------------------------------------------


def test_a_messages_error_event_has_its_type_as_code() -> None:
    lane = MessagesLane()
    run(lane, body("messages_error.sse"))
    assert lane.error is not None
    assert (lane.error.code, lane.error.type) == ("overloaded_error", "overloaded_error")
    assert lane.error.retryable


_names = st.none() | st.sampled_from(
    ["rate_limit_exceeded", "invalid_api_key", "server_error", "overloaded_error", "x_custom"]
)


def _error_reports(error: dict[str, Any]) -> dict[str, list[tuple[int, bytes]]]:
    """``error`` as each lane reports it: (status, body) before the stream and inside it."""
    nested = json.dumps({"error": error}).encode()
    anthropic = json.dumps({"type": "error", "error": error}).encode()
    created = {"type": "response.created", "response": {"id": "resp_1"}, "sequence_number": 0}
    failed = {
        "type": "response.failed",
        "response": {"id": "resp_1", "status": "failed", "error": error},
        "sequence_number": 1,
    }
    return {
        "chat": [(500, nested), (200, b"data: " + nested + b"\n\ndata: [DONE]\n\n")],
        "messages": [(529, anthropic), (200, b"event: error\ndata: " + anthropic + b"\n\n")],
        "responses": [
            (500, nested),
            (200, b"event: error\ndata: " + nested + b"\n\n"),
            (
                200,
                b"".join(
                    f"event: {f['type']}\ndata: {json.dumps(f)}\n\n".encode()
                    for f in (created, failed)
                ),
            ),
        ],
    }


# "error" as a type names the flat shape's event, not the failure (from_payload drops it).
_types = _names | st.text(max_size=6).filter(lambda text: text != "error")


@given(code=_names, type_=_types, message=st.text(max_size=10))
def test_an_api_error_always_has_a_code_in_every_lane(
    code: str | None, type_: str | None, message: str
) -> None:
    """Issue 20: a Chat error frame with ``"code": null`` had ``code`` None; Messages had one.

    Whatever an error names, every lane reports a code (its own, else its
    type, else ``unknown_error``), and ``retryable`` is still judged on what
    the error itself said.
    """
    error = {"message": message, "type": type_, "code": code}
    for name, reports in _error_reports(error).items():
        for status, data in reports:
            lane = LANES[name]()
            lane.start(
                status,
                {"Content-Type": "text/event-stream" if status == 200 else "application/json"},
            )
            run(lane, data)
            assert lane.outcome is Outcome.FAILED and lane.error is not None, (name, status)
            assert lane.error.code == (code or type_ or "unknown_error"), (name, status)
            expected = is_retryable(code, type_ or None, None if status == 200 else status)
            assert lane.error.retryable is expected, (name, status)


CUT = StreamError(message="the connection reset (ConnectionResetError)", code="stream_truncated")


def _end_of(events: list[Any]) -> StreamEnd:
    (end,) = [e for e in events if isinstance(e, StreamEnd)]
    return end


@pytest.mark.parametrize("whole", [False, True], ids=["half", "whole"])
@pytest.mark.parametrize("name", STREAMS)
def test_close_with_an_error_gives_it_to_a_truncated_end_and_to_no_other(
    name: str, whole: bool
) -> None:
    data = body(name) if whole else body(name)[: len(body(name)) // 2]
    plain = LANES[lane_of(name)]()
    own = _end_of(plain.feed(data) + plain.close())  # what the lane says without the cause
    lane = LANES[lane_of(name)]()
    lane.start(200, {"x-request-id": "req_7"})
    end = _end_of(lane.feed(data) + lane.close(error=CUT))
    if own.outcome is Outcome.TRUNCATED:
        assert end == StreamEnd(Outcome.TRUNCATED, lane.error)
        assert lane.error is not None and lane.error.message == CUT.message
        assert lane.error.request_id == "req_7"  # the response's context is added
    else:  # decided before the cut (an error event, a finish): the cause changes nothing
        assert end.outcome is own.outcome
        expected = own.error and attrs.evolve(
            own.error, request_id=own.error.request_id or "req_7"
        )
        assert lane.error == expected
    assert lane.close(error=CUT) == []  # closing twice is harmless


@pytest.mark.parametrize("cls", LANES.values())
def test_only_a_stream_that_ended_is_judged_a_wrong_lane(cls: type[Lane[Any]]) -> None:
    """Issue 20: a transport fault before any event the lane recognises was ``wrong_lane``.

    That is not retryable, yet the stream was only cut: what it would have
    become is unknown. Closed with the transport's error it is TRUNCATED
    with that error; only bytes that ended are judged foreign.
    """
    foreign = "messages_basic.sse" if cls is ChatCompletionsLane else "chat_basic.sse"
    whole = body(foreign)
    for data in (whole, whole[: whole.index(b"\n\n") + 2]):  # all of it, its first event
        ended = cls()
        ended.feed(data)
        end = _end_of(ended.close())
        assert end.outcome is Outcome.FAILED and end.error is not None
        assert end.error.code == "wrong_lane"
        cut = cls()
        cut.feed(data)
        end = _end_of(cut.close(error=CUT))
        assert end == StreamEnd(Outcome.TRUNCATED, CUT) and CUT.retryable


@pytest.mark.parametrize("cls", [ChatCompletionsLane, MessagesLane])
def test_a_lane_that_cannot_resume_says_so(cls: type[Lane[Any]]) -> None:
    lane = cls()
    lane.close()
    assert lane.resume_plan() is None
    with pytest.raises(UsageError, match="cannot be resumed"):
        lane.resume()


# -- error shapes: which lane an error report belongs to ----------------------------------


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(
        st.sampled_from(["type", "error", "code", "message", "status"]), inner, max_size=4
    ),
    max_leaves=12,
)


@given(st.sampled_from(["", "message", "error", "x"]), _json_values)
def test_at_most_one_lane_claims_any_error_report(event: str, payload: Any) -> None:
    """Whatever the payload, recognize_error never raises and never names two lanes."""
    claims = [name for name, cls in LANES.items() if cls.recognize_error(event, payload)]
    assert len(claims) <= 1


@pytest.mark.parametrize("lane", sorted(LANES))
def test_a_lane_claims_only_its_own_bundled_error_reports(lane: str) -> None:
    """Every error event of every bundled capture is claimed by its own lane, or by none.

    Chat and Messages have error shapes of their own, so they claim their captures' errors;
    Responses shares OpenAI's envelopes and names none.
    """
    claimed = False
    for path in sorted(CAPTURES.glob("*_error.sse")) + sorted(CAPTURES.glob("*prestream*.json")):
        owner = path.name.split("_", 1)[0]
        if path.suffix == ".json":
            reports = [("", json.loads(path.read_bytes()))]
        else:
            parser: SSEParser[ServerSentEvent] = SSEParser()
            reports = [(e.event, _loads(e.data)) for e in parser.feed(path.read_bytes())]
        for event, payload in reports:
            if LANES[lane].recognize_error(event, payload):
                assert lane == owner, f"{lane} claims {path.name}'s {event or 'body'}"
                claimed = True
    assert claimed == (lane != "responses")


def _loads(data: str) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return None
