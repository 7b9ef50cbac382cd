"""A Responses ``PartStream`` has exactly one ``Finish``, its last part, however it ends.

A cut stream goes on by ``resume()`` or ends from its final object by
``load()``, each *instead of* ``close()``; after the ``Finish`` (a close, a
load of a response still running) both are refused, and a fresh stream
reads the final object. Issue 20: a cut stream, then the plain-GET fallback,
used to make two ``Finish`` parts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from sse_engine import Outcome, ProtocolError, ResponsesLane, UsageError
from sse_engine.parts import Finish, Part, PartStream

CAPTURES = Path(__file__).resolve().parents[2] / "sse_engine" / "captures"
BASIC = (CAPTURES / "responses_basic.sse").read_bytes()
FINAL: dict[str, Any] = json.loads(BASIC.rstrip().rsplit(b"data: ", 1)[1])["response"]
BOUNDARIES = [n + 2 for n in range(len(BASIC)) if BASIC.startswith(b"\n\n", n)]


def alone(data: bytes = BASIC) -> tuple[list[Part], PartStream]:
    stream = PartStream(ResponsesLane())
    return stream.feed(data) + stream.close(), stream


def finishes(parts: list[Part]) -> list[Part]:
    return [p for p in parts if isinstance(p, Finish)]


def test_resume_instead_of_close_goes_on_to_the_one_finish() -> None:
    cut = BASIC.index(b"\n\n", len(BASIC) // 2) + 2
    stream = PartStream(ResponsesLane())
    first = stream.feed(BASIC[:cut])
    assert stream.resume_plan() is not None
    assert stream.resume() == []
    rest = stream.feed(BASIC[cut:]) + stream.close()
    expected, direct = alone()
    assert first + rest == expected and stream.turn == direct.turn
    assert finishes(first + rest) == [rest[-1]]


def test_resume_after_close_is_refused_the_finish_stands() -> None:
    cut = BASIC.index(b"\n\n", len(BASIC) // 2) + 2
    stream = PartStream(ResponsesLane())
    first = stream.feed(BASIC[:cut]) + stream.close()
    assert isinstance(first[-1], Finish) and first[-1].reason == "truncated"
    with pytest.raises(UsageError, match="exactly one Finish"):
        stream.resume()
    assert stream.turn.finish_reason == "truncated"


def test_load_instead_of_close_shows_the_rest_then_the_one_finish() -> None:
    """The recipe past the resume window: retrieve the response, load() it."""
    cut = BASIC.index(b"\n\n", len(BASIC) // 2) + 2
    stream = PartStream(ResponsesLane())
    first = stream.feed(BASIC[:cut])
    rest = stream.load(FINAL)
    expected, direct = alone()
    assert finishes(first + rest) == [rest[-1]] == [expected[-1]]
    assert stream.turn == direct.turn


def test_load_after_close_is_refused_and_a_fresh_stream_reads_the_final_object() -> None:
    cut = BASIC.index(b"\n\n", len(BASIC) // 2) + 2
    stream = PartStream(ResponsesLane())
    stream.feed(BASIC[:cut])
    stream.close()
    with pytest.raises(UsageError, match="load it into a fresh PartStream"):
        stream.load(FINAL)
    assert stream.outcome is Outcome.TRUNCATED  # the lane was left as it was
    fresh = PartStream(ResponsesLane())
    parts = fresh.load(FINAL)
    _, direct = alone()
    assert finishes(parts) == [parts[-1]] and fresh.turn == direct.turn


def test_a_response_still_running_ends_the_stream_truncated_once() -> None:
    stream = PartStream(ResponsesLane())
    parts = stream.load({**FINAL, "status": "in_progress"})
    assert finishes(parts) == [parts[-1]] and parts[-1].outcome is Outcome.TRUNCATED
    with pytest.raises(UsageError):
        stream.load(FINAL)


STEPS = ["close", "resume", "load", "load running", "feed the rest"]


def step(stream: PartStream, name: str, rest: bytes) -> list[Part]:
    """One thing a program may do once a connection drops."""
    if name == "close":
        return stream.close()
    if name == "resume":
        return stream.resume()
    if name == "load":
        return stream.load(FINAL)
    if name == "load running":
        return stream.load({**FINAL, "status": "in_progress"})
    return stream.feed(rest)


@settings(
    max_examples=examples(30, thorough=150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    cut=st.one_of(st.sampled_from(BOUNDARIES), st.integers(0, len(BASIC))),
    steps=st.lists(st.sampled_from(STEPS), max_size=5),
)
def test_a_stream_has_exactly_one_finish_whatever_follows_a_cut(
    cut: int, steps: list[str]
) -> None:
    """Cut anywhere, then any sequence of close, resume, load, feeding the rest: never a
    second Finish, never a part after it (a refused step raises UsageError)."""
    stream = PartStream(ResponsesLane())
    parts = stream.feed(BASIC[:cut])
    for name in [*steps, "close"]:
        try:
            parts += step(stream, name, BASIC[cut:])
        except UsageError:
            continue
        except ProtocolError as exc:  # the rest of an event after a resume: not JSON
            parts += exc.events
    assert finishes(parts) == [parts[-1]]
    finish = parts[-1]
    assert isinstance(finish, Finish)
    assert (finish.outcome, finish.reason) == (stream.turn.outcome, stream.turn.finish_reason)
    if stream.lane.outcome is finish.outcome:  # the lane was not driven past the Finish
        assert stream.turn.text == stream.lane.snapshot.output_text
