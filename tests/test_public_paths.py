"""Public names live at public paths: help(), reprs and pickles never show a private module.

Every public package (``sse_engine`` and each sub-package without a leading
underscore) ends its ``__init__`` with ``_publish(__name__)``; these tests hold
each one to it, and check that moving the names broke nothing a user relies on:
pickling, attrs' introspection and ``typing.get_type_hints``.
"""

from __future__ import annotations

import importlib
import inspect
import pickle
import pkgutil
import pydoc
import re
import typing
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs
import pytest

import sse_engine
from sse_engine import ChatCompletionsLane, Outcome, SSEParser
from sse_engine._lane import Lane

CAPTURES = Path(__file__).resolve().parent.parent / "sse_engine" / "captures"
#: A dotted path with a private module in it: ``sse_engine.chat._events`` (not
#: ``sse_engine.chat._TextDelta``, a private class at a public path, nor ``__all__``).
PRIVATE_PATH = re.compile(r"\bsse_engine(?:\.[a-z]\w*)*\._[a-z]\w*")


def public_packages() -> list[str]:
    names = ["sse_engine"]
    for info in pkgutil.walk_packages(sse_engine.__path__, "sse_engine."):
        if info.ispkg and not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return names


def public_objects(module: ModuleType) -> list[tuple[str, Any]]:
    return [
        (name, value)
        for name in module.__all__
        if inspect.isclass(value := getattr(module, name)) or inspect.isfunction(value)
    ]


def test_the_public_packages_are_found() -> None:
    assert {"sse_engine", "sse_engine.chat", "sse_engine.responses", "sse_engine.messages"} <= set(
        public_packages()
    )


@pytest.mark.parametrize("package", public_packages())
def test_help_shows_no_private_module(package: str) -> None:
    module = importlib.import_module(package)
    text = pydoc.render_doc(module, renderer=pydoc.plaintext)  # type: ignore[attr-defined]
    assert sorted(set(PRIVATE_PATH.findall(text))) == []


@pytest.mark.parametrize("package", public_packages())
def test_every_public_class_and_function_has_a_public_home(package: str) -> None:
    module = importlib.import_module(package)
    for name, value in public_objects(module):
        assert not PRIVATE_PATH.search(value.__module__), (name, value.__module__)
        # Pickle finds classes and functions by __module__ + __qualname__.
        home = importlib.import_module(value.__module__)
        assert getattr(home, value.__qualname__) is value, name


@pytest.mark.parametrize("package", public_packages())
def test_type_hints_and_attrs_introspection_still_resolve(package: str) -> None:
    module = importlib.import_module(package)
    for name, value in public_objects(module):
        if not inspect.isclass(value):
            continue
        hints = typing.get_type_hints(value)
        if attrs.has(value):
            attrs.resolve_types(value)
            for field in attrs.fields(value):
                assert field.name in hints, (name, field.name)
                assert not isinstance(field.type, str), (name, field.name)


def _lane_objects() -> list[Any]:
    """Everything the lanes make from the bundled captures: events, warnings, errors."""
    lanes: dict[str, type[Lane[Any]]] = {
        name: row.lane for name, row in sse_engine.FORMATS.items()
    }
    made: list[Any] = []
    for path in sorted(CAPTURES.glob("*_*.sse")):
        lane = lanes[path.name.split("_")[0]]()
        made += lane.feed(path.read_bytes()) + lane.close()
        made += [*lane.warnings, lane.error, lane.outcome]
    return [item for item in made if item is not None]


def test_what_the_lanes_make_pickles_and_comes_back_equal() -> None:
    made = _lane_objects()
    kinds = {type(item) for item in made}
    assert len(kinds) >= 30
    for item in made:
        again = pickle.loads(pickle.dumps(item))
        assert type(again) is type(item)
        assert again == item
    parser = SSEParser()
    (event,) = parser.feed(b"event: x\ndata: y\nid: 1\n\n")
    assert pickle.loads(pickle.dumps(event)) == event
    assert pickle.loads(pickle.dumps(Outcome.TRUNCATED)) is Outcome.TRUNCATED


def test_events_keep_their_attrs_behaviour() -> None:
    for item in _lane_objects():
        if not attrs.has(type(item)):
            continue
        assert attrs.evolve(item) == item
        assert isinstance(attrs.asdict(item, recurse=False), dict)
        assert repr(item).startswith(type(item).__name__ + "(")


def test_an_exception_names_its_public_class() -> None:
    lane = ChatCompletionsLane(strict=True)
    with pytest.raises(sse_engine.ProtocolError) as raised:
        lane.feed(b"data: {not json}\n\n")
    assert type(raised.value).__module__ == "sse_engine"
    assert pickle.loads(pickle.dumps(Outcome.FAILED)) is Outcome.FAILED
