"""Gemini without a stream through the gateway: google-genai's ``generate_content`` calls
``models/{model}:generateContent`` (an endpoint's ``final_paths``) and gets the final
``GenerateContentResponse``, assembled from the upstream's stream, whatever the upstream's
format; a failure before the stream is Google's error envelope with the upstream's status."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import loopback
import pytest
from clients import ask, capture_turn, seen
from conftest import Gateway
from google import genai
from google.genai import errors as genai_errors
from google.genai import types as genai_types
from upstream import Script, Upstream

from sse_engine import FORMATS
from sse_engine.gateway import GatewayConfig, make_app
from sse_engine.gemini import GeminiLane

pytestmark = pytest.mark.skipif(
    FORMATS["gemini"].request is None, reason="Gemini's request codec is not in FORMATS yet"
)

#: The final paths, as a client calls them for the model ``gw``.
FINAL_PATHS = [
    "/v1beta/models/gw:generateContent",
    "/v1/models/gw:generateContent",
]
BODY = {"contents": [{"role": "user", "parts": [{"text": "Weather?"}]}]}
#: Every format the gateway can call as its upstream.
UPSTREAMS = [
    row.name for row in FORMATS.values() if row.request is not None and row.endpoint is not None
]


def genai_client(url: str, **options: Any) -> genai.Client:
    http_options = loopback.genai_options(base_url=url, timeout=10_000, **options)
    return genai.Client(api_key="client-key", http_options=http_options)


def function_calls(response: genai_types.GenerateContentResponse) -> list[str]:
    return [call.name or "" for call in response.function_calls or []]


def text_of(response: genai_types.GenerateContentResponse) -> str:
    """The text parts joined (``response.text`` warns when a function call is beside them)."""
    assert response.candidates
    content = response.candidates[0].content
    assert content is not None
    return "".join(part.text or "" for part in content.parts or [] if not part.thought)


@pytest.mark.parametrize("upstream_format", UPSTREAMS)
def test_generate_content_gets_the_upstreams_turn(
    start_gateway: Callable[..., Gateway], upstream: Upstream, upstream_format: str
) -> None:
    gateway = start_gateway(upstream_format)
    client = genai_client(gateway.url)  # held: a dropped Client closes its connections
    response = client.models.generate_content(model="gw", contents="Weather?")
    turn = capture_turn(f"{upstream_format}_basic")
    assert text_of(response) == turn.text
    assert function_calls(response) == [call.name for call in turn.tool_calls]
    assert response.candidates and response.candidates[0].finish_reason == "STOP"
    assert response.model_version == "gw"
    assert response.usage_metadata is not None
    assert response.usage_metadata.prompt_token_count == turn.usage.input_tokens
    # The upstream is always asked for a stream, on its own stream path.
    request = upstream.seen[-1]
    assert request.format == upstream_format
    assert request.path == FORMATS[upstream_format].paths[0].replace("{model}", "gw")


@pytest.mark.parametrize("upstream_format", UPSTREAMS)
def test_the_final_object_is_what_the_stream_path_streams(
    start_gateway: Callable[..., Gateway], upstream: Upstream, upstream_format: str
) -> None:
    # The same request on the stream path and on the final path: the events streamed,
    # merged by a Gemini lane, are the final object the final path answers with.
    gateway = start_gateway(upstream_format)
    streamed = loopback.post(
        gateway.url + "/v1beta/models/gw:streamGenerateContent?alt=sse", json=BODY, timeout=10
    )
    lane = GeminiLane()
    lane.feed(streamed.content)
    lane.close()
    final = loopback.post(gateway.url + FINAL_PATHS[0], json=BODY, timeout=10)
    assert final.status_code == 200
    assert final.json() == lane.snapshot.to_api()


@pytest.mark.parametrize("path", FINAL_PATHS)
@pytest.mark.parametrize("upstream_format", ["messages", "chat"])
def test_the_answer_is_one_generate_content_response(
    start_gateway: Callable[..., Gateway], upstream: Upstream, upstream_format: str, path: str
) -> None:
    gateway = start_gateway(upstream_format)
    answer = loopback.post(gateway.url + path, json=BODY, timeout=10)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/json")
    assert answer.headers["x-request-id"] == "req_upstream_1"
    # google-genai's own type, which forbids keys it does not know, reads all of it.
    final = genai_types.GenerateContentResponse.model_validate(answer.json())
    turn = capture_turn(f"{upstream_format}_basic")
    assert text_of(final) == turn.text
    calls = final.function_calls or []
    assert [(call.name, call.args) for call in calls] == [
        (call.name, json.loads(call.arguments)) for call in turn.tool_calls
    ]
    assert [call.id for call in calls] == [call.id for call in turn.tool_calls]


def test_a_function_call_loop_goes_round_without_a_stream(
    start_gateway: Callable[..., Gateway], upstream: Upstream
) -> None:
    gateway = start_gateway("messages")
    client = genai_client(gateway.url)
    first = client.models.generate_content(model="gw", contents="Weather?")
    assert first.candidates and first.candidates[0].content
    call = (first.function_calls or [])[0]
    reply = genai_types.Part.from_function_response(
        name=call.name or "", response={"temperature": 21}
    )
    contents = [
        genai_types.Content(role="user", parts=[genai_types.Part.from_text(text="Weather?")]),
        first.candidates[0].content,
        genai_types.Content(role="user", parts=[reply]),
    ]
    second = client.models.generate_content(model="gw", contents=contents)
    assert second.text == capture_turn("messages_gateway").text
    tool_results = [
        block
        for message in upstream.seen[-1].body["messages"]
        for block in message["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]
    assert [block["tool_use_id"] for block in tool_results] == [call.id]


@pytest.mark.parametrize("upstream_format", ["messages", "chat"])
def test_a_rate_limit_is_googles_429_with_its_retry_after(
    start_gateway: Callable[..., Gateway], upstream: Upstream, upstream_format: str
) -> None:
    gateway = start_gateway(upstream_format)
    upstream.default = Script(status=429, retry_after="3")
    answer = loopback.post(gateway.url + FINAL_PATHS[0], json=BODY, timeout=10)
    assert answer.status_code == 429
    assert answer.headers["retry-after"] == "3"
    error = answer.json()["error"]
    assert error["code"] == 429
    assert error["status"] == "RESOURCE_EXHAUSTED"
    client = genai_client(gateway.url)
    with pytest.raises(genai_errors.ClientError) as raised:
        client.models.generate_content(model="gw", contents="Weather?")
    assert raised.value.code == 429
    assert raised.value.status == "RESOURCE_EXHAUSTED"


def test_the_genai_client_retries_a_rate_limit_as_against_the_api(
    start_gateway: Callable[..., Gateway], upstream: Upstream
) -> None:
    gateway = start_gateway("messages")
    upstream.queue.append(Script(status=429, retry_after="1"))
    retry = genai_types.HttpRetryOptions(attempts=2, initial_delay=0.01, max_delay=0.05)
    client = genai_client(gateway.url, retry_options=retry)
    response = client.models.generate_content(model="gw", contents="Weather?")
    assert text_of(response) == capture_turn("messages_basic").text
    assert len(upstream.seen) == 2


@pytest.mark.parametrize(
    "script", [Script(capture="messages_error"), Script(cut=4)], ids=["error", "cut"]
)
def test_a_failed_stream_is_an_error_never_a_final_object(
    start_gateway: Callable[..., Gateway], upstream: Upstream, script: Script
) -> None:
    gateway = start_gateway("messages")
    upstream.default = script
    answer = loopback.post(gateway.url + FINAL_PATHS[0], json=BODY, timeout=10)
    assert answer.status_code >= 500
    error = answer.json()["error"]
    assert error["code"] == answer.status_code
    assert error["message"] and error["status"]
    assert "candidates" not in answer.json()


def test_a_bad_body_is_a_400_on_the_final_path_too(
    start_gateway: Callable[..., Gateway], upstream: Upstream
) -> None:
    gateway = start_gateway("messages")
    answer = loopback.post(gateway.url + FINAL_PATHS[0], json={"contents": [{"parts": 3}]})
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["status"] == "INVALID_ARGUMENT"
    assert "contents[0].parts" in error["message"]
    assert not upstream.seen


def test_the_stream_path_still_streams(
    start_gateway: Callable[..., Gateway], upstream: Upstream
) -> None:
    gateway = start_gateway("messages")
    path = "/v1beta/models/gw:streamGenerateContent?alt=sse"
    answer = loopback.post(gateway.url + path, json=BODY, timeout=10)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/event-stream")
    assert answer.text.startswith("data: ")


def test_a_gemini_upstream_streams_for_a_client_that_asked_for_no_stream(
    start_gateway: Callable[..., Gateway], upstream: Upstream
) -> None:
    gateway = start_gateway("gemini")
    final = ask(gateway.url, "chat", stream=False)
    assert seen("chat", final).text == capture_turn("gemini_basic").text
    request = upstream.seen[-1]
    assert request.path.endswith(":streamGenerateContent")
    assert "stream" not in request.body


def test_every_path_of_every_endpoint_is_a_route() -> None:
    # make_app names no format: each row's stream paths and final paths are its routes.
    config = GatewayConfig(upstream="http://127.0.0.1:9", upstream_format="messages")
    routes = {
        route.resource.canonical
        for route in make_app(config).router.routes()
        if route.resource is not None
    }
    wanted = set()
    for row in FORMATS.values():
        if row.request is not None and row.endpoint is not None:
            wanted.update(row.paths, row.endpoint.final_paths)
    assert routes == wanted
    assert "/v1beta/models/{model}:generateContent" in routes


def test_count_tokens_is_not_served(
    start_gateway: Callable[..., Gateway], upstream: Upstream
) -> None:
    gateway = start_gateway("messages")
    answer = loopback.post(gateway.url + "/v1beta/models/gw:countTokens", json=BODY)
    assert answer.status_code == 404
    assert not upstream.seen
