"""sse_engine: a pure-Python, sans-IO Server-Sent Events engine for LLM streaming APIs."""

from sse_engine._encoder import encode_comment, encode_event, encode_json
from sse_engine._errors import EventTooLarge, ProtocolError, SSEEngineError, UsageError
from sse_engine._lane import Lane, LaneEvent, LaneWarning, StreamEnd, StreamRestarted
from sse_engine._outcome import Outcome, StreamError, is_retryable
from sse_engine._parser import DEFAULT_MAX_EVENT_SIZE, SSEParser
from sse_engine._sse import Comment, ServerSentEvent

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_MAX_EVENT_SIZE",
    "Comment",
    "EventTooLarge",
    "Lane",
    "LaneEvent",
    "LaneWarning",
    "Outcome",
    "ProtocolError",
    "SSEEngineError",
    "SSEParser",
    "ServerSentEvent",
    "StreamEnd",
    "StreamError",
    "StreamRestarted",
    "UsageError",
    "encode_comment",
    "encode_event",
    "encode_json",
    "is_retryable",
]
