"""The Responses request codec: bodies to Conversation and back.

Oracles: the openai SDK's ``ResponseCreateParamsStreaming`` (strict: see
tests/sdk_oracle.py) generates the bodies and validates what is written.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis_budget import examples
from request_bodies import aside, bodies, conversation_bodies
from sdk_oracle import validate

from sse_engine import Conversation

ROUND_TRIP = settings(
    max_examples=examples(5, thorough=300),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@ROUND_TRIP
@given(bodies("responses"))
def test_a_responses_body_round_trips_exactly(body: dict[str, Any]) -> None:
    conversation = Conversation.from_body("responses", body)
    rendered = conversation.to_body("responses", model=body.get("model"))
    assert rendered.dropped == ()
    assert aside("responses", rendered.body) == aside("responses", body)
    validate("responses", rendered.body)


@ROUND_TRIP
@given(conversation_bodies("responses"))
def test_a_responses_tool_loop_body_round_trips_exactly(body: dict[str, Any]) -> None:
    # The input drawn from the items a conversation is made of (calls, outputs, reasoning).
    conversation = Conversation.from_body("responses", body)
    rendered = conversation.to_body("responses", model=body.get("model"))
    assert rendered.dropped == ()
    assert aside("responses", rendered.body) == aside("responses", body)
    validate("responses", rendered.body)
