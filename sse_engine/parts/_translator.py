"""What every lane's translator shares: the handler table, the end, a restart.

A translator turns one lane's events into parts by calling its
``builder`` (the :class:`~sse_engine.parts._builder.PartBuilder` of the
stream). Each wire format has one, in its folder's ``_parts.py`` (the
``parts`` of its row in ``FORMATS``): a :class:`Translator` subclass with a
table from the lane's event classes to its handlers (an event class it has no
row for makes no part) and the format's table from its own finish reasons to
the unified ones.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from sse_engine._lane import Lane, StreamEnd, StreamRestarted
from sse_engine.parts._builder import PartBuilder
from sse_engine.parts._parts import FinishReason

__all__ = ["BASE_HANDLERS", "Finished", "Handler", "Translator"]

Handler = Callable[[Any, Any], None]


class Finished(Exception):
    """Raised by a translator once it made the Finish part: the events after it make none."""


class Translator:
    """The base of a format's translator: one lane's events into parts, one per stream.

    Subclasses set ``HANDLERS`` (event class -> handler, with :data:`BASE_HANDLERS`
    merged in), ``REASONS`` (the lane's finish reason -> the unified one),
    implement :meth:`raw_reasons` and set up their state in :meth:`_setup`.
    """

    HANDLERS: ClassVar[dict[type, Handler]]
    REASONS: ClassVar[Mapping[str, FinishReason]]

    def __init__(self, lane: Lane[Any], builder: PartBuilder) -> None:
        self.lane = lane
        self.builder = builder
        #: The table in use: a translator may switch to a smaller one once a row
        #: has done its job (the caller reads it once per batch of events, so a
        #: change that must hold from the next event on is made in place).
        self.handlers = self.HANDLERS
        self._setup()
        #: What :meth:`text_sink` says now, kept: a read asks for it (a translator
        #: whose answer changes with its state sets it again where that state changes).
        self.sink = self.text_sink()

    def _setup(self) -> None:
        """Set up the translator's own state (again after a restart)."""

    def text_sink(self) -> Callable[..., Any] | None:
        """What the lane gives its commonest deltas to instead of making their events,
        during the next read, or None (events as usual). By default, none.

        A function of the translator's class, called with the translator first: the
        stream binds it for each read. A translator that kept its own bound method
        would hold itself, a reference cycle that keeps a finished stream in memory
        until the garbage collector finds it (tests/test_no_reference_cycles.py).

        Which deltas, and with what arguments, is the format's own (``Lane._text_sink``):
        text everywhere; Messages' thinking and tool input, Responses' reasoning
        summaries, Chat's tool-call arguments, Gemini's thoughts and usage too. The
        lane calls it only for deltas read before any event of that read, so it runs
        where the delta's event would have been translated; it must do what that
        event's handler would, in whatever state the translator is then. A translator
        gives one only in a state it stays in for the whole read, what the sink takes
        included, and keeps the answer in ``self.sink``, set again where its state
        changes it (Chat's and Gemini's also make their lanes skip the chunk events,
        which their translators no longer read by then).
        """
        return None

    def raw_reasons(self) -> Mapping[int, str | None]:
        """Each choice's own finish reason as the lane has it (None: none was given)."""
        raise NotImplementedError

    def loaded(self, response: Mapping[str, Any]) -> None:
        """The lane was completed from its final object (``load()``): make what it adds."""

    def on_end(self, event: StreamEnd) -> None:
        self.builder.finish(event.outcome, event.error, self.raw_reasons(), self.REASONS)
        # Stops the caller's loop without a check per event (a try costs nothing in 3.11).
        raise Finished

    def on_restart(self, event: StreamRestarted) -> None:
        self.builder.restart(event.reason)
        self._setup()
        self.sink = self.text_sink()


#: The rows every translator's table has.
BASE_HANDLERS: dict[type, Handler] = {
    StreamEnd: Translator.on_end,
    StreamRestarted: Translator.on_restart,
}
