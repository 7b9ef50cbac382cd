"""A source's strings that a relayed delta frame repeats may hold anything, the marks too.

Each target writes a block's delta frame once, with marks where the text (and a
Responses sequence number) go (``sse_engine/relay/_template.py``). The frame
also repeats strings of the source: a Chat or Gemini target its id and model, a
Responses target an item id made of the source's id. A source whose id or model
held a mark, or a lone surrogate (which makes the encoder escape the whole
frame as ASCII), once made every delta raise ``TypeError``. Any id, model and
tool call name, through every pairing: the target's own lane reads back the
source's text, reasoning and calls, and the model.
"""

from __future__ import annotations

import dataclasses
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from wire_turns import ALL_LANES, read, render, turn_specs

from sse_engine import Outcome
from sse_engine.parts import PartStream, Turn
from sse_engine.relay import Relay

#: Pieces of strings that look like the template's marks, or force ASCII escapes.
PIECES = ["\u27e6text\u27e7", "\u27e6n\u27e7", "\u27e6\u27e6n\u27e7", "\u27e6", "\u27e7", '"',
          "%d", "%s", "%", "\ud800", "\\u27e6n\\u27e7", "\\", "x"]
NAMES = st.lists(st.sampled_from(PIECES), min_size=1, max_size=5).map("".join)


def seen(turn: Turn) -> tuple[object, ...]:
    calls = [(call.name, json.loads(call.arguments)) for call in turn.tool_calls]
    return turn.text, turn.reasoning, turn.model, calls


@settings(max_examples=examples(40, thorough=400), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(spec=turn_specs(), model=NAMES, ident=NAMES, name=NAMES,
       source=st.sampled_from(sorted(ALL_LANES)), target=st.sampled_from(sorted(ALL_LANES)),
       lean=st.booleans())
def test_any_id_model_or_name_is_relayed_with_the_text_around_it(
    spec: object, model: str, ident: str, name: str, source: str, target: str, lean: bool
) -> None:
    calls = tuple(dataclasses.replace(call, name=name + str(i), id=ident + str(i))
                  for i, call in enumerate(spec.calls))  # type: ignore[attr-defined]
    spec = dataclasses.replace(spec, model=model, id=ident, calls=calls)  # type: ignore[type-var]
    data = render(source, spec)  # type: ignore[arg-type]
    _, original = read(source, data)
    relay = Relay(ALL_LANES[source](), to=target, created=1754000000, lean=lean)
    relayed = relay.feed(data) + relay.close()
    back = PartStream(ALL_LANES[target]())
    back.feed(relayed)
    back.close()
    ours, theirs = seen(back.turn), seen(original.turn)
    assert ours[0] == theirs[0]
    if any(ours[:2]) or ours[3]:  # what the target wrote names the model
        assert ours[2] == theirs[2] == model
    if original.outcome is Outcome.COMPLETED:  # (a bad ending writes no call or reasoning)
        assert ours[3] == theirs[3]
        if target != "chat":  # Chat has no reasoning to write
            assert ours[1] == theirs[1]
