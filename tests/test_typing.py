"""Types that catch mistakes: what ``mypy --strict --warn-unreachable`` says about user code.

Small user scripts are written to a temporary folder and checked in one mypy
run (mypy is slow; tests/mypy_runs.py keeps its cache between runs). One script
is correct code a user writes against every lane, the glue and PartStream:
it must pass, and its ``assert_type`` lines pin what each call is typed as.
The others each make one mistake, marked on its line with ``# E: <code>``;
mypy must report exactly those codes on exactly those lines. The package
itself must be clean under the same flags.

The run-time half: each lane's union names exactly the ``@final`` classes
the lane's package exports (and the shared ends), and the Responses
``Literal`` types hold exactly the types the lane dispatches on.
"""

from __future__ import annotations

import os
import re
import textwrap
import typing
from pathlib import Path
from typing import Any

import attrs
import pytest
from mypy_runs import run_mypy
from once import OncePerRun, early

import sse_engine
from sse_engine import LaneEvent, StreamEnd, StreamRestarted, chat, gemini, messages, responses
from sse_engine.responses import RESPONSES_EVENT_TYPES
from sse_engine.responses._types import EVENT_TYPES

ROOT = Path(__file__).resolve().parent.parent

SCRIPTS: dict[str, str] = {
    # Correct code: passes, and is typed as the comments say.
    "correct": """
        from collections.abc import AsyncIterable, Iterable, Sequence
        from typing import TypeVar, assert_type

        from sse_engine import (
            ChatCompletionsLane, GeminiLane, GeminiSnapshot, LaneLike, MessagesLane, PartStream,
            Reconnecting, ResponsesLane, StreamEnd, StreamError, StreamRestarted, aiter_events,
            iter_events,
        )
        from sse_engine.chat import ChatContentDelta, ChatEvent, ChatToolCallEnd
        from sse_engine.gemini import FunctionCallPart, GeminiEvent, TextPart
        from sse_engine.messages import MessagesEvent, ToolUseStop
        from sse_engine.parts import Part, TextDelta
        from sse_engine.responses import (
            ResponseContentDeltaEvent, ResponseItemEvent, ResponsesEvent, ResponseSnapshot,
        )

        T = TypeVar("T")


        def drain(source: LaneLike[T], chunks: Iterable[bytes]) -> list[T | Reconnecting]:
            return list(iter_events(source, chunks))


        def chat(chunks: Iterable[bytes]) -> None:
            lane = ChatCompletionsLane()
            assert_type(lane.feed(b""), list[ChatEvent])
            assert_type(lane.close(error=StreamError(message="cut")), list[ChatEvent])
            for event in iter_events(ChatCompletionsLane(), chunks):
                assert_type(event, ChatEvent | Reconnecting)
                if isinstance(event, ChatToolCallEnd):
                    print(event.name.upper(), event.arguments)  # the name is a str
                elif isinstance(event, ChatContentDelta):
                    print(event.text)


        def responses(chunks: Iterable[bytes]) -> None:
            lane = ResponsesLane()
            assert_type(lane.feed(b""), list[ResponsesEvent])
            assert_type(lane.resume(), list[ResponsesEvent])
            assert_type(lane.snapshot, ResponseSnapshot)
            for event in lane.feed(b""):
                if isinstance(event, ResponseContentDeltaEvent):
                    if event.type == "response.output_text.delta":
                        print(event.output_index + 1, event.delta)  # an int, always
                if isinstance(event, ResponseItemEvent):
                    print(event.output_index + 1)
                if not isinstance(event, StreamEnd | StreamRestarted):
                    print(event.type, event.sequence_number)
            item = lane.snapshot.item(0)
            print(item.text if item is not None else lane.snapshot.output_text)


        def gemini(chunks: Iterable[bytes]) -> None:
            lane = GeminiLane()
            assert_type(lane.feed(b""), list[GeminiEvent])
            assert_type(lane.snapshot, GeminiSnapshot)
            for event in iter_events(GeminiLane(), chunks):
                assert_type(event, GeminiEvent | Reconnecting)
                if isinstance(event, FunctionCallPart):
                    print(event.name.upper(), event.args, event.candidate + 1)
                elif isinstance(event, TextPart):
                    print(event.text)


        def parts(chunks: Iterable[bytes]) -> None:
            for part in iter_events(PartStream(ChatCompletionsLane()), chunks):
                assert_type(part, Part | Reconnecting)
                if isinstance(part, TextDelta):
                    print(part.text)
            assert_type(drain(PartStream(MessagesLane()), chunks), list[Part | Reconnecting])
            assert_type(drain(MessagesLane(), chunks), list[MessagesEvent | Reconnecting])


        async def messages(chunks: AsyncIterable[bytes]) -> None:
            async for event in aiter_events(MessagesLane(), chunks):
                assert_type(event, MessagesEvent | Reconnecting)
                if isinstance(event, ToolUseStop):
                    print(event.name.upper(), event.id.upper())
            async for part in aiter_events(PartStream(ResponsesLane()), chunks):
                assert_type(part, Part | Reconnecting)
            stream: LaneLike[Part] = PartStream(ResponsesLane())
            assert_type(stream.close(), Sequence[Part])
            # PartStream is generic in its lane: the lane's own methods are typed.
            parts = PartStream(ResponsesLane())
            assert_type(parts.lane, ResponsesLane)
            assert_type(parts.lane.load({})[-1], ResponsesEvent)
    """,
    # Another lane's class on a lane's events: the branch can never run.
    "cross_lane": """
        from sse_engine import ChatCompletionsLane, GeminiLane, MessagesLane, ResponsesLane
        from sse_engine.chat import ChatChoiceEvent, ChatToolCallEnd
        from sse_engine.messages import TextBlockDelta
        from sse_engine.responses import ResponseContentDeltaEvent

        for chat_event in ChatCompletionsLane().feed(b""):
            if isinstance(chat_event, ResponseContentDeltaEvent):  # E: unreachable
                print(chat_event)  # E: unreachable
        for event in ResponsesLane().feed(b""):
            if isinstance(event, ChatChoiceEvent):  # E: unreachable
                print(event)  # E: unreachable
        for message in MessagesLane().close():
            if isinstance(message, ChatToolCallEnd):  # E: unreachable
                print(message)  # E: unreachable
        for done in ResponsesLane().close():
            if isinstance(done, TextBlockDelta):  # E: unreachable
                print(done)  # E: unreachable
        for chunk in GeminiLane().feed(b""):
            if isinstance(chunk, TextBlockDelta):  # E: unreachable
                print(chunk)  # E: unreachable
    """,
    # The Messages lane's text event (TextBlockDelta) is not a part.
    "parts_name_clash": """
        from collections.abc import Iterable

        from sse_engine import MessagesLane, PartStream, iter_events
        from sse_engine.messages import TextBlockDelta


        def show(chunks: Iterable[bytes]) -> None:
            for part in iter_events(PartStream(MessagesLane()), chunks):
                if isinstance(part, TextBlockDelta):  # E: unreachable
                    print(part.text)  # E: unreachable
    """,
    # A misspelt Responses event type.
    "misspelt_type": """
        from sse_engine import ResponsesLane
        from sse_engine.responses import ResponseContentDeltaEvent, ResponseOutputItemEvent

        for event in ResponsesLane().feed(b""):
            if isinstance(event, ResponseContentDeltaEvent):
                if event.type == "response.output_txt.delta":  # E: comparison-overlap
                    print(event.delta)  # E: unreachable
            elif isinstance(event, ResponseOutputItemEvent):
                if event.type != "response.output_item.opened":  # E: comparison-overlap
                    print(event.item)
    """,
    # Reading a field that is not there on every event, and a mutator that is private.
    "misuse": """
        from sse_engine import ChatCompletionsLane, ResponsesLane

        for event in ResponsesLane().feed(b""):
            print(event.type)  # E: union-attr
        lane = ResponsesLane()
        lane.snapshot.add(0, {})  # E: attr-defined
        choice = ChatCompletionsLane().snapshot.choices[0]
        choice.add_text("content", "hi")  # E: attr-defined
    """,
}

_MARK = re.compile(r"#\s*E:\s*(?P<codes>[\w-]+(?:\s*,\s*[\w-]+)*)\s*$")
_ERROR = re.compile(r"^(?P<path>.+?):(?P<line>\d+): error: .*\[(?P<code>[\w-]+)\]$")


def expected_errors(code: str) -> set[tuple[int, str]]:
    found = set()
    for number, line in enumerate(code.splitlines(), 1):
        mark = _MARK.search(line)
        if mark:
            found |= {(number, c.strip()) for c in mark["codes"].split(",")}
    return found


# Session scope, not module: with pytest-xdist a worker may run tests of other
# modules between this module's, and a module fixture would run mypy again.
@pytest.fixture(scope="session")
def mypy_errors(once_per_run: OncePerRun) -> dict[str, set[tuple[int, str]]]:
    """One mypy run over every script, for all workers: each error's (line, code), by file stem."""
    found = once_per_run.get("typing-mypy")
    return {unit: {(line, code) for line, code in errors} for unit, errors in found.items()}


def _mypy_errors_json(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, list[tuple[int, str]]]:
    return {unit: sorted(errors) for unit, errors in _mypy_errors(tmp_path_factory).items()}


def _mypy_errors(tmp_path_factory: pytest.TempPathFactory) -> dict[str, set[tuple[int, str]]]:
    folder = tmp_path_factory.mktemp("typing")
    for name, code in SCRIPTS.items():
        (folder / f"{name}.py").write_text(textwrap.dedent(code).lstrip(), encoding="utf-8")
    env = {**os.environ, "MYPYPATH": str(ROOT)}  # this checkout's sse_engine
    done = run_mypy(sorted(str(path) for path in folder.glob("*.py")), cwd=folder, env=env)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    errors: dict[str, set[tuple[int, str]]] = {}
    for line in done.stdout.splitlines():
        match = _ERROR.match(line)
        if match is None:
            continue  # notes
        path = (folder / match["path"]).resolve()  # mypy names them relative to cwd
        unit = path.stem if path.parent == folder.resolve() else str(path)
        errors.setdefault(unit, set()).add((int(match["line"]), match["code"]))
    return errors


early(__file__, "typing-mypy", _mypy_errors_json, fixture="mypy_errors")


def test_correct_code_passes_and_is_typed_per_lane(
    mypy_errors: dict[str, set[tuple[int, str]]],
) -> None:
    assert mypy_errors.get("correct", set()) == set()


@pytest.mark.parametrize("name", [name for name in SCRIPTS if name != "correct"])
def test_each_mistake_is_reported_where_it_is(
    name: str, mypy_errors: dict[str, set[tuple[int, str]]]
) -> None:
    code = textwrap.dedent(SCRIPTS[name]).lstrip()
    assert mypy_errors.get(name, set()) == expected_errors(code)


def test_the_package_itself_is_clean_under_the_same_flags(
    mypy_errors: dict[str, set[tuple[int, str]]],
) -> None:
    assert {unit: errors for unit, errors in mypy_errors.items() if unit not in SCRIPTS} == {}


# -- the run-time half ------------------------------------------------------------------------


UNIONS = {
    chat: chat.ChatEvent, responses: responses.ResponsesEvent, messages: messages.MessagesEvent,
    gemini: gemini.GeminiEvent,
}
SHARED = {
    chat: {StreamEnd}, responses: {StreamEnd, StreamRestarted}, messages: {StreamEnd},
    gemini: {StreamEnd},
}


@pytest.mark.parametrize("module", list(UNIONS), ids=lambda m: m.__name__)
def test_each_union_is_the_final_event_classes_its_package_exports(module: Any) -> None:
    members = set(typing.get_args(UNIONS[module]))
    exported = {
        value for name in module.__all__
        if isinstance(value := getattr(module, name), type) and issubclass(value, LaneEvent)
    }
    final = {cls for cls in exported if getattr(cls, "__final__", False)}
    assert members == final | SHARED[module]
    # What is not in the union is a base to match a family with, never an event.
    for base in exported - final:
        assert any(issubclass(cls, base) for cls in members), base
    for cls in members:
        assert getattr(cls, "__final__", False) and attrs.has(cls), cls


def test_the_shared_events_are_final() -> None:
    for cls in (StreamEnd, StreamRestarted, sse_engine.Reconnecting, sse_engine.LaneWarning):
        assert getattr(cls, "__final__", False), cls


def test_the_responses_literals_are_the_types_the_lane_dispatches() -> None:
    from sse_engine.responses._lane import _HANDLERS

    assert set(_HANDLERS) == RESPONSES_EVENT_TYPES
    per_class = [kind for kinds in EVENT_TYPES.values() for kind in kinds]
    assert sorted(per_class) == sorted(RESPONSES_EVENT_TYPES)  # each type in one class
    union = set(typing.get_args(responses.ResponsesEvent))
    assert set(EVENT_TYPES) == union - {responses.ResponseUnknownEvent, StreamEnd, StreamRestarted}
    assert set(EVENT_TYPES[responses.ResponseItemStatusEvent]) == responses.ITEM_STATUS_TYPES
