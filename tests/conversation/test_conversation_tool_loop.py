"""A multi-turn tool loop over loopback, against a fake of each API that refuses what the
real one refuses (tests/conversation/fake_providers.py).

The client is what a user writes: ``Conversation.to_body`` makes each
request, ``PartStream`` over the format's lane reads the streamed answer,
``append(turn)`` and ``add_tool_result`` put it back. The fakes check every
request against the SDK's types and the provider's rules (signed thinking
before the call it led to, the reasoning item before its function call,
every call answered), so the loop reaching the final answer is the proof
that each turn went back as its provider needs it; and each rule is shown
to bite: the same request without the thinking, the reasoning item or a
tool result is refused with a 400 in the API's own envelope, which the lane
reads as a failure.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fake_providers import CITIES, FINAL, FakeProviders, gemini_signature, post

from sse_engine import (
    FORMATS,
    Conversation,
    Message,
    Outcome,
    Reasoning,
    Settings,
    Text,
    Tool,
)
from sse_engine.parts import PartStream, Turn

LOOP_FORMATS = [name for name, row in FORMATS.items() if row.request is not None]
WEATHER = {"Paris": "18 °C", "London": "12 °C"}
TOOL = Tool("get_weather", "The weather in a city",
            {"type": "object", "properties": {"city": {"type": "string"}},
             "required": ["city"]})


@pytest.fixture(scope="module")
def fakes() -> Iterator[FakeProviders]:
    with FakeProviders() as running:
        yield running


def _settings(format: str) -> Settings:
    """What each provider needs to think and to have the thinking back."""
    settings = Settings(max_tokens=2048, reasoning=Reasoning(budget_tokens=1024))
    if format == "responses":  # nothing stored: the reasoning travels in the request
        settings.reasoning = Reasoning(effort="low")
        settings.extra["responses"] = {"store": False,
                                       "include": ["reasoning.encrypted_content"]}
    return settings


def _conversation(format: str) -> Conversation:
    return Conversation([Message("user", [Text("Weather in Paris, then London?")])],
                        tools=[TOOL], settings=_settings(format))


def _send(fakes: FakeProviders, format: str, body: dict[str, Any]) -> PartStream[Any]:
    status, headers, pieces = post(fakes.port, format, body)
    stream = PartStream(FORMATS[format].lane())
    stream.start(status, dict(headers))
    for piece in pieces:
        stream.feed(piece)
    stream.close()
    return stream


def _loop(
    fakes: FakeProviders, format: str, conversation: Conversation,
    tamper: Callable[[dict[str, Any]], None] = lambda body: None,
) -> tuple[list[Turn], PartStream[Any]]:
    """Run the agent loop until the model answers without calls or a request fails."""
    turns = []
    for _ in range(len(CITIES) + 2):
        rendered = conversation.to_body(format, model="m", stream=True)
        body = rendered.body
        tamper(body)
        stream = _send(fakes, format, body)
        if stream.outcome is not Outcome.COMPLETED:
            return turns, stream
        turn = stream.turn
        turns.append(turn)
        conversation.append(turn)
        if not turn.tool_calls:
            return turns, stream
        for call in turn.tool_calls:
            conversation.add_tool_result(call.id, WEATHER[call.input["city"]])
    raise AssertionError("the loop did not end")


@pytest.mark.parametrize("format", LOOP_FORMATS)
def test_the_tool_loop_reaches_the_answer(fakes: FakeProviders, format: str) -> None:
    before = len(fakes.log)
    conversation = _conversation(format)
    turns, stream = _loop(fakes, format, conversation)
    assert stream.outcome is Outcome.COMPLETED, stream.error
    assert [turn.tool_calls[0].input for turn in turns[:-1]] == [{"city": c} for c in CITIES]
    assert turns[-1].text == FINAL
    log = fakes.log[before:]
    assert [(f, status) for f, _, status in log] == [(format, 200)] * (len(CITIES) + 1)
    # What went back is the provider's own opaque data, every round's.
    sent = json.dumps(log[-1][1])
    for n in range(len(CITIES)):
        for secret in {"messages": [f"SIG-{n}", f"RED-{n}"], "responses": [f"ENC-{n}"],
                       "gemini": [gemini_signature(n)], "chat": []}[format]:
            assert secret in sent


def _refused(stream: PartStream[Any], words: str) -> None:
    assert stream.outcome is Outcome.FAILED
    assert stream.error is not None and stream.error.status == 400
    assert not stream.error.retryable
    assert words in (stream.error.message or ""), stream.error


def _without(format: str, kind: str) -> Callable[[dict[str, Any]], None]:
    """A tamper that removes from the request the kind of item a provider requires back."""

    def keep(piece: Any) -> bool:
        if not isinstance(piece, dict):
            return True
        if kind == "thinking":
            return piece.get("type") not in ("thinking", "redacted_thinking", "reasoning") and (
                piece.get("thought") is not True)  # Gemini's signatures: popped below
        return piece.get("type") not in ("tool_result", "function_call_output") and (
            piece.get("role") != "tool") and "functionResponse" not in piece

    def tamper(body: dict[str, Any]) -> None:
        if format == "responses" and isinstance(body["input"], list):
            body["input"] = [item for item in body["input"] if keep(item)]
        elif format == "gemini":
            for content in body["contents"]:
                content["parts"] = [part for part in content["parts"] if keep(part)]
                if kind == "thinking":
                    for part in content["parts"]:
                        part.pop("thoughtSignature", None)
            body["contents"] = [c for c in body["contents"] if c["parts"]]
        elif format == "messages":
            for message in body["messages"]:
                if isinstance(message["content"], list):
                    message["content"] = [b for b in message["content"] if keep(b)]
            body["messages"] = [m for m in body["messages"] if m["content"]]
        else:
            body["messages"] = [m for m in body["messages"] if keep(m)]

    return tamper


REFUSALS = {
    ("messages", "thinking"): "Expected `thinking` or `redacted_thinking`",
    ("responses", "thinking"): "without its required 'reasoning' item",
    ("gemini", "thinking"): "missing a thought_signature",
    ("messages", "result"): "without `tool_result` blocks",
    ("responses", "result"): "No tool output found",
    ("chat", "result"): "did not have response messages",
    ("gemini", "result"): "number of function response parts",
}


@pytest.mark.parametrize(("format", "kind"), [k for k in REFUSALS if k[0] in LOOP_FORMATS])
def test_the_fake_refuses_a_request_without_what_its_provider_needs_back(
    fakes: FakeProviders, format: str, kind: str
) -> None:
    turns, stream = _loop(fakes, format, _conversation(format), _without(format, kind))
    assert len(turns) == 1  # the first request has nothing to leave out
    _refused(stream, REFUSALS[format, kind])


@pytest.mark.parametrize("source", [f for f in ("messages", "responses", "gemini")
                                    if f in LOOP_FORMATS])
def test_signed_reasoning_goes_back_to_its_own_provider_only(
    fakes: FakeProviders, source: str
) -> None:
    conversation = _conversation(source)
    rendered = conversation.to_body(source, model="m")
    turn = _send(fakes, source, rendered.body).turn
    conversation.append(turn)
    conversation.add_tool_result(turn.tool_calls[0].id, WEATHER[CITIES[0]])
    for target in LOOP_FORMATS:
        if target == source:
            continue
        conversation.settings = _settings(target)
        elsewhere = conversation.to_body(target, model="m")
        reasoning = [f"messages[1].content[{j}]" for j, piece in
                     enumerate(conversation.messages[1].content) if type(piece).__name__
                     == "ReasoningBlock"]
        if source == "gemini":  # the call's own signature, named as a field it could not take
            reasoning += [f"messages[1].content[{len(reasoning)}].thoughtSignature"]
        assert reasoning and set(reasoning) <= set(elsewhere.dropped)
        for secret in ("SIG-0", "RED-0", "ENC-0", gemini_signature(0)):
            assert secret not in json.dumps(elsewhere.body)
        # The target's own rule then refuses the turn, as the real API would.
        if target in ("messages", "responses", "gemini"):
            assert _send(fakes, target, elsewhere.body).outcome is Outcome.FAILED
        else:
            assert _send(fakes, target, elsewhere.body).outcome is Outcome.COMPLETED
