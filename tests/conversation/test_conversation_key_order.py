"""A body's key order is not meaning: the same body with its keys in another order reads the same.

Found as a bug (an Anthropic body with ``output_config.effort`` before
``thinking`` lost the effort); the class is any setting read from two keys.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from request_bodies import conversation_bodies
from sdk_oracle import REQUEST_FORMATS

from sse_engine import Conversation

ORDERS = settings(
    max_examples=examples(5, thorough=150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def _reordered(value: Any) -> Any:
    """``value`` with the keys of every object in reverse order."""
    if isinstance(value, dict):
        return {key: _reordered(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [_reordered(item) for item in value]
    return value


@pytest.mark.parametrize("format", REQUEST_FORMATS)
@ORDERS
@given(data=st.data())
def test_a_body_reads_the_same_whatever_its_key_order(format: str, data: st.DataObject) -> None:
    body = data.draw(conversation_bodies(format))
    try:
        json.dumps(body, allow_nan=False)
    except ValueError:
        assume(False)  # NaN is no JSON (and equals nothing, itself included)
    assert Conversation.from_body(format, _reordered(body)) == Conversation.from_body(format, body)


def test_anthropic_effort_and_budget_in_either_order() -> None:
    body = {"model": "m", "max_tokens": 5, "messages": [], "stream": True,
            "output_config": {"effort": "max"}, "thinking": {"type": "enabled", "budget_tokens": 9}}
    reasoning = Conversation.from_body("messages", body).settings.reasoning
    assert reasoning is not None and (reasoning.effort, reasoning.budget_tokens) == ("max", 9)
