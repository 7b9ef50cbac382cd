"""Parts to Gemini (``Relay(..., to="gemini")``), and the vocabulary both ways: usage, errors.

Every pairing is read back by google-genai in tests/relay; here, what is
Gemini's own: the frames as Google writes them, what a Gemini source gets
back through a Gemini relay (signatures, call ids), the error envelope and
the usage object written and read.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from gemini_cases import GEMINI_STREAMS, call, capture, chunk, text, thought, usage
from hypothesis import given
from hypothesis import strategies as st
from relay_oracles import gemini_seen

from sse_engine import (
    FORMATS,
    ChatCompletionsLane,
    MessagesLane,
    Outcome,
    Relay,
    ResponsesLane,
    StreamError,
    Usage,
    is_retryable,
)
from sse_engine.gemini import GeminiLane
from sse_engine.gemini._wire import error_body, usage_from_wire, usage_to_wire

EMITTER = FORMATS["gemini"].emitter


def relayed(data: bytes, lane: Any = None, **options: Any) -> tuple[Relay, bytes]:
    relay = Relay(lane or GeminiLane(), to="gemini", **options)
    return relay, relay.feed(data) + relay.close()


def frames(out: bytes) -> list[dict[str, Any]]:
    """Each frame's JSON (every frame is ``data: {json}`` and a CRLF blank line)."""
    pieces = out.split(b"\r\n\r\n")
    assert pieces[-1] == b""
    found = []
    for piece in pieces[:-1]:
        assert piece.startswith(b"data: ") and b"\n" not in piece
        found.append(json.loads(piece[6:]))
    return found


@pytest.mark.parametrize("name", GEMINI_STREAMS)
def test_a_gemini_stream_through_a_gemini_relay_reads_back_the_same(name: str) -> None:
    source = GeminiLane()
    source.feed(capture(name))
    source.close()
    _, out = relayed(capture(name))
    back = GeminiLane(strict=True)
    back.feed(out)
    back.close()
    assert back.outcome is (Outcome.FAILED if source.outcome is Outcome.TRUNCATED
                            else source.outcome)
    ours, theirs = back.snapshot.to_api(), source.snapshot.to_api()
    if source.outcome in (Outcome.COMPLETED, Outcome.INCOMPLETE) and "candidates" in theirs:
        # The merged parts come back as they were, signatures and all (usage is rewritten
        # from the unified counts: its detail lists are not carried).
        assert [c.get("content") for c in ours["candidates"]] == [
            c.get("content") for c in theirs["candidates"]]
        assert [c["finishReason"] for c in ours["candidates"]] == [
            c["finishReason"] for c in theirs["candidates"]]
    assert (ours.get("modelVersion"), ours.get("responseId")) == (
        theirs.get("modelVersion"), theirs.get("responseId"))


def test_frames_are_as_google_writes_them() -> None:
    _, out = relayed(capture("gemini_basic.sse"))
    found = frames(out)
    assert b'{"candidates": [{"content": {"parts": [{"text": "I\'ll"}],' in out
    assert all(f["modelVersion"] == "gemini-2.5-flash" for f in found)
    last = found[-1]
    assert last["candidates"] == [{"finishReason": "STOP", "index": 0}]
    assert last["usageMetadata"] == {"promptTokenCount": 73, "candidatesTokenCount": 31,
                                     "totalTokenCount": 192, "thoughtsTokenCount": 88}
    assert not any("usageMetadata" in f for f in found[:-1])


def test_a_call_is_written_whole_once_with_its_signature_and_no_made_up_id() -> None:
    signed = call("f", {"a": 1}, "c2ln")
    _, out = relayed(chunk(text("x")) + chunk(signed, call("g", {}, id="fc_2"), finish="STOP"))
    parts = [p for f in frames(out) for c in f.get("candidates", [])
             for p in c.get("content", {}).get("parts", [])]
    calls = [p for p in parts if "functionCall" in p]
    assert calls == [signed, call("g", {}, id="fc_2")]


def test_another_sources_call_keeps_its_id_and_never_gets_a_signature() -> None:
    _, out = relayed(capture("messages_basic.sse"), MessagesLane())
    (part,) = [p for f in frames(out) for c in f.get("candidates", [])
               for p in c.get("content", {}).get("parts", []) if "functionCall" in p]
    assert part["functionCall"]["id"].startswith("toolu_")
    assert "thoughtSignature" not in part
    # Anthropic's thinking signature stays Anthropic's: no Gemini part carries it.
    _, thinking = relayed(capture("messages_thinking.sse"), MessagesLane())
    assert b"thoughtSignature" not in thinking


def test_signed_reasoning_comes_back_on_an_empty_part_of_its_kind() -> None:
    body = (chunk(thought("plan ")) + chunk(thought("more", "dGg=")) + chunk(text("Hi"))
            + chunk(text("", "dGV4dA=="), finish="STOP"))
    _, out = relayed(body)
    parts = [p for f in frames(out) for c in f.get("candidates", [])
             for p in c.get("content", {}).get("parts", [])]
    assert parts == [thought("plan "), thought("more"), thought("", "dGg="), text("Hi"),
                     text("", "dGV4dA==")]
    back = GeminiLane()
    back.feed(out)
    back.close()
    assert back.snapshot.to_api()["candidates"][0]["content"]["parts"] == [
        thought("plan more", "dGg="), text("Hi", "dGV4dA==")]


def test_reasoning_of_another_source_is_thought_text_with_blank_lines_between_blocks() -> None:
    _, out = relayed(capture("responses_reasoning.sse"), ResponsesLane())
    seen = gemini_seen(out)
    source = Relay(ResponsesLane(), to="chat")
    source.feed(capture("responses_reasoning.sse"))
    source.close()
    assert seen.reasoning == source.turn.reasoning and "\n\n" in seen.reasoning


def test_a_plain_text_tool_input_is_wrapped_in_an_object() -> None:
    _, out = relayed(capture("responses_kindo_agent.sse"), ResponsesLane())
    seen = gemini_seen(out)
    note = "Incident 2731 mitigated; p99 back to 412 ms."
    # The capture's shell_call runs on the client (no container): a call named after the tool.
    shell = {"commands": ["kubectl get pods -n api", "kubectl logs deploy/api --tail=20"],
             "timeout_ms": 10000, "max_output_length": 4096}
    assert seen.tools == (("shell", shell), ("write_note", {"input": note}))


def test_every_choice_of_a_chat_source_is_a_candidate() -> None:
    _, out = relayed(capture("chat_n2_length.sse"), ChatCompletionsLane())
    back = GeminiLane(strict=True)
    back.feed(out)
    back.close()
    assert sorted(back.snapshot.candidates) == [0, 1]
    assert [c.finish_reason for c in back.snapshot.candidates.values()] == ["STOP", "MAX_TOKENS"]
    assert back.outcome is Outcome.INCOMPLETE


@pytest.mark.parametrize("name", ["gemini_error.sse", "gemini_truncated.sse",
                                  "messages_truncated.sse", "chat_error.sse"])
def test_a_bad_ending_is_googles_error_frame_never_a_finish(name: str) -> None:
    lane = FORMATS[name.split("_")[0]].lane()
    relay, out = relayed(capture(name), lane)
    last = frames(out)[-1]
    assert set(last) == {"error"} and relay.error is not None
    assert last["error"]["message"] == relay.error.message
    assert b'"finishReason": ' not in out
    assert gemini_seen(out).error == relay.error.message


def test_a_failure_before_any_content_is_just_the_error_frame() -> None:
    _, out = relayed(chunk(text("x"))[:0] + b'data: {"error": {"code": 429, "message": "slow",'
                     b' "status": "RESOURCE_EXHAUSTED"}}\r\n\r\n')
    assert frames(out) == [{"error": {"code": 429, "message": "slow",
                                      "status": "RESOURCE_EXHAUSTED"}}]


def test_the_error_response_is_googles_body_with_the_status() -> None:
    error = StreamError(message="slow down", code="rate_limit_exceeded", status=429,
                        retry_after=1.2, request_id="req_1")
    status, headers, body = EMITTER.error_response(error)
    assert status == 429
    assert ("retry-after", "2") in headers and ("x-request-id", "req_1") in headers
    assert json.loads(body) == {"error": {"code": 429, "message": "slow down",
                                          "status": "RESOURCE_EXHAUSTED"}}


def test_the_keepalive_is_a_blank_line() -> None:
    relay = Relay(GeminiLane(), to="gemini")
    assert relay.keepalive() == b"\r\n"
    # A comment upstream is a keepalive downstream, where it came.
    assert relay.feed(b": ping\r\n\r\n" + chunk(text("a"))).startswith(b"\r\ndata: ")


# -- the error envelope, written and read --------------------------------------------------------

_CODES = ["rate_limit_exceeded", "rate_limit_error", "overloaded_error", "server_error",
          "invalid_request_error", "authentication_error", "permission_error", "not_found_error",
          "model_not_found", "timeout_error", "RESOURCE_EXHAUSTED", "UNAVAILABLE", "INTERNAL",
          "INVALID_ARGUMENT", "NOT_FOUND", "something_new", None]


@given(code=st.sampled_from(_CODES), status=st.sampled_from([None, 400, 401, 403, 404, 429,
                                                              500, 503, 504, 529]),
       message=st.text(max_size=20))
def test_an_error_written_as_googles_reads_back_with_its_retry_decision(
    code: str | None, status: int | None, message: str
) -> None:
    error = StreamError(message=message or "x", code=code, status=status,
                        retryable=is_retryable(code, None, status))
    body = error_body(error)
    inner = body["error"]
    assert set(inner) == {"code", "message", "status"} and type(inner["code"]) is int
    again = StreamError.from_payload(body, status=status)
    assert again.message == error.message
    assert again.code == inner["status"]
    # A code Google has no word for keeps its decision through the nearest word.
    assert again.retryable == error.retryable or code not in _CODES[:-2]


@pytest.mark.parametrize(("word", "number"), [("RESOURCE_EXHAUSTED", 429), ("UNAVAILABLE", 503),
                                              ("INVALID_ARGUMENT", 400), ("NOT_FOUND", 404)])
def test_googles_own_error_is_written_back_unchanged(word: str, number: int) -> None:
    body = {"error": {"code": number, "message": "m", "status": word}}
    assert error_body(StreamError.from_payload(body)) == body


# -- usage, written and read -----------------------------------------------------------------------


@given(st.integers(0, 10**6), st.integers(0, 10**6), st.integers(0, 10**6),
       st.one_of(st.none(), st.integers(0, 10**6)), st.one_of(st.none(), st.integers(0, 10**6)))
def test_usage_written_reads_back_the_same(
    prompt: int, answer: int, extra: int, cached: int | None, thoughts: int | None
) -> None:
    output = answer + (thoughts or 0)
    usage_in = Usage(prompt, output, prompt + output + extra, cached, thoughts)
    assert usage_from_wire(usage_to_wire(usage_in)) == usage_in


_COUNT_KEYS = ("promptTokenCount", "toolUsePromptTokenCount", "candidatesTokenCount",
               "thoughtsTokenCount", "totalTokenCount", "cachedContentTokenCount")
#: What a count may be on the wire: an int counts; a bool, float, string, list or null does not.
_WIRE_VALUES = st.one_of(st.integers(0, 10**6), st.booleans(), st.floats(0, 10),
                         st.text(max_size=3),
                         st.lists(st.integers(0, 3), max_size=2), st.none())


@given(st.dictionaries(st.sampled_from(_COUNT_KEYS), _WIRE_VALUES))
def test_only_integer_counts_count(wire: dict[str, Any]) -> None:
    ints = {k: v for k, v in wire.items() if type(v) is int}
    prompt, tools, answer, thoughts, total, cached = (ints.get(k) for k in _COUNT_KEYS)
    got = usage_from_wire(wire)
    assert got.cached_input_tokens == cached
    assert got.raw is wire
    if not ints.keys() - {"cachedContentTokenCount"}:  # no count of input, output or total
        assert got == Usage(cached_input_tokens=cached)
        return
    input_tokens = (prompt or 0) + (tools or 0)
    output = (answer or 0) + (thoughts or 0)
    assert got == Usage(input_tokens, output, input_tokens + output if total is None else total,
                        cached, thoughts)


def test_a_reasoning_count_larger_than_the_output_keeps_the_output() -> None:
    # Gemini's own OpenAI-compatible endpoint counts reasoning beside the output.
    wire = usage_to_wire(Usage(61, 38, 180, None, 81))
    assert usage_from_wire(wire) == Usage(61, 38, 180, None, None)


def test_usage_without_a_count_counts_nothing_and_a_missing_count_is_zero() -> None:
    assert usage_from_wire({"trafficType": "ON_DEMAND"}) == Usage()
    assert usage_from_wire({"promptTokenCount": 9, "totalTokenCount": 9}) == Usage(9, 0, 9)
    assert usage_from_wire(usage(3, 4)) == Usage(3, 4, 7)
