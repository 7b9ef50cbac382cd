"""The OpenAI Responses lane: typed ``response.*`` events, the response snapshot, resume.

Frames are typed by their JSON ``type`` (the ``event:`` line is a fallback;
when the two disagree the JSON wins with an ``event_type_mismatch`` warning).
``sequence_number`` is tracked: repeats are dropped, gaps are reported. See
``docs/responses.md`` for the events, outcome rules, warning codes and the
resume recipe.

- :class:`ResponsesLane`: the lane.
- One frozen ``@final`` class per payload shape (``ResponseContentDeltaEvent``,
  ...), whose ``type`` is the wire type, typed as the ``Literal`` of the types
  it carries; :data:`ResponsesEvent`, their union with ``StreamEnd`` and
  ``StreamRestarted``, is what the lane returns. :data:`ResponsesEventType` is
  every type the lane knows, :data:`RESPONSES_EVENT_TYPES` the same at run time.
- :class:`ResponseSnapshot`, :class:`OutputItem`, :class:`ContentPart`: the
  response as it builds up (read-only: its texts are strings).
- :class:`ResumePlan`: the reconnect request, and :class:`RetrievePlan`, the plain
  GET for the final object past the resume window.
"""

from __future__ import annotations

from sse_engine._formats import WireFormat, register_format
from sse_engine._openai import OPENAI_ENDPOINT
from sse_engine._public import publish as _publish
from sse_engine.responses._emit import ResponsesEmitter
from sse_engine.responses._events import (
    ResponseAnnotationEvent,
    ResponseArgumentsDoneEvent,
    ResponseAudioEvent,
    ResponseCallDeltaEvent,
    ResponseCodeDoneEvent,
    ResponseContentDeltaEvent,
    ResponseContentPartEvent,
    ResponseCustomToolInputDoneEvent,
    ResponseErrorEvent,
    ResponseItemEvent,
    ResponseItemStatusEvent,
    ResponseLifecycleEvent,
    ResponseOutputItemEvent,
    ResponsePartialImageEvent,
    ResponseRefusalDoneEvent,
    ResponseShellCommandDeltaEvent,
    ResponseShellCommandEvent,
    ResponseShellOutputDeltaEvent,
    ResponseShellOutputDoneEvent,
    ResponseSummaryPartEvent,
    ResponseSummaryTextDeltaEvent,
    ResponseSummaryTextDoneEvent,
    ResponseTerminalEvent,
    ResponseTextDoneEvent,
    ResponseUnknownEvent,
)
from sse_engine.responses._frames import encode_responses_event
from sse_engine.responses._lane import ITEM_STATUS_TYPES, ResponsesLane
from sse_engine.responses._parts import ResponsesParts
from sse_engine.responses._request import CODEC
from sse_engine.responses._resume import ResumePlan, RetrievePlan
from sse_engine.responses._snapshot import ContentPart, OutputItem, ResponseSnapshot
from sse_engine.responses._types import ResponsesEvent
from sse_engine.responses._wire import (
    PATHS,
    RESPONSES_EVENT_TYPES,
    ResponsesEventType,
    recognize,
    recognize_error,
)

__all__ = [
    "ITEM_STATUS_TYPES",
    "RESPONSES_EVENT_TYPES",
    "ContentPart",
    "OutputItem",
    "ResponseAnnotationEvent",
    "ResponseArgumentsDoneEvent",
    "ResponseAudioEvent",
    "ResponseCallDeltaEvent",
    "ResponseCodeDoneEvent",
    "ResponseContentDeltaEvent",
    "ResponseContentPartEvent",
    "ResponseCustomToolInputDoneEvent",
    "ResponseErrorEvent",
    "ResponseItemEvent",
    "ResponseItemStatusEvent",
    "ResponseLifecycleEvent",
    "ResponseOutputItemEvent",
    "ResponsePartialImageEvent",
    "ResponseRefusalDoneEvent",
    "ResponseShellCommandDeltaEvent",
    "ResponseShellCommandEvent",
    "ResponseShellOutputDeltaEvent",
    "ResponseShellOutputDoneEvent",
    "ResponseSnapshot",
    "ResponseSummaryPartEvent",
    "ResponseSummaryTextDeltaEvent",
    "ResponseSummaryTextDoneEvent",
    "ResponseTerminalEvent",
    "ResponseTextDoneEvent",
    "ResponseUnknownEvent",
    "ResponsesEvent",
    "ResponsesEventType",
    "ResponsesLane",
    "ResumePlan",
    "RetrievePlan",
    "encode_responses_event",
]

register_format(
    WireFormat(
        name="responses",
        title="Responses",
        lane=ResponsesLane,
        parts=ResponsesParts,
        emitter=ResponsesEmitter,
        encode=encode_responses_event,
        recognize=recognize,
        recognize_error=recognize_error,
        paths=PATHS,
        request=CODEC,
        endpoint=OPENAI_ENDPOINT,
    )
)

_publish(__name__)  # help() and pickles show this module, not the private ones
