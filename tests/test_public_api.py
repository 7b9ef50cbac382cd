"""``__all__`` is honest: every name exists, is documented, and nothing public is missing."""

from __future__ import annotations

import inspect

import sse_engine
from sse_engine import chat, messages, responses


def test_every_exported_name_exists_and_has_a_docstring() -> None:
    for name in sse_engine.__all__:
        obj = getattr(sse_engine, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert inspect.getdoc(obj), f"{name} has no docstring"


def test_all_has_no_duplicates() -> None:
    assert len(set(sse_engine.__all__)) == len(sse_engine.__all__)


def test_no_public_name_is_left_out_of_all() -> None:
    public = {
        name
        for name, obj in vars(sse_engine).items()
        if not name.startswith("_") and not inspect.ismodule(obj) and name != "annotations"
    }
    assert public == set(sse_engine.__all__)


def test_lane_modules_export_what_they_define() -> None:
    for module in (chat, messages, responses):
        for name in module.__all__:
            assert hasattr(module, name), f"{module.__name__}.{name}"
            obj = getattr(module, name)
            if inspect.isclass(obj):
                assert inspect.getdoc(obj), f"{module.__name__}.{name} has no docstring"


def test_lane_classes_share_the_contract() -> None:
    for lane_class in (
        sse_engine.ChatCompletionsLane,
        sse_engine.ResponsesLane,
        sse_engine.MessagesLane,
    ):
        lane = lane_class()
        assert isinstance(lane, sse_engine.Lane)
        assert lane.outcome is None and lane.error is None and lane.warnings == []
        assert isinstance(lane.snapshot.to_api(), dict)
        events = lane.close()
        assert events == [sse_engine.StreamEnd(sse_engine.Outcome.TRUNCATED, lane.error)]
        assert lane.error is not None and lane.error.retryable
