"""Chat Completions events as parts.

Every Chat part carries its choice (``n > 1``), numbered 0, 1, 2, ... in the
order the lane first met the choices: the wire's ``index`` for every provider
that numbers them so (the openai SDK reads them no other way), and a number a
turn can have for one that does not (``10**12``, ``-1``, ``1`` alone), so
``stream.turn`` is always the first choice's and nothing is lost on a target
that carries one choice. The lane's events keep the wire's index. Reasoning arrives as a
provider extra (``reasoning_content`` from DeepSeek, Kimi and vLLM,
``reasoning`` from OpenRouter), which the lane reports as a ``ChatDeltaField``;
a provider that sends both keys for the same text is read from the first
one only. The legacy ``function_call`` is a tool call like the others, of
type ``function_call`` and without an id.

The wire marks no end of reasoning: a block of reasoning is a run of it, which
ends when the choice goes on to anything else (text, a refusal, a tool call)
or finishes. OpenRouter's ``reasoning_details`` (its replay data: signed
Anthropic thinking, encrypted reasoning) received during a run are merged by
their ``index`` and kept as the block's ``raw``: OpenRouter takes them back
as the assistant message's ``reasoning_details``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any, Final

from sse_engine.chat._events import (
    ChatChunk,
    ChatContentDelta,
    ChatDeltaField,
    ChatFinish,
    ChatFunctionCallDelta,
    ChatFunctionCallEnd,
    ChatRefusalDelta,
    ChatToolCallArgumentsDelta,
    ChatToolCallEnd,
    ChatToolCallStarted,
    ChatUsage,
)
from sse_engine.chat._lane import ChatCompletionsLane
from sse_engine.chat._wire import (
    ANNOTATIONS_KEY,
    DETAILS_KEY,
    FINISH_REASONS,
    REASONING_KEYS,
    usage_from_wire,
)
from sse_engine.parts import BASE_HANDLERS, ToolCall, Translator

__all__ = ["ChatParts"]

#: The fields of a reasoning detail that stream in fragments. The others come whole
#: (``type``, ``format``, ``id`` repeated with every fragment, a ``signature`` sent
#: empty first): the latest non-empty value is kept.
_DETAIL_TEXTS: Final = frozenset({"text", "summary"})


class _Details:
    """OpenRouter's ``reasoning_details`` of one choice, merged by ``index`` as they stream."""

    __slots__ = ("_entries", "_taken", "_texts")

    def __init__(self) -> None:
        self._entries: list[dict[str, Any]] = []
        # (entry, field) -> the fragments of a streamed text field, joined when taken.
        self._texts: dict[tuple[int, str], list[str]] = {}
        self._taken = 0

    def add(self, entries: list[Any]) -> None:
        for entry in entries:
            if type(entry) is not dict:
                continue
            index = entry.get("index")
            if not (type(index) is int and 0 <= index < len(self._entries)):
                index = len(self._entries)
                self._entries.append({})
            target = self._entries[index]
            for key, value in entry.items():
                if key in _DETAIL_TEXTS and type(value) is str:
                    self._texts.setdefault((index, key), []).append(value)
                    target[key] = None  # its place in the key order
                elif (value is not None and value != "") or key not in target:
                    target[key] = value

    def take(self) -> list[dict[str, Any]] | None:
        """The entries received since the last take (a block's), as plain objects."""
        start, self._taken = self._taken, len(self._entries)
        taken = []
        for index in range(start, self._taken):
            entry = dict(self._entries[index])
            for key in entry:
                pieces = self._texts.get((index, key))
                if pieces is not None:
                    entry[key] = "".join(pieces)
            taken.append(entry)
        return taken or None


class ChatParts(Translator):
    """The Chat Completions lane's events as parts."""

    REASONS = FINISH_REASONS
    lane: ChatCompletionsLane

    def _setup(self) -> None:
        # This stream's own table, changed in place: the caller holds it for a whole
        # batch of events, and a change must take effect at the next event.
        self.handlers = dict(self.HANDLERS)
        # The lane's (choice_index, tool_index) -> the call, its index in the turn, its choice.
        self._calls: dict[tuple[int, int], tuple[ToolCall, int, int]] = {}
        self._legacy: dict[int, tuple[ToolCall, int]] = {}
        self._reasoning_key: dict[int, str] = {}
        # Each choice's reasoning_details.
        self._details: dict[int, _Details] = {}
        # The lane's choice index -> the parts' choice (see the module docstring).
        self._choices: dict[int, int] = {}

    def _choice(self, index: int) -> int:
        """The parts' number for the lane's choice ``index``."""
        try:
            return self._choices[index]
        except KeyError:
            # The lane's choices, in the order it met them: number the ones not seen yet.
            choices = self._choices
            for wire in itertools.islice(self.lane.snapshot.choices, len(choices), None):
                choices[wire] = len(choices)
            return choices[index]

    def raw_reasons(self) -> Mapping[int, str | None]:
        snap = self.lane.snapshot
        self.builder.identify(snap.id, snap.model)
        return {
            self._choice(index): choice.finish_reason for index, choice in snap.choices.items()
        }

    def _chunk(self, event: ChatChunk) -> None:
        snap = self.lane.snapshot
        self.builder.identify(snap.id, snap.model)
        if snap.id is not None and snap.model is not None:
            self.handlers.pop(ChatChunk, None)  # every chunk after this needs no look
            self.sink = self.text_sink()

    def text_sink(self) -> Callable[..., None] | None:
        # Once the chunks' own events have nothing more to say (the id and model are
        # known) and no reasoning is open, the lane gives content text and a continued
        # call's arguments to _sink, and makes no chunk events (see
        # ChatCompletionsLane._on_event).
        handlers = self.handlers
        if ChatChunk in handlers or handlers[ChatContentDelta] is not ChatParts._content:
            return None
        return ChatParts._sink

    def _sink(self, text: str, index: int, tool: int | None = None) -> None:
        """Content text of choice ``index``, or (``tool``: the call's index in the
        choice) a tool call's arguments fragment, as _tool_arguments takes it."""
        if tool is not None:
            found = self._calls.get((index, tool))
            if found is not None:
                self.builder.call_delta(found[0], text, found[1], found[2])
            return
        try:
            choice = self._choices[index]
        except KeyError:
            choice = self._choice(index)
        self.builder.text(text, choice)

    def _content(self, event: ChatContentDelta) -> None:
        self._sink(event.text, event.choice_index)

    def _content_after_reasoning(self, event: ChatContentDelta) -> None:
        """Text while a block of reasoning is open (in this or another choice)."""
        choice = self._choice(event.choice_index)
        self._end_reasoning(choice)
        self.builder.text(event.text, choice)

    def _refusal(self, event: ChatRefusalDelta) -> None:
        choice = self._choice(event.choice_index)
        self._end_reasoning(choice)
        self.builder.refusal(event.text, choice)

    def _field(self, event: ChatDeltaField) -> None:
        key = event.key
        choice = self._choice(event.choice_index)
        if key in REASONING_KEYS:
            if type(event.value) is str and self._reasoning_key.setdefault(choice, key) == key:
                self._start_reasoning(choice)
                self.builder.reasoning(event.value, choice)
        elif key == DETAILS_KEY and type(event.value) is list and event.value:
            self._start_reasoning(choice)
            details = self._details.get(choice)
            if details is None:
                details = self._details[choice] = _Details()
            details.add(event.value)
        elif key == ANNOTATIONS_KEY and type(event.value) is list:
            for annotation in event.value:
                self._cite(annotation, choice)

    def _cite(self, annotation: Any, choice: int) -> None:
        """One entry of ``delta.annotations``: ``{"type": "url_citation", "url_citation": ...}``."""
        if type(annotation) is not dict or type(kind := annotation.get("type")) is not str:
            return
        detail = annotation.get(kind)
        detail = detail if type(detail) is dict else {}
        url, title = detail.get("url"), detail.get("title")
        self.builder.citation(
            kind, annotation, url=url if type(url) is str else None,
            title=title if type(title) is str else None, choice=choice,
        )

    def _start_reasoning(self, choice: int) -> None:
        if not self.builder.in_reasoning(choice):
            self.builder.reasoning_start(choice)
            # Text ends the block: until then, it goes through the row that says so.
            self.handlers[ChatContentDelta] = ChatParts._content_after_reasoning
            self.sink = None

    def _end_reasoning(self, choice: int) -> None:
        """The choice went on to something else: its block of reasoning, if open, ends."""
        builder = self.builder
        if builder.in_reasoning(choice):
            details = self._details.get(choice)
            builder.reasoning_end(choice, raw=None if details is None else details.take())
            if not builder.reasoning_open:
                self.handlers[ChatContentDelta] = ChatParts._content
                self.sink = self.text_sink()

    def _finish(self, event: ChatFinish) -> None:
        self._end_reasoning(self._choice(event.choice_index))

    def _tool_started(self, event: ChatToolCallStarted) -> None:
        choice = self._choice(event.choice_index)
        self._end_reasoning(choice)
        call, index = self.builder.call_start(event.id or "", event.name or "", event.type, choice)
        self._calls[event.choice_index, event.tool_index] = call, index, choice

    def _tool_arguments(self, event: ChatToolCallArgumentsDelta) -> None:
        self._sink(event.delta, event.choice_index, event.tool_index)

    def _tool_end(self, event: ChatToolCallEnd) -> None:
        found = self._calls.get((event.choice_index, event.tool_index))
        if found is None:
            return
        call, index, choice = found
        # A name or id sent after the opening fragment: the part says the final one.
        call.id = event.id or call.id
        call.name = event.name or call.name
        self.builder.call_end(call, index, choice, event.arguments)

    def _legacy_call(self, choice: int, name: str | None) -> tuple[ToolCall, int]:
        found = self._legacy.get(choice)
        if found is None:
            self._end_reasoning(choice)
            found = self._legacy[choice] = self.builder.call_start(
                "", name or "", "function_call", choice
            )
        elif name and not found[0].name:
            found[0].name = name
        return found

    def _function_delta(self, event: ChatFunctionCallDelta) -> None:
        choice = self._choice(event.choice_index)
        call, index = self._legacy_call(choice, event.name)
        if event.arguments:
            self.builder.call_delta(call, event.arguments, index, choice)

    def _function_end(self, event: ChatFunctionCallEnd) -> None:
        choice = self._choice(event.choice_index)
        call, index = self._legacy_call(choice, event.name)
        self.builder.call_end(call, index, choice, event.arguments)

    def _usage(self, event: ChatUsage) -> None:
        self.builder.usage(usage_from_wire(event.usage))


ChatParts.HANDLERS = {
    **BASE_HANDLERS,
    ChatChunk: ChatParts._chunk,
    ChatContentDelta: ChatParts._content,
    ChatRefusalDelta: ChatParts._refusal,
    ChatDeltaField: ChatParts._field,
    ChatToolCallStarted: ChatParts._tool_started,
    ChatToolCallArgumentsDelta: ChatParts._tool_arguments,
    ChatToolCallEnd: ChatParts._tool_end,
    ChatFunctionCallDelta: ChatParts._function_delta,
    ChatFunctionCallEnd: ChatParts._function_end,
    ChatUsage: ChatParts._usage,
    ChatFinish: ChatParts._finish,
}
