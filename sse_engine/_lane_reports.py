"""What a lane reports besides its events: warnings, and whether the stream is its own.

:class:`LaneReports` is the half of :class:`~sse_engine.Lane` that keeps
``lane.warnings`` (strict mode turns them into errors; after the verdict a
repeated code is one warning with a ``count``; invalid UTF-8 is one warning
per stream) and decides ``wrong_lane``: a stream whose events are all of
another shape than the lane's (``recognize``) fails as not retryable,
naming the lane it looks like. ``_lane.py`` owns the cycle and the verdict.
"""

from __future__ import annotations

import weakref
from typing import Any

import attrs

from sse_engine._errors import ProtocolError
from sse_engine._formats import FORMATS
from sse_engine._json import describe
from sse_engine._lane_events import LaneWarning
from sse_engine._outcome import Outcome, StreamError
from sse_engine._parser import SSEParser
from sse_engine._sse import ServerSentEvent

__all__ = ["LaneReports"]

class LaneReports:
    """The warnings and the shape check every lane shares; the state they use is the lane's."""

    warnings: list[LaneWarning]
    outcome: Outcome | None
    strict: bool
    _event_index: int
    _parser: SSEParser[ServerSentEvent]

    #: The API this lane reads, for messages ("Chat Completions", ...).
    api_name = "this lane's API"

    #: False until an event of this lane's shape arrived (only lanes that
    #: define ``recognize`` check; see ``_note_shape``).
    _recognized = True
    _foreign: str | None = None  # why an event of the stream looked foreign
    _after_end: dict[str, int] | None = None  # code -> index of its post-verdict warning
    _utf8_warning: int | None = None  # index of the stream's invalid_utf8 warning
    _lossy: set[str] | None = None  # to_api() losses already warned about

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "recognize" in cls.__dict__:
            cls._recognized = False

    @classmethod
    def recognize(cls, event: str, payload: Any) -> str | None:
        """Why an SSE event is one this lane's wire format sends, or None when it is not.

        ``event`` is the ``event:`` name, ``payload`` the data decoded as JSON
        (None when it is not JSON). The answer is a short phrase for messages
        (``"object chat.completion.chunk"``, ``"event: message_start"``).
        Error reports are no lane's own (every API sends them). A stream none
        of whose events this lane recognises ends FAILED with code
        ``wrong_lane``; the CLI names a capture's lane with it.
        """
        return None

    @classmethod
    def recognize_error(cls, event: str, payload: Any) -> str | None:
        """Why an error report has this lane's own shape, or None when it does not say.

        For a tool that must name the API of a capture holding nothing but an
        error (``recognize`` leaves errors out on purpose, so that a failure
        stays that failure in any lane). ``event`` is the ``event:`` name of
        an error frame, or ``""`` for a JSON error body sent instead of a
        stream; ``payload`` the decoded JSON. Several APIs share the OpenAI
        envelope, so most error reports name no lane.
        """
        return None

    def _violation(self, code: str, message: str) -> None:
        """A broken ordering rule: a warning, or a ProtocolError when strict."""
        if self.strict:
            raise ProtocolError(f"{message} (SSE event #{self._event_index}, strict mode)")
        self._warn(code, message)

    def _warn(self, code: str, message: str) -> None:
        warnings = self.warnings
        if self.outcome is not None:
            # After the verdict, repeats of a code fold into one warning.
            after_end = self._after_end
            if after_end is None:
                after_end = self._after_end = {}
            at = after_end.get(code)
            if at is not None:
                first = warnings[at]
                warnings[at] = LaneWarning(
                    code, first.message, first.event_index, first.offset, first.count + 1
                )
                return
            after_end[code] = len(warnings)
        warnings.append(
            LaneWarning(code, message, max(self._event_index, 0), self._parser.bytes_fed)
        )

    def _loss_report(self) -> _LossReport:
        """What a snapshot calls when ``to_api()`` replaced a value (see ``_note_loss``)."""
        return _LossReport(self)

    def _note_loss(self, loss: str) -> None:
        """``snapshot.to_api()`` replaced what JSON cannot carry: one warning per kind."""
        lossy = self._lossy
        if lossy is None:
            lossy = self._lossy = set()
        if loss not in lossy:
            lossy.add(loss)
            self._warn("not_plain_json", f"snapshot.to_api(): {loss}")

    def _note_shape(self, event: str, payload: Any) -> None:
        """Until an event of this lane's shape arrives: is this decoded one of it, or foreign?

        A subclass calls it (through ``_decode``) for every event whose data
        it decodes, before acting on it, only while ``_recognized`` is False:
        a stream of the right lane pays for it once. Error reports are
        neither (every API sends them); data that is not JSON never gets here.
        """
        if event == "error" or (
            type(payload) is dict and ("error" in payload or payload.get("type") == "error")
        ):
            return
        if type(self).recognize(event, payload):
            self._recognized = True
        elif self._foreign is None:
            self._foreign = self._looks_like(event, payload)

    def _looks_like(self, event: str, payload: Any) -> str:
        """What a foreign event is: the format that recognises it, or no format at all."""
        for other in FORMATS.values():
            if not isinstance(self, other.lane):
                why = other.recognize(event, payload)
                if why:
                    return (
                        f"it looks like a {other.title} stream ({why}): "
                        f"read it with {other.lane.__name__}"
                    )
        return f"no lane recognises it either (its first foreign event is {describe(event)})"

    def _wrong_lane_error(self) -> StreamError:
        return StreamError(
            message=f"no event of this stream is a {self.api_name} event; {self._foreign}",
            code="wrong_lane",
            retryable=False,
        )

    def _invalid_utf8(self, offset: int, count: int) -> None:
        """Invalid UTF-8 became U+FFFD: one warning per stream, counting every sequence."""
        at = self._utf8_warning
        warnings = self.warnings
        if at is None:
            self._utf8_warning = len(warnings)
            warnings.append(
                LaneWarning(
                    "invalid_utf8",
                    f"invalid UTF-8 at byte {offset} of the stream (counting a CRLF as one "
                    "byte) was replaced by U+FFFD, as the SSE rules say; the count is how many "
                    "invalid sequences the stream held",
                    self._event_index + 1,
                    self._parser.bytes_fed,
                    count,
                )
            )
        else:
            first = warnings[at]
            warnings[at] = attrs.evolve(first, count=first.count + count)


class _LossReport:
    """Calls the lane's ``_note_loss`` without keeping the lane alive.

    A snapshot holding the lane's bound method would make a lane <-> snapshot
    cycle, freed only by the cyclic collector; a gateway frees lanes by the
    thousand, so the link is weak.
    """

    __slots__ = ("_lane",)

    def __init__(self, lane: LaneReports) -> None:
        self._lane = weakref.ref(lane)

    def __call__(self, loss: str) -> None:
        lane = self._lane()
        if lane is not None:
            lane._note_loss(loss)
