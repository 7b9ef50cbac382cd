"""The Chat Completions lane: ``data: {chat.completion.chunk}`` frames ending with ``data: [DONE]``.

As OpenAI, Azure, Gemini, Kimi and gateways emit them: keys with null values
may be absent, provider extras are tolerated, tool calls come as an opening
fragment plus argument fragments or as one complete fragment (Gemini, which
also omits the fragment ``index``), several choices and tool calls interleave
by index. See ``docs/chat.md`` for the events, outcome rules and warning codes.

:data:`ChatEvent` is the union of the lane's ``@final`` event classes and
``StreamEnd``: what ``ChatCompletionsLane.feed()`` returns.
"""

from __future__ import annotations

from sse_engine._formats import WireFormat, register_format
from sse_engine._public import publish as _publish
from sse_engine.chat._emit import ChatEmitter
from sse_engine.chat._events import (
    ChatChoiceEvent,
    ChatChunk,
    ChatContentDelta,
    ChatDeltaField,
    ChatEvent,
    ChatFinish,
    ChatFunctionCallDelta,
    ChatFunctionCallEnd,
    ChatLogprobs,
    ChatRefusalDelta,
    ChatRole,
    ChatToolCallArgumentsDelta,
    ChatToolCallEnd,
    ChatToolCallStarted,
    ChatUnknownFrame,
    ChatUsage,
)
from sse_engine.chat._frames import encode_chat_event
from sse_engine.chat._lane import ChatCompletionsLane
from sse_engine.chat._parts import ChatParts
from sse_engine.chat._request import CODEC
from sse_engine.chat._snapshot import (
    ChatChoiceSnapshot,
    ChatCompletionSnapshot,
    ChatFunctionCallSnapshot,
    ChatToolCallSnapshot,
)
from sse_engine.chat._wire import (
    COMPLETE_FINISH_REASONS,
    ENDPOINT,
    INCOMPLETE_FINISH_REASONS,
    PATHS,
    recognize,
    recognize_error,
)

__all__ = [
    "COMPLETE_FINISH_REASONS",
    "INCOMPLETE_FINISH_REASONS",
    "ChatChoiceEvent",
    "ChatChoiceSnapshot",
    "ChatChunk",
    "ChatCompletionSnapshot",
    "ChatCompletionsLane",
    "ChatContentDelta",
    "ChatDeltaField",
    "ChatEvent",
    "ChatFinish",
    "ChatFunctionCallDelta",
    "ChatFunctionCallEnd",
    "ChatFunctionCallSnapshot",
    "ChatLogprobs",
    "ChatRefusalDelta",
    "ChatRole",
    "ChatToolCallArgumentsDelta",
    "ChatToolCallEnd",
    "ChatToolCallSnapshot",
    "ChatToolCallStarted",
    "ChatUnknownFrame",
    "ChatUsage",
    "encode_chat_event",
]

register_format(
    WireFormat(
        name="chat",
        title="Chat Completions",
        lane=ChatCompletionsLane,
        parts=ChatParts,
        emitter=ChatEmitter,
        encode=encode_chat_event,
        recognize=recognize,
        recognize_error=recognize_error,
        paths=PATHS,
        request=CODEC,
        endpoint=ENDPOINT,
    )
)

_publish(__name__)  # help() and pickles show this module, not the private ones
