"""The shared lane machinery, exercised through a minimal lane defined here.

The toy lane speaks a two-event protocol: ``event: delta`` frames append text,
``event: done`` is terminal, ``event: oops`` is an in-stream error.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from sse_engine import (
    EventTooLarge,
    Lane,
    LaneEvent,
    Outcome,
    ProtocolError,
    ServerSentEvent,
    StreamEnd,
    StreamError,
    UsageError,
    is_retryable,
)


class Text(LaneEvent):
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Text) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


class ToySnapshot:
    def __init__(self) -> None:
        self.text = ""

    def to_api(self) -> dict[str, Any]:
        return {"text": self.text}


class ToyLane(Lane[ToySnapshot]):
    terminal_event_name = "the done event"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._snap = ToySnapshot()

    @property
    def snapshot(self) -> ToySnapshot:
        return self._snap

    def _on_event(self, sse: ServerSentEvent, out: list[LaneEvent]) -> None:
        payload = self._decode(sse)
        if sse.event == "delta":
            if not isinstance(payload["text"], str):
                self._violation("bad_text", "text is not a string")
                return
            self._snap.text += payload["text"]
            out.append(Text(payload["text"]))
        elif sse.event == "done":
            self._end(Outcome.COMPLETED, None, out)
        elif sse.event == "oops":
            self._end(Outcome.FAILED, StreamError.from_payload(payload), out)


def frame(event: str, payload: Any) -> bytes:
    return f"event: {event}\ndata: {json.dumps(payload)}\n\n".encode()


GOOD = frame("delta", {"text": "Hel"}) + frame("delta", {"text": "lo"}) + frame("done", {})


def run(lane: Lane[Any], body: bytes) -> list[LaneEvent]:
    return lane.feed(body) + lane.close()


def test_completed_stream_emits_one_stream_end() -> None:
    lane = ToyLane()
    events = run(lane, GOOD)
    assert events == [Text("Hel"), Text("lo"), StreamEnd(Outcome.COMPLETED, None)]
    assert lane.outcome is Outcome.COMPLETED and lane.error is None
    assert lane.snapshot.to_api() == {"text": "Hello"}


def test_transport_end_before_terminal_is_truncated_and_retryable() -> None:
    lane = ToyLane()
    events = run(lane, GOOD[: GOOD.index(b"event: done")])
    end = events[-1]
    assert isinstance(end, StreamEnd) and end.outcome is Outcome.TRUNCATED
    assert lane.error is not None and lane.error.code == "stream_truncated"
    assert lane.error.retryable
    assert "the done event" in lane.error.message
    assert lane.snapshot.text == "Hello"


def test_cut_inside_an_event_warns_that_it_was_discarded() -> None:
    lane = ToyLane()
    run(lane, GOOD[:-3])
    assert lane.outcome is Outcome.TRUNCATED
    assert [w.code for w in lane.warnings] == ["unterminated_event"]


def test_trailing_bytes_after_the_end_are_ignored_with_a_warning() -> None:
    lane = ToyLane()
    events = lane.feed(GOOD + frame("delta", {"text": "late"}))
    events += lane.feed(frame("delta", {"text": "later"}) + b"data: cut")
    events += lane.close()
    assert lane.snapshot.text == "Hello"
    assert sum(isinstance(e, StreamEnd) for e in events) == 1
    # Repeats after the verdict fold into one warning with a count (issue 11 item 5).
    assert [(w.code, w.count) for w in lane.warnings] == [
        ("event_after_end", 2),
        ("trailing_data", 1),
    ]
    assert lane.warnings[0].event_index == 3


def test_warnings_after_the_end_do_not_depend_on_the_chunking() -> None:
    body = GOOD + frame("delta", {"text": "late"}) + b": keepalive\n\ndata: cut"
    reference = ToyLane()
    reference.feed(body)
    reference.close()
    for cut in range(len(body) + 1):
        lane = ToyLane()
        lane.feed(body[:cut])
        lane.feed(body[cut:])
        lane.close()
        assert [(w.code, w.event_index) for w in lane.warnings] == [
            (w.code, w.event_index) for w in reference.warnings
        ]


def test_oversized_garbage_after_the_end_is_dropped_not_raised() -> None:
    lane = ToyLane(max_event_size=100)
    events = lane.feed(GOOD) + lane.feed(b"data: " + b"x" * 500) + lane.feed(b"more\n\n")
    events += lane.close()
    assert lane.outcome is Outcome.COMPLETED
    assert [w.code for w in lane.warnings] == ["trailing_data"]
    assert "max_event_size=100" in lane.warnings[0].message


def test_retry_and_last_event_id_are_readable_from_the_lane() -> None:
    lane = ToyLane()
    lane.feed(b"retry: 2500\nid: 7\n" + frame("delta", {"text": "a"}))
    assert (lane.retry, lane.last_event_id) == (2500, "7")


def test_invalid_json_is_a_protocol_error_that_keeps_earlier_events_and_is_sticky() -> None:
    lane = ToyLane()
    body = frame("delta", {"text": "kept"}) + b"event: delta\ndata: {not json\n\n"
    with pytest.raises(ProtocolError) as info:
        lane.feed(body)
    assert "invalid JSON in SSE event #1" in str(info.value)
    assert "{not json" in str(info.value)
    assert info.value.events == [Text("kept"), StreamEnd(Outcome.FAILED, lane.error)]
    assert lane.snapshot.text == "kept"
    assert lane.outcome is Outcome.FAILED
    with pytest.raises(ProtocolError, match="failed earlier"):
        lane.feed(frame("done", {}))
    with pytest.raises(ProtocolError, match="failed earlier"):
        lane.close()


def test_wrong_shaped_payload_becomes_a_protocol_error() -> None:
    lane = ToyLane()
    with pytest.raises(ProtocolError, match="cannot interpret"):
        lane.feed(b'event: delta\ndata: ["a list"]\n\n')


def test_strict_mode_turns_a_violation_into_an_error() -> None:
    lenient = ToyLane()
    lenient.feed(frame("delta", {"text": 5}))
    assert [w.code for w in lenient.warnings] == ["bad_text"]
    strict = ToyLane(strict=True)
    with pytest.raises(ProtocolError, match="strict mode"):
        strict.feed(frame("delta", {"text": 5}))


def test_oversized_event_raises_event_too_large_with_lane_events() -> None:
    lane = ToyLane(max_event_size=100)
    with pytest.raises(EventTooLarge) as info:
        lane.feed(frame("delta", {"text": "ok"}) + b"data: " + b"x" * 200)
    assert info.value.events == [Text("ok"), StreamEnd(Outcome.FAILED, lane.error)]
    assert "max_event_size=100" in str(info.value)


def test_injected_json_loads_is_used() -> None:
    seen: list[str] = []

    def loads(text: str) -> Any:
        seen.append(text)
        return json.loads(text)

    run(ToyLane(json_loads=loads), GOOD)
    assert seen == ['{"text": "Hel"}', '{"text": "lo"}', "{}"]


def test_in_stream_error_is_data_not_an_exception() -> None:
    lane = ToyLane()
    payload = {"error": {"message": "Overloaded", "type": "overloaded_error"}}
    events = run(lane, frame("oops", payload))
    assert events[-1] == StreamEnd(Outcome.FAILED, lane.error)
    assert lane.error is not None and lane.error.type == "overloaded_error"
    assert lane.error.retryable and lane.error.status is None


@pytest.mark.parametrize(
    ("status", "body", "code", "type_", "message", "retryable"),
    [
        (
            400,
            b'{"error": {"message": "bad", "type": "invalid_request_error", '
            b'"param": "model", "code": "invalid_value"}}',
            "invalid_value",
            "invalid_request_error",
            "bad",
            False,
        ),
        (
            401,
            b'{"type": "error", "error": {"type": "authentication_error", "message": "no key"}}',
            "authentication_error",
            "authentication_error",
            "no key",
            False,
        ),
        (
            404,
            b'{"error": {"message": "nope", "code": "model_not_found"}}',
            "model_not_found",
            None,
            "nope",
            False,
        ),
        (
            429,
            b'{"error": {"message": "slow down", "type": "requests", '
            b'"code": "rate_limit_exceeded"}}',
            "rate_limit_exceeded",
            "requests",
            "slow down",
            True,
        ),
        (
            429,
            b'{"error": {"message": "pay", "type": "insufficient_quota", '
            b'"code": "insufficient_quota"}}',
            "insufficient_quota",
            "insufficient_quota",
            "pay",
            False,
        ),
        (
            500,
            b'{"error": {"message": "boom", "type": "server_error"}}',
            "server_error",  # no code: the type is the code
            "server_error",
            "boom",
            True,
        ),
        (
            529,
            b'{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}',
            "overloaded_error",  # Anthropic errors: the type is the code too
            "overloaded_error",
            "Overloaded",
            True,
        ),
    ],
)
def test_pre_stream_error_bodies(
    status: int, body: bytes, code: str | None, type_: str | None, message: str, retryable: bool
) -> None:
    lane = ToyLane()
    lane.start(status, {"Content-Type": "application/json"})
    # The body may arrive in pieces and must not be parsed as SSE.
    events = lane.feed(body[:7]) + lane.feed(body[7:]) + lane.close()
    assert events == [StreamEnd(Outcome.FAILED, lane.error)]
    error = lane.error
    assert error is not None
    assert (error.status, error.code, error.type, error.message, error.retryable) == (
        status,
        code,
        type_,
        message,
        retryable,
    )
    assert error.raw == json.loads(body)


def test_pre_stream_body_that_is_not_json_keeps_a_trimmed_copy() -> None:
    lane = ToyLane()
    lane.start(502, [("content-type", "text/html; charset=utf-8")])
    lane.feed(b"<html>\n  <body>Bad   gateway</body>\n</html>" + b" pad" * 400)
    lane.close()
    assert lane.outcome is Outcome.FAILED
    assert lane.error is not None and lane.error.status == 502 and lane.error.retryable
    assert lane.error.message.startswith("<html> <body>Bad gateway</body> </html> pad")
    assert len(lane.error.message) == 500


def test_200_with_a_json_body_is_not_a_stream() -> None:
    lane = ToyLane()
    lane.start(200, {"content-type": "application/json"})
    lane.feed(b'{"id": "x", "object": "chat.completion"}')
    lane.close()
    assert lane.outcome is Outcome.FAILED
    assert lane.error is not None and lane.error.code == "not_an_event_stream"


def test_event_stream_content_type_with_parameters_is_a_stream() -> None:
    lane = ToyLane()
    lane.start(200, {"Content-Type": "text/event-stream; charset=utf-8"})
    assert run(lane, GOOD)[-1] == StreamEnd(Outcome.COMPLETED, None)


def test_usage_errors() -> None:
    lane = ToyLane()
    lane.feed(b"")
    with pytest.raises(UsageError):
        lane.start(200)
    lane.close()
    assert lane.close() == []
    with pytest.raises(UsageError):
        lane.feed(GOOD)


@pytest.mark.parametrize(
    ("code", "type_", "status", "expected"),
    [
        ("rate_limit_exceeded", None, 429, True),
        (None, "overloaded_error", 529, True),
        ("server_error", None, None, True),
        ("some_gateway_code_we_never_saw", None, None, True),
        ("context_length_exceeded", None, None, False),
        ("invalid_prompt", None, None, False),
        (None, "permission_error", 403, False),
        (None, "not_found_error", None, False),
        (None, None, 400, False),
        (None, None, 408, True),
        ("server_error", None, 400, True),
    ],
)
def test_retryable_table(
    code: str | None, type_: str | None, status: int | None, expected: bool
) -> None:
    assert is_retryable(code, type_, status) is expected


class EndRuleLane(ToyLane):
    """A lane with a rule checked when the transport ends (a ProtocolError when strict)."""

    def _on_transport_end(self) -> tuple[Outcome, StreamError | None]:
        self._violation("cut_short", "the stream ended before its rule was met")
        return super()._on_transport_end()


def test_a_protocol_error_raised_by_close_ends_its_events_with_the_stream_end() -> None:
    lenient = EndRuleLane()
    assert [type(e) for e in lenient.close()] == [StreamEnd]
    assert [w.code for w in lenient.warnings] == ["cut_short"]
    strict = EndRuleLane(strict=True)
    strict.feed(frame("delta", {"text": "a"}))
    with pytest.raises(ProtocolError, match="strict mode") as info:
        strict.close()
    assert info.value.events == [StreamEnd(Outcome.FAILED, strict.error)]
    assert strict.error is not None and strict.error.code == "protocol_error"
    with pytest.raises(ProtocolError, match="failed earlier") as again:
        strict.close()
    assert again.value.events == []
