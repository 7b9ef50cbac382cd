"""The gateway example (docs/examples/gateway.py) serving the real SDK clients, on loopback.

The upstream is the test server (tests/server.py) streaming the bundled
Messages or Chat capture; the gateway runs on its own event loop in a
thread, on 127.0.0.1; the official ``openai`` and ``anthropic`` clients are
pointed at it with ``base_url=`` and stream each of the three APIs. Faults
are put under the gateway through the test server's default query
parameters: a cut upstream must reach every client as an error, a
rejected request as the client's own error class.
"""

from __future__ import annotations

import asyncio
import importlib.util
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest
from aiohttp import web
from relay_oracles import Seen, completion_seen, message_seen, response_seen
from server import StreamServer
from test_relay_captures import expected

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "gateway.py"
KINDS = ("messages", "chat")
TARGETS: tuple[str, ...] = ("chat", "responses", "messages")
PROMPT = [{"role": "user", "content": "What is the weather in Zürich?"}]


def load_example() -> Any:
    spec = importlib.util.spec_from_file_location("gateway_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Gateway:
    """The example's app on its own event loop, in a thread, on an ephemeral loopback port."""

    def __init__(self, upstream: str, kind: str) -> None:
        self.kind = kind
        self.loop = asyncio.new_event_loop()
        self.app = load_example().make_app(upstream, kind)
        self.runner = web.AppRunner(self.app, access_log=None, shutdown_timeout=0.5)
        self.url = ""
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def __enter__(self) -> Gateway:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(timeout=10)
        return self

    async def _start(self) -> None:
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert isinstance(server, asyncio.base_events.Server)
        self.url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()


@pytest.fixture(params=KINDS)
def gateway(request: pytest.FixtureRequest, stream_server: StreamServer) -> Iterator[Gateway]:
    with Gateway(f"{stream_server.url}/v1", request.param) as running:
        yield running


def openai_client(gateway: Gateway) -> openai.OpenAI:
    return openai.OpenAI(
        api_key="sk-test", base_url=f"{gateway.url}/v1", max_retries=0, timeout=10.0
    )


def anthropic_client(gateway: Gateway) -> anthropic.Anthropic:
    return anthropic.Anthropic(
        api_key="sk-ant-test", base_url=gateway.url, max_retries=0, timeout=10.0
    )


def stream(gateway: Gateway, target: str) -> Seen:
    """Stream one turn through the gateway with the target's SDK; what it ended with."""
    if target == "chat":
        with openai_client(gateway).chat.completions.stream(model="gw", messages=PROMPT) as chat:
            for _ in chat:
                pass
            return completion_seen(chat.get_final_completion())
    if target == "responses":
        with openai_client(gateway).responses.stream(model="gw", input=PROMPT) as responses:
            for _ in responses:
                pass
            return response_seen(responses.get_final_response())
    client = anthropic_client(gateway)
    with client.messages.stream(model="gw", max_tokens=256, messages=PROMPT) as messages:
        return message_seen(messages.get_final_message())


@pytest.mark.parametrize("target", TARGETS)
def test_every_sdk_client_gets_the_upstreams_turn(gateway: Gateway, target: str) -> None:
    upstream = f"{gateway.kind}_basic.sse"
    assert stream(gateway, target) == expected(upstream, target)


@pytest.mark.parametrize("target", TARGETS)
def test_a_cut_upstream_reaches_every_sdk_client_as_an_error(
    gateway: Gateway, stream_server: StreamServer, target: str
) -> None:
    stream_server.defaults["cut"] = "6:10"
    if target == "chat":
        with pytest.raises(openai.APIError):
            stream(gateway, target)
    elif target == "responses":
        with openai_client(gateway).responses.stream(model="gw", input=PROMPT) as responses:
            kinds = [event.type for event in responses]
            assert kinds[-2:] == ["error", "response.failed"]
            with pytest.raises(RuntimeError):
                responses.get_final_response()
    else:
        with pytest.raises(anthropic.APIStatusError):
            stream(gateway, target)


@pytest.mark.parametrize("target", TARGETS)
def test_a_rejected_request_is_the_clients_own_error(
    gateway: Gateway, stream_server: StreamServer, target: str
) -> None:
    stream_server.defaults["status"] = "429"
    expected_class = anthropic.RateLimitError if target == "messages" else openai.RateLimitError
    with pytest.raises(expected_class) as raised:
        stream(gateway, target)
    assert raised.value.status_code == 429


@pytest.mark.parametrize("target", TARGETS)
def test_upstream_keepalives_reach_the_client_as_comment_lines(
    gateway: Gateway, stream_server: StreamServer, target: str
) -> None:
    stream_server.defaults["prelude"] = "2"
    path = {
        "chat": "/v1/chat/completions",
        "responses": "/v1/responses",
        "messages": "/v1/messages",
    }[target]
    body = {"model": "gw", "messages": PROMPT, "input": PROMPT, "max_tokens": 64}
    with httpx.stream("POST", gateway.url + path, json=body, timeout=10.0) as response:
        data = response.read()
    assert response.status_code == 200
    assert data.startswith(b": keepalive\n: keepalive\n")
    assert b": keepalive\n\n" not in data
    upstream = f"{gateway.kind}_basic.sse"
    assert stream(gateway, target) == expected(upstream, target)
