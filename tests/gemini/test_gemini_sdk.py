"""The official google-genai SDK as the Gemini lane's oracle, over a loopback server.

``genai.Client(api_key=..., http_options=HttpOptions(base_url=...))`` is pointed at
the test server (tests/server.py), which serves each bundled capture on Gemini's
own path (``/v1/models/{model}:streamGenerateContent?alt=sse``, as the SDK calls
it). What the SDK reads, chunk by chunk, is reduced the way its users read it:
per candidate, the text and the thoughts joined, the function calls (name,
args, id, thought signature), the last finish reason; the last usage, the
prompt's block reason, the model and response id; or the ``APIError`` it raised.
The lane's merged response (``snapshot.to_api()``) must say the same, and so
must the parts' turn (text, reasoning, calls, usage, finish).

google-genai hands signatures over as bytes (it decodes the base64); they are
compared encoded back.
"""

from __future__ import annotations

import base64
import functools
import json
from typing import Any

import attrs
import loopback
import pytest
from gemini_cases import GEMINI_STREAMS, call, capture, chunk, text, thought, usage
from google import genai
from google.genai import errors, types
from server import StreamServer, capture_bytes, late_failure

from sse_engine import Outcome, PartStream
from sse_engine.gemini import GeminiLane, encode_gemini_event
from sse_engine.gemini._wire import FINISH_REASONS

MODEL = "gemini-2.5-flash"


@attrs.frozen
class Candidate:
    text: str = ""
    thoughts: str = ""
    #: (name, args, id, signature) of each call.
    calls: tuple[tuple[str, Any, str | None, str | None], ...] = ()
    #: The signatures carried by text and thought parts, in order.
    signatures: tuple[str, ...] = ()
    finish: str | None = None


@attrs.frozen
class Read:
    """What a client made of a stream."""

    candidates: dict[int, Candidate]
    #: promptTokenCount, candidatesTokenCount, thoughtsTokenCount, cachedContentTokenCount,
    #: totalTokenCount of the last usage.
    usage: tuple[int | None, ...] | None
    block_reason: str | None
    model: str | None
    response_id: str | None
    #: (code, status word, message) of the failure.
    error: tuple[int | None, str | None, str | None] | None = None
    #: The SDK could not read the end of the stream (a cut inside an event).
    broken: bool = attrs.field(default=False, eq=False)


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode()


@functools.cache
def client_of(url: str) -> genai.Client:
    """One client per server for the whole run, which keeps its connections open."""
    options = loopback.genai_options(
        base_url=url, retry_options=types.HttpRetryOptions(attempts=1)
    )
    return genai.Client(api_key="test-key", http_options=options)


def sdk_read(server: StreamServer, **query: str) -> Read:
    """The SDK's stream over the loopback server, reduced (``query``: the server's faults)."""
    server.defaults.update(query)
    client = client_of(server.url)
    chunks: list[types.GenerateContentResponse] = []
    failure = None
    broken = False
    try:
        for response in client.models.generate_content_stream(model=MODEL, contents="hi"):
            chunks.append(response)
    except errors.UnknownApiResponseError:
        broken = True  # it parses the unfinished event a cut leaves as JSON, and fails
    except errors.APIError as exc:
        failure = (exc.code, exc.status, exc.message)
    texts: dict[int, dict[str, Any]] = {}
    usage = block = model = ident = None
    for response in chunks:
        for candidate in response.candidates or ():
            seen = texts.setdefault(candidate.index or 0, {
                "text": "", "thoughts": "", "calls": [], "signatures": [], "finish": None})
            content = candidate.content
            for part in (content.parts or ()) if content is not None else ():
                if part.function_call is not None:
                    fc = part.function_call
                    seen["calls"].append((fc.name, fc.args, fc.id, _b64(part.thought_signature)))
                    continue
                if part.thought_signature is not None:
                    seen["signatures"].append(_b64(part.thought_signature))
                if part.thought:
                    seen["thoughts"] += part.text or ""
                elif part.text is not None:
                    seen["text"] += part.text
            if candidate.finish_reason is not None:
                seen["finish"] = candidate.finish_reason.value
        meta = response.usage_metadata
        if meta is not None:
            usage = (meta.prompt_token_count, meta.candidates_token_count,
                     meta.thoughts_token_count, meta.cached_content_token_count,
                     meta.total_token_count)
        feedback = response.prompt_feedback
        if feedback is not None and feedback.block_reason is not None:
            block = feedback.block_reason.value
        model = response.model_version or model
        ident = response.response_id or ident
    return Read(
        {i: Candidate(c["text"], c["thoughts"], tuple(c["calls"]), tuple(c["signatures"]),
                      c["finish"]) for i, c in texts.items()},
        usage, block, model, ident, failure, broken,
    )


def lane_read(lane: GeminiLane) -> Read:
    """The same reduction of the lane's merged response (and its error)."""
    api = lane.snapshot.to_api()
    candidates = {}
    for index, candidate in enumerate(api.get("candidates", [])):
        parts = candidate.get("content", {}).get("parts", [])
        calls = tuple(
            (p["functionCall"]["name"], p["functionCall"].get("args"),
             p["functionCall"].get("id"), p.get("thoughtSignature"))
            for p in parts if "functionCall" in p)
        candidates[candidate.get("index", index)] = Candidate(
            text="".join(p["text"] for p in parts if "text" in p and not p.get("thought")),
            thoughts="".join(p["text"] for p in parts if p.get("thought")),
            calls=calls,
            signatures=tuple(p["thoughtSignature"] for p in parts
                             if "thoughtSignature" in p and "functionCall" not in p),
            finish=candidate.get("finishReason"),
        )
    meta = api.get("usageMetadata")
    counts = None if meta is None else tuple(meta.get(k) for k in (
        "promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount",
        "cachedContentTokenCount", "totalTokenCount"))
    error = lane.error
    failure = None
    raw = error.raw[0] if error is not None and isinstance(error.raw, list) else (
        error.raw if error is not None else None)
    if error is not None and isinstance(raw, dict) and "error" in raw:  # an error the API sent
        failure = (raw["error"]["code"], error.code, error.message)
    return Read(candidates, counts, api.get("promptFeedback", {}).get("blockReason"),
                api.get("modelVersion"), api.get("responseId"), failure)


def lane_over(data: bytes, status: int = 200) -> GeminiLane:
    lane = GeminiLane()
    lane.start(status, {"content-type": "text/event-stream" if status == 200
                        else "application/json"})
    lane.feed(data)
    lane.close()
    return lane


@pytest.mark.parametrize("name", GEMINI_STREAMS)
def test_the_sdk_reads_every_capture_as_the_lane_does(
    name: str, stream_server: StreamServer
) -> None:
    lane = lane_over(capture(name))
    seen = sdk_read(stream_server, capture=name.removesuffix(".sse"))
    assert lane_read(lane) == seen
    assert stream_server.seen[0].path == f"/v1/models/{MODEL}:streamGenerateContent"
    # The lane says more than the SDK: how the stream ended.
    if seen.error is not None:
        assert lane.outcome is Outcome.FAILED
    elif name == "gemini_truncated.sse":
        # The SDK reads the cut event as JSON and raises UnknownApiResponseError; the lane
        # drops it, as the SSE rules say, and reports the cut: TRUNCATED.
        assert seen.broken and lane.outcome is Outcome.TRUNCATED
    else:
        assert lane.outcome in (Outcome.COMPLETED, Outcome.INCOMPLETE)


@pytest.mark.parametrize("name", GEMINI_STREAMS)
def test_the_parts_turn_says_what_the_sdk_read(name: str, stream_server: StreamServer) -> None:
    stream = PartStream(GeminiLane())
    stream.feed(capture(name))
    stream.close()
    seen = sdk_read(stream_server, capture=name.removesuffix(".sse"))
    first = seen.candidates.get(0, Candidate())
    turn = stream.turn
    assert (turn.text, turn.reasoning) == (first.text, first.thoughts)
    assert [(c.name, c.input) for c in turn.tool_calls] == [(n, a) for n, a, _, _ in first.calls]
    # Each call's signature goes back with it, in its raw part.
    assert [c.raw.get("thoughtSignature") for c in turn.tool_calls] == [
        s for *_, s in first.calls]
    # And the signatures of text and thought parts, in the raw of a block of reasoning.
    carried = [b.raw.get("thoughtSignature") for b in turn.reasoning_blocks]
    assert [s for s in carried if s is not None] == list(first.signatures)
    if seen.usage is not None:
        prompt, answer, thoughts, cached, total = seen.usage
        assert turn.usage is not None
        assert (turn.usage.input_tokens, turn.usage.output_tokens, turn.usage.reasoning_tokens,
                turn.usage.cached_input_tokens, turn.usage.total_tokens) == (
            prompt or 0, (answer or 0) + (thoughts or 0), thoughts, cached, total)
    if seen.error is None and first.finish is not None:
        assert turn.raw_finish_reason == first.finish
        unified = FINISH_REASONS.get(first.finish, "other")
        assert turn.finish_reason == ("tool_calls" if unified == "stop" and turn.tool_calls
                                      else unified)
    if seen.block_reason is not None:
        assert (turn.finish_reason, turn.raw_finish_reason) == ("content_filter",
                                                                  seen.block_reason)


@pytest.mark.parametrize(("name", "status"), [
    ("gemini_prestream_429", 429), ("gemini_prestream_400", 400)])
def test_a_prestream_error_is_the_same_failure_to_the_sdk_and_the_lane(
    name: str, status: int, stream_server: StreamServer
) -> None:
    seen = sdk_read(stream_server, status=str(status))
    lane = lane_over(capture(f"{name}.json"), status)
    assert seen.error is not None and lane.error is not None
    assert lane_read(lane).error == seen.error
    assert lane.error.status == status


@pytest.mark.parametrize(("status", "word"), [
    (500, "INTERNAL"), (503, "UNAVAILABLE"), (403, "PERMISSION_DENIED"), (404, "NOT_FOUND")])
def test_an_error_frame_inside_the_stream_is_the_same_failure(
    status: int, word: str, stream_server: StreamServer
) -> None:
    seen = sdk_read(stream_server, late_status=str(status))
    lane = lane_over(capture_bytes_late(status))
    assert seen.error is not None and seen.error[:2] == (status, word)
    assert lane_read(lane).error == seen.error


def capture_bytes_late(status: int) -> bytes:
    """What the server sends for ``late_status``: Google's error frame."""
    return b"".join(late_failure("gemini", status))


# -- constructed streams, served the same way --------------------------------------------------


def served(server: StreamServer, data: bytes) -> Read:
    """``data`` served by the test server, read by the SDK."""
    server.bodies["constructed"] = data
    return sdk_read(server, capture="constructed")


CONSTRUCTED = {
    "signatures everywhere": (
        chunk(thought("plan", "dGg=")) + chunk(text("Hi", "dGV4dA==")) + chunk(text(" there"))
        + chunk(call("f", {"a": [1, {"b": None}]}, "Y2FsbA==", id="fc_7"), text(""),
                finish="STOP", index=0, usage=usage(3, 4, 5))
    ),
    "two candidates": b"".join(
        encode_gemini_event({"candidates": [
            {"content": {"parts": [text(a)], "role": "model"}, "index": 0},
            {"content": {"parts": [text(b)], "role": "model"}, "index": 1}]})
        for a, b in (("Hel", "Bon"), ("lo", "jour"))
    ) + encode_gemini_event({"candidates": [
        {"finishReason": "STOP", "index": 0}, {"finishReason": "MAX_TOKENS", "index": 1}]}),
    "unknown parts and fields": encode_gemini_event({
        "candidates": [{"content": {"parts": [
            {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}},
            {"executableCode": {"language": "PYTHON", "code": "print(1)"}},
            text("done")], "role": "model"}, "finishReason": "STOP", "index": 0,
            "groundingMetadata": {"webSearchQueries": ["q"]}}],
        "usageMetadata": {"promptTokenCount": 4, "cachedContentTokenCount": 2,
                          "totalTokenCount": 4},
        "modelVersion": MODEL, "responseId": "r1", "somethingNew": {"x": 1}}),
    "malformed call": chunk(text("let me")) + chunk(finish="MALFORMED_FUNCTION_CALL", index=0),
}


@pytest.mark.parametrize("case", sorted(CONSTRUCTED))
def test_constructed_streams_read_the_same(case: str, stream_server: StreamServer) -> None:
    data = CONSTRUCTED[case]
    lane = lane_over(data)
    assert lane_read(lane) == served(stream_server, data)
    if case == "malformed call":  # the SDK just hands the finish reason over; it is a failure
        assert lane.outcome is Outcome.FAILED and lane.error is not None
        assert lane.error.code == "MALFORMED_FUNCTION_CALL"


def test_the_sdk_and_the_lane_differ_on_purpose_on_a_cut_stream(
    stream_server: StreamServer,
) -> None:
    """The SDK ends a cut stream silently; the lane says TRUNCATED (docs/gemini.md)."""
    seen = sdk_read(stream_server, capture="gemini_basic", cut="2:40", cut_mode="eof")
    lane = lane_over(b"".join(capture_bytes("gemini_basic").split(b"\r\n\r\n")[i] + b"\r\n\r\n"
                              for i in range(2)))
    assert seen.error is None and seen.candidates[0].finish is None
    assert lane.outcome is Outcome.TRUNCATED
    assert lane.snapshot.text == seen.candidates[0].text


def test_lane_read_is_plain_json() -> None:
    json.dumps(lane_over(capture("gemini_basic.sse")).snapshot.to_api(), allow_nan=False)
