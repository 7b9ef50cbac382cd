"""sse_engine: a pure-Python, sans-IO Server-Sent Events engine for LLM streaming APIs.

Layers: :class:`SSEParser` (bytes to events, the WHATWG algorithm), four lanes
(:class:`ChatCompletionsLane`, :class:`ResponsesLane`, :class:`MessagesLane`,
:class:`GeminiLane`: events to typed events, a snapshot and an :class:`Outcome`;
``FORMATS`` lists every wire format), and thin edges
(:func:`iter_events` / :func:`aiter_events` with :class:`RetryPolicy` and
:class:`Reconnecting`, :class:`Liveness`, the encoder).
Lane event classes live in :mod:`sse_engine.chat`, :mod:`sse_engine.responses`,
:mod:`sse_engine.messages` and :mod:`sse_engine.gemini`. Above the lanes,
:class:`PartStream` reads any of them in one vocabulary of parts
(:mod:`sse_engine.parts`, with :class:`PartialJSON` for tool input as it
streams); :class:`TextDelta` is that vocabulary's text part (the Messages
lane's own text event is ``sse_engine.messages.TextBlockDelta``). :class:`Relay`
(:mod:`sse_engine.relay`) writes those parts back as any lane's wire bytes:
one API served as another, for gateways.
"""

from sse_engine._detect import Detection, detect
from sse_engine._encoder import encode_comment, encode_event, encode_json, encode_lane_events
from sse_engine._errors import EventTooLarge, ProtocolError, SSEEngineError, UsageError
from sse_engine._formats import FORMATS, WireFormat, register_format
from sse_engine._lane import Lane, LaneEvent, LaneWarning, StreamEnd, StreamRestarted
from sse_engine._liveness import (
    DEFAULT_IDLE_TIMEOUT,
    DEFAULT_KEEPALIVE_ONLY_TIMEOUT,
    Liveness,
    LivenessVerdict,
)
from sse_engine._outcome import Outcome, StreamError, is_retryable
from sse_engine._parser import DEFAULT_MAX_EVENT_SIZE, SSEParser
from sse_engine._public import publish as _publish
from sse_engine._reconnect import DEFAULT_MAX_RECONNECTS, LaneLike, Reconnecting
from sse_engine._retry import DEFAULT_MAX_RETRY_DELAY, RetryPolicy
from sse_engine._sse import Comment, ServerSentEvent
from sse_engine._transport import aiter_events, iter_events
from sse_engine.chat import ChatCompletionsLane, ChatCompletionSnapshot, encode_chat_event
from sse_engine.conversation import (
    Conversation,
    Image,
    InvalidRequest,
    Message,
    Native,
    Reasoning,
    Refusal,
    Rendered,
    ResponseFormat,
    Settings,
    Text,
    Tool,
    ToolChoice,
    ToolResult,
)
from sse_engine.gemini import GeminiLane, GeminiSnapshot, encode_gemini_event
from sse_engine.messages import MessagesLane, MessageSnapshot, encode_messages_event
from sse_engine.partial_json import (
    JSONDelta,
    JSONPath,
    JSONStreamError,
    JSONStringDelta,
    JSONValue,
    PartialJSON,
)
from sse_engine.parts import (
    FINISH_REASONS,
    Citation,
    Finish,
    FinishReason,
    MessageItemStart,
    Part,
    PartStream,
    ReasoningBlock,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    RefusalDelta,
    Restart,
    ServerToolResult,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Turn,
    Usage,
    UsageUpdate,
)
from sse_engine.relay import Relay
from sse_engine.responses import (
    ResponsesLane,
    ResponseSnapshot,
    ResumePlan,
    RetrievePlan,
    encode_responses_event,
)

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_IDLE_TIMEOUT",
    "DEFAULT_KEEPALIVE_ONLY_TIMEOUT",
    "DEFAULT_MAX_EVENT_SIZE",
    "DEFAULT_MAX_RECONNECTS",
    "DEFAULT_MAX_RETRY_DELAY",
    "FINISH_REASONS",
    "FORMATS",
    "ChatCompletionSnapshot",
    "ChatCompletionsLane",
    "Citation",
    "Comment",
    "Conversation",
    "Detection",
    "EventTooLarge",
    "Finish",
    "FinishReason",
    "GeminiLane",
    "GeminiSnapshot",
    "Image",
    "InvalidRequest",
    "JSONDelta",
    "JSONPath",
    "JSONStreamError",
    "JSONStringDelta",
    "JSONValue",
    "Lane",
    "LaneEvent",
    "LaneLike",
    "LaneWarning",
    "Liveness",
    "LivenessVerdict",
    "Message",
    "MessageItemStart",
    "MessageSnapshot",
    "MessagesLane",
    "Native",
    "Outcome",
    "Part",
    "PartStream",
    "PartialJSON",
    "ProtocolError",
    "Reasoning",
    "ReasoningBlock",
    "ReasoningDelta",
    "ReasoningEnd",
    "ReasoningStart",
    "Reconnecting",
    "Refusal",
    "RefusalDelta",
    "Relay",
    "Rendered",
    "ResponseFormat",
    "ResponseSnapshot",
    "ResponsesLane",
    "Restart",
    "ResumePlan",
    "RetrievePlan",
    "RetryPolicy",
    "SSEEngineError",
    "SSEParser",
    "ServerSentEvent",
    "ServerToolResult",
    "Settings",
    "StreamEnd",
    "StreamError",
    "StreamRestarted",
    "Text",
    "TextDelta",
    "Tool",
    "ToolCall",
    "ToolCallDelta",
    "ToolCallEnd",
    "ToolCallStart",
    "ToolChoice",
    "ToolResult",
    "Turn",
    "Usage",
    "UsageError",
    "UsageUpdate",
    "WireFormat",
    "aiter_events",
    "detect",
    "encode_chat_event",
    "encode_comment",
    "encode_event",
    "encode_gemini_event",
    "encode_json",
    "encode_lane_events",
    "encode_messages_event",
    "encode_responses_event",
    "is_retryable",
    "iter_events",
    "register_format",
]

_publish(__name__)  # help() and pickles show this module, not the private ones
