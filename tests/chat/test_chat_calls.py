"""The Chat lane's call assembly (``chat/_calls.py``): an object the lane holds.

How fragments become calls, one test per rule, is in ``test_chat.py`` (the
lane's behaviour); here: what holding the assembly means.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest
from test_chat import LEGACY_FUNCTION_CALL, capture

from sse_engine.chat import ChatCompletionsLane


@pytest.fixture
def no_collector() -> Iterator[None]:
    """Only reference counting frees objects: anything in a reference cycle stays alive."""
    gc.collect()
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
