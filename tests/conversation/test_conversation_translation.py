"""Across formats: every translation carries each thing or names it in ``dropped``.

For each pair of formats, bodies of the source (drawn from its SDK's types,
as tool loops: tests/request_bodies.py) are read, written as the target, and
read back: the written body is valid for the target's SDK types, and every
fact of the source (tests/conversation/facts.py) is in what was read back or
named by path in ``dropped``. Nothing is lost silently.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from facts import unaccounted
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from request_bodies import conversation_bodies
from sdk_oracle import REQUEST_FORMATS, validate

from sse_engine import Conversation

PAIRS = [(source, target) for source in REQUEST_FORMATS for target in REQUEST_FORMATS
         if source != target]
ACROSS = settings(
    max_examples=int(os.environ.get("CONVERSATION_EXAMPLES", examples(3, thorough=150))),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@pytest.mark.parametrize(("source", "target"), PAIRS)
@ACROSS
@given(data=st.data())
def test_every_translation_carries_or_names_each_thing(
    source: str, target: str, data: st.DataObject
) -> None:
    body: dict[str, Any] = data.draw(conversation_bodies(source))
    conversation = Conversation.from_body(source, body)
    rendered = conversation.to_body(target, model="m")
    validate(target, rendered.body)
    back = Conversation.from_body(target, rendered.body)
    assert unaccounted(conversation, back, rendered.dropped) == []
