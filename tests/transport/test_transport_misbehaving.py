"""The reconnect glue against a misbehaving server (issue 20, items 10 and 11).

Each class of misbehaviour an outside check found, driven over real HTTP
(tests/server.py, every client) where a server is the cause, and as a
property where the rule is one:

- a ``Retry-After`` that says "now" (0, or a date already past) was obeyed on
  every attempt: five reconnects back to back. A server's wait is honoured
  once; a repeated failure waits at least the backoff.
- a resume answered with a redirect, or a 200 that is not an event stream
  (JSON, plain text), was retried: a wrong answer does not fix itself.
- ``raise_for_status()`` inside ``reconnect`` (the httpx habit) made a 404 a
  transport failure, retried five times: an exception that carries an HTTP
  answer is judged by its status, like the answer itself.
- without a ``Liveness``, keepalives forever never ended: the documented
  30-minute keepalive-only cap now applies by default.
- a stream cut before any event its lane recognises ended ``wrong_lane`` (not
  retryable): only a stream that ended can be judged foreign.
- a lane whose connection never opened, or a glue that left on an exception
  it did not handle itself, had ``outcome`` None: the verdict is never None
  once the glue returns or raises.
"""

from __future__ import annotations

import asyncio
import email.message
import email.utils
import itertools
import math
import urllib.error
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any
from urllib.parse import quote

import aiohttp
import httpx
import pytest
import requests
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from multidict import CIMultiDict, CIMultiDictProxy
from server import StreamServer, capture_bytes, drive
from test_transport_glue import DONE, FULL, Cut, FakeClock, ToyLane, event, items, pieces
from yarl import URL

import sse_engine._reconnect
from sse_engine import ChatCompletionsLane, ResponsesLane, RetryPolicy, StreamEnd, StreamError
from sse_engine._liveness import DEFAULT_KEEPALIVE_ONLY_TIMEOUT, Liveness
from sse_engine._outcome import Outcome, is_retryable
from sse_engine._transport import aiter_events, iter_events

NO_JITTER = RetryPolicy(random=lambda: 0.0)
CUT = "cut=9:25"
KEEPALIVE = b": keepalive\n\n"


def resumed(server: StreamServer, client: str, query: str, **glue: Any) -> Any:
    lane = ResponsesLane()
    glue.setdefault("retry", NO_JITTER)
    result = drive(
        client, lane, f"{server.url}/v1/responses?{query}", resume_base=server.url, **glue
    )
    return lane, result


def resume_gets(server: StreamServer) -> int:
    return sum(s.method == "GET" and s.path.startswith("/v1/responses/") for s in server.seen)


def uncut_api() -> dict[str, Any]:
    lane = ResponsesLane()
    lane.feed(capture_bytes("responses_basic"))
    lane.close()
    return lane.snapshot.to_api()


# -- Retry-After: "now" is honoured once ---------------------------------------------------------

PAST = "Wed, 21 Oct 2015 07:28:00 GMT"


def test_a_retry_after_date_in_the_past_is_now_once_then_backoff(
    stream_server: StreamServer, client: str
) -> None:
    query = f"{CUT}&refuse=429,429,429&refuse_retry_after={quote(PAST)}"
    lane, result = resumed(stream_server, client, query)
    assert result.exc is None and lane.outcome is Outcome.COMPLETED
    assert lane.snapshot.to_api() == uncut_api()
    assert resume_gets(stream_server) == 4
    # Each refusal said "now" (the date is long past by the server's own Date header),
    # after a first failure: the backoff, not [0.5, 0.0, 0.0, 0.0] as before.
    assert result.slept == [0.5, 1.0, 2.0, 4.0]
    assert [r.attempt for r in result.reconnecting] == [1, 2, 3, 4]


def _http_date(moment: datetime) -> str:
    return email.utils.format_datetime(moment, usegmt=True)


_moments = st.datetimes(
    min_value=datetime(1970, 1, 2), max_value=datetime(9000, 1, 1), timezones=st.just(UTC)
)
_retry_after_values = st.one_of(
    st.text(max_size=30),
    st.integers(-(10**30), 10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    _moments.map(_http_date),
    st.sampled_from(["0", "", " 7 ", "1e400", "-0", "Wed, 21 Oct 2015 07:28:00 GMT"]),
)
_dates = st.none() | _moments.map(_http_date) | st.text(max_size=20)
_millis = st.none() | st.integers(-(10**20), 10**20).map(str) | st.text(max_size=8)


@settings(max_examples=examples(19, thorough=300), deadline=None)
@given(
    value=_retry_after_values,
    date=_dates,
    millis=_millis,
    attempt=st.integers(1, 5),
    status=st.sampled_from([429, 500, 503, 529]),
)
def test_any_retry_after_gives_a_wait_within_max_delay(
    value: str, date: str | None, millis: str | None, attempt: int, status: int
) -> None:
    """Whatever a server sends as its wait, the policy waits between 0 and max_delay.

    And after the first attempt never less than the backoff: no header makes
    the glue come straight back again and again.
    """
    headers = {"Retry-After": value, "Content-Type": "application/json"}
    if date is not None:
        headers["Date"] = date
    if millis is not None:
        headers["retry-after-ms"] = millis
    lane = ChatCompletionsLane()
    lane.start(status, headers)
    lane.feed(b'{"error": {"message": "busy", "type": "server_error", "code": null}}')
    lane.close()
    assert lane.error is not None
    policy = RetryPolicy(max_delay=30.0, random=lambda: 0.0)
    delay = policy.delay(lane.error, attempt)
    asked = lane.error.retry_after
    if asked is not None:
        assert math.isfinite(asked) and asked >= 0
    if delay is None:  # only a wait longer than max_delay refuses a retryable failure
        assert asked is not None and asked > policy.max_delay
        return
    assert 0.0 <= delay <= policy.max_delay
    if attempt > 1:
        assert delay >= policy.backoff(attempt)


# -- wrong answers to a resume -------------------------------------------------------------------


@pytest.mark.parametrize("answer", ["302", "json", "text"])
def test_a_resume_answered_with_something_else_than_a_stream_is_not_retried(
    stream_server: StreamServer, client: str, answer: str
) -> None:
    lane, result = resumed(stream_server, client, f"{CUT}&refuse={answer},ok")
    assert result.exc is None and resume_gets(stream_server) == 1
    assert len(result.reconnecting) == 1
    assert lane.outcome is Outcome.TRUNCATED and lane.error is not None
    assert not lane.error.retryable
    if answer == "302" and client.startswith("httpx"):  # httpx does not follow redirects
        assert lane.error.status == 302
    else:  # the redirect was followed to a sign-in page, or a 200 that is no stream
        assert (lane.error.status, lane.error.code) == (200, "not_an_event_stream")
    assert result.events[-1] == StreamEnd(Outcome.TRUNCATED, lane.error)


@pytest.mark.parametrize("status", range(300, 400))
def test_every_redirect_is_not_retryable(status: int) -> None:
    assert not is_retryable(None, None, status)
    assert not StreamError.from_text("", status=status).retryable


# -- raise_for_status() inside reconnect ---------------------------------------------------------


def test_raise_for_status_in_reconnect_is_judged_by_its_status(
    stream_server: StreamServer, client: str
) -> None:
    lane, result = resumed(stream_server, client, f"{CUT}&refuse=404", raise_for_status=True)
    assert result.exc is None  # the answer's error is the verdict, as for a returned answer
    assert resume_gets(stream_server) == 1
    assert lane.outcome is Outcome.TRUNCATED and lane.error is not None
    assert (lane.error.status, lane.error.retryable) == (404, False)
    assert "404" in lane.error.message


def test_raise_for_status_on_a_retryable_status_is_retried(
    stream_server: StreamServer, client: str
) -> None:
    lane, result = resumed(stream_server, client, f"{CUT}&refuse=500,500", raise_for_status=True)
    assert result.exc is None and lane.outcome is Outcome.COMPLETED
    assert lane.snapshot.to_api() == uncut_api()
    assert resume_gets(stream_server) == 3 and result.slept == [0.5, 1.0, 2.0]


def _httpx_error(status: int, headers: dict[str, str]) -> BaseException:
    request = httpx.Request("GET", "https://api.test/v1/responses/resp_1")
    response = httpx.Response(status, headers=headers, request=request)
    return httpx.HTTPStatusError(f"{status}", request=request, response=response)


def _requests_error(status: int, headers: dict[str, str]) -> BaseException:
    response = requests.Response()
    response.status_code = status
    response.headers.update(headers)
    return requests.HTTPError(f"{status} Client Error", response=response)


def _aiohttp_error(status: int, headers: dict[str, str]) -> BaseException:
    url = URL("https://api.test/v1/responses/resp_1")
    info = aiohttp.RequestInfo(url, "GET", CIMultiDictProxy(CIMultiDict()), url)
    return aiohttp.ClientResponseError(
        info, (), status=status, message="x", headers=CIMultiDict(headers)
    )


def _urllib_error(status: int, headers: dict[str, str]) -> BaseException:
    message = email.message.Message()
    for name, value in headers.items():
        message[name] = value
    return urllib.error.HTTPError("https://api.test/", status, "x", message, None)


@pytest.mark.parametrize("make", [_httpx_error, _requests_error, _aiohttp_error, _urllib_error])
@pytest.mark.parametrize("status", [302, 400, 401, 404, 409, 429, 500, 503])
def test_an_exception_carrying_an_answer_is_that_answer(make: Any, status: int) -> None:
    error = StreamError.from_exception(make(status, {"Retry-After": "3", "x-request-id": "r1"}))
    assert error.status == status
    assert error.retryable == is_retryable(None, None, status)
    assert (error.retry_after, error.request_id) == (3.0, "r1")


@pytest.mark.parametrize(
    "exc", [ConnectionResetError("reset"), httpx.ConnectError("refused"), TimeoutError()]
)
def test_any_other_exception_is_a_retryable_transport_failure(exc: BaseException) -> None:
    error = StreamError.from_exception(exc)
    assert (error.status, error.code, error.retryable) == (None, "stream_truncated", True)
    assert type(exc).__name__ in error.message


# -- the default keepalive-only cap --------------------------------------------------------------


@pytest.fixture
def fake_time(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """The glue's own clock (used when no Liveness is given), faked."""
    clock = FakeClock()
    monkeypatch.setattr(sse_engine._reconnect, "time", SimpleNamespace(monotonic=clock))
    return clock


def keepalives_forever(clock: FakeClock, first: bytes = event(1)) -> Iterator[bytes]:
    """A server that sends one event, then a keepalive every 15 s, for ever.

    For ever is 10,000 keepalives (42 hours): a glue without the cap then ends
    the stream ``stream_truncated`` and fails the test instead of hanging it.
    """
    yield first
    for _ in range(10_000):
        clock.now += 15.0
        yield KEEPALIVE


def test_without_liveness_keepalives_forever_still_end(fake_time: FakeClock) -> None:
    lane = ToyLane()
    calls: list[Any] = []
    got = list(iter_events(lane, keepalives_forever(fake_time), reconnect=calls.append))
    assert items(got) == [1] and calls == []  # a stalled server is not resumed
    assert lane.outcome is Outcome.TRUNCATED and lane.error is not None
    assert lane.error.code == "keepalive_only_timeout" and lane.error.retryable
    assert got[-1] == StreamEnd(Outcome.TRUNCATED, lane.error)
    # Measured from the first keepalive: the cap, give or take one keepalive.
    waited = fake_time.now - 1000.0
    assert DEFAULT_KEEPALIVE_ONLY_TIMEOUT <= waited <= DEFAULT_KEEPALIVE_ONLY_TIMEOUT + 15.0


def test_without_liveness_the_async_glue_ends_keepalives_forever_too(
    fake_time: FakeClock,
) -> None:
    async def source() -> AsyncIterator[bytes]:
        for chunk in keepalives_forever(fake_time):
            await asyncio.sleep(0)
            yield chunk

    async def main(lane: ToyLane) -> list[Any]:
        return [e async for e in aiter_events(lane, source())]

    lane = ToyLane()
    got = asyncio.run(main(lane))
    assert items(got) == [1] and lane.error is not None
    assert lane.error.code == "keepalive_only_timeout"


def test_a_liveness_without_budgets_switches_the_default_cap_off(fake_time: FakeClock) -> None:
    def four_hours_of_keepalives() -> Iterator[bytes]:
        yield from itertools.islice(keepalives_forever(fake_time), 1000)
        yield FULL

    lane = ToyLane()
    off = Liveness(idle_timeout=None, keepalive_only_timeout=None)
    got = list(iter_events(lane, four_hours_of_keepalives(), liveness=off, clock=fake_time))
    assert fake_time.now - 1000.0 >= 4 * 3600
    assert items(got) == [1, 2, 3, 4, 5, 6] and lane.outcome is Outcome.COMPLETED


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 12), st.floats(0.0, 400.0)), min_size=1, max_size=5))
def test_the_default_cap_ends_a_stream_only_on_a_stretch_of_keepalives_that_long(
    stretches: list[tuple[int, float]],
) -> None:
    """Events restart the cap; a stretch of keepalives as long as the cap ends the stream.

    Each stretch is an event, then ``count`` keepalives ``step`` seconds apart;
    the cap is measured from a stretch's first keepalive.
    """
    clock = FakeClock()
    cap = DEFAULT_KEEPALIVE_ONLY_TIMEOUT

    def source() -> Iterator[bytes]:
        for seq, (count, step) in enumerate(stretches, start=1):
            yield event(seq)
            for _ in range(count):
                clock.now += step
                yield KEEPALIVE
        yield DONE

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sse_engine._reconnect, "time", SimpleNamespace(monotonic=clock))
        lane = ToyLane()
        got = list(iter_events(lane, source()))
    stalled = [i for i, (count, step) in enumerate(stretches) if (count - 1) * step >= cap]
    if stalled:
        assert lane.error is not None and lane.error.code == "keepalive_only_timeout"
        assert items(got) == list(range(1, stalled[0] + 2))
    else:
        assert lane.outcome is Outcome.COMPLETED, lane.error
        assert items(got) == list(range(1, len(stretches) + 1))


@pytest.mark.realtime(everyday=("requests", "aiohttp"))
def test_a_server_of_keepalives_only_is_ended_over_http(
    stream_server: StreamServer, client: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The cap shrunk to 0.2 s: 40 keepalives 20 ms apart outlast it.
    monkeypatch.setattr(sse_engine._reconnect, "DEFAULT_KEEPALIVE_ONLY_TIMEOUT", 0.2)
    lane = ResponsesLane()
    url = f"{stream_server.url}/v1/responses?think=3:40&keepalive=20"
    result = drive(client, lane, url, resume_base=stream_server.url)
    assert result.exc is None and result.reconnecting == []
    assert lane.outcome is Outcome.TRUNCATED and lane.error is not None
    assert lane.error.code == "keepalive_only_timeout"


# -- a cut stream is not judged foreign ------------------------------------------------------------


def test_a_foreign_stream_cut_by_the_transport_is_truncated_not_a_wrong_lane(
    stream_server: StreamServer, client: str
) -> None:
    # A Chat lane reading the Responses endpoint: every event is foreign.
    url = f"{stream_server.url}/v1/responses"
    ended = ChatCompletionsLane()
    drive(client, ended, url)
    assert ended.error is not None and ended.error.code == "wrong_lane"
    cut = ChatCompletionsLane()
    result = drive(client, cut, f"{url}?cut=5:10")
    assert result.exc is not None  # the transport's exception, re-raised
    assert cut.outcome is Outcome.TRUNCATED and cut.error is not None
    assert (cut.error.code, cut.error.retryable) == ("stream_truncated", True)


# -- the verdict is never None once the glue returns or raises ------------------------------------


class Unopenable:
    """An iterable whose connection fails as it is opened."""

    def __iter__(self) -> Iterator[bytes]:
        raise ConnectionRefusedError("connection refused")

    def __aiter__(self) -> AsyncIterator[bytes]:
        raise ConnectionRefusedError("connection refused")


def test_chunks_that_fail_to_open_end_the_lane_truncated() -> None:
    lane = ToyLane()
    got: list[Any] = []
    with pytest.raises(ConnectionRefusedError):
        got.extend(iter_events(lane, Unopenable()))
    assert got == [StreamEnd(Outcome.TRUNCATED, lane.error)]
    assert lane.error is not None and "ConnectionRefusedError" in lane.error.message

    async def main(lane: ToyLane) -> None:
        async for item in aiter_events(lane, Unopenable()):
            got.append(item)

    lane = ToyLane()
    got = []
    with pytest.raises(ConnectionRefusedError):
        asyncio.run(main(lane))
    assert got == [StreamEnd(Outcome.TRUNCATED, lane.error)]


class Interrupted(BaseException):
    """What a Ctrl-C or a cancelled task is to the glue: not an Exception."""


def test_an_interrupted_wait_still_leaves_a_verdict() -> None:
    def sleep(seconds: float) -> None:
        raise Interrupted

    def dropped() -> Iterator[bytes]:
        yield from pieces(FULL[:45])
        raise Cut("reset")

    lane = ToyLane()
    with pytest.raises(Interrupted):
        list(iter_events(lane, dropped(), reconnect=lambda plan: [], sleep=sleep))
    assert lane.outcome is Outcome.TRUNCATED and lane.error is not None
    assert "Interrupted" in lane.error.message


def test_a_consumer_that_stops_early_leaves_the_lane_open() -> None:
    lane = ToyLane()
    for _ in iter_events(lane, pieces(FULL)):
        break
    assert lane.outcome is None  # as documented: the consumer decided, not the stream


# One connection, as a script: what each read gives.
_steps = st.sampled_from(["event", "keepalive", "garbage", "done", "reset", "interrupt", "eof"])


def _connection(script: list[str], start: int) -> Iterator[bytes]:
    seq = start
    for step in script:
        if step == "event":
            seq += 1
            yield event(seq)
        elif step == "keepalive":
            yield KEEPALIVE
        elif step == "garbage":
            yield b"id: x\ndata: not a number\n\n"  # the ToyLane cannot read it: ProtocolError
        elif step == "done":
            yield DONE
        elif step == "reset":
            raise Cut("reset")
        elif step == "interrupt":
            raise Interrupted
        else:
            return


@settings(max_examples=examples(12, thorough=200), deadline=None)
@given(
    first=st.lists(_steps, max_size=6),
    later=st.lists(st.lists(_steps, max_size=4) | st.just(["refuse"]), max_size=4),
    reconnects=st.booleans(),
    asynchronous=st.booleans(),
)
def test_the_verdict_is_never_none_once_the_glue_returns_or_raises(
    first: list[str], later: list[list[str]], reconnects: bool, asynchronous: bool
) -> None:
    scripts = iter(later)

    def reconnect(plan: Any) -> Any:
        script = next(scripts, ["reset"])
        if script == ["refuse"]:
            raise _httpx_error(404, {})
        return _connection(script, plan["starting_after"])

    lane = ToyLane()
    options: dict[str, Any] = {"reconnect": reconnect} if reconnects else {}
    try:
        if asynchronous:

            async def arecon(plan: Any) -> AsyncIterator[bytes]:
                return _asynced(reconnect(plan))

            async def main() -> None:
                extra = {"reconnect": arecon, "sleep": _no_wait} if reconnects else {}
                async for _ in aiter_events(lane, _asynced(_connection(first, 0)), **extra):
                    pass

            asyncio.run(main())
        else:
            for _ in iter_events(lane, _connection(first, 0), sleep=lambda s: None, **options):
                pass
    except (Exception, Interrupted):
        pass
    assert lane.outcome is not None


async def _asynced(chunks: Iterator[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        await asyncio.sleep(0)
        yield chunk


async def _no_wait(seconds: float) -> None:
    pass
