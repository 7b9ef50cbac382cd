"""A source's strings that a relayed delta frame repeats may hold anything, the marks too.

Each target writes a block's delta frame once, with marks where the text (and a
Responses sequence number) go (``sse_engine/relay/_template.py``). The frame
also repeats strings of the source: a Chat or Gemini target its id and model, a
Responses target an item id made of the source's id. A source whose id or model
held a mark, or a lone surrogate (which makes the encoder escape the whole
frame as ASCII), once made every delta raise ``TypeError``. Any id, model and
tool call name, through every pairing, default and lean: the target's own lane
reads back the text, reasoning, refusal and calls it reads back for plain ones,
and the model given.
"""

from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from wire_turns import ALL_LANES, TurnSpec, render, turn_specs

from sse_engine.parts import PartStream, Turn
from sse_engine.relay import Relay

#: Pieces of strings that look like the template's marks, or force ASCII escapes.
PIECES = ["\u27e6text\u27e7", "\u27e6n\u27e7", "\u27e6\u27e6n\u27e7", "\u27e6", "\u27e7", '"',
          "%d", "%s", "%", "\ud800", "\\u27e6n\\u27e7", "\\", "x"]
NAMES = st.lists(st.sampled_from(PIECES), min_size=1, max_size=5).map("".join)


def named(spec: TurnSpec, model: str, ident: str, name: str) -> TurnSpec:
    """``spec`` with its model, id, and its calls' names and ids made of these."""
    calls = tuple(dataclasses.replace(call, name=f"{name}{i}", id=f"{ident}{i}")
                  for i, call in enumerate(spec.calls))
    return dataclasses.replace(spec, model=model, id=ident, calls=calls)


def relayed_back(spec: TurnSpec, source: str, target: str, lean: bool) -> Turn:
    """``spec`` written by ``source``, relayed to ``target``, read by the target's lane."""
    relay = Relay(ALL_LANES[source](), to=target, created=1754000000, lean=lean)
    data = render(source, spec)
    back = PartStream(ALL_LANES[target]())
    back.feed(relay.feed(data) + relay.close())
    back.close()
    return back.turn


@settings(max_examples=examples(40, thorough=400), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(spec=turn_specs(), model=NAMES, ident=NAMES, name=NAMES,
       source=st.sampled_from(sorted(ALL_LANES)), target=st.sampled_from(sorted(ALL_LANES)),
       lean=st.booleans())
@example(spec=TurnSpec(ending="error"), model="\u27e6text\u27e7", ident="x", name="x",
         source="gemini", target="responses", lean=False)  # failed before naming a model
def test_any_id_model_or_name_relays_as_a_plain_one_does(
    spec: TurnSpec, model: str, ident: str, name: str, source: str, target: str, lean: bool
) -> None:
    odd = relayed_back(named(spec, model, ident, name), source, target, lean)
    plain = relayed_back(named(spec, "model-x", "turn_0001", "tool"), source, target, lean)
    assert (odd.text, odd.reasoning, odd.refusal) == (plain.text, plain.reasoning, plain.refusal)
    assert [c.arguments for c in odd.tool_calls] == [c.arguments for c in plain.tool_calls]
    assert [c.name for c in odd.tool_calls] == [f"{name}{i}" for i in range(len(plain.tool_calls))]
    # The given model where the plain relay wrote its own, else the same (none, or the
    # target's stand-in for a source that failed before naming one).
    assert odd.model == (model if plain.model == "model-x" else plain.model)
