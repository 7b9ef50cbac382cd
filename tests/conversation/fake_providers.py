"""Fake model APIs on loopback, one per wire format, as strict as the real ones about a tool loop.

Each fake plays the same agent: asked for the weather, it thinks and calls
``get_weather`` once per city of :data:`CITIES` (one round each), then
answers in text. Its replies are streamed in the format's own events, with
the opaque data its provider attaches (an Anthropic ``thinking`` block's
signature and a ``redacted_thinking`` block, a Responses ``reasoning`` item's
``id`` and ``encrypted_content``, a Gemini ``thoughtSignature``).

Every request is checked as the provider checks it, and refused with a 400
in the provider's error envelope (``InvalidRequest.error_body``) when it is
not valid for the SDK's types or lacks what the provider requires back: each
earlier round's signed thinking before its call, each call's result, in the
order the provider wants. The round a request is in is read from the request
itself (how many calls it sends back), so a fake keeps no state but a log.

Written from the providers' documented rules, not from the codecs under test.
"""

from __future__ import annotations

import base64
import http.client
import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from sdk_oracle import validate

from sse_engine import (
    InvalidRequest,
    encode_chat_event,
    encode_gemini_event,
    encode_messages_event,
    encode_responses_event,
)

__all__ = ["CITIES", "FINAL", "PATHS", "FakeProviders", "Refused", "gemini_signature", "post"]

CITIES = ("Paris", "London")
FINAL = "Paris: 18 °C, London: 12 °C."
THOUGHT = "I need the weather in {}."


class Refused(Exception):
    """A request the provider would refuse: where and why (the 400's message)."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(path, problem)
        self.path = path
        self.problem = problem


def _args(city: str) -> str:
    return json.dumps({"city": city})


# -- Anthropic Messages ------------------------------------------------------------------------


def messages_reply(round: int) -> bytes:
    start = {"type": "message_start", "message": {
        "id": f"msg_{round}", "type": "message", "role": "assistant", "model": "claude-x",
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1}}}
    events: list[dict[str, Any]] = [start]
    if round < len(CITIES):
        city = CITIES[round]
        events += [
            {"type": "content_block_start", "index": 0,
             "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
            {"type": "content_block_delta", "index": 0,
             "delta": {"type": "thinking_delta", "thinking": THOUGHT.format(city)}},
            {"type": "content_block_delta", "index": 0,
             "delta": {"type": "signature_delta", "signature": f"SIG-{round}"}},
            {"type": "content_block_stop", "index": 0},
            {"type": "content_block_start", "index": 1,
             "content_block": {"type": "redacted_thinking", "data": f"RED-{round}"}},
            {"type": "content_block_stop", "index": 1},
            {"type": "content_block_start", "index": 2, "content_block": {
                "type": "tool_use", "id": f"toolu_{round}", "name": "get_weather", "input": {}}},
            {"type": "content_block_delta", "index": 2,
             "delta": {"type": "input_json_delta", "partial_json": _args(city)}},
            {"type": "content_block_stop", "index": 2},
        ]
        stop = "tool_use"
    else:
        events += [
            {"type": "content_block_start", "index": 0,
             "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 0,
             "delta": {"type": "text_delta", "text": FINAL}},
            {"type": "content_block_stop", "index": 0},
        ]
        stop = "end_turn"
    events += [{"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 20}}, {"type": "message_stop"}]
    return b"".join(encode_messages_event(e) for e in events)


def messages_check(body: dict[str, Any]) -> int:
    """Anthropic with thinking on: each assistant turn that called a tool starts with its
    thinking blocks, signatures intact, and the next message answers every call."""
    if (body.get("thinking") or {}).get("type") != "enabled":
        raise Refused("thinking", "this fake model always thinks: enable thinking")
    messages = body["messages"]
    round = 0
    for i, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        where = f"messages[{i}].content"
        content = message["content"]
        if not isinstance(content, list) or not content:
            raise Refused(where, "an assistant turn of this loop has blocks")
        if content[0]["type"] not in ("thinking", "redacted_thinking"):
            raise Refused(f"{where}[0].type", "Expected `thinking` or `redacted_thinking`, "
                          f"but found `{content[0]['type']}`. When `thinking` is enabled, an "
                          "assistant message with tool use must start with a thinking block")
        if content[:2] != [
            {"type": "thinking", "thinking": THOUGHT.format(CITIES[round]),
             "signature": f"SIG-{round}"},
            {"type": "redacted_thinking", "data": f"RED-{round}"},
        ]:
            raise Refused(f"{where}[0]", "Invalid `signature` in `thinking` block")
        calls = [block["id"] for block in content if block["type"] == "tool_use"]
        following = messages[i + 1]["content"] if i + 1 < len(messages) else []
        answered = {block.get("tool_use_id") for block in following if isinstance(block, dict)}
        missing = [call for call in calls if call not in answered]
        if missing:
            raise Refused(f"messages[{i}]", f"`tool_use` ids were found without `tool_result` "
                          f"blocks immediately after: {', '.join(missing)}")
        round += 1
    return round


# -- OpenAI Responses --------------------------------------------------------------------------


def responses_reply(round: int) -> bytes:
    response = {"id": f"resp_{round}", "object": "response", "created_at": 1, "model": "gpt-x",
                "status": "in_progress", "output": []}
    events: list[dict[str, Any]] = [{"type": "response.created", "response": response}]
    if round < len(CITIES):
        city = CITIES[round]
        reasoning = {"id": f"rs_{round}", "type": "reasoning", "summary": [
            {"type": "summary_text", "text": THOUGHT.format(city)}],
            "encrypted_content": f"ENC-{round}"}
        call = {"id": f"fc_{round}", "type": "function_call", "call_id": f"call_{round}",
                "name": "get_weather", "arguments": _args(city), "status": "completed"}
        events += [
            {"type": "response.output_item.added", "output_index": 0,
             "item": {**reasoning, "summary": [], "encrypted_content": None}},
            {"type": "response.output_item.done", "output_index": 0, "item": reasoning},
            {"type": "response.output_item.added", "output_index": 1,
             "item": {**call, "arguments": "", "status": "in_progress"}},
            {"type": "response.function_call_arguments.delta", "output_index": 1,
             "item_id": call["id"], "delta": call["arguments"]},
            {"type": "response.function_call_arguments.done", "output_index": 1,
             "item_id": call["id"], "arguments": call["arguments"]},
            {"type": "response.output_item.done", "output_index": 1, "item": call},
        ]
        output = [reasoning, call]
    else:
        part = {"type": "output_text", "text": FINAL, "annotations": []}
        message = {"id": "msg_final", "type": "message", "role": "assistant",
                   "status": "completed", "content": [part]}
        events += [
            {"type": "response.output_item.added", "output_index": 0,
             "item": {**message, "status": "in_progress", "content": []}},
            {"type": "response.content_part.added", "output_index": 0, "item_id": "msg_final",
             "content_index": 0, "part": {**part, "text": ""}},
            {"type": "response.output_text.delta", "output_index": 0, "item_id": "msg_final",
             "content_index": 0, "delta": FINAL},
            {"type": "response.output_text.done", "output_index": 0, "item_id": "msg_final",
             "content_index": 0, "text": FINAL},
            {"type": "response.content_part.done", "output_index": 0, "item_id": "msg_final",
             "content_index": 0, "part": part},
            {"type": "response.output_item.done", "output_index": 0, "item": message},
        ]
        output = [message]
    events.append({"type": "response.completed",
                   "response": {**response, "status": "completed", "output": output}})
    return b"".join(encode_responses_event({**e, "sequence_number": n})
                    for n, e in enumerate(events))


def responses_check(body: dict[str, Any]) -> int:
    """Responses without storage: each function call comes after its reasoning item (id and
    encrypted content as sent), and each has a function_call_output."""
    if body.get("store") is not False:
        raise Refused("store", "this fake keeps nothing: send store=false")
    if "reasoning.encrypted_content" not in (body.get("include") or []):
        raise Refused("include", "ask for reasoning.encrypted_content to send it back")
    items = body["input"]
    if isinstance(items, str):
        return 0
    outputs = {item.get("call_id") for item in items if item.get("type") == "function_call_output"}
    round = 0
    for i, item in enumerate(items):
        if item.get("type") != "function_call":
            continue
        before = items[i - 1] if i else {}
        if before.get("type") != "reasoning" or before.get("id") != f"rs_{round}" or (
            before.get("encrypted_content") != f"ENC-{round}"
        ):
            raise Refused(f"input[{i}]", f"Item of type 'function_call' was provided without "
                          f"its required 'reasoning' item: 'rs_{round}'")
        if item["call_id"] not in outputs:
            raise Refused(f"input[{i}]",
                          f"No tool output found for function call {item['call_id']}")
        round += 1
    return round


# -- OpenAI Chat Completions -------------------------------------------------------------------


def chat_reply(round: int) -> bytes:
    base = {"id": f"chatcmpl-{round}", "object": "chat.completion.chunk", "created": 1,
            "model": "gpt-x"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return encode_chat_event({**base, "choices": [choice]})

    out = [chunk({"role": "assistant"})]
    if round < len(CITIES):
        arguments = _args(CITIES[round])
        out.append(chunk({"tool_calls": [{"index": 0, "id": f"call_{round}", "type": "function",
                                          "function": {"name": "get_weather", "arguments": ""}}]}))
        out += [chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]})
                for piece in (arguments[:5], arguments[5:])]
        out.append(chunk({}, "tool_calls"))
    else:
        out += [chunk({"content": FINAL}), chunk({}, "stop")]
    return b"".join(out) + b"data: [DONE]\n\n"


def chat_check(body: dict[str, Any]) -> int:
    """Chat: an assistant message's tool_calls are each answered by the tool messages right
    after it, and a tool message answers a call of the assistant message before it."""
    messages = body["messages"]
    round = 0
    open_calls: set[str] = set()
    for i, message in enumerate(messages):
        role = message["role"]
        if role == "tool":
            if message["tool_call_id"] not in open_calls:
                raise Refused(f"messages[{i}]", "messages with role 'tool' must be a response "
                              "to a preceding message with 'tool_calls'")
            open_calls.discard(message["tool_call_id"])
            continue
        if open_calls:
            raise Refused(f"messages[{i}]", "An assistant message with 'tool_calls' must be "
                          "followed by tool messages responding to each 'tool_call_id'. "
                          f"The following tool_call_ids did not have response messages: "
                          f"{', '.join(sorted(open_calls))}")
        calls = message.get("tool_calls") or []
        if role == "assistant" and calls:
            open_calls = {call["id"] for call in calls}
            round += 1
    if open_calls:
        raise Refused(f"messages[{len(messages)}]", "The following tool_call_ids did not have "
                      f"response messages: {', '.join(sorted(open_calls))}")
    return round


# -- Gemini ----------------------------------------------------------------------------------


def gemini_signature(round: int) -> str:
    """The thoughtSignature of a round (bytes on the wire: base64 in JSON)."""
    return base64.b64encode(f"GSIG-{round}".encode()).decode()



def gemini_reply(round: int) -> bytes:
    def chunk(parts: list[dict[str, Any]], **more: Any) -> bytes:
        content = {"content": {"role": "model", "parts": parts}, "index": 0}
        return encode_gemini_event({"candidates": [{**content, **more}],
                                    "modelVersion": "gemini-x", "responseId": f"r{round}"})

    usage = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
    if round < len(CITIES):
        city = CITIES[round]
        return chunk([{"text": THOUGHT.format(city), "thought": True}]) + chunk(
            [{"functionCall": {"name": "get_weather", "args": {"city": city}},
              "thoughtSignature": gemini_signature(round)}],
            finishReason="STOP", usageMetadata=usage)
    return chunk([{"text": FINAL}], finishReason="STOP", usageMetadata=usage)


def gemini_check(body: dict[str, Any]) -> int:
    """Gemini 3: each model turn's first function call carries its thoughtSignature back,
    and the next turn is the user's functionResponse for each call, by name."""
    contents = body["contents"]
    round = 0
    for i, content in enumerate(contents):
        if content.get("role") != "model":
            continue
        calls = [(j, part) for j, part in enumerate(content["parts"]) if "functionCall" in part]
        if not calls:
            continue
        j, first = calls[0]
        if first.get("thoughtSignature") != gemini_signature(round):
            raise Refused(f"contents[{i}].parts[{j}]", "Function call is missing a "
                          "thought_signature in functionCall parts")
        after = contents[i + 1]["parts"] if i + 1 < len(contents) else []
        answered = [part["functionResponse"]["name"] for part in after
                    if "functionResponse" in part]
        if sorted(answered) != sorted(part["functionCall"]["name"] for _, part in calls):
            raise Refused(f"contents[{i + 1}]", "Please ensure that the number of function "
                          "response parts is equal to the number of function call parts")
        round += 1
    return round


# -- the server ----------------------------------------------------------------------------------

#: format -> (the path it is served on, its reply, its check).
FAKES: dict[str, tuple[str, Callable[[int], bytes], Callable[[dict[str, Any]], int]]] = {
    "chat": ("/v1/chat/completions", chat_reply, chat_check),
    "responses": ("/v1/responses", responses_reply, responses_check),
    "messages": ("/v1/messages", messages_reply, messages_check),
    "gemini": ("/v1beta/models/gemini-x:streamGenerateContent?alt=sse", gemini_reply,
               gemini_check),
}
PATHS = {format: path for format, (path, _, _) in FAKES.items()}


class FakeProviders:
    """The four fakes on one loopback port; ``log`` has each request as ``(format, body,
    status)``."""

    def __init__(self, validators: dict[str, Callable[[str, Any], None]] | None = None) -> None:
        self.log: list[tuple[str, dict[str, Any], int]] = []
        self._validate = validators or {}
        fakes = {path.split("?")[0]: (format, reply, check)
                 for format, (path, reply, check) in FAKES.items()}
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                format, reply, check = fakes[self.path.split("?")[0]]
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                try:
                    owner._validate.get(format, validate)(format, body)
                    data = reply(check(body))
                except (ValueError, Refused) as exc:  # pydantic's errors are ValueErrors
                    refused = exc if isinstance(exc, Refused) else Refused("", str(exc)[:500])
                    error = InvalidRequest(refused.path, refused.problem).error_body(format)
                    owner.log.append((format, body, 400))
                    self._answer(400, "application/json", json.dumps(error).encode())
                    return
                owner.log.append((format, body, 200))
                self._answer(200, "text/event-stream", data)

            def _answer(self, status: int, kind: str, data: bytes) -> None:
                self.send_response(status)
                self.send_header("content-type", kind)
                self.end_headers()
                for start in range(0, len(data), 97):  # pieces that split events and lines
                    self.wfile.write(data[start : start + 97])
                    self.wfile.flush()

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet tests

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeProviders:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def post(
    port: int, format: str, body: dict[str, Any]
) -> tuple[int, list[tuple[str, str]], Iterator[bytes]]:
    """POST ``body`` to the fake of ``format``: the status, the headers, and the body's
    pieces as they arrive (the connection closes when they are read)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("POST", PATHS[format], json.dumps(body),
                       {"content-type": "application/json"})
    response = connection.getresponse()

    def pieces() -> Iterator[bytes]:
        try:
            while piece := response.read1(64):
                yield piece
        finally:
            connection.close()

    return response.status, response.getheaders(), pieces()
