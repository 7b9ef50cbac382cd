"""How the gateway ends what goes wrong: a cut or failed upstream, a rejected request, an
overloaded upstream, a client that hangs up, a quiet upstream, a slow client, a bad body."""

from __future__ import annotations

import json
import logging
import re
import socket
import time
from collections.abc import Callable

import anthropic
import httpx
import loopback
import openai
import pytest
from clients import CLIENTS, PROMPT, UPSTREAMS, ask, capture_turn, openai_client
from conftest import Gateway
from upstream import REQUEST_ID, Script, Upstream

from sse_engine import FORMATS
from sse_engine.gateway import DROPPED_HEADER, GatewayConfig

PATHS = {name: FORMATS[name].paths[0] for name in CLIENTS}
BODY = {"model": "gw", "messages": PROMPT, "input": PROMPT, "max_tokens": 64, "stream": True}


def raw_body(client: str, *, stream: bool = True) -> dict[str, object]:
    """The smallest valid request of ``client``'s format."""
    body: dict[str, object] = {"model": "gw", "stream": stream}
    if client == "responses":
        body["input"] = PROMPT
    else:
        body["messages"] = PROMPT
    if client == "messages":
        body["max_tokens"] = 64
    return body


def failure_class(client: str) -> type[Exception]:
    return anthropic.APIError if client == "messages" else openai.APIError


def gateway_lines(
    caplog: pytest.LogCaptureFixture, at_least: int, within: float = 10.0
) -> list[str]:
    """The gateway's log lines, once there are ``at_least`` of them (it logs each request's
    line when the request ends, on its own thread: a fixed wait is a race on a loaded
    machine), or after ``within`` seconds, whatever there are then."""
    deadline = time.monotonic() + within
    while True:
        lines = [r.getMessage() for r in caplog.records if r.name == "sse_engine.gateway"]
        if len(lines) >= at_least or time.monotonic() > deadline:
            return lines
        time.sleep(0.01)


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "final"])
@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("upstream_format", UPSTREAMS)
def test_a_cut_upstream_is_the_clients_error_never_a_clean_finish(
    start_gateway: Callable[..., Gateway],
    upstream: Upstream,
    upstream_format: str,
    client: str,
    stream: bool,
) -> None:
    gateway = start_gateway(upstream_format)
    upstream.default = Script(cut=6)
    if client == "responses" and stream:
        # The openai SDK reads a response.failed event as the stream's end, not an error.
        with openai_client(gateway.url).responses.stream(model="gw", input=PROMPT) as events:
            kinds = [event.type for event in events]
        assert kinds[-2:] == ["error", "response.failed"]
        return
    with pytest.raises(failure_class(client)):
        ask(gateway.url, client, stream=stream)


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("upstream_format", UPSTREAMS)
def test_an_upstream_error_event_is_the_clients_in_stream_error(
    start_gateway: Callable[..., Gateway], upstream: Upstream, upstream_format: str, client: str
) -> None:
    gateway = start_gateway(upstream_format)
    upstream.default = Script(capture=f"{upstream_format}_error")
    with loopback.stream("POST", gateway.url + PATHS[client], json=raw_body(client)) as response:
        data = response.read()
    assert response.status_code == 200
    lane = FORMATS[client].lane()
    lane.feed(data)
    lane.close()
    assert lane.outcome.value == "failed"
    if client != "responses":
        with pytest.raises(failure_class(client)):
            ask(gateway.url, client, stream=True)


@pytest.mark.parametrize("client", CLIENTS)
def test_a_429_is_the_clients_rate_limit_with_retry_after_and_request_id(
    start_gateway: Callable[..., Gateway], upstream: Upstream, client: str
) -> None:
    gateway = start_gateway("messages")
    upstream.default = Script(status=429, retry_after="7")
    expected = anthropic.RateLimitError if client == "messages" else openai.RateLimitError
    with pytest.raises(expected) as raised:
        ask(gateway.url, client, stream=True)
    headers = raised.value.response.headers
    assert raised.value.status_code == 429
    assert headers["retry-after"] == "7"
    assert headers[FORMATS[client].emitter.request_id_header] == REQUEST_ID


@pytest.mark.parametrize("client", CLIENTS)
def test_a_529_overloaded_upstream_is_the_clients_own_error_status(
    start_gateway: Callable[..., Gateway], upstream: Upstream, client: str
) -> None:
    gateway = start_gateway("messages")
    upstream.default = Script(status=529)
    with httpx.Client(timeout=10.0, verify=loopback.TLS) as http:
        response = http.post(gateway.url + PATHS[client], json=raw_body(client))
    assert response.status_code == 529
    body = response.json()
    if client == "messages":
        assert body["type"] == "error"
        assert body["error"]["type"] == "overloaded_error"
    else:
        assert "Overloaded" in body["error"]["message"]
    with pytest.raises(failure_class(client)):
        ask(gateway.url, client, stream=False)


@pytest.mark.parametrize("client", CLIENTS)
def test_a_client_that_hangs_up_closes_its_upstream_at_once(
    start_gateway: Callable[..., Gateway],
    upstream: Upstream,
    client: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    gateway = start_gateway("messages")
    upstream.default = Script(pace=0.05)  # more than a second for the whole capture
    caplog.set_level(logging.INFO)
    with loopback.stream("POST", gateway.url + PATHS[client], json=raw_body(client)) as response:
        next(response.iter_raw())
        left = time.monotonic()
    request = upstream.wait_closed(timeout=2.0)
    assert request.closed_at is not None and not request.finished
    assert request.closed_at - left < 1.0
    lines = gateway_lines(caplog, 1)
    assert any("outcome=client_closed" in line for line in lines)
    assert not any(r.exc_info for r in caplog.records)


@pytest.mark.parametrize(
    "script", [Script(silent=4.0), Script(hold=4.0)], ids=["after-headers", "before-headers"]
)
def test_a_client_that_hangs_up_during_a_silence_closes_its_upstream_at_once(
    start_gateway: Callable[..., Gateway], upstream: Upstream, script: Script
) -> None:
    # Nothing to write to the client for 15 s (the keepalive interval): only the
    # hang-up itself can tell the gateway, which must not wait for its next write.
    gateway = start_gateway("messages")
    upstream.default = script
    timeout = httpx.Timeout(10.0, read=0.3)
    with pytest.raises(httpx.ReadTimeout):
        loopback.post(gateway.url + PATHS["chat"], json=raw_body("chat"), timeout=timeout)
    left = time.monotonic()
    request = upstream.wait_closed(timeout=2.0)
    assert request.closed_at is not None
    assert request.closed_at - left < 1.0


@pytest.mark.parametrize("client", CLIENTS)
def test_a_silent_upstream_gets_keepalives_to_the_client(
    start_gateway: Callable[..., Gateway], upstream: Upstream, client: str
) -> None:
    gateway = start_gateway("messages", keepalive=0.05)
    upstream.default = Script(silent=0.25)
    with loopback.stream("POST", gateway.url + PATHS[client], json=raw_body(client)) as response:
        data = response.read()
    assert response.status_code == 200
    assert data.startswith(b": keepalive\n: keepalive\n")
    assert b": keepalive\n\n" not in data  # a lone comment line: harmless after an id: line
    # The SDK skips them and gets the whole turn.
    upstream.default = Script(silent=0.12)
    final = ask(gateway.url, client, stream=True)
    assert final is not None


def test_an_upstream_slow_to_answer_gets_the_200_early_with_keepalives(
    start_gateway: Callable[..., Gateway], upstream: Upstream
) -> None:
    gateway = start_gateway("messages", keepalive=0.05)
    upstream.default = Script(hold=0.2)
    with loopback.stream("POST", gateway.url + PATHS["chat"], json=raw_body("chat")) as response:
        data = response.read()
    assert data.startswith(b": keepalive\n")
    assert b"data: [DONE]" in data
    # A slow rejection arrives inside the stream: the 200 has gone out.
    upstream.default = Script(hold=0.15, status=429)
    with pytest.raises(openai.APIError):
        ask(gateway.url, "chat", stream=True)


def _unstamped(stream: bytes) -> bytes:
    return re.sub(rb'"created":\s*\d+', b'"created":0', stream)


def test_a_slow_client_gets_every_byte(
    start_gateway: Callable[..., Gateway], upstream: Upstream
) -> None:
    gateway = start_gateway("messages")
    with loopback.stream("POST", gateway.url + PATHS["chat"], json=raw_body("chat")) as fast:
        whole = fast.read()
    with loopback.stream("POST", gateway.url + PATHS["chat"], json=raw_body("chat")) as slow:
        pieces = []
        for piece in slow.iter_raw(64):
            pieces.append(piece)
            time.sleep(0.002)
    # Each stream stamps its own "created" second: two streams straddling a second's
    # end differ there, and only there.
    assert _unstamped(b"".join(pieces)) == _unstamped(whole)
    assert capture_turn("messages_basic").text.split()[0].encode() in whole


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize(
    ("raw", "where"),
    [
        (b"{not json", "not JSON"),
        (b'{"model": "gw", "messages": [{"role": "user", "content": 3}], "input": 3}', "3"),
    ],
    ids=["not-json", "bad-field"],
)
def test_a_bad_body_is_a_400_in_the_clients_envelope(
    start_gateway: Callable[..., Gateway], upstream: Upstream, client: str, raw: bytes, where: str
) -> None:
    gateway = start_gateway("messages")
    headers = {"content-type": "application/json"}
    response = loopback.post(gateway.url + PATHS[client], content=raw, headers=headers)
    assert response.status_code == 400
    body = response.json()
    if client == "messages":
        assert body["type"] == "error"
        assert body["error"]["type"] == "invalid_request_error"
        message = body["error"]["message"]
    else:
        message = body["error"]["message"]
    assert message
    assert not upstream.seen  # nothing went upstream


def test_a_bad_body_reaches_the_sdk_as_its_bad_request_naming_the_path(
    start_gateway: Callable[..., Gateway],
) -> None:
    gateway = start_gateway("messages")
    with pytest.raises(openai.BadRequestError) as raised:
        openai_client(gateway.url).chat.completions.create(
            model="gw",
            messages=[{"role": "wizard", "content": "hi"}],  # type: ignore[list-item]
        )
    assert "messages[0]" in str(raised.value)


def test_an_unknown_path_is_a_404(start_gateway: Callable[..., Gateway]) -> None:
    gateway = start_gateway("messages")
    assert loopback.post(gateway.url + "/v1/nothing", json={}).status_code == 404


def test_what_the_upstream_cannot_take_is_named_in_x_dropped_params(
    start_gateway: Callable[..., Gateway], upstream: Upstream
) -> None:
    gateway = start_gateway("messages")
    body = {**raw_body("chat", stream=False), "logprobs": True, "n": 2}
    response = loopback.post(gateway.url + PATHS["chat"], json=body)
    assert response.status_code == 200
    dropped = response.headers[DROPPED_HEADER]
    assert "logprobs" in dropped
    assert "logprobs" not in json.dumps(upstream.seen[-1].body)
    # Nothing dropped: no header.
    response = loopback.post(gateway.url + PATHS["chat"], json=raw_body("chat", stream=False))
    assert DROPPED_HEADER not in response.headers


def test_one_log_line_per_request(
    start_gateway: Callable[..., Gateway], caplog: pytest.LogCaptureFixture
) -> None:
    gateway = start_gateway("messages")
    caplog.set_level(logging.INFO, logger="sse_engine.gateway")
    ask(gateway.url, "chat", stream=True)
    gateway_lines(caplog, 1)
    lines = gateway_lines(caplog, 2, within=0.05)  # room for a second line, were there one
    assert len(lines) == 1
    line = lines[0]
    assert line.startswith("POST /v1/chat/completions chat->messages upstream=200 ")
    assert "outcome=completed" in line
    assert int(line.split("events=")[1].split()[0]) > 5


def test_no_traceback_when_the_openai_client_leaves_right_after_done(
    start_gateway: Callable[..., Gateway], caplog: pytest.LogCaptureFixture
) -> None:
    # The openai SDK closes its connection as soon as it reads [DONE]: the gateway's
    # write_eof() then meets a closing transport, which must not be logged as a failure.
    gateway = start_gateway("messages")
    caplog.set_level(logging.DEBUG)
    for _ in range(5):
        ask(gateway.url, "chat", stream=True)
    lines = gateway_lines(caplog, 5)
    assert not [r for r in caplog.records if r.exc_info], [r.getMessage() for r in caplog.records]
    assert len(lines) == 5
    assert all("outcome=completed" in s or "outcome=client_closed" in s for s in lines)


@pytest.mark.parametrize("client", CLIENTS)
def test_an_upstream_that_cannot_be_reached_is_a_502_in_the_clients_envelope(
    client: str, caplog: pytest.LogCaptureFixture
) -> None:
    # A port nothing listens on (bound, then closed: the connection is refused).
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = GatewayConfig(upstream=f"http://127.0.0.1:{port}", upstream_format="messages", port=0)
    gateway = Gateway(config).start()
    caplog.set_level(logging.INFO, logger="sse_engine.gateway")
    try:
        response = loopback.post(gateway.url + PATHS[client], json=raw_body(client))
    finally:
        gateway.stop()
    assert response.status_code == 502
    body = response.json()
    message = body["error"]["message"]
    assert "could not be reached" in message
    assert any("outcome=upstream_unreachable" in r.getMessage() for r in caplog.records)
