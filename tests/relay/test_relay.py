"""The Relay's own behaviour: keepalives, failures before and in the stream, numbering, resume."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anthropic
import httpx
import httpx2
import openai
import pytest
from google.genai import errors as genai_errors
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from relay_oracles import SEEN, WHOLE_CALLS, genai_client

from sse_engine import (
    FORMATS,
    ChatCompletionsLane,
    Lane,
    MessagesLane,
    Outcome,
    ResponsesLane,
    StreamError,
    UsageError,
)
from sse_engine.relay import Relay

CAPTURES = Path(__file__).resolve().parents[2] / "sse_engine" / "captures"
TARGETS: tuple[str, ...] = tuple(FORMATS)
LANES: dict[str, type[Lane[Any]]] = {name: row.lane for name, row in FORMATS.items()}


def capture(name: str) -> bytes:
    return (CAPTURES / name).read_bytes()


def relay_all(lane: Lane[Any], target: str, data: bytes, **options: Any) -> bytes:
    relay = Relay(lane, to=target, **options)
    return relay.feed(data) + relay.close()


# -- keepalives -------------------------------------------------------------------------------


def test_keepalive_is_one_comment_line_with_no_blank_line_after_it() -> None:
    assert Relay(ChatCompletionsLane(), to="responses").keepalive() == b": keepalive\n"


#: One SSE event as the targets write it: its field lines, then the blank line.
SSE_EVENT = re.compile(rb"(?:(?:event|id|data): [^\r\n]*\r?\n)+\r?\n")


@pytest.mark.parametrize("target", TARGETS)
def test_keepalives_upstream_are_keepalives_downstream(target: str) -> None:
    data = capture("messages_gateway.sse")
    upstream = data.count(b"\n: keepalive") + data.startswith(b": keepalive")
    assert upstream == 2
    relay = Relay(MessagesLane(), to=target)
    keepalive = relay.keepalive()
    # Each keepalive in a read of its own, as a quiet upstream sends them.
    out = b"".join(relay.feed(piece) for piece in re.split(rb"(?<=\n\n)", data)) + relay.close()
    assert SSE_EVENT.sub(b"", out) == keepalive * upstream  # between the events, nothing else
    assert out.startswith(keepalive)  # before the first event, as upstream
    assert SEEN[target](out) == SEEN[target](relay_all(MessagesLane(), target, data))
    if target == "gemini":
        # google-genai reads a comment line as JSON: Gemini's keepalive is a blank line.
        assert keepalive == b"\r\n" and b"\n:" not in out
    else:
        assert keepalive == b": keepalive\n" and b": keepalive\n\n" not in out


def test_a_comment_line_is_what_breaks_google_genai() -> None:
    """Why Gemini's keepalive is a blank line: google-genai fails on a comment."""
    body = relay_all(MessagesLane(), "gemini", capture("messages_basic.sse"))
    with pytest.raises(genai_errors.UnknownApiResponseError):
        SEEN["gemini"](b": keepalive\n" + body)


@pytest.mark.parametrize("name", ["chat_slow_start_error.sse", "messages_gateway.sse"])
def test_relayed_keepalives_between_id_lines_do_not_trip_the_openai_sdk(name: str) -> None:
    lane = LANES[name.split("_")[0]]()
    body = relay_all(lane, "responses", capture(name))
    assert b": keepalive\n" in body
    relay = Relay(LANES[name.split("_")[0]](), to="responses")
    # A keepalive after every event: each one follows an `id:` line's event.
    events = (relay.feed(capture(name)) + relay.close()).split(b"\n\n")
    seen = SEEN["responses"]((b"\n\n" + relay.keepalive()).join(events))
    assert seen == SEEN["responses"](body)


def test_the_blank_line_after_a_comment_is_what_trips_the_openai_sdk() -> None:
    """Why keepalive() writes no blank line: with one, the SDK fails on an empty event."""
    body = relay_all(MessagesLane(), "responses", capture("messages_basic.sse"))
    with pytest.raises(json.JSONDecodeError):
        SEEN["responses"](b"\n\n: keepalive\n\n".join(body.split(b"\n\n")))


def test_a_lane_cannot_be_relayed_once_it_has_been_fed() -> None:
    lane = ChatCompletionsLane()
    lane.feed(b": hi\n\n")
    with pytest.raises(UsageError):
        Relay(lane, to="chat")


def test_an_unknown_target_is_refused() -> None:
    with pytest.raises(ValueError, match=", ".join(FORMATS)):
        Relay(ChatCompletionsLane(), to="completions")


# -- failures before the stream ------------------------------------------------------------


def _openai_client(status: int, headers: list[tuple[str, str]], body: bytes) -> openai.OpenAI:
    transport = httpx.MockTransport(lambda _: httpx.Response(status, headers=headers, content=body))
    return openai.OpenAI(
        api_key="sk-test",
        base_url="http://127.0.0.1:9/v1",
        max_retries=0,
        http_client=httpx.Client(transport=transport),
    )


def _anthropic_client(status: int, headers: list[tuple[str, str]], body: bytes) -> Any:
    transport = httpx2.MockTransport(
        lambda _: httpx2.Response(status, headers=headers, content=body)
    )
    return anthropic.Anthropic(
        api_key="sk-ant-test",
        base_url="http://127.0.0.1:9",
        max_retries=0,
        http_client=httpx2.Client(transport=transport),
    )


def sdk_error(target: str, answer: tuple[int, list[tuple[str, str]], bytes]) -> Any:
    """What the target's SDK client raises when the gateway answers with ``answer``."""
    if target == "gemini":
        status, headers, body = answer
        client = genai_client(status, body, dict(headers)["content-type"])
        with pytest.raises(genai_errors.APIError) as failed:
            list(client.models.generate_content_stream(model="m", contents="hi"))
        failed.value.status_code = failed.value.code  # as the other SDKs name it
        return failed.value
    if target == "messages":
        client = _anthropic_client(*answer)
        with (
            pytest.raises(anthropic.APIStatusError) as caught,
            client.messages.stream(model="m", max_tokens=10, messages=[]) as stream,
        ):
            stream.get_final_message()
        return caught.value
    oai = _openai_client(*answer)
    with pytest.raises(openai.APIStatusError) as raised:
        if target == "chat":
            with oai.chat.completions.stream(model="m", messages=[]) as chat:
                chat.get_final_completion()
        else:
            with oai.responses.stream(model="m", input="hi") as responses:
                responses.get_final_response()
    return raised.value


PRESTREAM = sorted(path.name for path in CAPTURES.glob("*_prestream_*.json"))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", PRESTREAM)
def test_a_failure_before_the_stream_is_the_targets_http_error(name: str, target: str) -> None:
    lane_name, _, status = name.removesuffix(".json").split("_")
    relay = Relay(LANES[lane_name](), to=target)
    relay.start(int(status), [("content-type", "application/json")])
    assert relay.feed(capture(name)) == b""
    in_stream = relay.close()
    assert relay.outcome is Outcome.FAILED and relay.error is not None
    answer = relay.error_response()
    assert answer is not None
    assert answer[0] == int(status)
    assert ("content-type", "application/json") in answer[1]
    exc = sdk_error(target, answer)
    assert exc.status_code == int(status)
    assert relay.error.message in str(exc)
    # A gateway that already answered 200 sends the in-stream error instead.
    seen = SEEN[target](in_stream)
    assert seen.error == relay.error.message and seen.finish is None


def test_error_response_carries_retry_after_and_the_request_id() -> None:
    error = StreamError(
        message="slow down",
        code="rate_limit_exceeded",
        status=429,
        retry_after=1.2,
        request_id="req_1",
    )
    for emitter, id_header in (
        (FORMATS["chat"].emitter, "x-request-id"),
        (FORMATS["responses"].emitter, "x-request-id"),
        (FORMATS["messages"].emitter, "request-id"),
    ):
        status, headers, body = emitter.error_response(error)
        assert status == 429
        assert ("retry-after", "2") in headers and (id_header, "req_1") in headers
        assert b"slow down" in body
    _, _, body = FORMATS["messages"].emitter.error_response(error)
    assert json.loads(body) == {
        "type": "error",
        "error": {"type": "rate_limit_error", "message": "slow down"},
        "request_id": "req_1",
    }


def test_an_upstream_answer_that_is_not_a_failure_status_is_a_bad_gateway() -> None:
    relay = Relay(ChatCompletionsLane(), to="messages")
    relay.start(200, [("content-type", "text/html")])
    relay.feed(b"<html>maintenance</html>")
    relay.close()
    answer = relay.error_response()
    assert answer is not None and answer[0] == 502


@pytest.mark.parametrize("name", ["chat_basic.sse", "chat_error.sse", "messages_truncated.sse"])
def test_no_error_response_once_the_stream_has_begun(name: str) -> None:
    relay = Relay(LANES[name.split("_")[0]](), to="responses")
    relay.feed(capture(name))
    relay.close()
    assert relay.error_response() is None


# -- failures inside the stream -------------------------------------------------------------


@pytest.mark.parametrize("target", TARGETS)
def test_an_upstream_that_cannot_be_read_ends_the_target_with_an_error(target: str) -> None:
    data = capture("messages_basic.sse")
    cut = data.index(b"event: content_block_stop")
    bad = data[:cut] + b"event: content_block_stop\ndata: {not json\n\n" + data[cut:]
    relay = Relay(MessagesLane(), to=target)
    out = relay.feed(bad)
    assert relay.outcome is Outcome.FAILED and relay.error is not None
    assert relay.error.code == "protocol_error"
    assert relay.feed(b"more bytes\n\n") == b"" and relay.close() == b""
    seen = SEEN[target](out)
    assert seen.error == relay.error.message and seen.finish is None
    assert seen.text == "I'll check the current weather in Zürich for you."


@pytest.mark.parametrize("target", TARGETS)
def test_feed_after_close_is_a_usage_error(target: str) -> None:
    relay = Relay(ChatCompletionsLane(), to=target)
    relay.feed(capture("chat_basic.sse"))
    relay.close()
    assert relay.close() == b""
    with pytest.raises(UsageError):
        relay.feed(b"data: [DONE]\n\n")


@pytest.mark.parametrize("target", TARGETS)
def test_a_tool_call_cut_off_upstream_is_never_closed_downstream(target: str) -> None:
    """A client may run a tool call as soon as it closes: one cut short must stay open."""
    out = relay_all(MessagesLane(), target, capture("messages_truncated.sse"))
    if target in WHOLE_CALLS:  # a call is written once complete: this one never is
        assert b"get_weather" not in out
        return
    closing = {
        "chat": b'"finish_reason":"tool_calls"',
        "responses": b"response.function_call_arguments.done",
        "messages": b'"type":"content_block_stop","index":1',
    }[target]
    assert b"get_weather" in out and closing not in out


def test_hosted_tool_calls_are_not_relayed() -> None:
    for target in TARGETS:
        out = relay_all(MessagesLane(), target, capture("messages_web_search.sse"))
        assert b"web_search" not in out and b"tool_use" not in out.replace(b"tool_use_id", b"")


# -- the shape of each target ------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(p.name for p in CAPTURES.glob("*.sse")))
def test_responses_events_are_numbered_from_zero_and_carry_their_number_as_id(name: str) -> None:
    lane = LANES.get(name.split("_")[0], ResponsesLane)()
    out = relay_all(lane, "responses", capture(name))
    ids = [int(m) for m in re.findall(rb"^id: (\d+)$", out, re.MULTILINE)]
    numbers = [json.loads(m)["sequence_number"] for m in re.findall(rb"^data: (.*)$", out, re.M)]
    assert ids == numbers == list(range(len(ids)))
    assert out.count(b"\nevent: ") + out.startswith(b"event: ") == len(ids)


@pytest.mark.parametrize("target", TARGETS)
def test_the_id_and_model_are_the_given_ones_or_the_upstreams(target: str) -> None:
    data = capture("messages_basic.sse")
    out = relay_all(MessagesLane(), target, data, model="gw-model", id="abc", created=17)
    assert b'"gw-model"' in out and b'"abc"' in out
    out = relay_all(MessagesLane(), target, data)
    prefix = {"chat": b"chatcmpl-", "responses": b"resp_", "messages": b"", "gemini": b""}[target]
    assert b'"' + prefix + b"msg_01XFDUDYJgAACzvnptvVoYEL" in out
    assert b'"claude-sonnet-4-5-20250929"' in out


def test_a_chat_relay_keeps_every_choice_with_its_own_finish_reason() -> None:
    out = relay_all(ChatCompletionsLane(), "chat", capture("chat_n2_length.sse"))
    source = ChatCompletionsLane()
    source.feed(capture("chat_n2_length.sse"))
    source.close()
    again = ChatCompletionsLane(strict=True)
    again.feed(out)
    again.close()
    ours, theirs = again.snapshot.to_api(), source.snapshot.to_api()
    assert [(c["message"]["content"], c["finish_reason"]) for c in ours["choices"]] == [
        (c["message"]["content"], c["finish_reason"]) for c in theirs["choices"]
    ]
    assert again.outcome is source.outcome is Outcome.INCOMPLETE


# -- resuming a Responses upstream ------------------------------------------------------------


def events_of(data: bytes) -> list[bytes]:
    return [e + b"\n\n" for e in data.split(b"\n\n") if e.strip()]


def number(event: bytes) -> int:
    return int(json.loads(event.split(b"data: ", 1)[1])["sequence_number"])


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", ["responses_basic.sse", "responses_reasoning.sse"])
@settings(max_examples=examples(5, thorough=20), deadline=None)
@given(cuts=st.lists(st.integers(0, 10_000), min_size=1, max_size=3), replay=st.booleans())
@example(cuts=[6000, 1500], replay=True)  # cut again before the replay caught up
def test_a_resumed_upstream_is_relayed_as_if_it_never_broke(
    target: str, name: str, cuts: list[int], replay: bool
) -> None:
    """Cut anywhere, once or again while catching up, and resumed: the client sees no seam
    (a block of reasoning the client has is not opened or ended again)."""
    data = capture(name)
    if replay:  # agent runs replay from the start
        data = data.replace(b"resp_", b"resp_run_")
    whole = relay_all(ResponsesLane(), target, data)
    relay = Relay(ResponsesLane(), to=target)
    connection, out = data, b""
    for cut in cuts:
        out += relay.feed(connection[: cut % len(connection)])
        plan = relay.resume_plan()
        if plan is None:  # cut before response.created: nothing to resume, start again
            return
        out += relay.resume()
        after = plan.starting_after
        connection = b"".join(e for e in events_of(data) if replay or number(e) > after)
    out += relay.feed(connection) + relay.close()
    assert out == whole


@settings(max_examples=examples(26, thorough=200), deadline=None)
@given(
    status=st.none() | st.integers(min_value=0, max_value=1000),
    code=st.sampled_from([None, "overloaded_error", "rate_limit_exceeded", "UNAVAILABLE", "x"]),
    kind=st.sampled_from([None, "api_error", "invalid_request_error", "INTERNAL"]),
    retryable=st.booleans(),
)
@example(status=None, code="overloaded_error", kind=None, retryable=True)
def test_an_error_responses_body_names_the_status_it_is_sent_with(
    status: int | None, code: str | None, kind: str | None, retryable: bool
) -> None:
    # An error from inside a stream (no status) answering a client that asked for no
    # stream: Google's body carries a code, which must be the response's status.
    error = StreamError(message="m", code=code, type=kind, status=status, retryable=retryable)
    for row in FORMATS.values():
        answer, _, body = row.emitter.error_response(error)
        assert 400 <= answer <= 599
        inner = json.loads(body).get("error")
        if isinstance(inner, dict) and isinstance(inner.get("code"), int):
            assert inner["code"] == answer, row.name
