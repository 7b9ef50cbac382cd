"""PartStream: any lane, read as parts; what a program written once for every provider drives.

A :class:`PartStream` has the lane's own interface (``start``, ``feed``,
``close``, ``outcome``, ``error``, ``warnings``, ``retry``,
``last_event_id``, ``resume_plan`` / ``resume``), so whatever drives a lane
(a transport loop, :func:`~sse_engine.iter_events`, :func:`~sse_engine.aiter_events`)
drives it, and gets parts instead of the lane's events: it is a
``LaneLike[Part]``, so ``iter_events(PartStream(lane), chunks)`` is typed as
yielding ``Part | Reconnecting``. Which translator reads the lane's events is
the ``parts`` of the lane's wire format in ``FORMATS``.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import MethodType
from typing import Any, Generic, TypeVar

from sse_engine._errors import ProtocolError, UsageError
from sse_engine._formats import WireFormat, format_of
from sse_engine._lane import Headers, Lane, LaneEvent, LaneWarning
from sse_engine._outcome import Outcome, StreamError
from sse_engine.parts._builder import PartBuilder, TextWriter, UsageTaker
from sse_engine.parts._parts import Part
from sse_engine.parts._translator import Finished, Translator
from sse_engine.parts._turn import Turn

__all__ = ["PartStream"]

#: Each format's own lane class met so far -> its row: ``format_of`` walks the registry (a
#: Mapping's view, in Python), and a short stream's whole parts cost is a few times that.
#: A class's row never changes (rows are only ever added); only the registered classes
#: are kept (a subclass is looked up each time), so it holds one entry per format at most.
_ROWS: dict[type, WireFormat] = {}

#: The lane a PartStream reads: ``PartStream(MessagesLane()).lane`` is typed a MessagesLane.
L = TypeVar("L", bound=Lane[Any])


class PartStream(Generic[L]):
    """Any lane, read as parts: one loop for every provider.

    ``lane`` is a fresh :class:`~sse_engine.ChatCompletionsLane`,
    :class:`~sse_engine.ResponsesLane` or :class:`~sse_engine.MessagesLane`
    (with its own options: ``json_loads``, ``strict``, ...). :meth:`feed` and
    :meth:`close` return parts; :attr:`turn` is the assistant turn so far,
    the same shape for every lane. Every stream ends with exactly one
    :class:`~sse_engine.parts.Finish` part, the last, carrying the lane's
    verdict: nothing comes after it (a Responses stream is resumed or loaded
    instead of closed, not after).

    ``partial_strings``: the partial tool input (``ToolCall.input``) also
    shows the string value still arriving (``jiter``'s ``trailing-strings``),
    at the cost of that string's length per read; by default a string
    appears once complete, and a read costs O(1).

    Several Chat choices (``n > 1``): every part carries its ``choice``;
    :attr:`turn` is choice 0 and :attr:`turns` lists every choice's turn.

    ``lean``: for a program that passes each part on and keeps nothing of
    the text (a relay): the turns keep no text, reasoning or refusal (see
    :attr:`Turn.lean`), and the lane is made lean too (its snapshot keeps
    no streamed text: see :meth:`Lane.make_lean`), so what the stream holds
    does not grow with the text. The parts, the verdict, warnings, usage,
    finish reason, ids and tool calls are the same as without it.
    """

    def __init__(self, lane: L, *, partial_strings: bool = False, lean: bool = False) -> None:
        row = _ROWS.get(type(lane))
        if row is None:
            row = format_of(lane)
            if row.lane is type(lane):
                _ROWS[row.lane] = row
        kind: type[Translator] = row.parts
        if lean:
            lane.make_lean()
        #: The lane read (typed as given: ``PartStream(ResponsesLane()).lane.load(...)``).
        self.lane: L = lane
        #: Whether the turns and the lane keep no text (see the class docstring).
        self.lean = lean
        # Warnings found here (invalid tool input) join the lane's own, located like them.
        self._builder = PartBuilder(
            lane.json_loads, lane.add_warning, partial_strings, format=row.name, lean=lean
        )
        self._translator = kind(lane, self._builder)

    # -- the lane's cycle, as parts ----------------------------------------------------

    def start(self, status: int = 200, headers: Headers | None = None) -> None:
        """Tell the lane what the HTTP response looked like (see :meth:`Lane.start`)."""
        self.lane.start(status, headers)

    def feed(self, data: bytes | bytearray | memoryview) -> list[Part]:
        """Feed the next bytes of the body; return the parts they complete.

        A :class:`~sse_engine.ProtocolError` from the lane is re-raised with
        ``events`` holding the *parts* of what was decoded before it, down to
        the ``Finish`` of the failed stream.
        """
        out = self._begin_read()
        try:
            # Lane.feed less its filter of kept comments (which make no part): a call less
            # per read.
            events = self.lane._read(data)
        except ProtocolError as exc:
            exc.events = self._end_read(exc.events, out)
            raise
        except BaseException:
            self.lane._text_sink = None
            raise
        return self._end_read(events, out)

    def _begin_read(self) -> list[Part] | None:
        """Get ready for one read of the lane whose text deltas go straight to the
        translator (its ``text_sink``: the lane makes no event for them); the list
        their parts go to, or None when the translator takes none now (read as usual).

        For what reads the lane itself (:meth:`feed`, a relay): the read's events then
        go to :meth:`_end_read` with this list, and nothing else may read the lane or
        translate in between.
        """
        builder = self._builder
        if builder.finished:
            return None
        sink = self._translator.sink
        if sink is None:
            return None
        self.lane._text_sink = MethodType(sink, self._translator)  # bound per read: kept, a cycle
        out: list[Part] = []  # builder.batch(), inline: this runs once per read
        builder.out = out
        return out

    def _end_read(self, events: Iterable[LaneEvent], out: list[Part] | None) -> list[Part]:
        """The parts of a read :meth:`_begin_read` started: ``out`` (what its text
        deltas made), then the parts of the read's ``events`` (for a read it did not
        start, ``out`` None: :meth:`translate`'s)."""
        self.lane._text_sink = None
        if out is None:
            return self.translate(events) if events else []
        return self._translate_into(events, out) if events else out

    def close(self, *, error: StreamError | None = None) -> list[Part]:
        """The transport ended: the final parts (the ``Finish``, if not sent yet).

        ``error`` says why, as for :meth:`Lane.close`: a stream that ends
        ``truncated`` here carries it in its ``Finish`` (and in ``error``).
        """
        try:
            events = self.lane.close(error=error)
        except ProtocolError as exc:
            self._failed(exc)
            raise
        return self.translate(events)

    def _failed(self, exc: ProtocolError) -> None:
        """The lane could not read the bytes: its events become parts, ending with the Finish.

        The lane's ``exc.events`` end with its ``StreamEnd`` (a later call on
        the failed lane raises with none, and the Finish was already made).
        """
        exc.events = self.translate(exc.events)

    def translate(self, events: Iterable[LaneEvent]) -> list[Part]:
        """The parts of lane events: what :meth:`feed` does with the events of its lane.

        For a program that drives ``self.lane`` itself because it wants the
        lane's events too (a logger, the command line): call it with every
        event the lane returned, in order, and do not also call :meth:`feed`.
        Parts after the ``Finish`` are never made.
        """
        return self._translate_into(events, self._builder.batch())

    def _translate_into(self, events: Iterable[LaneEvent], out: list[Part]) -> list[Part]:
        """:meth:`translate`, the parts appended to ``out``: the builder's batch, which
        may hold parts already (what a read's text deltas made)."""
        if self._builder.finished:
            return out
        translator = self._translator
        handlers = translator.handlers
        try:
            for event in events:
                handler = handlers.get(type(event))
                if handler is not None:
                    handler(translator, event)
        except Finished:
            pass
        return out

    def write_text_with(
        self, writer: TextWriter | None, *, usage: UsageTaker | None = None
    ) -> None:
        """Offer each text, reasoning and refusal delta to ``writer`` before making its part.

        For a relay, which turns parts into bytes at once and needs no part
        for a delta it can write itself: ``writer(kind, text, choice)``
        (``kind``: ``"text"``, ``"reasoning"`` or ``"refusal"``) writes it and
        returns True (no part is made), or returns False (the part is made,
        as without a writer). A delta is offered only when no part came
        before it in the same call, so what the writer writes and the parts
        returned after it keep the stream's order. The turn counts every
        delta either way. None: no writer.

        ``usage``, if given, takes each usage report that comes before any
        part of the call, a ``Usage`` or a :data:`PendingUsage` (see
        :func:`read_pending`), instead of a ``UsageUpdate`` part: a Gemini
        chunk brings one with every delta, and a relay, whose target writes
        usage at its end or when it opens (at a later part), needs only the
        latest report before the parts; with no part made, the deltas after
        it are still offered. A report after a part of the call is still a
        part, so it keeps its place. The turns hold every report either
        way. ``write_text_with(None)`` turns both off.
        """
        builder = self._builder
        builder.direct = writer
        builder.take_usage = usage

    # -- what the lane knows -------------------------------------------------------------

    @property
    def outcome(self) -> Outcome | None:
        """The lane's verdict (None while the stream is open)."""
        return self.lane.outcome

    @property
    def error(self) -> StreamError | None:
        """Why the stream failed or was cut (the lane's error)."""
        return self.lane.error

    @property
    def warnings(self) -> list[LaneWarning]:
        """The lane's warnings, and the parts' own (``tool_input_invalid``, ``text_replaced``)."""
        return self.lane.warnings

    @property
    def retry(self) -> int | None:
        """The stream's ``retry:`` time in ms (see :attr:`Lane.retry`)."""
        return self.lane.retry

    @property
    def last_event_id(self) -> str:
        """The SSE last event ID (see :attr:`Lane.last_event_id`)."""
        return self.lane.last_event_id

    @property
    def turn(self) -> Turn:
        """The assistant turn so far (for several Chat choices: choice 0's)."""
        return self._builder.turns[0]

    @property
    def turns(self) -> list[Turn]:
        """Every choice's turn, by choice index (one turn but for Chat ``n > 1``)."""
        turns = self._builder.turns
        return [turns[choice] for choice in sorted(turns)]

    # -- resume (Responses) ------------------------------------------------------------------

    def resume_plan(self) -> Any:
        """How to reconnect the dropped stream (a ``ResumePlan``), or None (see the lane)."""
        return self.lane.resume_plan()

    def resume(self) -> list[Part]:
        """Ready the stream for the bytes of the reconnection :meth:`resume_plan` describes.

        Incremental: the turn goes on where it stopped; returns ``[]``. Full
        replay: returns ``[Restart(...)]`` and the turn starts again: discard
        what was shown. Resume a dropped connection *instead of* closing it
        (as ``iter_events(..., reconnect=...)`` does): a stream that made its
        ``Finish`` is over (:class:`UsageError`): a stream has exactly one.
        """
        if self.lane.resumable:  # else the lane says it cannot resume
            self._not_finished("resume()")
        events = self.lane.resume()
        return self.translate(events)

    def load(self, response: dict[str, Any]) -> list[Part]:
        """End the stream from the final ``response`` object, as ``ResponsesLane.load()`` does.

        For a Responses stream cut past its resume window (see
        ``ResumePlan.retrieve()``): the parts of what the stream had not shown
        yet (the rest of a text, the calls it never finished, the usage), then
        the ``Finish``. Load *instead of* closing the cut stream: a stream
        that made its ``Finish`` is over (:class:`UsageError`; a stream has
        exactly one): load the object into a fresh ``PartStream`` then, whose
        parts are the whole final turn.
        """
        load = getattr(self.lane, "load", None)
        if load is None:
            raise UsageError(f"a {type(self.lane).__name__} stream cannot load a final object")
        self._not_finished("load()")
        events: list[LaneEvent] = load(response)
        out = self._builder.batch()
        self._translator.loaded(response)
        return out + self.translate(events)

    def _not_finished(self, what: str) -> None:
        if self._builder.finished:
            raise UsageError(
                f"{what} after the stream's Finish: a stream has exactly one Finish, its last "
                f"part. Call {what} instead of close() (resume_plan() says whether the stream "
                "can go on); to read a final object after it, load it into a fresh PartStream"
            )

    def __repr__(self) -> str:
        state = "open" if self.outcome is None else self.outcome.value
        return f"<PartStream over {type(self.lane).__name__}, {state}>"
