"""A real HTTP test server (aiohttp, 127.0.0.1, ephemeral port) that streams captures.

It serves the bundled captures (``sse_engine/captures/*.sse``) the way the
documented gateways do, with faults a test switches on through query
parameters of the POST (every client can send those):

``capture=NAME``    the capture to stream (default ``<lane>_basic``), or a stream a test
                    put in ``StreamServer.bodies`` under that name
``status=NNN``      a pre-stream error: a JSON error body with that status
``chunk=N``         write the body in pieces of N bytes (default: one write per event)
``cut=K:M,...``     connection i stops M bytes into event K (K counts the capture's
                    events from 0); the first cut applies to the POST, the next ones
                    to the resume GETs that follow
``cut_mode=abort``  how a cut ends: ``abort`` (connection reset, the default) or
                    ``eof`` (a clean end of the body)
``keepalive=MS``    the interval of the ``: keepalive`` comments below (default 50)
``prelude=N``       N keepalives before the first event (a slow start)
``think=K:N``       N keepalives before event K (a model thinking)
``silent=K:MS``     before event K, send nothing at all for MS ms, then close
                    (on the first connection only)
``no_newline=1``    send ``data: xxxx...`` without ever a line break
``run=1``           Responses only: rename ``resp_*`` ids to ``resp_run_*`` (agent runs)
``retry=MS``        start the stream with ``retry: MS``
``fallback=1``      Responses only: resumes come after the resume window, as Kindo
                    documents it: the final items (``response.output_item.done``)
                    and the terminal event only, numbered on from ``starting_after``
``ids=1``           Responses only: give each event an ``id:`` line carrying its
                    ``sequence_number``, as Kindo does
``late_status=NNN`` a slow start whose failure arrives inside the stream, as the
                    MindsHub document describes it: a 200, the ``prelude``
                    keepalives, then the lane's in-stream form of the error body of
                    status NNN (Chat: an error ``data:`` frame and ``[DONE]``;
                    Messages: ``event: error``; Responses: ``response.created`` then
                    ``response.failed`` carrying the body's error object)
``retry_after=V``   send ``Retry-After: V`` with a pre-stream error (``retry_after_ms=V``:
                    ``retry-after-ms: V``; ``request_id=R``: ``x-request-id: R``)
``refuse=S1,S2,..`` Responses only: the i-th resume GET of this stream is answered with
                    the JSON error of status Si (``ok`` serves it); later GETs are served
                    (``refuse_retry_after=V`` adds ``Retry-After: V`` to each refusal).
                    Wrong answers that are not errors: ``302`` redirects to a sign-in
                    page (``GET /v1/login``: a 200 ``text/html``), ``json`` is a 200
                    with the final response object (a server that ignored
                    ``stream=true``), ``text`` a 200 ``text/plain``

Gemini's ``POST /{v1beta,v1}/models/{model}:streamGenerateContent?alt=sse`` (what
google-genai calls, and the docs' examples under ``/v1``) serves the ``gemini``
captures the same way, its errors in Google's envelope.

``GET /v1/responses/{id}?stream=true&starting_after=N`` resumes a stream the
server has served, as Kindo documents it: events with ``sequence_number > N``
(``Last-Event-ID`` is honoured when ``starting_after`` is absent, and neither
means a replay from the start); a negative or non-integer ``starting_after``
is a 400; a ``resp_run_*`` id replays from the start only (a positive
``starting_after`` is a 400); an unknown id is a 404. The same path without
``stream=true`` is the plain retrieve: the final ``response`` object as JSON
(the terminal event's), for a client past the resume window.

``StreamServer.queue`` scripts successive POSTs: each POST takes the next entry
(a dict of the query parameters above) before the defaults, so a test can make
the first attempt fail one way, the second another, and the third succeed.

Every loop is bounded (event counts, keepalive counts, at most 2 MiB of
no-newline data, silences capped at 5 s) and the server binds 127.0.0.1 only.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import attrs
import httpx
import pytest
import requests
from aiohttp import web

from sse_engine import _transport
from sse_engine._reconnect import Reconnecting

CAPTURES = Path(__file__).resolve().parent.parent / "sse_engine" / "captures"
KEEPALIVE = b": keepalive\n\n"
LANES = {"chat/completions": "chat", "responses": "responses", "messages": "messages"}
#: The method of Gemini's stream path (``models/{model}:streamGenerateContent``).
GEMINI_METHOD = ":streamGenerateContent"
MAX_SILENCE = 5.0
NO_NEWLINE_LIMIT = 2 * 1024 * 1024

# Pre-stream error bodies in each lane's own envelope, for statuses the lanes'
# captures do not bundle (sse_engine/captures/<lane>_prestream_<status>.json win).
_OPENAI_ERRORS: dict[int, tuple[str, str, str | None, str | None]] = {
    400: ("invalid_request_error", "'messages' must not be empty.", "messages", None),
    401: ("invalid_request_error", "Incorrect API key provided: sk-...", None, "invalid_api_key"),
    404: ("invalid_request_error", "The model 'gpt-9' does not exist.", "model", "model_not_found"),
    429: (
        "requests",
        "Rate limit reached for requests per min (RPM).",
        None,
        "rate_limit_exceeded",
    ),
    500: ("server_error", "The server had an error while processing your request.", None, None),
    529: ("server_error", "The upstream provider is overloaded.", None, "overloaded"),
}
_GOOGLE_ERRORS: dict[int, tuple[str, str]] = {
    400: ("INVALID_ARGUMENT", "* GenerateContentRequest.contents: contents is not specified"),
    401: ("UNAUTHENTICATED", "Request had invalid authentication credentials."),
    403: ("PERMISSION_DENIED", "Method doesn't allow unregistered callers."),
    404: ("NOT_FOUND", "models/gemini-9 is not found for API version v1beta."),
    429: ("RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."),
    500: ("INTERNAL", "An internal error has occurred. Please retry or report."),
    503: ("UNAVAILABLE", "The model is overloaded. Please try again later."),
    504: ("DEADLINE_EXCEEDED", "Deadline expired before operation could complete."),
}
_ANTHROPIC_ERRORS: dict[int, tuple[str, str]] = {
    400: ("invalid_request_error", "messages: at least one message is required"),
    401: ("authentication_error", "invalid x-api-key"),
    404: ("not_found_error", "model: claude-9"),
    429: ("rate_limit_error", "Number of request tokens has exceeded your rate limit."),
    500: ("api_error", "Internal server error"),
    529: ("overloaded_error", "Overloaded"),
}


def lane_of_path(path: str) -> str | None:
    """The lane a POST path streams (Gemini's names the model), or None."""
    if path.endswith(GEMINI_METHOD) and "/models/" in path:
        return "gemini"
    return LANES.get(path.removeprefix("/v1/"))


def error_body(lane: str, status: int) -> bytes:
    """The JSON error body the server sends for ``status`` on ``lane``."""
    bundled = CAPTURES / f"{lane}_prestream_{status}.json"
    if bundled.exists():
        return bundled.read_bytes()
    if lane == "gemini":
        word, text = _GOOGLE_ERRORS[status]
        return json.dumps({"error": {"code": status, "message": text, "status": word}}).encode()
    if lane == "messages":
        kind, message = _ANTHROPIC_ERRORS[status]
        payload: dict[str, Any] = {
            "type": "error",
            "error": {"type": kind, "message": message},
            "request_id": f"req_test{status}",
        }
    else:
        kind, message, param, code = _OPENAI_ERRORS[status]
        payload = {"error": {"message": message, "type": kind, "param": param, "code": code}}
    return json.dumps(payload).encode()


def capture_bytes(name: str, *, run: bool = False) -> bytes:
    """A capture's bytes exactly as the server streams them."""
    data = (CAPTURES / f"{name}.sse").read_bytes()
    return data.replace(b"resp_", b"resp_run_") if run else data


def split_events(data: bytes) -> list[bytes]:
    """The capture's events, each with its terminating blank line (LF or CRLF captures)."""
    sep = b"\r\n\r\n" if b"\r\n\r\n" in data else b"\n\n"
    pieces = data.split(sep)
    events = [piece + sep for piece in pieces[:-1]]
    if pieces[-1]:
        events.append(pieces[-1])  # a capture cut inside its last event
    return events


def _sequence_number(event: bytes) -> int | None:
    for line in event.splitlines():
        if line.startswith(b"data:"):
            try:
                payload = json.loads(line[5:])
            except ValueError:
                return None
            number = payload.get("sequence_number") if isinstance(payload, dict) else None
            return number if isinstance(number, int) else None
    return None


def with_id(event: bytes) -> bytes:
    """The event with an ``id:`` line carrying its ``sequence_number`` (Kindo's shape)."""
    number = _sequence_number(event)
    return event if number is None else b"id: %d\n" % number + event


def _final_items(events: list[bytes], after: int) -> list[tuple[int, bytes]]:
    """What a resume past the window sends: each finished item, then the terminal event."""
    finals = [e for e in events if b'"type":"response.output_item.done"' in e] + events[-1:]
    out = []
    for number, event in enumerate(finals, start=after + 1):
        head, _, data = event.partition(b"data: ")
        payload = json.loads(data)
        payload["sequence_number"] = number
        text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
        out.append((len(events) + number, head + b"data: " + text.encode() + b"\n\n"))
    return out


def _response_id(events: list[bytes]) -> str | None:
    for event in events:
        for line in event.splitlines():
            if line.startswith(b"data:"):
                try:
                    payload = json.loads(line[5:])
                except ValueError:
                    continue
                response = payload.get("response") if isinstance(payload, dict) else None
                if isinstance(response, dict) and isinstance(response.get("id"), str):
                    return str(response["id"])
    return None


def _final_response(events: list[bytes]) -> dict[str, Any]:
    """The response object of the stream's terminal event: what a plain GET returns."""
    for event in reversed(events):
        data = event.partition(b"data: ")[2]
        if data:
            payload = json.loads(data)
            response = payload.get("response") if isinstance(payload, dict) else None
            if isinstance(response, dict) and response.get("status") not in (None, "in_progress"):
                return response
    raise AssertionError("the stored stream has no terminal event")


def late_failure(lane: str, status: int) -> list[bytes]:
    """The in-stream form of the failure whose pre-stream body is ``error_body(lane, status)``."""
    body = error_body(lane, status)
    payload = json.loads(body)
    if lane == "gemini":  # Google's error frame: the body's envelope (out of its array)
        envelope = payload[0] if isinstance(payload, list) else payload
        return [b"data: " + json.dumps(envelope).encode() + b"\r\n\r\n"]
    flat = json.dumps(payload, separators=(",", ":")).encode()
    if lane == "chat":
        return [b"data: " + flat + b"\n\n", b"data: [DONE]\n\n"]
    if lane == "messages":
        return [b"event: error\ndata: " + flat + b"\n\n"]
    response: dict[str, Any] = {
        "id": f"resp_late{status}",
        "object": "response",
        "status": "in_progress",
        "error": None,
        "output": [],
    }
    created = {"type": "response.created", "response": response, "sequence_number": 0}
    error = payload["error"]
    failed_response = {**response, "status": "failed", "error": error}
    failed = {"type": "response.failed", "response": failed_response, "sequence_number": 1}
    return [
        f"event: {frame['type']}\ndata: {json.dumps(frame)}\n\n".encode()
        for frame in (created, failed)
    ]


def _error_headers(query: Any) -> dict[str, str]:
    headers = {}
    if "retry_after" in query:
        headers["Retry-After"] = query["retry_after"]
    if "retry_after_ms" in query:
        headers["retry-after-ms"] = query["retry_after_ms"]
    if "request_id" in query:
        headers["x-request-id"] = query["request_id"]
    return headers


def _pair(value: str) -> tuple[int, int]:
    first, _, second = value.partition(":")
    return int(first), int(second or 0)


@attrs.define
class Faults:
    """The faults of one stream, read from the POST's query."""

    chunk: int = 0
    cuts: list[tuple[int, int]] = attrs.Factory(list)
    cut_mode: str = "abort"
    keepalive: float = 0.05
    prelude: int = 0
    think: tuple[int, int] | None = None
    silent: tuple[int, float] | None = None
    retry: int | None = None
    fallback: bool = False
    refusals: list[str] = attrs.Factory(list)
    refuse_retry_after: str | None = None

    @classmethod
    def from_query(cls, query: Any) -> Faults:
        think = _pair(query["think"]) if "think" in query else None
        silent = None
        if "silent" in query:
            at, ms = _pair(query["silent"])
            silent = (at, min(ms / 1000.0, MAX_SILENCE))
        return cls(
            chunk=int(query.get("chunk", 0)),
            cuts=[_pair(c) for c in query["cut"].split(",")] if "cut" in query else [],
            cut_mode=query.get("cut_mode", "abort"),
            keepalive=int(query.get("keepalive", 50)) / 1000.0,
            prelude=min(int(query.get("prelude", 0)), 1000),
            think=(think[0], min(think[1], 1000)) if think else None,
            silent=silent,
            retry=int(query["retry"]) if "retry" in query else None,
            fallback="fallback" in query,
            refusals=query["refuse"].split(",") if "refuse" in query else [],
            refuse_retry_after=query.get("refuse_retry_after"),
        )


@attrs.define
class Stored:
    """A served Responses stream, kept for resume GETs."""

    events: list[bytes]
    faults: Faults


@attrs.define
class Seen:
    """One request the server received (for assertions about resumes)."""

    method: str
    path: str
    query: dict[str, str]
    last_event_id: str | None


class StreamServer:
    """The aiohttp app on its own event loop in a background thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.url = ""
        self.stored: dict[str, Stored] = {}
        self.seen: list[Seen] = []
        #: Query parameters applied to every POST that does not set them itself
        #: (how a test puts faults under a client it does not control, such as
        #: the docs' example scripts).
        self.defaults: dict[str, str] = {}
        #: One entry per POST, taken in order: the parameters of that attempt
        #: (they win over ``defaults``; the POST's own query wins over both).
        self.queue: list[dict[str, str]] = []
        #: Streams a test made itself, served as ``capture=NAME`` like a bundled one.
        self.bodies: dict[str, bytes] = {}
        self._runner: web.AppRunner | None = None
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> None:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(timeout=10)

    async def _start(self) -> None:
        app = web.Application()
        for path in LANES:
            app.router.add_post(f"/v1/{path}", self._post)
        app.router.add_post("/{version}/models/{call}", self._post)
        app.router.add_get("/v1/responses/{id}", self._resume)
        app.router.add_get("/v1/login", self._login)
        self._runner = web.AppRunner(
            app, access_log=None, handler_cancellation=True, shutdown_timeout=0.5
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert isinstance(server, asyncio.base_events.Server)
        port = server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"

    def stop(self) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self.loop).result(timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)
        self.loop.close()

    def reset(self) -> None:
        self.bodies.clear()
        self.stored.clear()
        self.seen.clear()
        self.defaults.clear()
        self.queue.clear()

    # -- handlers ------------------------------------------------------------------------

    def _record(self, request: web.Request) -> None:
        self.seen.append(
            Seen(
                request.method,
                request.path,
                dict(request.query),
                request.headers.get("Last-Event-ID"),
            )
        )

    async def _post(self, request: web.Request) -> web.StreamResponse:
        self._record(request)
        await request.read()
        lane = lane_of_path(request.path)
        if lane is None:
            return _json_error(404, f"No route for {request.path}.", "not_found")
        script = self.queue.pop(0) if self.queue else {}
        query = {**self.defaults, **script, **request.query}
        if "status" in query:
            status = int(query["status"])
            return web.Response(
                status=status,
                body=error_body(lane, status),
                content_type="application/json",
                headers=_error_headers(query),
            )
        if "late_status" in query:
            events = late_failure(lane, int(query["late_status"]))
            return await self._stream(
                request, list(enumerate(events)), Faults.from_query(query), first=True
            )
        if "no_newline" in query:
            return await self._no_newline(request)
        name = query.get("capture", f"{lane}_basic")
        data = self.bodies.get(name) or capture_bytes(name, run="run" in query)
        events = split_events(data)
        if "ids" in query:
            events = [with_id(event) for event in events]
        faults = Faults.from_query(query)
        response_id = _response_id(events) if lane == "responses" else None
        if response_id is not None:
            self.stored[response_id] = Stored(events, faults)
        indexed = list(enumerate(events))
        return await self._stream(request, indexed, faults, first=True)

    async def _login(self, request: web.Request) -> web.StreamResponse:
        """Where the ``302`` wrong answer points: a sign-in page, not a stream."""
        self._record(request)
        return web.Response(text="<html><body>Sign in</body></html>", content_type="text/html")

    async def _resume(self, request: web.Request) -> web.StreamResponse:
        self._record(request)
        response_id = request.match_info["id"]
        stored = self.stored.get(response_id)
        if stored is None:
            return _json_error(404, f"No response found with id '{response_id}'.", "not_found")
        if request.query.get("stream") != "true":
            return web.json_response(_final_response(stored.events))
        if stored.faults.refusals:
            refusal = stored.faults.refusals.pop(0)
            if refusal in _WRONG_ANSWERS:
                return _WRONG_ANSWERS[refusal](stored.events)
            if refusal != "ok":
                status = int(refusal)
                body = error_body("responses", status)
                if status == 404:  # the response is gone (its retention ran out)
                    body = _error_json(f"No response found with id '{response_id}'.", "not_found")
                headers = {}
                if stored.faults.refuse_retry_after is not None:
                    headers["Retry-After"] = stored.faults.refuse_retry_after
                return web.Response(
                    status=status, body=body, content_type="application/json", headers=headers
                )
        raw = request.query.get("starting_after", request.headers.get("Last-Event-ID"))
        after: int | None = None
        if raw is not None and raw != "":
            try:
                after = int(raw)
            except ValueError:
                after = -1
            if after < 0:
                return _json_error(400, f"Invalid 'starting_after': {raw!r}.", "invalid_value")
            if response_id.startswith("resp_run_") and after > 0:
                return _json_error(
                    400, "Agent-run responses replay from the start only.", "invalid_value"
                )
        if stored.faults.fallback and after is not None:
            return await self._stream(
                request, _final_items(stored.events, after), stored.faults, first=False
            )
        indexed = [
            (i, event)
            for i, event in enumerate(stored.events)
            if after is None
            or response_id.startswith("resp_run_")
            or (_sequence_number(event) or 0) > after
        ]
        return await self._stream(request, indexed, stored.faults, first=False)

    async def _stream(
        self,
        request: web.Request,
        indexed: list[tuple[int, bytes]],
        faults: Faults,
        *,
        first: bool,
    ) -> web.StreamResponse:
        response = web.StreamResponse(
            status=200, headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        await response.prepare(request)
        cut = faults.cuts.pop(0) if faults.cuts else None
        if faults.retry is not None and first:
            await response.write(f"retry: {faults.retry}\n\n".encode())
        if first:
            await self._keepalives(response, faults.prelude, faults.keepalive)
        for index, event in indexed:
            if faults.think is not None and faults.think[0] == index:
                await self._keepalives(response, faults.think[1], faults.keepalive)
            if first and faults.silent is not None and faults.silent[0] == index:
                await asyncio.sleep(faults.silent[1])
                return await _abort(request, response)
            if cut is not None and cut[0] == index:
                await self._write(response, event[: cut[1]], faults.chunk)
                if faults.cut_mode == "eof":
                    await response.write_eof()
                    return response
                return await _abort(request, response)
            await self._write(response, event, faults.chunk)
        await response.write_eof()
        return response

    @staticmethod
    async def _write(response: web.StreamResponse, data: bytes, chunk: int) -> None:
        if not chunk:
            if data:
                await response.write(data)
            return
        for start in range(0, len(data), chunk):
            await response.write(data[start : start + chunk])
            await asyncio.sleep(0)

    @staticmethod
    async def _keepalives(response: web.StreamResponse, count: int, interval: float) -> None:
        for _ in range(count):
            await response.write(KEEPALIVE)
            await asyncio.sleep(interval)

    async def _no_newline(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(status=200, headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        block = b"x" * 8192
        await response.write(b"data: ")
        try:
            for _ in range(NO_NEWLINE_LIMIT // len(block)):
                await response.write(block)
                await asyncio.sleep(0)
        except (ConnectionError, RuntimeError):
            return response  # the client gave up, as it should
        await response.write_eof()
        return response


#: Resume answers that are neither the stream nor an error status (``refuse=302,json,text``).
_WRONG_ANSWERS: dict[str, Any] = {
    "302": lambda events: web.Response(status=302, headers={"Location": "/v1/login"}),
    "json": lambda events: web.json_response(_final_response(events)),
    "text": lambda events: web.Response(text="OK", content_type="text/plain"),
}


def _error_json(message: str, code: str) -> bytes:
    error = {"message": message, "type": "invalid_request_error", "param": None, "code": code}
    return json.dumps({"error": error}).encode()


def _json_error(status: int, message: str, code: str) -> web.Response:
    return web.Response(
        status=status, body=_error_json(message, code), content_type="application/json"
    )


async def _abort(request: web.Request, response: web.StreamResponse) -> web.StreamResponse:
    """End the connection without finishing the body: the client sees a reset."""
    transport = request.transport
    if transport is not None:
        transport.abort()
    response.force_close()
    return response


# -- fixtures ------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def _stream_server() -> Iterator[StreamServer]:
    server = StreamServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def stream_server(_stream_server: StreamServer) -> Iterator[StreamServer]:
    """The running test server, with its stored streams and request log cleared."""
    _stream_server.reset()
    yield _stream_server
    _stream_server.reset()


# -- real clients ----------------------------------------------------------------------------
#
# Each client opens a request and hands back the status, the headers and the body's
# chunks as they arrive; `drive()` runs a lane over it with iter_events/aiter_events,
# including a reconnect callable that opens the lane's resume plan with the same client
# and answers with (status, headers, chunks), so that a refused resume is seen. Waits
# between reconnects are recorded, never slept, unless the test passes its own sleep.

CLIENTS = ("httpx", "requests", "httpx_async", "aiohttp")
#: The clients driven by iter_events (the others by aiter_events).
SYNC_CLIENTS = ("httpx", "requests")


def everyday_clients(realtime: pytest.Mark) -> tuple[str, str]:
    """The two clients a ``realtime`` mark names: one sync, one async (a misspelt name would
    skip that client every day without a word)."""
    pair = tuple(realtime.kwargs["everyday"])
    sync = [name for name in pair if name in SYNC_CLIENTS]
    assert len(pair) == 2 and set(pair) <= set(CLIENTS) and len(sync) == 1, pair
    return pair[0], pair[1]


@attrs.define
class Result:
    """What a consumer saw: the events in order, the exception raised at the end (if any).

    ``events`` is everything the glue yielded, ``Reconnecting`` included;
    ``slept`` the waits it asked for (when the test did not pass a ``sleep``).
    """

    events: list[Any]
    exc: BaseException | None
    reconnect_urls: list[str]
    slept: list[float] = attrs.Factory(list)

    @property
    def lane_events(self) -> list[Any]:
        """The lane's own events: what feeding the bytes straight into a lane gives."""
        return [e for e in self.events if not isinstance(e, Reconnecting)]

    @property
    def reconnecting(self) -> list[Reconnecting]:
        return [e for e in self.events if isinstance(e, Reconnecting)]


def resume_url(base: str, plan: Any, mode: str = "plan") -> tuple[str, dict[str, str]]:
    """The URL and headers that carry out a lane's resume plan (a ``ResumePlan``).

    ``mode="plan"`` sends what the plan says (``starting_after`` and, when the
    stream had ids, ``Last-Event-ID``); ``mode="last_event_id"`` sends only the
    ``Last-Event-ID`` header, as a browser EventSource would.
    """
    if mode == "last_event_id":
        return f"{base}/v1{plan.path}?stream=true", dict(plan.headers)
    return plan.url(base + "/v1"), dict(plan.headers)


def _body(method: str) -> dict[str, Any] | None:
    return {"stream": True} if method == "POST" else None


def drive(client: str, lane: Any, url: str, **options: Any) -> Result:
    """Run ``lane`` over a real request with ``client``; see _drive_sync / _drive_async."""
    if client in SYNC_CLIENTS:
        return _drive_sync(client, lane, url, **options)
    return asyncio.run(_drive_async(client, lane, url, **options))


def _drive_sync(
    client: str,
    lane: Any,
    url: str,
    *,
    read_timeout: float = 5.0,
    resume_base: str | None = None,
    resume_mode: str = "plan",
    raise_for_status: bool = False,
    **glue: Any,
) -> Result:
    urls: list[str] = []
    opened: list[Any] = []  # the responses, for raise_for_status()
    with contextlib.ExitStack() as stack:
        # verify=False: plain http to 127.0.0.1, and it spares loading the CA bundle
        # (0.1-0.5 s per client).
        if client == "httpx":
            session: Any = stack.enter_context(
                httpx.Client(verify=False, timeout=httpx.Timeout(5.0, read=read_timeout))
            )
        else:
            session = stack.enter_context(requests.Session())

        def open_(method: str, target: str, headers: dict[str, str]) -> tuple[int, Any, Any]:
            if client == "httpx":
                response = stack.enter_context(
                    session.stream(method, target, headers=headers, json=_body(method))
                )
                opened.append(response)
                return response.status_code, list(response.headers.items()), response.iter_bytes()
            response = session.request(
                method,
                target,
                headers=headers,
                json=_body(method),
                stream=True,
                timeout=(5.0, read_timeout),
            )
            stack.callback(response.close)
            opened.append(response)
            return response.status_code, list(response.headers.items()), response.iter_content(None)

        def reconnect(plan: Any) -> Any:
            assert resume_base is not None
            target, headers = resume_url(resume_base, plan, resume_mode)
            urls.append(target)
            answer = open_("GET", target, headers)
            if raise_for_status:  # the client's habit: an error status raises
                opened[-1].raise_for_status()
                return answer[2]  # the chunks alone: the status is in the exception
            return answer

        slept: list[float] = []
        glue.setdefault("sleep", slept.append)
        status, headers, chunks = open_("POST", url, {})
        lane.start(status, headers)
        events: list[Any] = []
        exc: BaseException | None = None
        try:
            for event in _transport.iter_events(
                lane, chunks, reconnect=reconnect if resume_base else None, **glue
            ):
                events.append(event)
        except Exception as error:
            exc = error
    return Result(events, exc, urls, slept)


async def _drive_async(
    client: str,
    lane: Any,
    url: str,
    *,
    read_timeout: float = 5.0,
    resume_base: str | None = None,
    resume_mode: str = "plan",
    raise_for_status: bool = False,
    **glue: Any,
) -> Result:
    urls: list[str] = []
    opened: list[Any] = []  # the responses, for raise_for_status()
    async with contextlib.AsyncExitStack() as stack:
        if client == "httpx_async":
            session: Any = await stack.enter_async_context(
                httpx.AsyncClient(verify=False, timeout=httpx.Timeout(5.0, read=read_timeout))
            )
        else:
            session = await stack.enter_async_context(
                aiohttp.ClientSession(
                    timeout=aiohttp.ClientTimeout(total=None, connect=5.0, sock_read=read_timeout)
                )
            )

        async def open_(method: str, target: str, headers: dict[str, str]) -> tuple[int, Any, Any]:
            if client == "httpx_async":
                response = await stack.enter_async_context(
                    session.stream(method, target, headers=headers, json=_body(method))
                )
                opened.append(response)
                return response.status_code, list(response.headers.items()), response.aiter_bytes()
            response = await stack.enter_async_context(
                session.request(method, target, headers=headers, json=_body(method))
            )
            opened.append(response)
            return response.status, list(response.headers.items()), response.content.iter_any()

        async def reconnect(plan: Any) -> Any:
            assert resume_base is not None
            target, headers = resume_url(resume_base, plan, resume_mode)
            urls.append(target)
            answer = await open_("GET", target, headers)
            if raise_for_status:  # the client's habit: an error status raises
                opened[-1].raise_for_status()
                return answer[2]  # the chunks alone: the status is in the exception
            return answer

        slept: list[float] = []

        async def record(seconds: float) -> None:
            slept.append(seconds)

        glue.setdefault("sleep", record)
        status, headers, chunks = await open_("POST", url, {})
        lane.start(status, headers)
        events: list[Any] = []
        exc: BaseException | None = None
        try:
            async for event in _transport.aiter_events(
                lane, chunks, reconnect=reconnect if resume_base else None, **glue
            ):
                events.append(event)
        except Exception as error:
            exc = error
    return Result(events, exc, urls, slept)
