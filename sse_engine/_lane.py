"""The machinery every lane shares: HTTP start, feeding, the sticky error state,
exactly one StreamEnd, warnings and strict mode.

A lane subclass implements ``_on_event`` (one parsed SSE event in, typed lane
events out) and, when the transport ends without a terminal event,
``_on_transport_end``; it names its event union as the type parameter
(``Lane[ChatEvent]``), so ``feed()`` and ``close()`` are typed per lane.
Everything else (pre-stream JSON error bodies, trailing bytes after the end,
turning bad bytes into a ProtocolError that keeps what was decoded, refusing
to go on after one) lives here once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Generic, NoReturn, TypeVar, cast

from sse_engine._errors import EventTooLarge, ProtocolError, UsageError
from sse_engine._headers import DROPPED_PARAMS_HEADER, HeaderMap, dropped_params
from sse_engine._json import describe
from sse_engine._lane_body import ErrorBody
from sse_engine._lane_decode import invalid_json, lane_loads
from sse_engine._lane_events import (
    FrameItem,
    Headers,
    JsonLoads,
    LaneEvent,
    LaneWarning,
    StreamEnd,
    StreamRestarted,
)
from sse_engine._lane_reads import refuse_str, runs, uninterpretable
from sse_engine._lane_reports import Reports
from sse_engine._lane_shape import ShapeCheck
from sse_engine._outcome import Outcome, StreamError, with_headers
from sse_engine._parser import DEFAULT_MAX_EVENT_SIZE, SSEParser
from sse_engine._sse import Comment, ServerSentEvent

__all__ = [
    "FrameItem",
    "Headers",
    "JsonLoads",
    "Lane",
    "LaneEvent",
    "LaneWarning",
    "StreamEnd",
    "StreamRestarted",
]

#: The events a lane emits: its own union (``ChatEvent``, ``ResponsesEvent``, ...).
E = TypeVar("E", bound=LaneEvent | Comment)


# The lane's life: start() may only come first; ERROR_BODY collects a JSON error
# envelope instead of parsing SSE; FAILED is the sticky error state.
_NEW, _STREAM, _ERROR_BODY, _CLOSED, _FAILED = "new", "stream", "error_body", "closed", "failed"


class Lane(Generic[E]):
    """Shared base of the lanes; see ChatCompletionsLane, ResponsesLane, MessagesLane, GeminiLane.

    ``E`` is the lane's event union: ``feed()`` and ``close()`` return ``list[E]`` (``Lane[Any]``
    is any lane). ``json_loads`` decodes each event's data (inject ``orjson.loads`` for speed);
    ``strict`` turns tolerated anomalies into :class:`ProtocolError`; ``max_event_size`` is
    passed to the :class:`SSEParser` and also bounds a pre-stream error body.
    """

    #: The event that ends this lane's stream normally, for messages.
    terminal_event_name = "the terminal event"
    #: The API this lane reads, for messages ("Chat Completions", ...).
    api_name = "this lane's API"
    #: Whether a dropped stream can be picked up again (:meth:`resume`): Responses only.
    resumable: ClassVar[bool] = False
    # State that starts the same in every lane lives on the class until an instance sets
    # its own: fewer stores to make a lane, and an idle one stays small (a gateway holds many).
    _state = _NEW
    _headers: Mapping[str, str] = HeaderMap()  # its own HeaderMap once start() gave headers
    _comments = False  # feed_with_comments() was called: the parser keeps comments
    #: Open, nothing discarded: reads go to the parser at once (_open_for sets it; changes clear).
    _plain = False
    _discarding = False  # an oversized event came after the verdict: the rest is dropped
    #: Set while a subclass still wants events after its verdict (a Responses ``error`` is
    #: followed by ``response.failed``): ``_on_event`` sees each, ``outcome`` already set.
    _post_end_events = False

    def __init__(
        self,
        *,
        json_loads: JsonLoads = json.loads,
        strict: bool = False,
        max_event_size: int | None = DEFAULT_MAX_EVENT_SIZE,
    ) -> None:
        self.json_loads = json_loads  # and self._loads, what the lane decodes with
        self.strict = strict
        self.max_event_size = max_event_size
        #: The stream's verdict once known, and the error that came with it.
        self.outcome: Outcome | None = None
        self.error: StreamError | None = None
        self._body: ErrorBody | None = None  # a JSON error body sent instead of a stream
        self._failure = ""  # what the sticky error said (its traceback holds this lane)
        self._parser = self._new_parser()
        #: The lane's warnings and where each was noticed; its helpers report there too.
        self._reports = Reports(strict, self._parser)
        #: The anomalies the lane tolerated (each a ProtocolError in strict mode).
        self.warnings: list[LaneWarning] = self._reports.warnings
        recognize = type(self).recognize
        #: Until an event of the lane's own shape arrives: the check for a foreign stream.
        self._shape: ShapeCheck | None = (
            None if recognize is Lane.recognize else ShapeCheck(type(self), recognize)
        )
        self._setup()
        #: Set by a PartStream for its read: its deltas' sink, no event made (Translator.sink).
        # Set last: made before the lane's own attributes, it cost the Messages lane 3%.
        self._text_sink: Callable[..., Any] | None = None

    # -- what subclasses provide -------------------------------------------

    def _setup(self) -> None:
        """Initialise the lane's own state; ``__init__`` calls it once, last."""

    @staticmethod
    def recognize(event: str, payload: Any) -> str | None:
        """Why an SSE event is one this lane's wire format sends, or None (its format's
        ``recognize`` in ``FORMATS``; a stream none of whose events it recognises ends
        FAILED with ``wrong_lane``). The base lane recognises nothing and checks nothing."""
        return None

    @staticmethod
    def recognize_error(event: str, payload: Any) -> str | None:
        """Why an error report has this lane's own shape, or None (see ``FORMATS``)."""
        return None

    @property
    def json_loads(self) -> JsonLoads:
        """What decodes each event's data (``json.loads`` unless one was given)."""
        return self._json_loads

    @json_loads.setter
    def json_loads(self, json_loads: JsonLoads) -> None:
        self._json_loads = json_loads
        #: ``json_loads``, or for the stdlib's, the same answers with fewer calls.
        self._loads = lane_loads(json_loads)

    def _warn(self, code: str, message: str) -> None:
        self._reports.warn(code, message)

    def _violation(self, code: str, message: str) -> None:
        self._reports.violation(code, message)

    def add_warning(self, code: str, message: str) -> None:
        """Record a warning found by a layer that reads this lane (the parts'
        ``tool_input_invalid``), located like the lane's own: in ``warnings``, never an error."""
        self._reports.warn(code, message)

    @property
    def snapshot(self) -> Any:
        """What has been assembled so far (each lane types it); ``to_api()`` is the API's object."""
        raise NotImplementedError

    def _on_event(self, sse: ServerSentEvent, out: list[E]) -> None:
        """Interpret one SSE event, appending lane events to ``out``."""
        raise NotImplementedError

    def _on_transport_end(self) -> tuple[Outcome, StreamError | None]:
        """The verdict when the bytes end before an outcome is known."""
        return Outcome.TRUNCATED, StreamError(
            message=f"the transport ended before {self.terminal_event_name}",
            code="stream_truncated",
            retryable=True,
        )

    def resume_plan(self) -> Any:
        """How to reconnect a dropped stream; None when the lane cannot resume."""
        return None

    def resume(self) -> list[E]:
        """Ready the lane for a reconnection's bytes; :class:`UsageError` if it cannot resume."""
        raise UsageError(f"a {self.api_name} stream cannot be resumed")

    def make_lean(self) -> None:
        """Keep no streamed text in the snapshot (``snapshot.lean``; see docs/gateways.md)."""
        if self.bytes_fed:
            raise UsageError("make_lean() must be called before any feed()")
        self.snapshot.lean = True

    @property
    def retry(self) -> int | None:
        """The stream's last valid ``retry:`` (ms): how long to wait before reconnecting."""
        return self._parser.retry

    @property
    def bytes_fed(self) -> int:
        """How many bytes of the stream this connection's ``feed()`` calls have read."""
        return self._parser.bytes_fed

    @property
    def last_event_id(self) -> str:
        """The SSE last event ID of the current connection (for ``Last-Event-ID``)."""
        return self._parser.last_event_id

    @property
    def headers(self) -> Mapping[str, str]:
        """The response headers given to ``start()`` (empty without it).

        Read-only; lookups ignore case (``lane.headers["Retry-After"]``);
        names are kept lower-cased, a repeated header reads as its values
        joined with ``", "``.
        """
        return self._headers

    @property
    def dropped_params(self) -> list[str]:
        """What a gateway removed from the request, from ``X-MindsHub-Dropped-Params``.

        The MindsHub gateway drops the tools it does not run (hosted file
        search, code interpreter) and names them in this header; the lane
        also reports them as a ``dropped_params`` warning, so a caller learns
        that a tool it asked for was never offered to the model. Empty when
        the header is absent.
        """
        return dropped_params(self._headers)

    # -- the public cycle ----------------------------------------------------

    def start(self, status: int = 200, headers: Headers | None = None) -> None:
        """Tell the lane what the HTTP response looked like (optional; default 200 SSE).

        A non-2xx status, or a content type other than ``text/event-stream``,
        means the body is a JSON error envelope: the lane collects it and
        ``close()`` reports it as ``Outcome.FAILED`` with ``error.status`` set.
        The headers are kept (``lane.headers``): every ``StreamError`` the lane
        reports carries their ``retry_after`` and ``request_id``, and
        ``X-MindsHub-Dropped-Params`` becomes ``lane.dropped_params``.
        """
        if self._state is not _NEW:
            raise UsageError("start() must come before any feed() or close()")
        if headers is not None:
            self._headers = HeaderMap(headers)
        self._body = ErrorBody.instead_of_stream(status, self._headers, self.max_event_size)
        self._state = _STREAM if self._body is None else _ERROR_BODY
        dropped = self.dropped_params
        if dropped:
            self._warn(
                "dropped_params",
                f"the gateway removed {', '.join(dropped)} from the request "
                f"({DROPPED_PARAMS_HEADER}): the model was never offered them",
            )

    def feed(self, data: bytes | bytearray | memoryview) -> list[E]:
        """Feed the next bytes of the body; return the lane events they complete.

        Raises :class:`ProtocolError` when the bytes cannot be interpreted; the
        events decoded before the failure are on its ``events`` attribute, in
        the snapshot, and end with the stream's ``StreamEnd(FAILED, ...)``;
        every later call raises again. Raises :class:`UsageError` for a
        ``str`` (the lane decodes the bytes itself) or after ``close()``.
        """
        if not self._comments:
            return self._read(data)
        try:
            return [event for event in self._read(data) if type(event) is not Comment]
        except ProtocolError as exc:
            exc.events = [event for event in exc.events if type(event) is not Comment]
            raise

    def feed_with_comments(self, data: bytes | bytearray | memoryview) -> list[E | Comment]:
        """:meth:`feed`, and each comment line of the stream (a keepalive) as a
        :class:`~sse_engine.Comment` where it came (none after the verdict).

        For a relay that passes keepalives on where they were. The parser keeps
        comments from the first call on, which must come before any ``feed()``
        (:class:`UsageError` otherwise); a lane not asked pays nothing for them.
        """
        if not self._comments:
            self._keep_comments()
        return self._read(data)

    def _keep_comments(self) -> None:
        """feed_with_comments()'s switch, for a reader that then calls ``_read`` (a relay)."""
        if self._parser.bytes_fed:
            raise UsageError("feed_with_comments() must come before any feed()")
        self._comments = True
        self._parser = self._reports.parser = self._new_parser()

    def _read(self, data: bytes | bytearray | memoryview) -> list[Any]:
        """One read's events (and kept comments); :meth:`_open_for` first unless ``_plain``."""
        if not self._plain and (done := self._open_for(data)) is not None:
            return done
        if type(data) is not bytes and isinstance(cast(object, data), str):
            refuse_str()
        parser = self._parser
        # Bytes after the verdict are still parsed: what is reported about them (one
        # event_after_end per event) must not depend on how the reads were split.
        try:
            sses = parser.feed(data)
        except EventTooLarge as exc:
            before = self._interpret(exc.events)  # the events before it count
            if self.outcome is None:
                self._fail(exc, before)
                raise
            return self._oversized_after_end(exc, before)
        if parser.invalid_utf8:
            return self._interpret(sses)
        out: list[Any] = []
        if sses:
            self._interpret_into(sses, out)
        return out

    def _open_for(self, data: bytes | bytearray | memoryview) -> list[Any] | None:
        """A read when the lane is not known to be open: None to parse it, or the events."""
        given: object = data  # typed as bytes, but a caller may still pass a str
        if type(given) is not bytes and isinstance(given, str):
            refuse_str()
        state = self._state
        if state is _NEW:
            self._state = state = _STREAM
        if state is not _STREAM:
            if state is _ERROR_BODY:
                assert self._body is not None
                self._body.add(data)
                return []
            self._raise_not_open()
        if self._discarding:
            return []
        self._plain = True
        return None

    def _oversized_after_end(self, exc: EventTooLarge, out: list[Any]) -> list[Any]:
        # Oversized garbage after the verdict changes nothing: drop the rest.
        self._discarding = True
        self._plain = False
        self._post_end_events = False
        self._warn("trailing_data", f"bytes after {self.terminal_event_name} ignored: {exc}")
        return out

    def close(self, *, error: StreamError | None = None) -> list[E]:
        """The transport ended: return the final events (a ``StreamEnd`` if not yet sent).

        ``error`` is why, when the caller knows more than "the bytes ended" (the
        transport's exception, an expired deadline, a refused resume, as
        :func:`iter_events` passes them): a ``TRUNCATED`` end carries it instead
        of the lane's own, and is not judged ``wrong_lane`` (a cut stream says
        nothing of the lane); any other outcome stands. Closing twice is harmless;
        ``feed()`` after ``close()`` raises :class:`UsageError`.
        """
        state = self._state
        if state is _FAILED:
            self._raise_not_open()
        self._state = _CLOSED
        self._plain = False
        if state is _CLOSED:
            return []
        if state is _ERROR_BODY:
            assert self._body is not None
            ended: list[E] = []
            self._end(Outcome.FAILED, self._body.error(self.json_loads), ended)
            return ended
        out: list[Any] = []
        if self.outcome is not None and self._parser.in_event and not self._discarding:
            self._warn(
                "trailing_data",
                f"an unterminated event after {self.terminal_event_name} was discarded",
            )
        if self.outcome is None:
            if self._parser.in_event:
                self._warn(
                    "unterminated_event",
                    "the stream ended inside an event, which was discarded",
                )
            self._parser.close()
            try:
                outcome, own = self._on_transport_end()
            except ProtocolError as exc:  # a strict-mode rule broken at the end
                self._fail(exc, out)
                raise
            if error is not None and outcome is Outcome.TRUNCATED:
                own = error
                self._shape = None  # only a stream that ended can be judged wrong_lane
            self._end(outcome, own, out)
        return out

    # -- helpers for subclasses ----------------------------------------------

    def _end(self, outcome: Outcome, error: StreamError | None, out: list[Any]) -> None:
        """Record the verdict and emit the stream's one StreamEnd.

        A stream whose events were all foreign to this lane (none recognised,
        at least one of another shape) ends FAILED with ``wrong_lane`` instead
        of the verdict the lane would have given it; a server-reported
        failure stays what it is.
        """
        if self.outcome is not None:
            return
        shape = self._shape
        if outcome is not Outcome.FAILED and shape is not None and shape.foreign is not None:
            outcome, error = Outcome.FAILED, shape.wrong_lane_error(self.api_name)
        self.outcome = outcome
        self._reports.ended = True
        self.error = error = None if error is None else with_headers(error, self._headers)
        out.append(StreamEnd(outcome, error))

    def _with_context(self, error: StreamError) -> StreamError:
        """``error`` with what the response headers say (``retry_after``, ``request_id``)."""
        return with_headers(error, self._headers)

    def _decode(self, sse: ServerSentEvent) -> Any:
        """The event's data as JSON; bad JSON is a ProtocolError that says where."""
        try:
            payload = self._loads(sse.data)
        except (ValueError, TypeError, RecursionError) as exc:
            raise invalid_json(self._reports.event_index, sse, exc) from exc
        if self._shape is not None:
            self._note_shape(sse.event, payload)
        return payload

    def _note_shape(self, event: str, payload: Any) -> None:
        """Check a decoded event's shape while the stream has not proved its own."""
        shape = self._shape
        if shape is not None and shape.recognized(event, payload):
            self._shape = None

    def _reopen(self) -> None:
        """Prepare for a new connection's bytes (resume): a fresh parser, open again; a
        TRUNCATED verdict from ``close()`` is withdrawn (the new connection ends with its own)."""
        if self._state is _FAILED:
            self._raise_not_open()
        self._parser = self._new_parser()
        reports = self._reports
        reports.parser = self._parser
        reports.ended = False
        self._state = _STREAM
        self._plain = self._discarding = self._post_end_events = False
        self.outcome = self.error = None

    # -- internals -------------------------------------------------------------

    def _new_parser(self) -> SSEParser[Any]:
        if self._comments:
            return SSEParser(self.max_event_size, comments=True)
        return SSEParser(self.max_event_size)

    def _interpret(self, items: list[Any]) -> list[Any]:
        out: list[Any] = []
        marks = self._parser.invalid_utf8  # where this read held invalid UTF-8 (rarely anywhere)
        if not marks:
            self._interpret_into(items, out)
            return out
        # Each mark goes where it was among the events, however the reads were split.
        for run, mark in runs(items, marks):
            self._interpret_into(run, out)
            if mark is not None:
                self._reports.invalid_utf8(mark[1], mark[2])
        return out

    def _interpret_into(self, items: list[Any], out: list[Any]) -> None:
        on_event = self._on_event
        reports = self._reports
        for sse in items:
            if type(sse) is not ServerSentEvent:  # a Comment, read only when kept
                if self.outcome is None:
                    out.append(sse)
                continue
            reports.event_index += 1
            if self.outcome is not None and not self._post_end_events:
                self._warn(
                    "event_after_end",
                    f"event {describe(sse.event)} after {self.terminal_event_name} was ignored",
                )
                continue
            try:
                on_event(sse, out)
            except ProtocolError as exc:
                self._fail(exc, out)
                raise
            except (
                KeyError, TypeError, AttributeError, IndexError, ValueError, RecursionError
            ) as exc:
                raise self._fail(uninterpretable(reports.event_index, sse.event, exc), out) from exc

    def _fail(self, exc: ProtocolError, out: list[Any]) -> ProtocolError:
        """Enter the sticky error state; ``exc``, for the caller to raise in its ``except``
        (not here: a traceback frame holding the error is a cycle), its ``events`` the events
        so far, ending with the ``StreamEnd`` (``FAILED``) unless the verdict came earlier."""
        self._state = _FAILED
        self._plain = False
        self._failure = str(exc)
        exc.events = out
        if self.outcome is None:
            error = StreamError(message=str(exc), code="protocol_error", retryable=True)
            self._post_end_events = False
            self._end(Outcome.FAILED, error, out)
        return exc

    def _raise_not_open(self) -> NoReturn:
        if self._state is _FAILED:
            raise ProtocolError(f"this lane failed earlier: {self._failure}")
        raise UsageError("feed() called after close(): the stream has ended")


