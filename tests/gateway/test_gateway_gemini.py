"""Gemini through the gateway, once its format has a request codec in ``FORMATS``: the
google-genai client against a Messages upstream, and a Gemini upstream for the openai client."""

from __future__ import annotations

from collections.abc import Callable

import loopback
import pytest
from clients import ask, capture_turn, seen
from conftest import Gateway
from google import genai
from google.genai import errors as genai_errors
from upstream import Script, Upstream

from sse_engine import FORMATS

pytestmark = pytest.mark.skipif(
    FORMATS["gemini"].request is None, reason="Gemini's request codec is not in FORMATS yet"
)


def test_the_genai_client_streams_a_messages_upstreams_turn(
    start_gateway: Callable[..., Gateway], upstream: Upstream
) -> None:
    gateway = start_gateway("messages")
    options = loopback.genai_options(base_url=gateway.url, timeout=10_000)
    client = genai.Client(api_key="client-key", http_options=options)
    chunks = list(client.models.generate_content_stream(model="gw", contents="Weather?"))
    text = "".join(chunk.text or "" for chunk in chunks)
    calls = [call.name for chunk in chunks for call in chunk.function_calls or []]
    turn = capture_turn("messages_basic")
    assert text == turn.text
    assert calls == [call.name for call in turn.tool_calls]
    assert upstream.seen[-1].format == "messages"


def test_a_gemini_upstream_serves_the_openai_client(
    start_gateway: Callable[..., Gateway], upstream: Upstream
) -> None:
    gateway = start_gateway("gemini")
    got = seen("chat", ask(gateway.url, "chat", stream=True))
    assert got.text == capture_turn("gemini_basic").text
    request = upstream.seen[-1]
    assert request.format == "gemini"
    assert request.path.endswith(":streamGenerateContent")
    assert {k.lower(): v for k, v in request.headers.items()}["x-goog-api-key"] == "sk-upstream"


def test_a_bad_gemini_body_is_a_400_in_googles_envelope(
    start_gateway: Callable[..., Gateway], upstream: Upstream
) -> None:
    gateway = start_gateway("messages")
    path = "/v1beta/models/gw:streamGenerateContent?alt=sse"
    response = loopback.post(gateway.url + path, json={"contents": [{"parts": 3}]})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["status"] == "INVALID_ARGUMENT"
    assert "contents[0].parts" in error["message"]
    assert not upstream.seen


def test_a_gemini_client_gets_the_upstreams_rate_limit(
    start_gateway: Callable[..., Gateway], upstream: Upstream
) -> None:
    gateway = start_gateway("messages")
    upstream.default = Script(status=429, retry_after="3")
    options = loopback.genai_options(base_url=gateway.url, timeout=10_000)
    client = genai.Client(api_key="client-key", http_options=options)
    with pytest.raises(genai_errors.ClientError) as raised:
        list(client.models.generate_content_stream(model="gw", contents="Weather?"))
    assert raised.value.code == 429
