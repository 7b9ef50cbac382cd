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
from collections.abc import Mapping
from typing import Any, Generic, NoReturn, TypeVar, overload

import attrs

from sse_engine._errors import EventTooLarge, ProtocolError, UsageError
from sse_engine._headers import (
    DROPPED_PARAMS_HEADER,
    HeaderMap,
    content_type,
    dropped_params,
    request_id,
    retry_after,
)
from sse_engine._json import describe
from sse_engine._lane_events import (
    FrameItem,
    Headers,
    JsonLoads,
    LaneEvent,
    LaneWarning,
    StreamEnd,
    StreamRestarted,
)
from sse_engine._lane_reports import LaneReports
from sse_engine._outcome import Outcome, StreamError
from sse_engine._parser import DEFAULT_MAX_EVENT_SIZE, SSEParser
from sse_engine._sse import ServerSentEvent

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
E = TypeVar("E", bound=LaneEvent)


# The lane's life: start() may only come first; ERROR_BODY collects a JSON
# error envelope instead of parsing SSE; FAILED is the sticky error state.
_NEW, _STREAM, _ERROR_BODY, _CLOSED, _FAILED = "new", "stream", "error_body", "closed", "failed"


class Lane(LaneReports, Generic[E]):
    """Shared base of the three lanes; see ChatCompletionsLane, ResponsesLane, MessagesLane.

    ``E`` is the lane's event union: ``feed()`` and ``close()`` return
    ``list[E]`` (``Lane[Any]`` is any lane). ``json_loads`` decodes each
    event's data (inject ``orjson.loads`` for speed); ``strict`` turns
    tolerated anomalies into :class:`ProtocolError`;
    ``max_event_size`` is passed to the :class:`SSEParser` and also bounds a
    pre-stream error body.
    """

    #: The event that ends this lane's stream normally, for messages.
    terminal_event_name = "the terminal event"
    # Rarely set state lives on the class until an instance needs its own, so
    # an idle lane stays small (a gateway holds thousands).
    _headers: Mapping[str, str] | None = None  # a HeaderMap once start() gave headers
    def __init__(
        self,
        *,
        json_loads: JsonLoads = json.loads,
        strict: bool = False,
        max_event_size: int | None = DEFAULT_MAX_EVENT_SIZE,
    ) -> None:
        self.json_loads = json_loads
        self.strict = strict
        self.max_event_size = max_event_size
        self.warnings: list[LaneWarning] = []
        self.outcome: Outcome | None = None
        self.error: StreamError | None = None
        self._state = _NEW
        self._status: int | None = None
        self._content_type: str | None = None
        self._body = bytearray()
        self._failure: ProtocolError | None = None
        self._event_index = -1
        self._bytes_before = 0
        self._parser: SSEParser[ServerSentEvent] = SSEParser(max_event_size)
        #: Comment lines (keepalives) read so far; None unless count_comments() was called.
        self.comments_read: int | None = None
        #: A subclass sets this while it still wants events after its verdict
        #: (a Responses ``error`` event is followed by ``response.failed``): the
        #: bytes keep being parsed and ``_on_event`` still sees each event, with
        #: ``outcome`` already set. Cleared, later events are trailing data again.
        self._post_end_events = False
        self._discarding = False
        self._setup()

    # -- what subclasses provide -------------------------------------------

    def _setup(self) -> None:
        """Initialise the lane's own state; ``__init__`` calls it once, last."""

    @staticmethod
    def encode_frame(item: FrameItem) -> bytes:
        """This lane's wire frame for one of its events or a payload dict (``b""`` if none).

        The inverse of ``feed()``: see :func:`sse_engine.encode_lane_events`.
        """
        raise TypeError(f"no frame encoder for {type(item).__name__}: use a concrete lane class")

    @property
    def snapshot(self) -> Any:
        """What has been assembled so far (each lane types it); ``to_api()`` is the API's object."""
        raise NotImplementedError

    def _on_event(self, sse: ServerSentEvent, out: list[E]) -> None:
        """Interpret one SSE event, appending lane events to ``out``."""
        raise NotImplementedError

    def _on_transport_end(self) -> tuple[Outcome, StreamError | None]:
        """The verdict when the bytes end before an outcome is known."""
        return Outcome.TRUNCATED, self._truncation_error()

    def resume_plan(self) -> Any:
        """How to reconnect a dropped stream; None when the lane cannot resume."""
        return None

    def resume(self) -> list[E]:
        """Ready the lane for a reconnection's bytes; :class:`UsageError` if it cannot resume."""
        raise UsageError(f"a {self.api_name} stream cannot be resumed")

    @property
    def retry(self) -> int | None:
        """The stream's last valid ``retry:`` (ms): how long to wait before reconnecting."""
        return self._parser.retry

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
        return self._headers if self._headers is not None else _NO_HEADERS

    @property
    def dropped_params(self) -> list[str]:
        """What a gateway removed from the request, from ``X-MindsHub-Dropped-Params``.

        The MindsHub gateway drops the tools it does not run (hosted file
        search, code interpreter) and names them in this header; the lane
        also reports them as a ``dropped_params`` warning, so a caller learns
        that a tool it asked for was never offered to the model. Empty when
        the header is absent.
        """
        return dropped_params(self._headers) if self._headers is not None else []

    def count_comments(self) -> None:
        """Count the comment lines (keepalives) the stream carries in ``comments_read``.

        Off unless asked, so a lane that does not forward them pays nothing; a
        relay turns it on. Call it before the first ``feed()``.
        """
        if self._parser.bytes_fed:
            raise UsageError("count_comments() must come before any feed()")
        self.comments_read = 0
        self._parser = SSEParser(self.max_event_size, comments=True)  # type: ignore[assignment]

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
        self._status = status
        if headers is not None:
            self._headers = HeaderMap(headers)
        media = self._content_type = content_type(self._headers)
        if not 200 <= status < 300 or media not in (None, "text/event-stream"):
            self._state = _ERROR_BODY
        else:
            self._state = _STREAM
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
        given: object = data  # typed as bytes, but a caller may still pass a str
        if type(given) is not bytes and isinstance(given, str):
            raise UsageError(
                "feed() takes bytes, not str: pass the raw body bytes (the lane decodes UTF-8)"
            )
        state = self._state
        if state is _NEW:
            self._state = state = _STREAM
        if state is not _STREAM:
            if state is _ERROR_BODY:
                self._collect_body(data)
                return []
            self._raise_not_open()
        if self._discarding:
            return []
        # Bytes after the verdict are still parsed, so that what is reported
        # about them (one event_after_end per event) does not depend on how
        # the reads were split.
        parser = self._parser
        self._bytes_before = parser.bytes_fed
        try:
            sses = parser.feed(data)
        except EventTooLarge as exc:
            out = self._interpret(exc.events)
            if self.outcome is None:
                self._fail(exc, out)
            # Oversized garbage after the verdict changes nothing: drop the rest.
            self._discarding = True
            self._post_end_events = False
            self._warn("trailing_data", f"bytes after {self.terminal_event_name} ignored: {exc}")
            return out
        return self._interpret(sses)

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
        if state is _CLOSED:
            return []
        if state is _ERROR_BODY:
            return self._end_with_error_body()
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
            if error is not None and outcome is Outcome.TRUNCATED:
                own = error
                self._foreign = None  # only a stream that ended can be judged wrong_lane
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
        if outcome is not Outcome.FAILED and not self._recognized and self._foreign is not None:
            outcome, error = Outcome.FAILED, self._wrong_lane_error()
        self.outcome = outcome
        self.error = error = self._with_context(error)
        out.append(StreamEnd(outcome, error))

    @overload
    def _with_context(self, error: StreamError) -> StreamError: ...
    @overload
    def _with_context(self, error: None) -> None: ...

    def _with_context(self, error: StreamError | None) -> StreamError | None:
        """``error`` with what the response headers say (``retry_after``, ``request_id``).

        A lane calls it for an error it puts on an event; ``_end`` for every verdict.
        """
        headers = self._headers
        if error is None or headers is None:
            return error
        wait = error.retry_after
        if wait is None:
            wait = retry_after(headers)
        ident = error.request_id or request_id(headers)
        if wait == error.retry_after and ident == error.request_id:
            return error
        return attrs.evolve(error, retry_after=wait, request_id=ident)

    def _decode(self, sse: ServerSentEvent) -> Any:
        """The event's data as JSON; bad JSON is a ProtocolError that says where."""
        try:
            payload = self.json_loads(sse.data)
        except (ValueError, TypeError, RecursionError) as exc:
            snippet = sse.data[:80]
            raise ProtocolError(
                f"invalid JSON in SSE event #{self._event_index} (event {describe(sse.event)}, "
                f"in the bytes {self._bytes_before}..{self._parser.bytes_fed}): "
                f"{_exception_text(exc)}; data begins {snippet!r}"
            ) from exc
        if not self._recognized:
            self._note_shape(sse.event, payload)
        return payload

    def _truncation_error(self) -> StreamError:
        return StreamError(
            message=f"the transport ended before {self.terminal_event_name}",
            code="stream_truncated",
            retryable=True,
        )

    def _reopen(self) -> None:
        """Prepare for a new connection's bytes (resume): a fresh parser, open again.

        A TRUNCATED verdict from ``close()`` is withdrawn (the new connection
        ends with its own StreamEnd).
        """
        if self._state is _FAILED:
            self._raise_not_open()
        self._parser = SSEParser(self.max_event_size)
        if self.comments_read is not None:
            self._parser = SSEParser(self.max_event_size, comments=True)  # type: ignore[assignment]
        self._state = _STREAM
        self.outcome = None
        self.error = None
        self._post_end_events = False
        self._discarding = False
        self._after_end = None

    # -- internals -------------------------------------------------------------

    def _interpret(self, sses: list[ServerSentEvent]) -> list[E]:
        parser = self._parser
        marks: list[tuple[int, int, int]] = []
        if parser._bad_utf8 is not None:  # the parser's marks of invalid UTF-8 (rare)
            marks = parser.invalid_utf8
            parser._bad_utf8 = None
        if self.comments_read is not None:
            kept = [sse for sse in sses if type(sse) is ServerSentEvent]
            self.comments_read += len(sses) - len(kept)
            if marks:  # a mark's position counts the comments before it: count events only
                marks = [
                    (sum(type(item) is ServerSentEvent for item in sses[:position]), at, count)
                    for position, at, count in marks
                ]
            sses = kept
        out: list[E] = []
        if marks:
            # Each mark goes before the event it precedes, split or not.
            done = 0
            for position, offset, count in marks:
                self._interpret_into(sses[done:position], out)
                done = max(done, position)
                self._invalid_utf8(offset, count)
            self._interpret_into(sses[done:], out)
            return out
        self._interpret_into(sses, out)
        return out

    def _interpret_into(self, sses: list[ServerSentEvent], out: list[E]) -> None:
        on_event = self._on_event
        for sse in sses:
            self._event_index += 1
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
            except (
                KeyError, TypeError, AttributeError, IndexError, ValueError, RecursionError
            ) as exc:
                # A payload of the wrong shape (a string where an object belongs,
                # say): the bytes cannot be interpreted, which is a ProtocolError.
                wrapped = ProtocolError(
                    f"SSE event #{self._event_index} ({describe(sse.event)}) has a payload "
                    f"this lane cannot interpret: {_exception_text(exc)}"
                )
                wrapped.__cause__ = exc
                self._fail(wrapped, out)

    def _fail(self, exc: ProtocolError, out: list[Any]) -> NoReturn:
        """Enter the sticky error state and raise, keeping the events decoded so far.

        The events on ``exc.events`` end with the stream's ``StreamEnd``
        (``FAILED``, ``protocol_error``) unless the verdict came out earlier.
        """
        self._state = _FAILED
        self._failure = exc
        exc.events = out
        if self.outcome is None:
            error = StreamError(message=str(exc), code="protocol_error", retryable=True)
            self._post_end_events = False
            self._end(Outcome.FAILED, error, out)
        raise exc

    def _raise_not_open(self) -> NoReturn:
        if self._state is _FAILED:
            raise ProtocolError(f"this lane failed earlier: {self._failure}") from self._failure
        raise UsageError("feed() called after close(): the stream has ended")

    def _collect_body(self, data: bytes | bytearray | memoryview) -> None:
        room = (self.max_event_size or 1 << 62) - len(self._body)
        if room > 0:
            self._body += bytes(data[:room])

    def _end_with_error_body(self) -> list[E]:
        text = self._body.decode("utf-8", "replace")
        try:
            payload = self.json_loads(text)
        except (ValueError, TypeError, RecursionError):
            payload = None
        envelope = isinstance(payload, Mapping)  # "error": null (a response object) is no error
        if envelope and (payload.get("error") or payload.get("type") == "error"):
            error = StreamError.from_payload(payload, status=self._status)
        elif self._status is not None and 200 <= self._status < 300:
            error = StreamError(
                message=f"expected text/event-stream, got {self._content_type}: {text[:200]}",
                code="not_an_event_stream",
                status=self._status,
                retryable=False,
                raw=payload if payload is not None else text,
            )
        else:
            error = StreamError.from_text(text, status=self._status)
        out: list[E] = []
        self._end(Outcome.FAILED, error, out)
        return out


_NO_HEADERS: Mapping[str, str] = HeaderMap()


def _exception_text(exc: BaseException) -> str:
    """An exception as ``Type: message``, safe for one that carries a payload value."""
    try:
        text = str(exc)
    except (RecursionError, ValueError):
        text = ""
    if len(text) > 200:
        text = text[:199] + "…"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
