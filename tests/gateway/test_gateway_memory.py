"""Memory per stream does not grow with the stream's length: the gateway's relays are lean
(they keep only what the client's format must still write, not the text they passed on)."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable
from typing import Any

import pytest
from clients import CLIENTS, ask, capture_turn
from conftest import Gateway

from sse_engine.conversation import Conversation
from sse_engine.gateway import _exchange
from sse_engine.relay import Relay


@pytest.mark.parametrize("client", CLIENTS)
def test_the_gateways_relay_keeps_none_of_the_text_it_passed_on(
    start_gateway: Callable[..., Gateway], monkeypatch: pytest.MonkeyPatch, client: str
) -> None:
    made: list[Relay] = []

    def recording(*args: Any, **kwargs: Any) -> Relay:
        relay = Relay(*args, **kwargs)
        made.append(relay)
        return relay

    monkeypatch.setattr(_exchange, "Relay", recording)
    gateway = start_gateway("messages")
    ask(gateway.url, client, stream=True)
    (relay,) = made
    text = capture_turn("messages_basic").text
    assert relay.lean
    assert relay.turn.text == ""  # passed on, not kept
    assert relay.turn.length("text") == len(text)


def test_the_request_is_dropped_before_the_stream_starts(
    start_gateway: Callable[..., Gateway], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The parsed body, its Conversation and the rendered upstream request are not held for
    # the stream's length (a long stream, or a slow client, would keep them all along).
    read: list[weakref.ref[Conversation]] = []
    alive_at_relay: list[bool] = []
    from_body = Conversation.from_body

    def reading(client: str, body: Any) -> Conversation:
        conversation = from_body(client, body)
        read.append(weakref.ref(conversation))
        return conversation

    def relay_after(*args: Any, **kwargs: Any) -> Relay:
        gc.collect()
        alive_at_relay.append(read[-1]() is not None)
        return Relay(*args, **kwargs)

    monkeypatch.setattr(_exchange.Conversation, "from_body", staticmethod(reading))
    monkeypatch.setattr(_exchange, "Relay", relay_after)
    gateway = start_gateway("messages")
    assert ask(gateway.url, "chat", stream=True)
    assert alive_at_relay == [False]
