"""The Chat lane's call assembly (``chat/_calls.py``): when a tool call ends, and what
holding the assembly means.

Chat Completions marks no end of a call. A call ends when the next call of its
choice opens, if its arguments so far are complete JSON and every earlier call
has ended; otherwise it, and every call after it, ends at the choice's finish
(in the order they opened, each with all its arguments). Some providers go on
with a call's fragments after the next call opened: the engine never says a
call is complete while its input may still be arriving.
"""

from __future__ import annotations

import gc
import json
import weakref
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from relay_oracles import SEEN
from test_chat import LEGACY_FUNCTION_CALL, capture, choice, chunk, codes, of, run, sse, tool

from sse_engine import FORMATS, Outcome, ProtocolError
from sse_engine.chat import (
    ChatCompletionsLane,
    ChatFinish,
    ChatToolCallArgumentsDelta,
    ChatToolCallEnd,
    ChatToolCallStarted,
)
from sse_engine.parts import PartStream, ToolCallEnd
from sse_engine.relay import Relay

# -- the end rule, by example ---------------------------------------------------------------


def test_a_call_without_whole_input_stays_open_when_the_next_opens() -> None:
    lane = ChatCompletionsLane()
    opened = lane.feed(sse(
        chunk([choice(tool_calls=[tool(0, '{"a":', id="c0", name="f")])]),
        chunk([choice(tool_calls=[tool(1, "", id="c1", name="g")])]),
    ))
    assert of(opened, ChatToolCallEnd) == []  # '{"a":' is not complete: more may come
    rest = lane.feed(sse(
        chunk([choice(tool_calls=[tool(0, "1}")])]),
        chunk([choice(tool_calls=[tool(1, "{}")])]),
        chunk([choice(finish="tool_calls")]),
        "[DONE]",
    ))
    ends = of(rest, ChatToolCallEnd)
    assert [(e.tool_index, e.id, e.arguments) for e in ends] == [
        (0, "c0", '{"a":1}'), (1, "c1", "{}")
    ]
    kinds = [type(e) for e in rest]
    assert kinds.index(ChatFinish) == kinds.index(ChatToolCallEnd) + 2  # from the finish chunk
    assert lane.warnings == [] and lane.outcome is Outcome.COMPLETED


def test_once_a_call_stays_open_later_calls_end_at_the_finish_in_order() -> None:
    body = sse(
        chunk([choice(tool_calls=[tool(0, "", id="c0", name="f")])]),
        chunk([choice(tool_calls=[tool(1, '{"b":2}', id="c1", name="g")])]),
        chunk([choice(tool_calls=[tool(2, '{"c":3}', id="c2", name="h")])]),
        chunk([choice(tool_calls=[tool(0, '{"a":1}')])]),
    )
    lane = ChatCompletionsLane()
    assert of(lane.feed(body), ChatToolCallEnd) == []
    ends = of(lane.feed(sse(chunk([choice(finish="tool_calls")]), "[DONE]")), ChatToolCallEnd)
    assert [(e.tool_index, e.arguments) for e in ends] == [
        (0, '{"a":1}'), (1, '{"b":2}'), (2, '{"c":3}')
    ]


def test_a_number_is_never_whole_input() -> None:
    # "1" is valid JSON, but "12" may follow.
    lane, events = run(sse(
        chunk([choice(tool_calls=[tool(0, "1", id="c0", name="f")])]),
        chunk([choice(tool_calls=[tool(1, "[]", id="c1", name="g")])]),
        chunk([choice(tool_calls=[tool(0, "2")])]),
        chunk([choice(finish="tool_calls")]),
        "[DONE]",
    ))
    assert [(e.tool_index, e.arguments) for e in of(events, ChatToolCallEnd)] == [
        (0, "12"), (1, "[]")
    ]
    assert lane.warnings == []


@pytest.mark.parametrize("arguments", ['{"a":1}', '"text"', "[1, 2]", "true", "null"])
def test_whole_input_ends_its_call_when_the_next_opens(arguments: str) -> None:
    lane = ChatCompletionsLane()
    events = lane.feed(sse(
        chunk([choice(tool_calls=[tool(0, arguments, id="c0", name="f")])]),
        chunk([choice(tool_calls=[tool(1, "", id="c1", name="g")])]),
    ))
    (end,) = of(events, ChatToolCallEnd)
    assert (end.tool_index, end.arguments) == (0, arguments)
    kinds = [type(e) for e in events]
    assert kinds[-2:] == [ChatToolCallEnd, ChatToolCallStarted]


def test_a_fragment_for_a_call_that_ended_is_still_an_anomaly() -> None:
    body = sse(
        chunk([choice(tool_calls=[tool(0, '{"a":1}', id="c0", name="f")])]),
        chunk([choice(tool_calls=[tool(1, "{}", id="c1", name="g")])]),
        chunk([choice(tool_calls=[tool(0, ', "b": 2}')])]),
        chunk([choice(finish="tool_calls")]),
        "[DONE]",
    )
    lane, events = run(body)
    assert [e.tool_index for e in of(events, ChatToolCallEnd)] == [0, 1]  # no second end
    assert codes(lane) == ["tool_call_after_done"]
    assert lane.snapshot.choices[0].tool_calls[0].arguments == '{"a":1}, "b": 2}'
    with pytest.raises(ProtocolError, match="after it ended"):
        run(body, lane=ChatCompletionsLane(strict=True))


def test_calls_held_open_never_end_in_a_cut_stream() -> None:
    lane, events = run(sse(
        chunk([choice(tool_calls=[tool(0, '{"a":', id="c0", name="f")])]),
        chunk([choice(tool_calls=[tool(1, "{}", id="c1", name="g")])]),
        "[DONE]",
    ))
    assert of(events, ChatToolCallEnd) == []
    assert lane.outcome is Outcome.TRUNCATED
    assert [c.done for c in lane.snapshot.choices[0].tool_calls] == [False, False]


def test_each_choice_holds_its_own_calls() -> None:
    _, events = run(sse(
        chunk([choice(0, tool_calls=[tool(0, '{"a":', id="a0", name="f")]),
               choice(1, tool_calls=[tool(0, "{}", id="b0", name="f")])]),
        chunk([choice(0, tool_calls=[tool(1, "{}", id="a1", name="g")]),
               choice(1, tool_calls=[tool(1, "{}", id="b1", name="g")])]),
        chunk([choice(0, tool_calls=[tool(0, "1}")])]),
        chunk([choice(0, finish="tool_calls"), choice(1, finish="tool_calls")]),
        "[DONE]",
    ))
    ends = [(e.choice_index, e.tool_index, e.arguments) for e in of(events, ChatToolCallEnd)]
    # Choice 1's first call ended when its second opened; choice 0's waited for its finish.
    assert ends == [(1, 0, "{}"), (0, 0, '{"a":1}'), (0, 1, "{}"), (1, 1, "{}")]


# -- the end rule, as a property ------------------------------------------------------------

_names = st.sampled_from(["get_weather", "search", "f"])
#: Tool input as models send it: a JSON object of strings, numbers, lists, nested objects.
_input = st.dictionaries(
    st.text(alphabet="abcxyz_", min_size=1, max_size=5),
    st.recursive(
        st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=6),
        lambda inner: st.lists(inner, max_size=3)
        | st.dictionaries(st.text(alphabet="pq", min_size=1, max_size=2), inner, max_size=2),
        max_leaves=6,
    ),
    max_size=4,
)
#: A call's wire index: OpenAI's 0, 1, 2, ..., or anything another provider sends.
_wire_index = st.integers(0, 4) | st.integers(-(2**63), 2**63)


@st.composite
def interleaved_calls(draw: st.DrawFn) -> tuple[list[tuple[str, str, str]], bytes, list[int]]:
    """N calls whose fragments interleave in any order after each call opened.

    Returns the calls as (id, name, arguments) in the order they open, the body
    (the calls in chunks of one or more fragments, the finish, ``[DONE]``) and
    where to cut it into reads.
    """
    n = draw(st.integers(1, 4))
    wires = draw(st.lists(_wire_index, min_size=n, max_size=n, unique=True))
    calls: list[tuple[str, str, str]] = []
    fragments: list[list[dict[str, Any]]] = []
    for number, wire in enumerate(wires):
        call_id, name = f"call_{number}", draw(_names)
        arguments = json.dumps(draw(_input), indent=draw(st.sampled_from([None, 1])))
        calls.append((call_id, name, arguments))
        cuts = sorted(set(draw(st.lists(st.integers(1, len(arguments) - 1), max_size=6))))
        pieces = [arguments[a:b] for a, b in zip([0, *cuts], [*cuts, len(arguments)], strict=True)]
        first = pieces.pop(0) if draw(st.booleans()) else ""  # OpenAI opens with ""
        fragments.append([tool(wire, first, id=call_id, name=name)])
        fragments[-1] += [tool(wire, piece) for piece in pieces]
    # A call opens after the one before it; its other fragments come anywhere after that.
    order: list[dict[str, Any]] = []
    opened = 0
    while opened < n or any(fragments[:opened]):
        waiting = [i for i in range(opened) if fragments[i]]
        if opened < n and (not waiting or draw(st.booleans())):
            order.append(fragments[opened].pop(0))
            opened += 1
        else:
            order.append(fragments[draw(st.sampled_from(waiting))].pop(0))
    chunks: list[list[dict[str, Any]]] = []
    for fragment in order:
        if not chunks or draw(st.booleans()):
            chunks.append([])
        chunks[-1].append(fragment)
    body = sse(
        chunk([choice(role="assistant", content=draw(st.sampled_from(["", "Checking."])))]),
        *(chunk([choice(tool_calls=fragments)]) for fragments in chunks),
        chunk([choice(finish="tool_calls")]),
        chunk([], usage={"prompt_tokens": 5, "completion_tokens": 9, "total_tokens": 14}),
        "[DONE]",
    )
    reads = sorted(set(draw(st.lists(st.integers(0, len(body)), max_size=8))))
    return calls, body, reads


def reads_of(body: bytes, cuts: list[int]) -> Iterator[bytes]:
    for start, end in zip([0, *cuts], [*cuts, len(body)], strict=True):
        yield body[start:end]


@settings(
    max_examples=examples(5, thorough=100),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(interleaved_calls())
def test_any_interleaving_of_calls_ends_each_once_with_all_its_arguments(
    case: tuple[list[tuple[str, str, str]], bytes, list[int]],
) -> None:
    calls, body, cuts = case
    wanted = [(name, json.loads(arguments)) for _, name, arguments in calls]

    # The lane: one end event per call, with the whole text, and nothing to warn about.
    lane = ChatCompletionsLane(strict=True)
    events = [event for read in reads_of(body, cuts) for event in lane.feed(read)] + lane.close()
    ends = of(events, ChatToolCallEnd)
    assert [(e.tool_index, e.id, e.name, e.arguments) for e in ends] == [
        (number, *call) for number, call in enumerate(calls)
    ]
    streamed: dict[int, str] = {}
    for event in of(events, ChatToolCallArgumentsDelta):
        streamed[event.tool_index] = streamed.get(event.tool_index, "") + event.delta
    assert [streamed.get(number, "") for number in range(len(calls))] == [
        arguments for _, _, arguments in calls
    ]
    assert lane.outcome is Outcome.COMPLETED and lane.warnings == []

    # The parts: one ToolCallEnd per call; the turn's calls hold their parsed input.
    stream = PartStream(ChatCompletionsLane())
    parts = [part for read in reads_of(body, cuts) for part in stream.feed(read)] + stream.close()
    assert [(p.name, p.input) for p in parts if type(p) is ToolCallEnd] == wanted
    turn = stream.turn
    assert [(c.name, c.arguments, c.input, c.input_error, c.done) for c in turn.tool_calls] == [
        (name, arguments, json.loads(arguments), None, True) for _, name, arguments in calls
    ]
    assert turn.finish_reason == "tool_calls" and stream.warnings == []

    # Relayed to every format: its SDK reads every call whole, and so does our strict lane.
    for target in FORMATS:
        relay = Relay(ChatCompletionsLane(), to=target)
        out = b"".join(relay.feed(read) for read in reads_of(body, cuts)) + relay.close()
        seen = SEEN[target](out)
        assert (seen.error, list(seen.tools)) == (None, wanted), target
        reader = FORMATS[target].lane(strict=True)
        reader.feed(out)
        reader.close()
        assert reader.outcome is Outcome.COMPLETED, target
        relayed = PartStream(FORMATS[target].lane(strict=True))
        relayed.feed(out)
        relayed.close()
        assert [(c.name, c.input) for c in relayed.turn.tool_calls] == wanted, target


# -- the assembly is held, not inherited ------------------------------------------------------


@pytest.fixture
def no_collector() -> Iterator[None]:
    """Only reference counting frees objects: anything in a reference cycle stays alive."""
    # No gc.collect() first: what the test frees is made after this, and a full pass
    # over the heap the SDKs' models fill cost 0.3 s a test.
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.mark.usefixtures("no_collector")
@pytest.mark.parametrize("name", ["chat_parallel_tools.sse", "chat_gemini_tools.sse", "legacy"])
def test_a_lane_is_freed_by_reference_counting_alone(name: str) -> None:
    # The call assembly reports through the lane's Reports, never through the lane:
    # no helper holds its lane, so a gateway's finished lanes go at once.
    lane = ChatCompletionsLane(strict=True)
    lane.feed(LEGACY_FUNCTION_CALL if name == "legacy" else capture(name))
    lane.close()
    lane.snapshot.to_api()
    gone = weakref.ref(lane)
    del lane
    assert gone() is None
