"""QuietTimer: tells when a stream has been quiet for an interval, at one timer per interval.

The per-read way (``asyncio.timeout`` around each read) costs a timer
created and cancelled per upstream read, about as much CPU as relaying the
event itself. This timer is armed once per interval instead: each read only
notes the time (:meth:`touch`), and when the timer fires it either finds
the stream busy and re-arms for the end of the new interval, or calls
``on_quiet`` and re-arms a full interval later.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

__all__ = ["QuietTimer"]


class QuietTimer:
    """Calls ``on_quiet()`` once ``interval`` seconds pass without :meth:`touch`, and every
    ``interval`` seconds while the quiet lasts; :meth:`cancel` stops it."""

    __slots__ = ("_handle", "_interval", "_loop", "_on_quiet", "last")

    def __init__(self, interval: float, on_quiet: Callable[[], None]) -> None:
        self._loop = loop = asyncio.get_running_loop()
        self._interval = interval
        self._on_quiet = on_quiet
        #: The loop time of the last sign of life.
        self.last = loop.time()
        self._handle: asyncio.TimerHandle | None = loop.call_at(self.last + interval, self._fire)

    def touch(self) -> None:
        """The stream is alive (called on every read: only a clock read)."""
        self.last = self._loop.time()

    def cancel(self) -> None:
        """Stop for good."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _fire(self) -> None:
        now = self._loop.time()
        due = self.last + self._interval
        if now >= due:
            self.last = now
            due = now + self._interval
            self._on_quiet()
        if self._handle is not None:
            self._handle = self._loop.call_at(due, self._fire)
