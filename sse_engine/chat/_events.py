"""The typed events of the Chat Completions lane (re-exported by :mod:`sse_engine.chat`).

Every event that a chunk's content produces carries ``raw``: the decoded
``chat.completion.chunk`` it came from (the chunk that *closed* a call, for the
``...End`` events), excluded from equality and repr, so an encoder can
re-emit the frame. Per-choice events carry ``choice_index`` (``n > 1``).

Every concrete class is ``@final``, and :data:`ChatEvent` is their union with
``StreamEnd``: what ``ChatCompletionsLane.feed()`` returns, so a type checker
knows every event a Chat stream can bring (and that no other lane's can).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias, final

import attrs

from sse_engine._event_build import slot_builder
from sse_engine._lane_events import LaneEvent, StreamEnd

__all__ = [
    "ChatChoiceEvent",
    "ChatChunk",
    "ChatContentDelta",
    "ChatDeltaField",
    "ChatEvent",
    "ChatFinish",
    "ChatFunctionCallDelta",
    "ChatFunctionCallEnd",
    "ChatLogprobs",
    "ChatRefusalDelta",
    "ChatRole",
    "ChatToolCallArgumentsDelta",
    "ChatToolCallEnd",
    "ChatToolCallStarted",
    "ChatUnknownFrame",
    "ChatUsage",
]


# -- whole frames -----------------------------------------------------------------


@attrs.frozen
class _Frame(LaneEvent):
    raw: Any


@final
@attrs.frozen
class ChatChunk(_Frame):
    """One ``chat.completion.chunk`` as decoded, emitted before the events it produces.

    For consumers that want the wire objects themselves (logging, proxying,
    re-encoding with :func:`encode_event`); a UI can ignore it.
    """


@final
@attrs.frozen
class ChatUnknownFrame(_Frame):
    """A frame that is not a chunk, passed through untouched and not accumulated.

    Azure's content-filter frames (``"object": ""``, ``prompt_filter_results``
    or ``content_filter_results`` with no delta) arrive this way, as does any
    other provider frame whose ``object`` is not ``chat.completion.chunk``.
    """


# -- events from a chunk's content ----------------------------------------------


@attrs.frozen
class _ChunkEvent(LaneEvent):
    """Base of the events a chunk's content produces; ``raw`` is that chunk."""

    raw: dict[str, Any] = attrs.field(eq=False, repr=False, kw_only=True)


@final
@attrs.frozen
class ChatUsage(_ChunkEvent):
    """Token usage arrived (the final ``choices: []`` chunk, or nested in a choice).

    ``usage`` is the ``CompletionUsage`` object as sent; the snapshot keeps the
    last one that was not null.
    """

    usage: dict[str, Any]


@attrs.frozen
class ChatChoiceEvent(_ChunkEvent):
    """Base of the per-choice events: ``choice_index`` is the choice's ``index``."""

    choice_index: int


@final
@attrs.frozen
class ChatRole(ChatChoiceEvent):
    """The choice's message role (``"assistant"``), sent on its first chunk.

    Emitted once per choice, and again only if a later chunk names a different role.
    """

    role: str


@attrs.frozen
class _TextDelta(ChatChoiceEvent):
    text: str


@final
@attrs.frozen
class ChatContentDelta(_TextDelta):
    """New message text: print ``text`` as it comes. Never empty."""


@final
@attrs.frozen
class ChatRefusalDelta(_TextDelta):
    """New refusal text (the model declined; shown instead of content). Never empty."""


@attrs.frozen
class _ToolCallEvent(ChatChoiceEvent):
    tool_index: int


@final
@attrs.frozen
class ChatToolCallStarted(_ToolCallEvent):
    """A tool call opened: show "calling ``name``…". ``tool_index`` is its position.

    ``tool_index`` is the call's position in ``message.tool_calls`` (the wire
    ``index`` when the provider numbers calls 0, 1, 2, … as OpenAI does). ``id``
    and ``name`` are what the opening fragment said: None when it said nothing
    (a later fragment may; :class:`ChatToolCallEnd` has the call's name).
    """

    id: str | None
    name: str | None
    type: str


@final
@attrs.frozen
class ChatToolCallArgumentsDelta(_ToolCallEvent):
    """A fragment of a tool call's JSON arguments (the whole arguments, for Gemini)."""

    delta: str


@final
@attrs.frozen
class ChatToolCallEnd(_ToolCallEvent):
    """A tool call's arguments are complete: the moment an agent can run the tool.

    Emitted once per call: when the next tool call starts on the same choice, if
    the call's arguments are complete JSON and every earlier call ended; else
    when the choice finishes (whatever the reason: Gemini finishes tool calls
    with ``"stop"``), in the order the calls opened. Never while arguments may
    still come, never for a call cut off by truncation. ``name`` is the tool to run
    (``""`` only when no fragment named it: a ``tool_call_without_name``
    warning); ``id`` is None when the provider gave none (Gemini often sends
    ``"id": ""``). ``arguments`` is the JSON text as sent (not parsed);
    ``extra`` holds provider fields of the call, such as Gemini's
    ``extra_content`` (its ``thought_signature`` must be sent back).
    """

    id: str | None
    name: str
    type: str
    arguments: str
    extra: dict[str, Any] = attrs.field(factory=dict)


@final
@attrs.frozen
class ChatFunctionCallDelta(ChatChoiceEvent):
    """A fragment of a legacy (deprecated) ``function_call``.

    ``name`` is set on the fragment that carries it (normally the first), None
    on the others; ``arguments`` is this fragment's piece of the JSON text
    (may be empty).
    """

    name: str | None
    arguments: str


@final
@attrs.frozen
class ChatFunctionCallEnd(ChatChoiceEvent):
    """The legacy ``function_call`` is complete (its choice finished): run it.

    ``name`` is ``""`` only when no fragment named it (a
    ``tool_call_without_name`` warning).
    """

    name: str
    arguments: str


@final
@attrs.frozen
class ChatLogprobs(ChatChoiceEvent):
    """Token log probabilities for this chunk's content and/or refusal tokens.

    Each list holds ``{"token", "bytes", "logprob", "top_logprobs"}`` objects as
    sent; an absent list is empty.
    """

    content: list[Any]
    refusal: list[Any]


@final
@attrs.frozen
class ChatFinish(ChatChoiceEvent):
    """The choice is finished: ``reason`` is its ``finish_reason``.

    ``stop``, ``tool_calls`` and ``function_call`` are normal ends; ``length``
    (max tokens) and ``content_filter`` mean the answer is cut short. Any open
    tool call or function call ended just before this event.
    """

    reason: str


@final
@attrs.frozen
class ChatDeltaField(ChatChoiceEvent):
    """A delta field this lane has no dedicated event for, as sent.

    For example ``reasoning_content`` (DeepSeek, Kimi, vLLM), ``reasoning``
    (OpenRouter), ``audio`` or ``annotations``. The snapshot merges these into
    the message (strings are concatenated, objects merged, lists extended).
    """

    key: str
    value: Any


#: Every event :class:`~sse_engine.ChatCompletionsLane` emits: what its ``feed()``
#: and ``close()`` return. A union of ``@final`` classes, so ``mypy --strict
#: --warn-unreachable`` flags an ``isinstance`` against another lane's class,
#: and a ``match`` over it can be checked for exhaustiveness.
ChatEvent: TypeAlias = (
    ChatChunk
    | ChatUnknownFrame
    | ChatRole
    | ChatContentDelta
    | ChatRefusalDelta
    | ChatToolCallStarted
    | ChatToolCallArgumentsDelta
    | ChatToolCallEnd
    | ChatFunctionCallDelta
    | ChatFunctionCallEnd
    | ChatLogprobs
    | ChatDeltaField
    | ChatFinish
    | ChatUsage
    | StreamEnd
)


# -- builders for the lane's hot path ---------------------------------------------------
# Each one is its class's constructor, made without the class call and attrs'
# __init__ (see sse_engine/_event_build.py): the lane builds one or two of these
# per chunk. tests/chat/test_chat_fast_path.py checks they equal the constructor's.

new_chunk: Callable[[Any], ChatChunk] = slot_builder(ChatChunk, "raw")
new_content_delta: Callable[[int, str, dict[str, Any]], ChatContentDelta] = slot_builder(
    ChatContentDelta, "choice_index", "text", "raw"
)
new_arguments_delta: Callable[[int, int, str, dict[str, Any]], ChatToolCallArgumentsDelta] = (
    slot_builder(ChatToolCallArgumentsDelta, "choice_index", "tool_index", "delta", "raw")
)
