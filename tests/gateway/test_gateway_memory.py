"""Memory per stream does not grow with the stream's length: the gateway's relays are lean
(they keep only what the client's format must still write, not the text they passed on)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from clients import CLIENTS, ask, capture_turn
from conftest import Gateway

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
