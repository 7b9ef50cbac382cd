"""The Chat Completions state machine: one ``data:`` frame in, typed events out, the verdict.

:class:`ChatCompletionsLane` reads each frame (``[DONE]``, an error frame, a
chunk, or a provider's own frame), keeps the completion's identity, walks the
chunk's choices through a table of delta-field handlers (role, content,
refusal, logprobs, fields it has no name for), reads usage and finish
reasons, and decides the outcome at ``[DONE]`` or at the end of the bytes.
The calls (``tool_calls``, ``function_call``) are assembled by the
:class:`~sse_engine.chat._calls.ChatCalls` the lane holds (``_calls.py``);
the lane's events are in ``_events.py``, its snapshot in ``_snapshot.py``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sse_engine._lane import JsonLoads, Lane
from sse_engine._outcome import Outcome, StreamError, is_retryable
from sse_engine._parser import DEFAULT_MAX_EVENT_SIZE
from sse_engine._sse import ServerSentEvent
from sse_engine._tally import Tally
from sse_engine.chat._calls import ChatCalls, bad_field
from sse_engine.chat._events import (
    ChatContentDelta,
    ChatDeltaField,
    ChatEvent,
    ChatFinish,
    ChatLogprobs,
    ChatRefusalDelta,
    ChatRole,
    ChatUnknownFrame,
    ChatUsage,
    new_chunk,
    new_content_delta,
)
from sse_engine.chat._snapshot import (
    ChatChoiceSnapshot,
    ChatCompletionSnapshot,
)
from sse_engine.chat._wire import (
    CHUNK_OBJECT,
    COMPLETE_FINISH_REASONS,
    DONE,
    INCOMPLETE_FINISH_REASONS,
    recognize,
    recognize_error,
)

__all__ = ["ChatCompletionsLane"]


def _has_answer(choice: ChatChoiceSnapshot) -> bool:
    """Whether a choice holds anything the caller asked for (reasoning alone is not)."""
    return bool(
        choice.has_text("content")
        or choice.has_text("refusal")
        or choice.tool_calls
        or choice.function_call is not None
        or choice.extra.get("audio")
    )


class ChatCompletionsLane(Lane[ChatEvent]):
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
    api_name = "Chat Completions"

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

    recognize = staticmethod(recognize)
    recognize_error = staticmethod(recognize_error)

    def _setup(self) -> None:
        self._snapshot = ChatCompletionSnapshot(self._reports.note_loss)
        self._need_identity = True
        #: The call half of the state machine (tool calls, the legacy function call).
        self._calls = ChatCalls(self._reports, self.json_loads)
        self._choice_index_warned = False

    @property
    def snapshot(self) -> ChatCompletionSnapshot:
        """The completion assembled so far; ``snapshot.to_api()`` is the ``chat.completion``."""
        return self._snapshot

    def resume_plan(self) -> None:
        """Chat Completions streams cannot be resumed: always None."""
        return None

    # -- frames ------------------------------------------------------------------

    def _on_event(self, sse: ServerSentEvent, out: list[ChatEvent]) -> None:
        data = sse.data
        if sse.event == "error":
            self._end(Outcome.FAILED, self._error_event(data), out)
            return
        if data[:1] != "{":  # a chunk never is [DONE] or empty: skip both checks
            if data[:6] == DONE:
                self._on_done(out)
                return
            if not data or data.isspace():
                self._warn("empty_frame", "a data frame with no JSON was ignored")
                return
        # The base's _decode, inlined for the usual event: it runs only to raise.
        try:
            payload = self._loads(data)
        except (ValueError, TypeError, RecursionError):
            payload = self._decode(sse)  # raises the ProtocolError that says where
        else:
            if self._shape is not None:
                self._note_shape(sse.event, payload)
        if type(payload) is not dict:
            self._warn("unexpected_frame", f"a frame that is not a JSON object: {data[:80]!r}")
            out.append(ChatUnknownFrame(payload))
            return
        if payload.get("error"):
            self._end(Outcome.FAILED, StreamError.from_payload(payload), out)
            return
        obj = payload.get("object")
        if obj != CHUNK_OBJECT and (obj is not None or "choices" not in payload):
            # Azure content-filter frames ("object": ""), or a provider's own frame.
            out.append(ChatUnknownFrame(payload))
            return
        if self._text_sink is None:
            out.append(new_chunk(payload))
        # else a PartStream's read, whose translator has no use for the chunk's event
        # any more (ChatParts.text_sink): none is made.
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
                if len(choices) != 1 or not self._on_plain_choice(choices[0], payload, out):
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
        self, choice: Any, position: int, raw: dict[str, Any], out: list[ChatEvent]
    ) -> None:
        if type(choice) is not dict:
            self._bad_field("choices[]", "an object", choice)
            return
        index = choice.get("index")
        if type(index) is not int:
            if index is not None:
                self._bad_field("choices[].index", "an integer", index)
                return
            if not self._choice_index_warned:
                self._choice_index_warned = True
                self._warn("missing_choice_index", "a choice without an index: its position used")
            index = position
        choices = self._snapshot.choices
        state = choices.get(index)
        if state is None:
            state = choices[index] = ChatChoiceSnapshot(index, self._snapshot.lean)
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

    def _on_plain_choice(self, choice: Any, raw: dict[str, Any], out: list[ChatEvent]) -> bool:
        """The common choice, read without the general walk of :meth:`_on_choice`.

        A choice of a choice already seen, not finished, whose delta is only ``content``
        text or only ``tool_calls``, with no logprobs, finish reason or usage: what nearly
        every chunk of a stream is. It gives the events and the snapshot :meth:`_on_choice`
        would; anything else returns False having done nothing, and takes the general
        path (tests/chat/test_chat_fast_path.py checks both give the same for any stream).
        """
        if type(choice) is not dict:
            return False
        index = choice.get("index")
        if type(index) is not int:
            return False
        state = self._snapshot.choices.get(index)
        if state is None or state.finish_reason is not None:
            return False
        delta = choice.get("delta")
        if type(delta) is not dict or len(delta) != 1 or choice.get("finish_reason") or (
            choice.get("logprobs") is not None or choice.get("usage") is not None
        ):
            return False
        text = delta.get("content")
        if type(text) is str:
            # The content's pieces once the first came: appended without the call that
            # creates them (a lean lane's Tally counted inline: its append is a call).
            pieces = state._text.get("content")
            if pieces is None:
                state._add_text("content", text)
            elif type(pieces) is Tally:
                pieces.length += len(text)
            else:
                pieces.append(text)
            if text:
                sink = self._text_sink
                if sink is None or out:
                    out.append(new_content_delta(index, text, raw))
                else:  # a PartStream's read, before any event: no event
                    sink(text, index)
            return True
        calls = delta.get("tool_calls")
        if calls is None:
            return False
        self._calls.tool_calls(state, calls, raw, out, self._text_sink)
        return True

    def _on_usage(self, usage: Any, raw: dict[str, Any], out: list[ChatEvent]) -> None:
        if type(usage) is not dict:
            self._bad_field("usage", "an object", usage)
            return
        self._snapshot.usage = usage
        out.append(ChatUsage(usage, raw=raw))

    def _bad_field(self, where: str, expected: str, value: Any) -> None:
        bad_field(self._reports, where, expected, value)

    # -- delta fields --------------------------------------------------------------

    def _on_role(
        self, state: ChatChoiceSnapshot, value: Any, raw: dict[str, Any], out: list[ChatEvent]
    ) -> None:
        if type(value) is not str:
            self._bad_field("delta.role", "a string", value)
        elif value != state.role:
            state.role = value
            out.append(ChatRole(state.index, value, raw=raw))

    def _on_content(
        self, state: ChatChoiceSnapshot, value: Any, raw: dict[str, Any], out: list[ChatEvent]
    ) -> None:
        self._on_text("content", ChatContentDelta, state, value, raw, out)

    def _on_refusal(
        self, state: ChatChoiceSnapshot, value: Any, raw: dict[str, Any], out: list[ChatEvent]
    ) -> None:
        self._on_text("refusal", ChatRefusalDelta, state, value, raw, out)

    def _on_text(
        self,
        field: str,
        event: type[ChatContentDelta] | type[ChatRefusalDelta],
        state: ChatChoiceSnapshot,
        value: Any,
        raw: dict[str, Any],
        out: list[ChatEvent],
    ) -> None:
        """A text delta field (``content``, ``refusal``)."""
        if type(value) is not str:
            self._bad_field(f"delta.{field}", "a string", value)
            return
        state._add_text(field, value)
        if value:
            out.append(event(state.index, value, raw=raw))

    def _on_tool_calls(
        self, state: ChatChoiceSnapshot, value: Any, raw: dict[str, Any], out: list[ChatEvent]
    ) -> None:
        self._calls.tool_calls(state, value, raw, out)

    def _on_function_call(
        self, state: ChatChoiceSnapshot, value: Any, raw: dict[str, Any], out: list[ChatEvent]
    ) -> None:
        self._calls.function_call(state, value, raw, out)

    def _on_other(
        self,
        state: ChatChoiceSnapshot,
        key: str,
        value: Any,
        raw: dict[str, Any],
        out: list[ChatEvent],
    ) -> None:
        state._merge(key, value)
        if value != "":
            out.append(ChatDeltaField(state.index, key, value, raw=raw))

    def _on_logprobs(
        self, state: ChatChoiceSnapshot, value: Any, raw: dict[str, Any], out: list[ChatEvent]
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
        state._add_logprobs(content, refusal)
        if content or refusal:
            out.append(ChatLogprobs(state.index, content or [], refusal or [], raw=raw))

    # -- the end ------------------------------------------------------------------------

    def _on_finish(
        self, state: ChatChoiceSnapshot, reason: Any, raw: dict[str, Any], out: list[ChatEvent]
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
        self._calls.finish(state, old is None, raw, out)
        state.finish_reason = reason
        out.append(ChatFinish(state.index, reason, raw=raw))

    def _verdict(self) -> Outcome:
        for choice in self._snapshot.choices.values():
            if choice.finish_reason in INCOMPLETE_FINISH_REASONS:
                return Outcome.INCOMPLETE
        return Outcome.COMPLETED

    def _on_done(self, out: list[ChatEvent]) -> None:
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


_Handler = Callable[
    [ChatCompletionsLane, ChatChoiceSnapshot, Any, dict[str, Any], list[ChatEvent]], None
]

#: Delta field -> its handler, built once for the class (a lane holds no table).
_DELTA_HANDLERS: dict[str, _Handler] = {
    "role": ChatCompletionsLane._on_role,
    "content": ChatCompletionsLane._on_content,
    "refusal": ChatCompletionsLane._on_refusal,
    "tool_calls": ChatCompletionsLane._on_tool_calls,
    "function_call": ChatCompletionsLane._on_function_call,
}
