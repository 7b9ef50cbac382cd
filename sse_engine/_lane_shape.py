"""Whether a stream is the lane's own: the check behind a ``wrong_lane`` verdict.

Until an event of the lane's shape arrives (its format's ``recognize``), each
event the lane decodes is checked; the first foreign one is described, by
the format in ``FORMATS`` that does recognise it, or as no format's. A stream
whose events were all foreign ends FAILED with ``wrong_lane`` (not
retryable), naming the lane to read it with. Error reports are neither the
lane's nor foreign: every API sends them.
"""

from __future__ import annotations

from typing import Any

from sse_engine._formats import FORMATS, Recognizer
from sse_engine._json import describe
from sse_engine._outcome import StreamError

__all__ = ["ShapeCheck"]


class ShapeCheck:
    """The shape check of one stream: held by the lane until the stream proves its own."""

    __slots__ = ("_lane", "_own", "foreign")

    def __init__(self, lane: type, own: Recognizer) -> None:
        self._lane = lane
        self._own = own
        #: Why the first foreign event looked foreign (None: none seen yet).
        self.foreign: str | None = None

    def recognized(self, event: str, payload: Any) -> bool:
        """Whether this decoded event is of the lane's shape (else, if foreign, noted)."""
        if event == "error" or (
            type(payload) is dict and ("error" in payload or payload.get("type") == "error")
        ):
            return False
        if self._own(event, payload):
            return True
        if self.foreign is None:
            self.foreign = self._looks_like(event, payload)
        return False

    def _looks_like(self, event: str, payload: Any) -> str:
        """What a foreign event is: the format that recognises it, or no format at all."""
        for other in FORMATS.values():
            if not issubclass(self._lane, other.lane):
                why = other.recognize(event, payload)
                if why:
                    return (
                        f"it looks like a {other.title} stream ({why}): "
                        f"read it with {other.lane.__name__}"
                    )
        return f"no lane recognises it either (its first foreign event is {describe(event)})"

    def wrong_lane_error(self, api_name: str) -> StreamError:
        """The verdict's error for a stream none of whose events was the lane's."""
        return StreamError(
            message=f"no event of this stream is a {api_name} event; {self.foreign}",
            code="wrong_lane",
            retryable=False,
        )
