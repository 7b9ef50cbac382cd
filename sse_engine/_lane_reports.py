"""What a lane reports besides its events: its warnings, each located where it was noticed.

A lane holds one :class:`Reports` and hands it to the helpers it holds (a
snapshot that warns about a loss, the Chat lane's call assembly, ...), so
every part of the state machine reports the same way without holding the
lane: strict mode turns a broken ordering rule into a :class:`ProtocolError`;
after the verdict a repeated code is one warning with a ``count`` (a peer that
keeps sending cannot grow ``lane.warnings`` without bound); invalid UTF-8 is
one warning per stream; a loss in ``to_api()`` is one warning per kind.

``event_index`` is the stream's SSE event being interpreted (the lane counts
them here), and ``parser`` the one whose ``bytes_fed`` says where the stream
is: together they locate each warning.
"""

from __future__ import annotations

from typing import Any

import attrs

from sse_engine._errors import ProtocolError
from sse_engine._lane_events import LaneWarning
from sse_engine._parser import SSEParser

__all__ = ["Reports"]


class Reports:
    """A lane's warnings and the rules for adding to them (the lane and its helpers share one)."""

    __slots__ = (
        "_after_end",
        "_lossy",
        "_utf8_warning",
        "ended",
        "event_index",
        "parser",
        "strict",
        "warnings",
    )

    def __init__(self, strict: bool, parser: SSEParser[Any]) -> None:
        self.strict = strict
        self.parser = parser
        #: The lane's warnings (what ``lane.warnings`` is).
        self.warnings: list[LaneWarning] = []
        #: The SSE event being interpreted, counted from 0 (-1 before the first).
        self.event_index = -1
        #: The verdict is known: a repeated code folds into one warning.
        self.ended = False
        self._after_end: dict[str, int] | None = None  # code -> index of its post-verdict warning
        self._utf8_warning: int | None = None  # index of the stream's invalid_utf8 warning
        self._lossy: set[str] | None = None  # to_api() losses already warned about

    def violation(self, code: str, message: str) -> None:
        """A broken ordering rule: a warning, or a ProtocolError when strict."""
        if self.strict:
            raise ProtocolError(f"{message} (SSE event #{self.event_index}, strict mode)")
        self.warn(code, message)

    def warn(self, code: str, message: str) -> None:
        """An anomaly tolerated: one more warning (after the verdict, a repeat counts)."""
        warnings = self.warnings
        if self.ended:
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
            LaneWarning(code, message, max(self.event_index, 0), self.parser.bytes_fed)
        )

    def note_loss(self, loss: str) -> None:
        """``snapshot.to_api()`` replaced what JSON cannot carry: one warning per kind."""
        lossy = self._lossy
        if lossy is None:
            lossy = self._lossy = set()
        if loss not in lossy:
            lossy.add(loss)
            self.warn("not_plain_json", f"snapshot.to_api(): {loss}")

    def invalid_utf8(self, offset: int, count: int) -> None:
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
                    self.event_index + 1,
                    self.parser.bytes_fed,
                    count,
                )
            )
        else:
            first = warnings[at]
            warnings[at] = attrs.evolve(first, count=first.count + count)
