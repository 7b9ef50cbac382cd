"""What every lane emits and reports: the shared events, warnings and input types.

A lane's own events live in its folder (``chat/_events.py``, ...); these are
the ones all three share: :class:`StreamEnd` (exactly once per stream),
:class:`StreamRestarted` (a Responses full replay) and :class:`LaneWarning`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, final

import attrs

from sse_engine._outcome import Outcome, StreamError

__all__ = [
    "FrameItem",
    "Headers",
    "JsonLoads",
    "LaneEvent",
    "LaneWarning",
    "StreamEnd",
    "StreamRestarted",
]

JsonLoads = Callable[[str], Any]
Headers = Mapping[str, str] | Iterable[tuple[str, str]]

class LaneEvent:
    """Base class of every typed event a lane emits.

    What a lane's ``feed()`` returns is typed more precisely: each lane's own
    union (``ChatEvent``, ``ResponsesEvent``, ``MessagesEvent``) of its
    ``@final`` event classes and the shared ones below.
    """

    __slots__ = ()

    #: Whether one class stands for several of the wire's event types, told apart
    #: by the event's ``type`` (every Responses class; an unknown Messages event).
    many_types: ClassVar[bool] = False


@final
@attrs.frozen
class StreamEnd(LaneEvent):
    """The stream is over: emitted exactly once, as soon as the outcome is known."""

    outcome: Outcome
    error: StreamError | None = None


@final
@attrs.frozen
class StreamRestarted(LaneEvent):
    """The server is replaying the stream from the start: discard what was shown.

    The lane's snapshot has been reset; the events that follow rebuild it.
    """

    reason: str


@final
@attrs.frozen
class LaneWarning:
    """An anomaly the lane tolerated (each one is a ProtocolError in strict mode).

    ``code`` is a stable machine-readable name (``sequence_gap``,
    ``trailing_data``, ...); ``event_index`` counts the stream's SSE events
    from 0 and ``offset`` is the number of bytes fed when it was noticed, so a
    tool can point at where in the capture the problem sits. ``count`` is how
    many times it was noticed: after the verdict, a repeat of a code already
    reported after the verdict is folded into that warning (its ``count``
    grows; its message and position are the first one's), so a peer that
    keeps sending after the end cannot grow ``lane.warnings`` without bound.
    ``invalid_utf8`` is one warning per stream the same way.
    """

    code: str
    message: str
    event_index: int
    offset: int
    count: int = 1


#: What a lane's frame encoder takes: one of its events, or a payload dict.
FrameItem = LaneEvent | Mapping[str, Any]
