"""The Anthropic Messages lane: ``message_start`` ... ``message_stop`` as typed events.

Frames are typed by their JSON ``type``, not by the SSE ``event:`` line: a
frame without an ``event:`` line (which the SDK skips) is interpreted like any
other, and when the two disagree the JSON wins and a warning says so. See
``docs/messages.md`` for the events, the outcome rules and the warning codes.

:data:`MessagesEvent` is the union of the lane's ``@final`` event classes and
``StreamEnd``: what ``MessagesLane.feed()`` returns.
"""

from __future__ import annotations

from sse_engine._formats import WireFormat, register_format
from sse_engine._public import publish as _publish
from sse_engine.messages._emit import MessagesEmitter
from sse_engine.messages._events import (
    BlockDelta,
    BlockStart,
    BlockStop,
    CitationDelta,
    InputJsonDelta,
    MessageDelta,
    MessageError,
    MessagesEvent,
    MessageStart,
    MessageStop,
    OtherDelta,
    Ping,
    SignatureDelta,
    TextBlockDelta,
    ThinkingDelta,
    ToolUseStop,
    UnknownEvent,
)
from sse_engine.messages._frames import encode_messages_event
from sse_engine.messages._lane import MessagesLane
from sse_engine.messages._parts import MessagesParts
from sse_engine.messages._request import CODEC
from sse_engine.messages._snapshot import ContentBlock, MessageSnapshot
from sse_engine.messages._wire import ENDPOINT, PATHS, recognize, recognize_error

__all__ = [
    "BlockDelta",
    "BlockStart",
    "BlockStop",
    "CitationDelta",
    "ContentBlock",
    "InputJsonDelta",
    "MessageDelta",
    "MessageError",
    "MessageSnapshot",
    "MessageStart",
    "MessageStop",
    "MessagesEvent",
    "MessagesLane",
    "OtherDelta",
    "Ping",
    "SignatureDelta",
    "TextBlockDelta",
    "ThinkingDelta",
    "ToolUseStop",
    "UnknownEvent",
    "encode_messages_event",
]

register_format(
    WireFormat(
        name="messages",
        title="Messages",
        lane=MessagesLane,
        parts=MessagesParts,
        emitter=MessagesEmitter,
        encode=encode_messages_event,
        recognize=recognize,
        recognize_error=recognize_error,
        paths=PATHS,
        request=CODEC,
        endpoint=ENDPOINT,
    )
)

_publish(__name__)  # help() and pickles show this module, not the private ones
