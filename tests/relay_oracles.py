"""The official SDKs as oracles for relayed bytes: what a client of the gateway would see.

Each reader runs the target's SDK streaming path offline (``openai.Stream`` /
``anthropic.Stream`` over an in-memory response, wrapped in
``ChatCompletionStream``, ``ResponseStream`` or ``MessageStream``, as the
clients' ``.stream()`` helpers do; google-genai's
``client.models.generate_content_stream`` over an httpx client whose transport
answers from memory) and reduces what it made of the bytes to :class:`Seen`:
the text, reasoning, tool calls, usage and finish, or the error it raised or
reported. No request leaves the process.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import anthropic
import attrs
import httpx
import httpx2
import loopback
import openai
from anthropic.lib.streaming import MessageStream
from anthropic.types import RawMessageStreamEvent
from google import genai
from google.genai import errors as genai_errors
from openai.lib.streaming.chat import ChatCompletionStream
from openai.lib.streaming.responses import ResponseStream
from openai.types.chat import ChatCompletionChunk
from openai.types.responses import ResponseStreamEvent

from sse_engine import Outcome

_OPENAI = loopback.openai_client("https://example.invalid/v1")
_ANTHROPIC = loopback.anthropic_client("https://example.invalid")
#: What separates two pieces of reasoning (summary parts, items, thinking blocks) in a
#: turn's reasoning: the parts layer's blank line.
BLANK_LINE = "\n\n"


@attrs.frozen
class Seen:
    """What a client made of a stream, in words every target shares.

    ``tools`` are ``(name, input)`` pairs, the input parsed as JSON when it
    is JSON; ``usage`` is ``(input tokens, output tokens)`` with cache reads
    counted in; ``finish`` is the target's own word for the ending (``stop``,
    ``incomplete:max_output_tokens``, ``end_turn``, ...), ``error`` the
    message of the failure the client saw, if any.
    """

    text: str = ""
    refusal: str = ""
    reasoning: str = ""
    tools: tuple[tuple[str, Any], ...] = ()
    usage: tuple[int, int] | None = None
    finish: str | None = None
    error: str | None = None


def tool_input(arguments: str) -> Any:
    """A tool call's input as a value: parsed JSON, or the text when it is not JSON."""
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


def _openai_response(body: bytes, path: str) -> httpx.Response:
    return httpx.Response(
        200,
        headers={"content-type": "text/event-stream"},
        content=body,
        request=httpx.Request("POST", f"https://example.invalid/v1/{path}"),
    )


def chat_stream(body: bytes) -> ChatCompletionStream[Any]:
    """``ChatCompletionStream`` over ``body``, as ``client.chat.completions.stream()`` makes one."""
    raw = openai.Stream(
        cast_to=ChatCompletionChunk,
        response=_openai_response(body, "chat/completions"),
        client=_OPENAI,
    )
    return ChatCompletionStream(
        raw_stream=raw, response_format=openai.omit, input_tools=openai.omit
    )


def chat_seen(body: bytes) -> Seen:
    """``ChatCompletionStream`` (choice 0) over ``body``."""
    stream = chat_stream(body)
    error = None
    try:
        for _ in stream:
            pass
        completion: Any = stream.get_final_completion()
    except (openai.LengthFinishReasonError, openai.ContentFilterFinishReasonError) as exc:
        completion = exc.completion
    except openai.APIError as exc:
        error = exc.message
        try:
            completion = stream.current_completion_snapshot
        except AssertionError:  # the error frame came first
            return Seen(error=error)
    return completion_seen(completion, error)


def completion_seen(completion: Any, error: str | None = None) -> Seen:
    """A ``ChatCompletion`` (choice 0) as :class:`Seen`."""
    choice = completion.choices[0] if completion.choices else None
    message = choice.message if choice is not None else None
    extra = (message.model_extra or {}) if message is not None else {}
    usage = completion.usage
    return Seen(
        text=(message.content or "") if message is not None else "",
        refusal=(message.refusal or "") if message is not None else "",
        reasoning=extra.get("reasoning_content") or "",
        tools=tuple(
            (call.function.name, tool_input(call.function.arguments))
            for call in (message.tool_calls or [] if message is not None else [])
        ),
        usage=None if usage is None else (usage.prompt_tokens, usage.completion_tokens),
        finish=None if error is not None or choice is None else choice.finish_reason,
        error=error,
    )


def response_stream(body: bytes) -> ResponseStream[Any]:
    """``ResponseStream`` over ``body``, as ``client.responses.stream()`` makes one."""
    raw = openai.Stream(
        cast_to=ResponseStreamEvent,  # type: ignore[arg-type]
        response=_openai_response(body, "responses"),
        client=_OPENAI,
    )
    return ResponseStream(
        raw_stream=raw, text_format=openai.omit, input_tools=openai.omit, starting_after=None
    )


def responses_seen(body: bytes) -> Seen:
    """``ResponseStream`` over ``body``: the terminal event's response object."""
    stream = response_stream(body)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        events = list(stream)
    errors = [e for e in events if e.type == "error"]
    terminal = [
        e
        for e in events
        if e.type in ("response.completed", "response.incomplete", "response.failed")
    ]
    assert len(terminal) == 1, [e.type for e in events]
    response = terminal[0].response
    if response.status == "completed":
        response = stream.get_final_response()
    return response_seen(response, errors[0].message if errors else None)


def response_seen(response: Any, error: str | None = None) -> Seen:
    """A Responses ``response`` object as :class:`Seen`."""
    text, refusal, tools = "", "", []
    summaries: list[str] = []
    for item in response.output:
        if item.type == "message":
            for part in item.content:
                if part.type == "output_text":
                    text += part.text
                else:
                    refusal += part.refusal
        elif item.type == "reasoning":
            summaries += [s.text for s in item.summary if s.text]
        elif item.type == "function_call":
            tools.append((item.name, tool_input(item.arguments)))
        elif item.type == "custom_tool_call":
            tools.append((item.name, item.input))
    usage = response.usage
    finish = response.status
    if response.incomplete_details is not None:
        finish = f"{finish}:{response.incomplete_details.reason}"
    return Seen(
        text=text,
        refusal=refusal,
        reasoning=BLANK_LINE.join(summaries),
        tools=tuple(tools),
        usage=None if usage is None else (usage.input_tokens, usage.output_tokens),
        finish=None if error is not None else finish,
        error=error,
    )


def message_stream(body: bytes) -> MessageStream[Any]:
    """``MessageStream`` over ``body``, as ``client.messages.stream()`` makes one."""
    response = httpx2.Response(
        200,
        headers={"content-type": "text/event-stream"},
        content=body,
        request=httpx2.Request("POST", "https://example.invalid/v1/messages"),
    )
    raw = anthropic.Stream(cast_to=RawMessageStreamEvent, response=response, client=_ANTHROPIC)
    return MessageStream(raw, output_format=anthropic.NOT_GIVEN)


def messages_seen(body: bytes) -> Seen:
    """``MessageStream`` over ``body``: ``get_final_message()``, or the error it raised."""
    stream = message_stream(body)
    try:
        message = stream.get_final_message()
    except anthropic.APIStatusError as exc:
        body: Any = exc.body
        error = body["error"]["message"] if isinstance(body, dict) else str(body)
        try:
            snapshot = stream.current_message_snapshot
        except AssertionError:  # the error came before message_start
            snapshot = None
        return message_seen(snapshot, error=error)
    return message_seen(message)


def message_seen(message: Any, error: str | None = None) -> Seen:
    """An Anthropic ``Message`` as :class:`Seen`."""
    if message is None:
        return Seen(error=error)
    text = "".join(b.text for b in message.content if b.type == "text")
    reasoning = BLANK_LINE.join(
        b.thinking for b in message.content if b.type == "thinking" and b.thinking)
    tools = tuple((b.name, b.input) for b in message.content if b.type == "tool_use")
    usage = message.usage
    inputs = (
        usage.input_tokens
        + (usage.cache_read_input_tokens or 0)
        + (usage.cache_creation_input_tokens or 0)
    )
    return Seen(
        text=text,
        reasoning=reasoning,
        tools=tools,
        usage=(inputs, usage.output_tokens),
        finish=None if error is not None else message.stop_reason,
        error=error,
    )


@attrs.define
class _Answer:
    """What the shared google-genai client's transport answers its next request with."""

    status: int = 200
    body: bytes = b""
    content_type: str = "text/event-stream"


_GENAI_ANSWER = _Answer()


def _genai_answer(_: httpx.Request) -> httpx.Response:
    answer = _GENAI_ANSWER
    return httpx.Response(
        answer.status, headers={"content-type": answer.content_type}, content=answer.body
    )


# One client for the whole run, answering from memory: it outlives the examples.
_GENAI = genai.Client(api_key="test-key", http_options=loopback.genai_options(
    base_url="https://example.invalid",
    httpx_client=httpx.Client(transport=httpx.MockTransport(_genai_answer)),
))


def genai_client(status: int, body: bytes, content_type: str = "text/event-stream") -> Any:
    """A google-genai client whose every request is answered, from memory, with ``body``
    (until the next call of this function: the client is shared)."""
    _GENAI_ANSWER.status, _GENAI_ANSWER.body = status, body
    _GENAI_ANSWER.content_type = content_type
    return _GENAI


def genai_chunks(body: bytes) -> tuple[list[Any], Any]:
    """The ``GenerateContentResponse`` chunks google-genai reads from ``body``, and the
    ``APIError`` it raised (None if none)."""
    client = genai_client(200, body)
    chunks: list[Any] = []
    try:
        for chunk in client.models.generate_content_stream(model="gemini-test", contents="hi"):
            chunks.append(chunk)
    except genai_errors.APIError as exc:
        return chunks, exc
    return chunks, None


def gemini_seen(body: bytes) -> Seen:
    """google-genai's chunks over ``body``, candidate 0 read as its users read it."""
    chunks, error = genai_chunks(body)
    text, reasoning, tools = "", "", []
    finish = usage = None
    for chunk in chunks:
        for candidate in chunk.candidates or ():
            if (candidate.index or 0) != 0:
                continue
            for part in (candidate.content.parts or ()) if candidate.content else ():
                if part.function_call is not None:
                    tools.append((part.function_call.name, part.function_call.args))
                elif part.thought:
                    reasoning += part.text or ""
                else:
                    text += part.text or ""
            if candidate.finish_reason is not None:
                finish = candidate.finish_reason.value
        if chunk.usage_metadata is not None:
            meta = chunk.usage_metadata
            usage = (
                (meta.prompt_token_count or 0) + (meta.tool_use_prompt_token_count or 0),
                (meta.candidates_token_count or 0) + (meta.thoughts_token_count or 0),
            )
    return Seen(
        text=text,
        reasoning=reasoning,
        tools=tuple(tools),
        usage=usage,
        finish=None if error is not None else finish,
        error=None if error is None else error.message,
    )


#: The SDK reader of each target.
SEEN = {
    "chat": chat_seen,
    "responses": responses_seen,
    "messages": messages_seen,
    "gemini": gemini_seen,
}
#: The targets with no refusal field: a refusal's explanation reaches their client as text.
NO_REFUSAL = frozenset({"messages", "gemini"})
#: The targets that write a tool call whole, once complete: a call cut short upstream
#: never reaches their client (the others show it open, never closed).
WHOLE_CALLS = frozenset({"gemini"})
#: The targets whose call arguments are always an object: a plain-text input (a Responses
#: custom tool's) reaches their client as ``{"input": text}``.
OBJECT_ARGS = frozenset({"gemini"})


#: What each target says for each unified finish reason ("other": by the outcome).
WORDS: dict[str, dict[str, str]] = {
    "stop": {"chat": "stop", "responses": "completed", "messages": "end_turn", "gemini": "STOP"},
    "tool_calls": {
        "chat": "tool_calls", "responses": "completed", "messages": "tool_use", "gemini": "STOP",
    },
    "pause": {"chat": "stop", "responses": "completed", "messages": "pause_turn", "gemini": "STOP"},
    "length": {
        "chat": "length",
        "responses": "incomplete:max_output_tokens",
        "messages": "max_tokens",
        "gemini": "MAX_TOKENS",
    },
    "content_filter": {
        "chat": "content_filter",
        "responses": "incomplete:content_filter",
        "messages": "refusal",
        "gemini": "SAFETY",
    },
    "refusal": {
        "chat": "content_filter",
        "responses": "incomplete:content_filter",
        "messages": "refusal",
        "gemini": "SAFETY",
    },
}
#: A target's own word for a turn cut short for a reason it has no word for (else "length"'s).
OTHER_INCOMPLETE = {"gemini": "OTHER"}


def finish_word(reason: str, outcome: Outcome, target: str) -> str:
    """The target's word for a turn that ended cleanly for ``reason`` with ``outcome``."""
    if reason in WORDS:
        return WORDS[reason][target]
    if outcome is Outcome.COMPLETED:
        return WORDS["stop"][target]
    return OTHER_INCOMPLETE.get(target) or WORDS["length"][target]
