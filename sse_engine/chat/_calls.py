"""How the Chat Completions lane assembles calls: tool calls and the legacy function call.

:class:`ChatCalls` is the part of the state machine that reads
``delta.tool_calls`` and ``delta.function_call``: which call a fragment
continues (by wire index, by id, or, for Gemini's index-less whole calls, by
what it carries), the arguments as they grow, and the end events when a call
is complete (never while its input may still be arriving: see
``ChatCalls._next_call``). :class:`~sse_engine.chat.ChatCompletionsLane`
holds one and hands it each choice's call fields; the lane itself
(``_lane.py``) owns the frames, the choices, their text, usage, finish and the
verdict. What the assembly keeps besides the snapshot (which wire index names
which call, the call the next index-less fragment continues, the first call
held open) is its own, per choice. It reports through the lane's
:class:`~sse_engine._lane_reports.Reports`, never through the lane.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sse_engine._json import plain_json
from sse_engine._lane_events import JsonLoads
from sse_engine._lane_reports import Reports
from sse_engine.chat._events import (
    ChatEvent,
    ChatFunctionCallDelta,
    ChatFunctionCallEnd,
    ChatToolCallEnd,
    ChatToolCallStarted,
    new_arguments_delta,
)
from sse_engine.chat._snapshot import (
    ChatChoiceSnapshot,
    ChatFunctionCallSnapshot,
    ChatToolCallSnapshot,
    json_copy,
    merge_field,
)

__all__ = ["ChatCalls", "bad_field", "warn_once"]

# The keys of a tool-call fragment that the lane reads itself; any other key
# (Gemini's extra_content) is merged into the call's ``extra``.
_TOOL_KEYS = frozenset({"index", "id", "type", "function"})


def bad_field(reports: Reports, where: str, expected: str, value: Any) -> None:
    """A known field of the wrong type, which is ignored: a violation (strict: an error)."""
    reports.violation(
        "bad_field", f"{where} should be {expected}, not {type(value).__name__}: ignored"
    )


def warn_once(reports: Reports, warned: set[str], code: str, message: str) -> None:
    """A warning given once per stream (``warned``: the codes given so far)."""
    if code not in warned:
        warned.add(code)
        reports.warn(code, message)


def _text_or_none(value: Any) -> str | None:
    """A non-empty string, or None (gateways send ``"id": ""`` for "no id")."""
    return value if type(value) is str and value else None


class _ChoiceCalls:
    """What the assembly keeps about one choice's tool calls, beside its snapshot."""

    __slots__ = ("by_wire", "current", "held", "whole")

    def __init__(self) -> None:
        #: The latest call the provider numbered with each wire index.
        self.by_wire: dict[int, ChatToolCallSnapshot] = {}
        #: The call the last opening fragment started (index-less fragments continue it).
        self.current: ChatToolCallSnapshot | None = None
        #: The calls (by position) whose opening fragment carried the name and
        #: complete JSON arguments: sent in one piece, as Gemini sends them.
        self.whole: set[int] = set()
        #: The position of the first call still open when a later one opened (its
        #: arguments were not complete JSON yet): from it on, calls end at the finish.
        self.held: int | None = None

    def is_another_call(self, call: ChatToolCallSnapshot, call_id: str | None, whole: bool) -> bool:
        """Whether a fragment that would continue ``call`` is in fact a new call.

        It is when it brings a different id, or when it is a whole call (name and
        complete arguments) arriving after ``call`` also came whole: Gemini sends
        each call in one piece, without an index and often with ``"id": ""``.
        """
        if call_id is not None and call.id is not None and call_id != call.id:
            return True
        return whole and call.index in self.whole


class ChatCalls:
    """The calls of a Chat stream as they are assembled, for the lane that holds it.

    ``reports`` is the lane's (warnings and strict mode), ``json_loads`` its
    JSON decoder (to tell a call sent whole from a fragment, and whether a
    call's input is complete when the next call opens).
    """

    __slots__ = ("_choices", "_json_loads", "_reports", "_warned")

    def __init__(self, reports: Reports, json_loads: JsonLoads) -> None:
        self._reports = reports
        self._json_loads = json_loads
        #: Choice index -> its calls' bookkeeping.
        self._choices: dict[int, _ChoiceCalls] = {}
        self._warned: set[str] = set()

    # -- the delta fields -----------------------------------------------------------------

    def tool_calls(
        self,
        state: ChatChoiceSnapshot,
        value: Any,
        raw: dict[str, Any],
        out: list[ChatEvent],
        sink: Callable[..., Any] | None = None,
    ) -> None:
        """A delta's ``tool_calls``: each fragment opens a call or continues one.

        ``sink``: the lane's ``_text_sink`` (a PartStream's read), which takes a
        call's arguments fragment instead of its event while no event of the read
        came yet.
        """
        if type(value) is not list:
            self._bad_field("delta.tool_calls", "a list", value)
            return
        calls = self._choices.get(state.index)
        if calls is None:
            calls = self._choices[state.index] = _ChoiceCalls()
        for fragment in value:
            if type(fragment) is not dict:
                self._bad_field("delta.tool_calls[]", "an object", fragment)
                continue
            function = fragment.get("function")
            if (
                len(fragment) == 2
                and type(function) is dict
                and len(function) == 1
                and self._continued(state, calls, fragment, function, raw, out, sink)
            ):
                continue
            if function is None:
                function = {}
            elif type(function) is not dict:
                self._bad_field("tool_calls[].function", "an object", function)
                continue
            call = self._tool_call_for(state, calls, fragment, function, raw, out)
            for key, extra in fragment.items():
                if key not in _TOOL_KEYS:
                    merge_field(call.extra, key, extra)
            arguments = self._arguments(function.get("arguments"), "tool_calls[]")
            if arguments:
                call._add_arguments(arguments)
                out.append(new_arguments_delta(state.index, call.index, arguments, raw))

    def _continued(
        self,
        state: ChatChoiceSnapshot,
        calls: _ChoiceCalls,
        fragment: dict[str, Any],
        function: dict[str, Any],
        raw: dict[str, Any],
        out: list[ChatEvent],
        sink: Callable[..., Any] | None,
    ) -> bool:
        """The common fragment, read without :meth:`_tool_call_for`: True if it was one.

        ``{"index": i, "function": {"arguments": text}}`` (the caller checked the
        two keys and the one) for a call already open at wire index ``i``: it only
        continues that call's arguments, which the general path would conclude
        after its checks. Anything else returns False having done nothing
        (tests/chat/test_chat_fast_path.py checks both paths give the same).
        """
        wire = fragment.get("index")
        arguments = function.get("arguments")
        if type(wire) is not int or type(arguments) is not str:
            return False
        call = calls.by_wire.get(wire)
        if call is None or call.done:
            return False
        if arguments:
            call._add_arguments(arguments)
            if sink is None or out:
                out.append(new_arguments_delta(state.index, call.index, arguments, raw))
            else:  # a PartStream's read, before any event: no event
                sink(arguments, state.index, call.index)
        return True

    def _tool_call_for(
        self,
        state: ChatChoiceSnapshot,
        calls: _ChoiceCalls,
        fragment: dict[str, Any],
        function: dict[str, Any],
        raw: dict[str, Any],
        out: list[ChatEvent],
    ) -> ChatToolCallSnapshot:
        """The call a fragment continues, or a new one (see :meth:`_next_call`)."""
        wire = fragment.get("index")
        call_id = _text_or_none(fragment.get("id"))
        name = _text_or_none(function.get("name"))
        call_type = _text_or_none(fragment.get("type"))
        # A call sent in one piece (Gemini): its name and complete JSON arguments.
        whole = name is not None and self._is_json(function.get("arguments"))
        call: ChatToolCallSnapshot | None
        if type(wire) is int:
            call = calls.by_wire.get(wire)
            if call is not None and calls.is_another_call(call, call_id, whole):
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
            call = calls.current
            if call is not None and (
                calls.is_another_call(call, call_id, whole)
                or (name is not None and (call.wire_index is not None or name != call.name))
            ):
                call = None
        if call is None:
            self._next_call(state, calls, raw, out)
            call = state._add_tool_call(wire, call_id, name, call_type)
            if wire is not None:
                calls.by_wire[wire] = call
            if whole:
                calls.whole.add(call.index)
            calls.current = call
            out.append(
                ChatToolCallStarted(
                    state.index, call.index, call_id, name, call_type or "function", raw=raw
                )
            )
            return call
        if call.done:
            self._reports.violation(
                "tool_call_after_done",
                f"choice {state.index}: a fragment for tool call {call.index} after it "
                "ended (appended to the snapshot; no second end event)",
            )
        call.id = self._keep_first(call.id, call_id, "id", call)
        call.name = self._keep_first(call.name, name, "name", call)
        call.type = call.type or call_type
        return call

    def _next_call(
        self,
        state: ChatChoiceSnapshot,
        calls: _ChoiceCalls,
        raw: dict[str, Any],
        out: list[ChatEvent],
    ) -> None:
        """A new call opens: the one before it ends, if its input is whole.

        Chat Completions marks no end of a call, and some providers go on with a
        call's fragments after the next call opened. So the current call ends
        here only when its arguments so far are complete JSON and every earlier
        call has ended; otherwise it stays open, and so does every later call:
        they end at the choice's finish, in the order they opened, each with
        all its arguments. A call never ends with input still to come.
        """
        current = calls.current
        if current is None or current.done or calls.held is not None:
            return
        if self._is_complete(current.arguments):
            self._tool_end(state, current, raw, out)
        else:
            calls.held = current.index

    def _is_complete(self, arguments: str) -> bool:
        """Whether a call's arguments so far are a JSON value no fragment could continue.

        Any JSON value but a number: ``1`` may go on as ``12``.
        """
        try:
            value = self._json_loads(arguments)
        except (ValueError, TypeError, RecursionError):
            return False
        return type(value) is not int and type(value) is not float

    def _is_json(self, arguments: Any) -> bool:
        """Whether a fragment's arguments are a complete JSON text (or an object)."""
        if type(arguments) is dict:
            return True
        if type(arguments) is not str or not arguments:
            return False
        try:
            self._json_loads(arguments)
        except (ValueError, TypeError, RecursionError):
            return False
        return True

    def _keep_first(
        self, old: str | None, new: str | None, what: str, call: ChatToolCallSnapshot
    ) -> str | None:
        if old is None:
            return new
        if new is not None and new != old:
            self._reports.violation(
                "tool_call_changed",
                f"tool call {call.index} {what} {old!r} was sent again as {new!r}; kept {old!r}",
            )
        return old

    def _tool_end(
        self,
        state: ChatChoiceSnapshot,
        call: ChatToolCallSnapshot,
        raw: dict[str, Any],
        out: list[ChatEvent],
    ) -> None:
        call.done = True
        name = call.name
        if name is None:
            name = self._unnamed(f"choice {state.index}: tool call {call.index}")
        out.append(
            ChatToolCallEnd(
                choice_index=state.index,
                tool_index=call.index,
                id=call.id,
                name=name,
                type=call.type or "function",
                arguments=call.arguments,
                extra=json_copy(call.extra),
                raw=raw,
            )
        )

    def function_call(
        self, state: ChatChoiceSnapshot, value: Any, raw: dict[str, Any], out: list[ChatEvent]
    ) -> None:
        """A delta's legacy ``function_call``: its name, and a fragment of its arguments."""
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
                self._reports.violation(
                    "tool_call_changed",
                    f"function_call name {call.name!r} was sent again as {name!r}; kept the first",
                )
        arguments = self._arguments(value.get("arguments"), "function_call")
        if arguments:
            call._add_arguments(arguments)
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
            return json.dumps(plain_json(value, self._reports.note_loss), separators=(",", ":"),
                              ensure_ascii=False)
        self._bad_field(f"{where}.arguments", "a string", value)
        return ""

    # -- the end ------------------------------------------------------------------------

    def finish(
        self, state: ChatChoiceSnapshot, first: bool, raw: dict[str, Any], out: list[ChatEvent]
    ) -> None:
        """The choice finished (``first``: its first finish reason): its open calls end,
        in the order they opened."""
        calls = self._choices.get(state.index)
        current = None if calls is None else calls.current
        if calls is not None and current is not None:
            # Every call before the held one (or, with none held, before the current
            # one) has ended already.
            start = current.index if calls.held is None else calls.held
            calls.held = None
            for call in state.tool_calls[start:]:
                if not call.done:
                    self._tool_end(state, call, raw, out)
        if first:
            self._function_end(state, raw, out)

    def _function_end(
        self, state: ChatChoiceSnapshot, raw: dict[str, Any], out: list[ChatEvent]
    ) -> None:
        """The choice finished with a legacy function call: it is complete."""
        call = state.function_call
        if call is not None:
            name = call.name
            if name is None:
                name = self._unnamed(f"choice {state.index}: the function_call")
            out.append(ChatFunctionCallEnd(state.index, name, call.arguments, raw=raw))

    def _unnamed(self, what: str) -> str:
        """The name of a complete call no fragment named: ``""``, with a warning.

        Not a strict-mode error: the stream is well formed, only the call is
        unusable (a relay passes such a call on as it came).
        """
        self._reports.warn("tool_call_without_name", f"{what} was complete without a name")
        return ""

    # -- anomalies ------------------------------------------------------------------------

    def _bad_field(self, where: str, expected: str, value: Any) -> None:
        bad_field(self._reports, where, expected, value)

    def _warn_once(self, code: str, message: str) -> None:
        warn_once(self._reports, self._warned, code, message)
