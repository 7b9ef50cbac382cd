"""The Chat Completions lane: ``data: {chat.completion.chunk}`` frames ending with ``data: [DONE]``.

As OpenAI, Azure, Gemini, Kimi and gateways emit them: keys with null values
may be absent, provider extras are tolerated, tool calls come as an opening
fragment plus argument fragments or as one complete fragment (Gemini, which
also omits the fragment ``index``), several choices and tool calls interleave
by index. See ``docs/chat.md`` for the events, outcome rules and warning codes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sse_engine._lane import JsonLoads, Lane, LaneEvent
from sse_engine._outcome import Outcome, StreamError, is_retryable
from sse_engine._parser import DEFAULT_MAX_EVENT_SIZE
from sse_engine._sse import ServerSentEvent
from sse_engine.chat._events import (
    ChatChunk,
    ChatContentDelta,
    ChatDeltaField,
    ChatFinish,
    ChatFunctionCallDelta,
    ChatFunctionCallDone,
    ChatLogprobs,
    ChatRefusalDelta,
    ChatRole,
    ChatToolCallArgumentsDelta,
    ChatToolCallDone,
    ChatToolCallStarted,
    ChatUnknownFrame,
    ChatUsage,
)
from sse_engine.chat._frames import encode_chat_event
from sse_engine.chat._snapshot import (
    ChatChoiceSnapshot,
    ChatCompletionSnapshot,
    ChatFunctionCallSnapshot,
    ChatToolCallSnapshot,
    json_copy,
    merge_field,
)

__all__ = ["COMPLETE_FINISH_REASONS", "INCOMPLETE_FINISH_REASONS", "ChatCompletionsLane"]

#: Finish reasons of a turn that ended normally.
COMPLETE_FINISH_REASONS = frozenset({"stop", "tool_calls", "function_call"})
#: Finish reasons of a turn cut short: the outcome is INCOMPLETE.
INCOMPLETE_FINISH_REASONS = frozenset({"length", "content_filter"})

_CHUNK = "chat.completion.chunk"
# The keys of a tool-call fragment that the lane reads itself; any other key
# (Gemini's extra_content) is merged into the call's ``extra``.
_TOOL_KEYS = frozenset({"index", "id", "type", "function"})



def _text_or_none(value: Any) -> str | None:
    """A non-empty string, or None (gateways send ``"id": ""`` for "no id")."""
    return value if type(value) is str and value else None


def _is_another_call(call: ChatToolCallSnapshot, call_id: str | None, whole: bool) -> bool:
    """Whether a fragment that would continue ``call`` is in fact a new call.

    It is when it brings a different id, or when it is a whole call (name and
    complete arguments) arriving after ``call`` also came whole: Gemini sends
    each call in one piece, without an index and often with ``"id": ""``.
    """
    if call_id is not None and call.id is not None and call_id != call.id:
        return True
    return whole and call.whole


def _has_answer(choice: ChatChoiceSnapshot) -> bool:
    """Whether a choice holds anything the caller asked for (reasoning alone is not)."""
    return bool(
        choice.content
        or choice.refusal
        or choice.tool_calls
        or choice.function_call is not None
        or choice.extra.get("audio")
    )


class ChatCompletionsLane(Lane[ChatCompletionSnapshot]):
    """The Chat Completions state machine: bytes in, :class:`ChatEvent` objects out.

    ``json_loads`` decodes each frame (inject ``orjson.loads`` for speed);
    ``strict`` turns the ordering and type anomalies listed in ``docs/chat.md``
    into :class:`ProtocolError`; ``max_event_size`` bounds one SSE event.

    The outcome is decided at ``data: [DONE]`` (or by ``close()``), not at the
    finish chunk: the usage chunk comes after it. A stream that ends without
    ``[DONE]`` is ``TRUNCATED`` even when every choice had finished;
    ``require_done=False`` is for a server known never to send ``[DONE]``:
    then a stream whose choices all finished completes at ``close()`` (warning
    ``missing_done``). ``expect_usage=True`` says the request asked for usage
    (``stream_options.include_usage``): a stream that ends without it gets the
    warning ``missing_usage``.
    """

    terminal_event_name = "data: [DONE] (or an error frame)"
    encode_frame = staticmethod(encode_chat_event)

    def __init__(
        self,
        *,
        require_done: bool = True,
        expect_usage: bool = False,
        json_loads: JsonLoads = json.loads,
        strict: bool = False,
        max_event_size: int | None = DEFAULT_MAX_EVENT_SIZE,
    ) -> None:
        #: Whether only ``data: [DONE]`` ends the stream cleanly (the default).
        self.require_done = require_done
        #: Whether the request asked for a usage chunk.
        self.expect_usage = expect_usage
        super().__init__(json_loads=json_loads, strict=strict, max_event_size=max_event_size)

    def _setup(self) -> None:
        self._snapshot = ChatCompletionSnapshot()
        self._need_identity = True
        self._warned: set[str] = set()

    @property
    def snapshot(self) -> ChatCompletionSnapshot:
        """The completion assembled so far; ``snapshot.to_api()`` is the ``chat.completion``."""
        return self._snapshot

    def resume_plan(self) -> None:
        """Chat Completions streams cannot be resumed: always None."""
        return None

    # -- frames ------------------------------------------------------------------

    def _on_event(self, sse: ServerSentEvent, out: list[LaneEvent]) -> None:
        data = sse.data
        if sse.event == "error":
            self._end(Outcome.FAILED, self._error_event(data), out)
            return
        if data[:6] == "[DONE]":
            self._on_done(out)
            return
        if not data or data.isspace():
            self._warn("empty_frame", "a data frame with no JSON was ignored")
            return
        payload = self._decode(sse)
        if type(payload) is not dict:
            self._warn("unexpected_frame", f"a frame that is not a JSON object: {data[:80]!r}")
            out.append(ChatUnknownFrame(payload))
            return
        if payload.get("error"):
            self._end(Outcome.FAILED, StreamError.from_payload(payload), out)
            return
        obj = payload.get("object")
        if obj != _CHUNK and (obj is not None or "choices" not in payload):
            # Azure content-filter frames ("object": ""), or a provider's own frame.
            out.append(ChatUnknownFrame(payload))
            return
        out.append(ChatChunk(payload))
        snap = self._snapshot
        if self._need_identity:
            self._take_identity(payload)
        fingerprint = payload.get("system_fingerprint")
        if fingerprint is not None:
            snap.system_fingerprint = fingerprint
        tier = payload.get("service_tier")
        if tier is not None:
            snap.service_tier = tier
        choices = payload.get("choices")
        if choices:
            if type(choices) is list:
                on_choice = self._on_choice
                for position, choice in enumerate(choices):
                    on_choice(choice, position, payload, out)
            else:
                self._bad_field("choices", "a list", choices)
        usage = payload.get("usage")
        if usage is not None:
            self._on_usage(usage, payload, out)
        moderation = payload.get("moderation")
        if moderation is not None:
            snap.moderation = moderation

    def _error_event(self, data: str) -> StreamError:
        """The failure an ``event: error`` frame reports, whatever its data.

        A JSON object is read as an error payload; anything else (a JSON string
        such as ``"overloaded"``, a number, ``null``, a list, plain text) is the
        message, kept as sent in ``raw``. A bare word is also the ``code``, so
        the shared table decides whether it is worth retrying.
        """
        if not data.strip():
            return StreamError(message="an error event without data", code="stream_error", raw=data)
        text: str | None
        try:
            payload = self.json_loads(data)
        except (ValueError, TypeError, RecursionError):
            text = data  # plain text, not JSON
        else:
            if type(payload) is dict:
                return StreamError.from_payload(payload)
            text = payload if type(payload) is str and payload.strip() else None
        if text is None:  # a number, null, a list: the data itself says what happened
            return StreamError.from_text(data, raw=data)
        word = text.strip()
        if len(word) <= 64 and word.isascii() and word.isidentifier():
            return StreamError(message=word, code=word, retryable=is_retryable(word), raw=data)
        return StreamError.from_text(text, raw=data)

    def _take_identity(self, payload: dict[str, Any]) -> None:
        snap = self._snapshot
        if snap.id is None:
            snap.id = payload.get("id")
        if snap.model is None:
            snap.model = payload.get("model")
        if snap.created is None:
            snap.created = payload.get("created")
        self._need_identity = snap.id is None or snap.model is None or snap.created is None

    def _on_choice(
        self, choice: Any, position: int, raw: dict[str, Any], out: list[LaneEvent]
    ) -> None:
        if type(choice) is not dict:
            self._bad_field("choices[]", "an object", choice)
            return
        index = choice.get("index")
        if type(index) is not int:
            if index is not None:
                self._bad_field("choices[].index", "an integer", index)
                return
            self._warn_once("missing_choice_index", "a choice without an index: its position used")
            index = position
        choices = self._snapshot.choices
        state = choices.get(index)
        if state is None:
            state = choices[index] = ChatChoiceSnapshot(index)
        delta = choice.get("delta")
        if delta:
            if type(delta) is dict:
                if state.finish_reason is not None and any(
                    v is not None and v != "" and k != "role" for k, v in delta.items()
                ):
                    self._violation(
                        "delta_after_finish",
                        f"choice {index} got a delta after finish_reason {state.finish_reason!r}",
                    )
                handlers = _DELTA_HANDLERS
                for key, value in delta.items():
                    if value is not None:
                        handler = handlers.get(key)
                        if handler is None:
                            self._on_other(state, key, value, raw, out)
                        else:
                            handler(self, state, value, raw, out)
            else:
                self._bad_field("delta", "an object", delta)
        logprobs = choice.get("logprobs")
        if logprobs is not None:
            self._on_logprobs(state, logprobs, raw, out)
        reason = choice.get("finish_reason")
        if reason:
            self._on_finish(state, reason, raw, out)
        usage = choice.get("usage")
        if usage is not None:
            # Kimi (Moonshot) nests usage in the finish chunk's choice.
            self._on_usage(usage, raw, out)

    def _on_usage(self, usage: Any, raw: dict[str, Any], out: list[LaneEvent]) -> None:
        if type(usage) is not dict:
            self._bad_field("usage", "an object", usage)
            return
        self._snapshot.usage = usage
        out.append(ChatUsage(usage, raw=raw))

    # -- delta fields --------------------------------------------------------------

    def _on_role(
        self, state: ChatChoiceSnapshot, value: Any, raw: dict[str, Any], out: list[LaneEvent]
    ) -> None:
        if type(value) is not str:
            self._bad_field("delta.role", "a string", value)
        elif value != state.role:
            state.role = value
            out.append(ChatRole(state.index, value, raw=raw))

    def _on_content(
        self, state: ChatChoiceSnapshot, value: Any, raw: dict[str, Any], out: list[LaneEvent]
    ) -> None:
        self._on_text("content", ChatContentDelta, state, value, raw, out)

    def _on_refusal(
        self, state: ChatChoiceSnapshot, value: Any, raw: dict[str, Any], out: list[LaneEvent]
    ) -> None:
        self._on_text("refusal", ChatRefusalDelta, state, value, raw, out)

    def _on_text(
        self,
        field: str,
        event: type[ChatContentDelta] | type[ChatRefusalDelta],
        state: ChatChoiceSnapshot,
        value: Any,
        raw: dict[str, Any],
        out: list[LaneEvent],
    ) -> None:
        """A text delta field (``content``, ``refusal``)."""
        if type(value) is not str:
            self._bad_field(f"delta.{field}", "a string", value)
            return
        state.add_text(field, value)
        if value:
            out.append(event(state.index, value, raw=raw))

    def _on_other(
        self,
        state: ChatChoiceSnapshot,
        key: str,
        value: Any,
        raw: dict[str, Any],
        out: list[LaneEvent],
    ) -> None:
        merge_field(state.extra, key, value)
        if value != "":
            out.append(ChatDeltaField(state.index, key, value, raw=raw))

    def _on_logprobs(
        self, state: ChatChoiceSnapshot, value: Any, raw: dict[str, Any], out: list[LaneEvent]
    ) -> None:
        if type(value) is not dict:
            self._bad_field("logprobs", "an object", value)
            return
        content = value.get("content")
        refusal = value.get("refusal")
        for name, items in (("content", content), ("refusal", refusal)):
            if items is not None and type(items) is not list:
                self._bad_field(f"logprobs.{name}", "a list", items)
                return
        state.add_logprobs(content, refusal)
        if content or refusal:
            out.append(ChatLogprobs(state.index, content or [], refusal or [], raw=raw))

    # -- calls -----------------------------------------------------------------------

    def _on_tool_calls(
        self, state: ChatChoiceSnapshot, value: Any, raw: dict[str, Any], out: list[LaneEvent]
    ) -> None:
        if type(value) is not list:
            self._bad_field("delta.tool_calls", "a list", value)
            return
        for fragment in value:
            if type(fragment) is not dict:
                self._bad_field("delta.tool_calls[]", "an object", fragment)
                continue
            function = fragment.get("function")
            if function is None:
                function = {}
            elif type(function) is not dict:
                self._bad_field("tool_calls[].function", "an object", function)
                continue
            call = self._tool_call_for(state, fragment, function, raw, out)
            for key, extra in fragment.items():
                if key not in _TOOL_KEYS:
                    merge_field(call.extra, key, extra)
            arguments = self._arguments(function.get("arguments"), "tool_calls[]")
            if arguments:
                call.add_arguments(arguments)
                out.append(ChatToolCallArgumentsDelta(state.index, call.index, arguments, raw=raw))

    def _tool_call_for(
        self,
        state: ChatChoiceSnapshot,
        fragment: dict[str, Any],
        function: dict[str, Any],
        raw: dict[str, Any],
        out: list[LaneEvent],
    ) -> ChatToolCallSnapshot:
        """The call a fragment continues, or a new one (then the previous one is done)."""
        wire = fragment.get("index")
        call_id = _text_or_none(fragment.get("id"))
        name = _text_or_none(function.get("name"))
        call_type = _text_or_none(fragment.get("type"))
        # A call sent in one piece (Gemini): its name and complete JSON arguments.
        whole = name is not None and self._is_json(function.get("arguments"))
        call: ChatToolCallSnapshot | None
        if type(wire) is int:
            call = state.tool_by_wire_index(wire)
            if call is not None and _is_another_call(call, call_id, whole):
                # A gateway numbering every call 0: a new id, or a second whole
                # call, means a new call.
                self._warn_once(
                    "tool_index_reused", f"tool call index {wire} was reused for a new call"
                )
                call = None
        else:
            if wire is not None:
                self._bad_field("tool_calls[].index", "an integer", wire)
            # Gemini sends no index (and often "id": ""): a fragment continues the
            # current call unless something says it is another one.
            self._warn_once("missing_tool_index", "tool call fragments without an index")
            wire = None
            call = state.current_tool
            if call is not None and (
                _is_another_call(call, call_id, whole)
                or (name is not None and (call.wire_index is not None or name != call.name))
            ):
                call = None
        if call is None:
            current = state.current_tool
            if current is not None and not current.done:
                self._tool_done(state, current, raw, out)
            call = state.add_tool_call(wire, call_id, name, call_type, whole=whole)
            out.append(
                ChatToolCallStarted(
                    state.index, call.index, call_id, name, call_type or "function", raw=raw
                )
            )
            return call
        if call.done:
            self._violation(
                "tool_call_after_done",
                f"choice {state.index}: a fragment for tool call {call.index} after it was "
                "reported done (appended to the snapshot; no second done event)",
            )
        call.id = self._keep_first(call.id, call_id, "id", call)
        call.name = self._keep_first(call.name, name, "name", call)
        call.type = call.type or call_type
        return call

    def _is_json(self, arguments: Any) -> bool:
        """Whether a fragment's arguments are a complete JSON text (or an object)."""
        if type(arguments) is dict:
            return True
        if type(arguments) is not str or not arguments:
            return False
        try:
            self.json_loads(arguments)
        except (ValueError, TypeError, RecursionError):
            return False
        return True

    def _keep_first(
        self, old: str | None, new: str | None, what: str, call: ChatToolCallSnapshot
    ) -> str | None:
        if old is None:
            return new
        if new is not None and new != old:
            self._violation(
                "tool_call_changed",
                f"tool call {call.index} {what} {old!r} was sent again as {new!r}; kept {old!r}",
            )
        return old

    def _tool_done(
        self,
        state: ChatChoiceSnapshot,
        call: ChatToolCallSnapshot,
        raw: dict[str, Any],
        out: list[LaneEvent],
    ) -> None:
        call.done = True
        out.append(
            ChatToolCallDone(
                choice_index=state.index,
                tool_index=call.index,
                id=call.id,
                name=call.name,
                type=call.type or "function",
                arguments=call.arguments,
                extra=json_copy(call.extra),
                raw=raw,
            )
        )

    def _on_function_call(
        self, state: ChatChoiceSnapshot, value: Any, raw: dict[str, Any], out: list[LaneEvent]
    ) -> None:
        if type(value) is not dict:
            self._bad_field("delta.function_call", "an object", value)
            return
        call = state.function_call
        if call is None:
            call = state.function_call = ChatFunctionCallSnapshot()
        name = _text_or_none(value.get("name"))
        if name is not None:
            if call.name is None:
                call.name = name
            elif name != call.name:
                self._violation(
                    "tool_call_changed",
                    f"function_call name {call.name!r} was sent again as {name!r}; kept the first",
                )
        arguments = self._arguments(value.get("arguments"), "function_call")
        if arguments:
            call.add_arguments(arguments)
        if name or arguments:
            out.append(ChatFunctionCallDelta(state.index, name, arguments, raw=raw))

    def _arguments(self, value: Any, where: str) -> str:
        """A fragment's arguments text; a JSON object instead of text is serialised."""
        if type(value) is str:
            return value
        if value is None:
            return ""
        if type(value) is dict:
            self._warn_once(
                "arguments_not_string",
                f"{where}.arguments sent as a JSON object, not as JSON text: serialised",
            )
            return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        self._bad_field(f"{where}.arguments", "a string", value)
        return ""

    # -- the end ------------------------------------------------------------------------

    def _on_finish(
        self, state: ChatChoiceSnapshot, reason: Any, raw: dict[str, Any], out: list[LaneEvent]
    ) -> None:
        if type(reason) is not str:
            self._bad_field("finish_reason", "a string", reason)
            return
        old = state.finish_reason
        if old == reason:
            return
        if old is not None:
            self._violation(
                "finish_reason_changed",
                f"choice {state.index} finish_reason {old!r} changed to {reason!r}",
            )
        elif reason not in COMPLETE_FINISH_REASONS and reason not in INCOMPLETE_FINISH_REASONS:
            self._warn(
                "unknown_finish_reason",
                f"choice {state.index} finish_reason {reason!r} is not a known one: "
                "counted as a normal end",
            )
        call = state.current_tool
        if call is not None and not call.done:
            self._tool_done(state, call, raw, out)
        function_call = state.function_call
        if function_call is not None and old is None:
            out.append(
                ChatFunctionCallDone(
                    state.index, function_call.name, function_call.arguments, raw=raw
                )
            )
        state.finish_reason = reason
        out.append(ChatFinish(state.index, reason, raw=raw))

    def _verdict(self) -> Outcome:
        for choice in self._snapshot.choices.values():
            if choice.finish_reason in INCOMPLETE_FINISH_REASONS:
                return Outcome.INCOMPLETE
        return Outcome.COMPLETED

    def _on_done(self, out: list[LaneEvent]) -> None:
        snap = self._snapshot
        error = None
        if snap.finished:
            outcome = self._verdict()
        else:
            unfinished = sorted(i for i, c in snap.choices.items() if c.finish_reason is None)
            message = (
                f"data: [DONE] arrived without a finish_reason for choice(s) {unfinished}"
                if unfinished
                else "data: [DONE] arrived before any choice"
            )
            error = StreamError(message=message, code="missing_finish_reason", retryable=True)
            outcome = Outcome.TRUNCATED
        self._check_end(outcome)
        self._end(outcome, error, out)

    def _on_transport_end(self) -> tuple[Outcome, StreamError | None]:
        finished = self._snapshot.finished
        if finished and not self.require_done:
            self._warn(
                "missing_done",
                "the transport ended without data: [DONE] after every choice had finished "
                "(accepted: require_done=False)",
            )
            outcome, error = self._verdict(), None
        else:
            if finished:
                self._warn(
                    "missing_done",
                    "the transport ended without data: [DONE], although every choice had "
                    "finished: the usage chunk, which comes right before [DONE], may be lost",
                )
            outcome, error = super()._on_transport_end()
        self._check_end(outcome)
        return outcome, error

    def _check_end(self, outcome: Outcome) -> None:
        """Warn about what a stream that is ending lacks (not for a reported failure)."""
        if outcome is Outcome.FAILED:
            return
        snap = self._snapshot
        if outcome is Outcome.COMPLETED and not any(map(_has_answer, snap.choices.values())):
            self._warn(
                "empty_completion",
                "the stream completed with no text, tool call or refusal in any choice "
                "(a provider may finish a failed generation normally)",
            )
        if self.expect_usage and snap.usage is None:
            self._warn(
                "missing_usage",
                "the stream ended without the usage chunk that the request asked for",
            )

    # -- anomalies ------------------------------------------------------------------------

    def _bad_field(self, where: str, expected: str, value: Any) -> None:
        self._violation(
            "bad_field", f"{where} should be {expected}, not {type(value).__name__}: ignored"
        )

    def _warn_once(self, code: str, message: str) -> None:
        if code not in self._warned:
            self._warned.add(code)
            self._warn(code, message)


_Handler = Callable[
    [ChatCompletionsLane, ChatChoiceSnapshot, Any, dict[str, Any], list[LaneEvent]], None
]

#: Delta field -> its handler, built once for the class (a lane holds no table).
_DELTA_HANDLERS: dict[str, _Handler] = {
    "role": ChatCompletionsLane._on_role,
    "content": ChatCompletionsLane._on_content,
    "refusal": ChatCompletionsLane._on_refusal,
    "tool_calls": ChatCompletionsLane._on_tool_calls,
    "function_call": ChatCompletionsLane._on_function_call,
}
