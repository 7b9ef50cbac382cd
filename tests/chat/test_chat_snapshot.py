"""The Chat snapshot: linear accumulation at any depth, and a ``to_api()`` the caller owns.

Linear cost is checked by looking at what the snapshot stores, never by
timing: until something reads it, every string it holds is one piece as sent.
A ``text = text + piece`` anywhere (quadratic: each delta copies all the text
so far) would leave a string longer than any piece.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from test_chat import choice, chunk, run, sse, tool

from sse_engine import Outcome
from sse_engine.chat import ChatCompletionsLane, ChatCompletionSnapshot

# -- linear accumulation ---------------------------------------------------------------------


def stored_strings(snapshot: ChatCompletionSnapshot) -> list[str]:
    """Every string the snapshot's objects hold, without reading a property."""
    found: list[str] = []
    stack: list[Any] = [snapshot]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif hasattr(type(item), "__slots__"):
            for cls in type(item).__mro__:
                for name in getattr(cls, "__slots__", ()):
                    stack.append(getattr(item, name, None))
    return found


def growing_stream(pieces: int, piece: str) -> list[Any]:
    """Every field the lane accumulates, each sent as ``pieces`` deltas of ``piece``."""
    frames: list[Any] = [
        chunk([choice(role="assistant", tool_calls=[tool(0, "", id="c1", name="f")],
                      function_call={"name": "g", "arguments": ""})]),
    ]
    for _ in range(pieces):
        frames.append(chunk([choice(
            content=piece,
            refusal=piece,
            reasoning_content=piece,
            audio={"data": piece, "transcript": piece},
            provider_x={"nested": {"deeper": {"text": piece}}},
            tool_calls=[tool(0, piece, extra_content={"google": {"thought": piece}})],
            function_call={"arguments": piece},
        )]))
    return frames


def test_every_accumulated_field_is_kept_as_pieces_until_read() -> None:
    pieces, piece = 50, "p" * 64  # longer than any id, name or role in the stream
    lane = ChatCompletionsLane()
    lane.feed(sse(*growing_stream(pieces, piece)))
    assert max(map(len, stored_strings(lane.snapshot))) <= len(piece)
    lane.feed(sse(chunk([choice(finish="stop")]), "[DONE]"))  # reports the calls done
    api = lane.snapshot.to_api()
    whole = piece * pieces
    message = api["choices"][0]["message"]
    assert message["content"] == message["refusal"] == message["reasoning_content"] == whole
    assert message["audio"] == {"data": whole, "transcript": whole}
    assert message["provider_x"] == {"nested": {"deeper": {"text": whole}}}
    (call,) = message["tool_calls"]
    assert call["function"]["arguments"] == whole
    assert call["extra_content"] == {"google": {"thought": whole}}
    assert message["function_call"]["arguments"] == whole
    # Reading joined each field once, in place: the next read finds one piece.
    assert max(map(len, stored_strings(lane.snapshot))) == len(whole)
    assert lane.snapshot.to_api() == api


def test_two_megabytes_of_nested_deltas_are_assembled() -> None:
    # A sanity check at the size the audit measured (no time is asserted).
    piece = "A" * 1024
    pieces = 1024  # 1 MB of audio data and 1 MB of transcript
    frames = [chunk([choice(role="assistant", audio={"id": "audio_1"})])]
    frames += [
        chunk([choice(audio={"data": piece, "transcript": piece})]) for _ in range(pieces)
    ]
    lane, _ = run(sse(*frames, chunk([choice(finish="stop")]), "[DONE]"))
    assert lane.outcome is Outcome.COMPLETED
    audio = lane.snapshot.to_api()["choices"][0]["message"]["audio"]
    assert len(audio["data"]) == len(audio["transcript"]) == 1024 * 1024
    assert audio["id"] == "audio_1"


def test_nested_index_and_type_are_replaced_not_concatenated() -> None:
    # As the SDK's accumulate_delta: they name a position or a variant.
    body = sse(
        chunk([choice(provider_x={"type": "text", "index": 0, "text": "a"})]),
        chunk([choice(provider_x={"type": "text", "index": 0, "text": "b"})]),
        chunk([choice(finish="stop")]),
        "[DONE]",
    )
    lane, _ = run(body)
    extra = lane.snapshot.to_api()["choices"][0]["message"]["provider_x"]
    assert extra == {"type": "text", "index": 0, "text": "ab"}


# -- to_api() is the caller's own object -------------------------------------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=10,
)
_containers = st.one_of(st.lists(_json, min_size=1, max_size=3),
                        st.dictionaries(st.text(max_size=3), _json, min_size=1, max_size=3))
_delta = st.fixed_dictionaries({}, optional={
    "content": st.text(max_size=4),
    "audio": _json,
    "reasoning_content": _json,
    "provider_x": _containers,
    "tool_calls": st.lists(st.fixed_dictionaries(
        {"index": st.integers(0, 1), "function": st.fixed_dictionaries(
            {}, optional={"name": st.just("f"), "arguments": st.text(max_size=4)})},
        optional={"id": st.just("c1"), "extra_content": _json},
    ), max_size=2),
})
_chunk = st.builds(
    lambda top, delta, logprobs, finish: chunk(
        [{"index": 0, "delta": delta, "logprobs": logprobs,
          **({"finish_reason": "stop"} if finish else {})}],
        **top,
    ),
    st.fixed_dictionaries({}, optional={
        key: _json | _containers
        for key in ("id", "model", "created", "system_fingerprint", "service_tier", "moderation")
    } | {"usage": _containers.filter(lambda v: isinstance(v, dict))}),
    _delta,
    st.none() | st.fixed_dictionaries({"content": st.lists(_json, max_size=2)}),
    st.booleans(),
)


def containers(value: Any) -> list[Any]:
    """Every dict and list reachable from ``value``."""
    found, stack = [], [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            found.append(item)
            stack.extend(item)
    return found


def mutate_deeply(value: Any) -> None:
    for item in containers(value):
        if isinstance(item, dict):
            for key in list(item):
                item[key] = "mutated"
            item["mutated"] = True
        else:
            item[:] = ["mutated"]


@settings(
    max_examples=examples(5, thorough=100),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.lists(_chunk, min_size=1, max_size=4), st.booleans())
def test_mutating_one_to_api_result_never_changes_the_next(
    chunks: list[dict[str, Any]], close: bool
) -> None:
    lane, _ = run(sse(*chunks), close=close)
    first, second = lane.snapshot.to_api(), lane.snapshot.to_api()
    assert not {id(c) for c in containers(first)} & {id(c) for c in containers(second)}
    mutate_deeply(first)
    assert second == lane.snapshot.to_api()


def test_non_string_identity_fields_are_copied() -> None:
    odd = {"id": {"v": [1]}, "model": ["m"], "created": {"t": 1},
           "system_fingerprint": ["fp"], "service_tier": {"tier": "x"}}
    lane, _ = run(sse(chunk([choice(content="a", finish="stop")], **odd), "[DONE]"))
    first = lane.snapshot.to_api()
    for key in odd:
        mutate_deeply(first[key])
    second = lane.snapshot.to_api()
    assert {key: second[key] for key in odd} == odd
