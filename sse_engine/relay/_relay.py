"""The Relay: one lane's stream, served as another lane's wire bytes.

The source lane is read through a :class:`~sse_engine.parts.PartStream`; its
parts go to the emitter of the target, the ``emitter`` of the ``to=`` format's
row in ``FORMATS``. What the Relay adds on top: keepalive comments read upstream
written downstream, a failure before the stream answered as the target API
answers it, a source that cannot be read ended as a failure (never an
exception the gateway must turn into bytes itself), and a Responses upstream
resumed under a running relay without the client seeing anything twice.
"""

from __future__ import annotations

from typing import Any, Final, final

import attrs

from sse_engine._errors import ProtocolError, UsageError
from sse_engine._formats import FORMATS
from sse_engine._lane import Headers, Lane, LaneWarning
from sse_engine._outcome import Outcome, StreamError
from sse_engine._sse import Comment
from sse_engine.parts import (
    MessageItemStart,
    Part,
    PartStream,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    RefusalDelta,
    Restart,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Turn,
)
from sse_engine.relay._emitter import Emitter, ErrorResponse

__all__ = ["Relay"]


@final
class Relay:
    """Reads one lane's stream and writes it as another lane's, for a gateway.

    ``lane`` is a fresh lane of the upstream's format (its own options:
    ``json_loads``, ``strict``, ...); ``to`` the name of the format to serve,
    a key of ``FORMATS`` (``"chat"``, ``"responses"``, ``"messages"``, ...;
    the lane's own format too: a validating, normalising proxy). ``model`` and ``id`` are the served
    object's (default: the upstream's model, and its id under the target's
    prefix); ``created`` its creation time in Unix seconds (the relay reads
    no clock: pass ``int(time.time())``).

    Sans-IO like the lanes: :meth:`start` with the upstream's status and
    headers, :meth:`feed` each read of its body, :meth:`close` at its end;
    each returns the bytes to write downstream (often ``b""``). A source
    that ends badly ends the target badly: FAILED or TRUNCATED upstream (a
    cut connection, an error event, bytes that cannot be read) becomes the
    target's in-stream error, never a clean finish. A failure before the
    stream is also offered as the target's HTTP error (:meth:`error_response`).

    ``lean=True``: the relay keeps only what the target must still write, so
    the memory a stream holds does not grow with its length (a gateway's
    mode). The bytes are the same as without it. The lane's snapshot, the
    :attr:`turn` and the emitter's blocks keep no text, reasoning or refusal
    (``turn.text`` reads ``""``; see ``Lane.make_lean``, ``PartStream(lean=)``);
    what is kept: the tool calls (``turn.tool_calls``, with their input, as
    without it), and, for a Responses target, each output item's text, which
    its ``.done`` events and the final response repeat. The verdict, error, warnings, usage, finish
    reason, ids and tool calls are as without it. See ``docs/gateways.md``.
    """

    def __init__(
        self,
        lane: Lane[Any],
        to: str,
        *,
        model: str | None = None,
        id: str | None = None,
        created: int = 0,
        lean: bool = False,
    ) -> None:
        target = FORMATS.get(to)
        if target is None:
            raise ValueError(f"to= must be one of {', '.join(FORMATS)}, not {to!r}")
        emitter: type[Emitter] = target.emitter
        if lane.bytes_fed:
            # Its comments were not kept: they could not be relayed where they came.
            raise UsageError("a lane must be given to a Relay before any feed()")
        self.to = to
        #: Whether the relay keeps only what the target must still write (see the class).
        self.lean = lean
        #: The source, read as parts (its ``turn`` is what the upstream sent so far).
        self.stream = PartStream(lane, lean=lean)
        self._emitter = emitter(model=model, id=id, created=created)
        if lean:
            self._emitter.make_lean()
        self._skip: _Replayed | None = None
        # Per read: the lane's reading (feed_with_comments, less its check per read),
        # then the translation of its events.
        lane._keep_comments()
        self._read = lane._read
        self._translate = self.stream.translate
        # A delta continuing its open block is written by the emitter as the translator
        # makes it, with no part (see :meth:`_written`).
        self.stream.write_text_with(self._emitter.write_live, usage=self._emitter.take_usage)

    # -- the cycle -------------------------------------------------------------------

    def start(self, status: int = 200, headers: Headers | None = None) -> None:
        """Tell the relay what the upstream's HTTP response looked like (see ``Lane.start``).

        A non-2xx status or a body that is not an event stream is a failure
        before the stream: :meth:`close` reports it, as the target's in-stream
        error and, for a client that has not been answered yet, as
        :meth:`error_response`.
        """
        self.stream.start(status, headers)

    def feed(self, data: bytes | bytearray | memoryview) -> bytes:
        """Read the next bytes of the upstream's body; return the bytes to send downstream."""
        stream = self.stream
        pending = stream._begin_read()
        if pending is None:
            events = self._read_events(data)
            if Comment in map(type, events):  # _relay's choice, without its call per read
                return self._with_keepalives(events)
            return self._written(events)
        # Text deltas before the read's first event went straight to the translator (no
        # event made): written while read, as _written writes them, or made into parts.
        emitter = self._emitter
        direct = emitter.direct = []
        try:
            events = self._read(data)  # _read_events, inline: a call less per read
        except ProtocolError as exc:
            events = exc.events
        finally:
            emitter.direct = None
            stream._end_read((), pending)
        if pending:
            direct.append(self._write(pending))
        if events:
            direct.append(self._relay(events))
        return b"".join(direct)  # one piece is returned as it is

    def _read_events(self, data: bytes | bytearray | memoryview) -> list[Any]:
        """The source lane's events (and comments) of one read."""
        try:
            return self._read(data)
        except ProtocolError as exc:
            # The source's bytes stopped making sense: the lane is failed for good
            # (code protocol_error) and its events end with its StreamEnd; the
            # target gets its in-stream error as for any upstream failure.
            return exc.events

    def close(self) -> bytes:
        """The upstream's body ended (or broke off): the last bytes to send downstream.

        Bytes that would finish the stream cleanly are never written unless
        the upstream finished it cleanly: a cut upstream ends the target with
        its in-stream error.
        """
        try:
            events = self.stream.lane.close()
        except ProtocolError as exc:
            events = exc.events
        return self._relay(events)

    def keepalive(self) -> bytes:
        """A keepalive to send while the upstream is quiet: ``: keepalive`` and a line break.

        A comment line with no blank line after it: every SSE client skips it
        and it still resets their read timeouts (a comment *and* a blank line
        right after an ``id:`` line trips the openai SDK's decoder). A target
        whose clients fail on a comment has its own (Gemini: a blank line, since
        google-genai reads a comment line as JSON and raises).
        """
        return self._emitter.keepalive

    def error_response(self) -> ErrorResponse | None:
        """A failure before the stream, as the target API answers one; else None.

        ``(status, headers, body)``: the upstream's status (502 when it sent
        none that says failure), a JSON content type with ``retry-after`` and
        the request id when the upstream gave them, and the target's JSON
        error body. Known after :meth:`close`. A gateway that has not written
        anything downstream yet sends this instead of the bytes ``close()``
        returned.
        """
        error = self.stream.error
        if self.stream.outcome is not Outcome.FAILED or error is None or error.status is None:
            return None
        return self._emitter.error_response(error)

    # -- resuming a Responses upstream --------------------------------------------------

    def resume_plan(self) -> Any:
        """How to reconnect a dropped Responses upstream (a ``ResumePlan``), or None.

        Ask this instead of calling :meth:`close` when the upstream's
        connection broke: the client downstream keeps its stream open.
        """
        return None if self._emitter.finished else self.stream.resume_plan()

    def resume(self) -> bytes:
        """Get ready for the new connection's bytes; the bytes to send downstream.

        After a replay from the start, what was already relayed is not sent
        again: the relay skips it as the replay brings it back.
        """
        if self._emitter.finished:
            raise UsageError("the relayed stream has ended: nothing to resume")
        before = self.stream.turns
        parts = self.stream.resume()
        if parts and type(parts[0]) is Restart:
            if self._skip is None:
                self._skip = _Replayed()
                # What the replay brings back is checked part by part from now on.
                self.stream.write_text_with(None)
            self._skip.restart(before)
        return self._write(parts)

    # -- what the source knows -----------------------------------------------------------

    @property
    def lane(self) -> Lane[Any]:
        """The source lane."""
        return self.stream.lane

    @property
    def outcome(self) -> Outcome | None:
        """The source's verdict (None while it is open)."""
        return self.stream.outcome

    @property
    def error(self) -> StreamError | None:
        """Why the source failed or was cut."""
        return self.stream.error

    @property
    def warnings(self) -> list[LaneWarning]:
        """The source's warnings."""
        return self.stream.warnings

    @property
    def turn(self) -> Turn:
        """What the source has sent so far, as one turn."""
        return self.stream.turn

    # -- internals -------------------------------------------------------------------------

    def _relay(self, events: list[Any]) -> bytes:
        """The bytes for the source lane's events: their parts, and each upstream
        comment as a keepalive line where it came."""
        if Comment not in map(type, events):
            return self._written(events)
        return self._with_keepalives(events)

    def _with_keepalives(self, events: list[Any]) -> bytes:
        """:meth:`_relay` of events among which a comment is."""
        out: list[bytes] = []
        start = 0
        for at, event in enumerate(events):
            if type(event) is Comment:
                out.append(self._written(events[start:at]))
                if not self._emitter.finished:
                    out.append(self._emitter.keepalive)
                start = at + 1
        out.append(self._written(events[start:]))
        return b"".join(out)

    def _written(self, events: list[Any]) -> bytes:
        """The bytes of lane events: the deltas the emitter took straight from the
        translator (no part made: ``Emitter.write_live``, given to the stream's
        ``write_text_with``, which writes only while its ``direct`` is a list: while
        events are read here, and never once a replay is being skipped), then the
        rest, from their parts."""
        emitter = self._emitter
        direct = emitter.direct = []
        try:
            parts = self._translate(events)
        finally:
            emitter.direct = None
        if parts:
            direct.append(self._write(parts))
        return b"".join(direct)  # one piece is returned as it is

    def _write(self, parts: list[Part]) -> bytes:
        emitter = self._emitter
        if emitter.finished:
            return b""  # after the end, bytes upstream (keepalives too) have nothing to say
        if self._skip is not None:
            parts = self._skip.filter(parts)
        return emitter.emit(parts, self.stream) if parts else b""

    def __repr__(self) -> str:
        state = "open" if self.outcome is None else self.outcome.value
        return f"<Relay {type(self.lane).__name__} to {self.to}, {state}>"


_TEXTS: Final = {TextDelta: "text", ReasoningDelta: "reasoning", RefusalDelta: "refusal"}


class _Replayed:
    """What a replay from the start brings back and the client already has.

    ``_sent`` is how much of each choice's text, reasoning and refusal, and of
    each tool call's input, the client has (with whether the call ended);
    ``_again`` how much of it the replay has brought back so far. A part is
    dropped, or cut, where it repeats what the client has. A second replay
    before the first caught up keeps the larger of the two.
    """

    def __init__(self) -> None:
        self._sent: dict[tuple[str, int, int], int] = {}
        self._again: dict[tuple[str, int, int], int] = {}
        self._ended: set[tuple[int, int]] = set()

    def restart(self, turns: list[Turn]) -> None:
        """The stream replays from the start; ``turns``: what it had sent before."""
        sent = self._sent
        for turn in turns:
            choice = turn.choice
            lengths = {  # a lean turn keeps no text, but it knows how much there was
                ("text", choice, -1): turn.length("text"),
                ("reasoning", choice, -1): turn.length("reasoning"),
                ("refusal", choice, -1): turn.length("refusal"),
            }
            for index, call in enumerate(turn.tool_calls):
                lengths[("call", choice, index)] = len(call.arguments)
                if call.done:
                    self._ended.add((choice, index))
            lengths[("reasoning_blocks", choice, -1)] = len(turn.reasoning_blocks)
            for key, length in lengths.items():
                sent[key] = max(sent.get(key, -1), length)
        self._again = {}

    def filter(self, parts: list[Part]) -> list[Part]:
        """``parts`` less what the client already has."""
        out: list[Part] = []
        for part in parts:
            if isinstance(part, TextDelta | ReasoningDelta | RefusalDelta):
                text = self._new((_TEXTS[type(part)], part.choice, -1), part.text)
                if text is not None:
                    out.append(part if text is part.text else attrs.evolve(part, text=text))
            elif isinstance(part, ToolCallDelta):
                text = self._new(("call", part.choice, part.index), part.text)
                if text is not None:
                    out.append(part if text is part.text else attrs.evolve(part, text=text))
            elif isinstance(part, ToolCallStart):
                if ("call", part.choice, part.index) not in self._sent:
                    out.append(part)
            elif isinstance(part, ToolCallEnd):
                if (part.choice, part.index) not in self._ended:
                    out.append(part)
            elif isinstance(part, ReasoningStart | ReasoningEnd):
                if part.index >= self._sent.get(("reasoning_blocks", part.choice, -1), 0):
                    out.append(part)
            elif isinstance(part, MessageItemStart):
                if not self._behind(part.choice):
                    out.append(part)
            else:
                out.append(part)
        return out

    def _behind(self, choice: int) -> bool:
        """Whether the replay of ``choice`` has yet to bring back text or refusal the client
        has: a message item opening there is one the client saw open."""
        again, sent = self._again, self._sent
        return any(
            again.get((kind, choice, -1), 0) < sent.get((kind, choice, -1), -1)
            for kind in ("text", "refusal")
        )

    def _new(self, key: tuple[str, int, int], text: str) -> str | None:
        """What of ``text`` the client does not have yet (None: nothing)."""
        at = self._again.get(key, 0)
        self._again[key] = at + len(text)
        sent = self._sent.get(key, -1)
        if at >= sent:
            return text
        return text[sent - at :] if at + len(text) > sent else None
