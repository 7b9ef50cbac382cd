"""The Chat Completions request codec: bodies to Conversation and back.

Oracles: the openai SDK's ``CompletionCreateParamsStreaming`` (strict: see
tests/sdk_oracle.py) generates the bodies and validates what is written.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis_budget import examples
from request_bodies import aside, bodies
from sdk_oracle import validate

from sse_engine import Conversation

ROUND_TRIP = settings(
    max_examples=examples(5, thorough=300),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@ROUND_TRIP
@given(bodies("chat"))
def test_a_chat_body_round_trips_exactly(body: dict[str, Any]) -> None:
    rendered = Conversation.from_body("chat", body).to_body("chat", model=body["model"])
    assert rendered.dropped == ()
    assert aside("chat", rendered.body) == aside("chat", body)
    validate("chat", rendered.body)
