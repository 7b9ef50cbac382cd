"""The content-block assembly the Messages lane holds (``messages/_blocks.py``).

The lane is one state machine that holds its helpers: the assembly is given
the lane's snapshot and reports, never the lane, so it works on its own and a
lane is freed by reference counting alone (no cycle through a helper).
"""

from __future__ import annotations

import gc
import json
import weakref
from importlib import resources

from sse_engine import MessagesLane
from sse_engine._lane_reports import Reports
from sse_engine._parser import SSEParser
from sse_engine.messages import BlockStart, BlockStop, InputJsonDelta, TextBlockDelta, ToolUseStop
from sse_engine.messages._blocks import BlockAssembly
from sse_engine.messages._snapshot import MessageSnapshot


def _assembly() -> tuple[BlockAssembly, MessageSnapshot, Reports]:
    snapshot = MessageSnapshot(json.loads)
    reports = Reports(False, SSEParser())
    return BlockAssembly(snapshot, reports, json.loads), snapshot, reports


def test_the_assembly_builds_blocks_into_the_snapshot_it_is_given() -> None:
    blocks, snapshot, reports = _assembly()
    snapshot.started = True
    out: list[object] = []
    blocks.start({"type": "content_block_start", "index": 0,
                  "content_block": {"type": "text", "text": ""}}, out)
    blocks.delta({"type": "content_block_delta", "index": 0,
                  "delta": {"type": "text_delta", "text": "Hi"}}, out)
    blocks.stop({"type": "content_block_stop", "index": 0}, out)
    blocks.start({"type": "content_block_start", "index": 1, "content_block":
                  {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}}, out)
    blocks.delta({"type": "content_block_delta", "index": 1,
                  "delta": {"type": "input_json_delta", "partial_json": '{"a": 1}'}}, out)
    assert set(blocks.open) == {1}
    blocks.stop({"type": "content_block_stop", "index": 1}, out)
    assert [type(e) for e in out] == [
        BlockStart, TextBlockDelta, BlockStop, BlockStart, InputJsonDelta, ToolUseStop
    ]
    assert snapshot.text == "Hi"
    assert isinstance(out[-1], ToolUseStop) and out[-1].input == {"a": 1}
    assert blocks.open == {} and reports.warnings == []


def test_the_assembly_reports_through_the_reports_it_is_given() -> None:
    blocks, snapshot, reports = _assembly()
    out: list[object] = []
    blocks.delta({"type": "content_block_delta", "index": 0,
                  "delta": {"type": "text_delta", "text": "x"}}, out)
    assert [w.code for w in reports.warnings] == ["missing_message_start", "missing_block_start"]
    assert snapshot.started and snapshot.text == "x"


def test_a_lane_is_freed_without_the_cycle_collector() -> None:
    data = resources.files("sse_engine").joinpath("captures", "messages_thinking.sse").read_bytes()
    enabled = gc.isenabled()
    gc.disable()
    try:
        lane = MessagesLane()
        lane.feed(data)
        lane.close()
        lane.snapshot.to_api()
        ref = weakref.ref(lane)
        del lane
        assert ref() is None  # no reference cycle: nothing the lane holds points back at it
    finally:
        if enabled:
            gc.enable()
