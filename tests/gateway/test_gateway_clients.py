"""The real openai and anthropic clients through the gateway, in front of a Chat and a
Messages upstream: streaming and not, a multi-turn tool loop, what goes upstream."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from clients import CLIENTS, TOOLS, UPSTREAMS, ask, capture_turn, seen, tool_loop_turn
from conftest import Gateway
from upstream import FINAL, Upstream


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "final"])
@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("upstream_format", UPSTREAMS)
def test_every_client_gets_the_upstreams_turn(
    start_gateway: Callable[..., Gateway], upstream_format: str, client: str, stream: bool
) -> None:
    gateway = start_gateway(upstream_format)
    got = seen(client, ask(gateway.url, client, stream=stream))
    turn = capture_turn(f"{upstream_format}_basic")
    assert got.text == turn.text
    assert got.tools == tuple((call.name, call.input) for call in turn.tool_calls)
    assert got.error is None


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("upstream_format", UPSTREAMS)
def test_a_tool_loop_goes_round_through_the_gateway(
    start_gateway: Callable[..., Gateway], upstream: Upstream, upstream_format: str, client: str
) -> None:
    gateway = start_gateway(upstream_format)
    first = ask(gateway.url, client, stream=True, tools=TOOLS[client])
    messages, call_id = tool_loop_turn(client, first, [{"role": "user", "content": "Weather?"}])
    second = seen(client, ask(gateway.url, client, stream=True, messages=messages))
    assert second.text == capture_turn(FINAL[upstream_format]).text
    assert second.tools == ()
    # The upstream got the call and its result in its own format, under the call's id.
    sent = json.dumps(upstream.seen[-1].body)
    assert call_id in sent
    assert upstream.seen[-1].format == upstream_format
    assert [tool["name"] for tool in _tools(upstream.seen[0].body)] == ["get_weather"]


def _tools(body: dict[str, object]) -> list[dict[str, object]]:
    tools = body.get("tools")
    assert isinstance(tools, list)
    return [tool.get("function", tool) for tool in tools]


@pytest.mark.parametrize("upstream_format", UPSTREAMS)
def test_the_upstream_gets_its_own_format_model_and_key(
    start_gateway: Callable[..., Gateway], upstream: Upstream, upstream_format: str
) -> None:
    gateway = start_gateway(upstream_format, models={"gw": "upstream-model"})
    final = ask(gateway.url, "chat", stream=False)
    assert final.model == "gw"  # the client sees the model it asked for
    request = upstream.seen[-1]
    assert request.format == upstream_format
    assert request.body["model"] == "upstream-model"
    assert request.body["stream"] is True  # always streamed upstream
    headers = {name.lower(): value for name, value in request.headers.items()}
    if upstream_format == "messages":
        assert headers["x-api-key"] == "sk-upstream"
        assert "anthropic-version" in headers
        assert request.body["max_tokens"] > 0
    else:
        assert headers["authorization"] == "Bearer sk-upstream"
        assert request.body["messages"][0]["role"] == "user"
    # The client's own key never goes upstream.
    assert "sk-client" not in json.dumps(request.headers)


@pytest.mark.parametrize("client", CLIENTS)
def test_a_chat_upstream_is_asked_for_its_usage_chunk(
    start_gateway: Callable[..., Gateway], upstream: Upstream, client: str
) -> None:
    # Without stream_options.include_usage a Chat stream carries no usage at all, and
    # every client's final object has usage.
    gateway = start_gateway("chat")
    final = seen(client, ask(gateway.url, client, stream=True))
    assert upstream.seen[-1].body["stream_options"] == {"include_usage": True}
    assert final.usage is not None and final.usage[1] > 0
