"""How a Messages stream's content blocks are assembled: start, deltas, stop.

:class:`BlockAssembly` is held by :class:`~sse_engine.messages.MessagesLane`
(one per lane, never holding the lane): it owns the table of open blocks and
handles ``content_block_start``, every ``content_block_delta`` the lane's hot
path does not take (a delta for a block that never started, of another
block's kind, of a type this library does not know) and
``content_block_stop``, with the parsed tool input. It reports through the
lane's :class:`~sse_engine._lane_reports.Reports` and adds blocks to the
lane's snapshot. The delta tables live here too: which string deltas each
block type accepts, and the block a stray delta implies. The lane
(``_lane.py``) owns the frames and the message level: ``message_start``,
``message_delta``, ``message_stop``, ``ping``, ``error`` and the verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from sse_engine._errors import ProtocolError
from sse_engine._event_build import slot_builder
from sse_engine._json import describe
from sse_engine._lane_events import JsonLoads
from sse_engine._lane_reports import Reports
from sse_engine.messages._events import (
    BlockStart,
    BlockStop,
    CitationDelta,
    InputJsonDelta,
    MessagesEvent,
    OtherDelta,
    SignatureDelta,
    TextBlockDelta,
    ThinkingDelta,
    ToolUseStop,
)
from sse_engine.messages._snapshot import ContentBlock, MessageSnapshot
from sse_engine.messages._wire import TOOL_BLOCK_TYPES

__all__ = ["BlockAssembly", "OpenBlocks", "Spec", "malformed", "note_started", "str_or_none"]

# The string-valued deltas: delta type -> (its field, the event class, whether
# it replaces rather than appends), and the block types each applies to.
_StringDelta = TextBlockDelta | ThinkingDelta | InputJsonDelta | SignatureDelta
Spec = tuple[str, Callable[..., _StringDelta], bool]
# The events are built slot by slot (sse_engine/_event_build.py): the same objects as
# their classes make, for less of the hot path's time.
_STRING_DELTAS: dict[str, Spec] = {
    delta_type: (field, slot_builder(event_class, "raw", "index", field), replaces)
    for delta_type, field, event_class, replaces in (
        ("text_delta", "text", TextBlockDelta, False),
        ("thinking_delta", "thinking", ThinkingDelta, False),
        ("input_json_delta", "partial_json", InputJsonDelta, False),
        ("signature_delta", "signature", SignatureDelta, True),
    )
}
_SPECS_BY_BLOCK_TYPE: dict[str, dict[str, Spec]] = {
    "text": {"text_delta": _STRING_DELTAS["text_delta"]},
    "thinking": {k: _STRING_DELTAS[k] for k in ("thinking_delta", "signature_delta")},
    **{t: {"input_json_delta": _STRING_DELTAS["input_json_delta"]} for t in TOOL_BLOCK_TYPES},
}
_NO_SPECS: dict[str, Spec] = {}

# Deltas that set fields of their block (as the SDK does): delta type ->
# (the block type they apply to, the fields each replaces).
_FIELD_DELTAS: dict[str, tuple[str, tuple[str, ...]]] = {
    "compaction_delta": ("compaction", ("content", "encrypted_content")),
}

# The block a delta implies when it arrives for a block that never started.
_IMPLIED_BLOCKS: dict[str, dict[str, Any]] = {
    "text_delta": {"type": "text", "text": ""},
    "citations_delta": {"type": "text", "text": ""},
    "thinking_delta": {"type": "thinking", "thinking": "", "signature": ""},
    "signature_delta": {"type": "thinking", "thinking": "", "signature": ""},
    "input_json_delta": {"type": "tool_use", "id": None, "name": None, "input": {}},
    "compaction_delta": {"type": "compaction", "content": None, "encrypted_content": None},
}


#: The open blocks, by index, each with the string deltas it accepts: what the
#: lane's hot path reads.
OpenBlocks = dict[int, tuple[ContentBlock, dict[str, Spec]]]


class BlockAssembly:
    """The content blocks of one message as they start, grow and stop.

    Adds each block to ``snapshot`` and reports through ``reports`` (the
    lane's); ``json_loads`` parses tool input. :attr:`open` is the table of
    open blocks: the lane reads it for its inline hot path (a string delta
    for an open block of its kind) and hands everything else to :meth:`delta`.
    """

    __slots__ = ("_json_loads", "_reports", "_snap", "open")

    def __init__(
        self, snapshot: MessageSnapshot, reports: Reports, json_loads: JsonLoads
    ) -> None:
        self._snap = snapshot
        self._reports = reports
        self._json_loads = json_loads
        #: The open blocks, by index, with the string deltas each accepts (the hot
        #: path's table: the same dict for the assembly's life, so the lane may keep it).
        self.open: Final[OpenBlocks] = {}

    def add(self, index: int, block: dict[str, Any]) -> ContentBlock:
        """Add block ``index`` (the ``content_block`` as sent) to the snapshot, open."""
        block_type = block.get("type")
        if type(block_type) is not str:
            self._reports.warn("bad_field", f"content block {index} has no string type; kept as is")
            block_type = ""
        snap = self._snap
        new = ContentBlock(index, block, block_type, snap.lean)
        snap.content.append(new)
        snap._by_index[index] = new
        self.open[index] = (new, _SPECS_BY_BLOCK_TYPE.get(block_type, _NO_SPECS))
        return new

    def add_complete(self, block: dict[str, Any]) -> None:
        """Add a block that arrived whole (in ``message_start``'s content): never open."""
        done = self.add(len(self._snap.content), block)
        done.stopped = True
        del self.open[done.index]

    def start(self, payload: dict[str, Any], out: list[MessagesEvent]) -> None:
        """``content_block_start``."""
        index = payload.get("index")
        block = payload.get("content_block")
        if type(index) is not int or type(block) is not dict:
            raise malformed(
                self._reports, "content_block_start needs an int index and a content_block",
                payload,
            )
        note_started(self._snap, self._reports, "content_block_start")
        snap = self._snap
        if index in snap._by_index:
            self._reports.violation("block_index_mismatch", f"block {index} started twice")
        elif index != len(snap.content):
            self._reports.violation(
                "block_index_mismatch",
                f"block {index} started where block {len(snap.content)} was expected",
            )
        new = self.add(index, block)
        if new.type == "fallback":
            # The model that produces what follows: the message is relabelled, as
            # the SDK does (its non-streamed message names the serving model).
            target = block.get("to")
            model = target.get("model") if type(target) is dict else None
            if type(model) is str:
                snap.message["model"] = model
        out.append(BlockStart(payload, index, new.type, block))

    def _block_for(self, payload: dict[str, Any], kind: str) -> tuple[int, ContentBlock | None]:
        index = payload.get("index")
        if type(index) is not int:
            raise malformed(self._reports, f"{kind} without an int index", payload)
        block = self._snap._by_index.get(index)
        if block is not None and block.stopped:
            self._reports.violation(
                "block_already_stopped", f"{kind} for block {index} after its stop"
            )
        return index, block

    def delta(self, payload: dict[str, Any], out: list[MessagesEvent]) -> None:
        """A ``content_block_delta`` the lane's hot path did not take: validated, warned about."""
        reports = self._reports
        delta = payload.get("delta")
        if type(delta) is not dict:
            raise malformed(reports, "content_block_delta without a delta object", payload)
        index, block = self._block_for(payload, "content_block_delta")
        delta_type: Any = delta.get("type")
        if type(delta_type) is not str:
            reports.warn("bad_field", f"a delta for block {index} has no string type")
            out.append(OtherDelta(payload, index, describe(delta_type), delta))
            return
        if block is None:
            implied = _IMPLIED_BLOCKS.get(delta_type)
            if implied is None:
                reports.violation(
                    "unknown_block_index", f"{delta_type} for block {index}, which never started"
                )
                out.append(OtherDelta(payload, index, delta_type, delta))
                return
            note_started(self._snap, reports, "content_block_delta")
            reports.violation(
                "missing_block_start", f"{delta_type} for block {index}, which never started"
            )
            block = self.add(index, dict(implied))
        spec = _STRING_DELTAS.get(delta_type)
        if spec is not None:
            field, event_class, replaces = spec
            value = delta.get(field)
            if type(value) is not str:
                raise malformed(reports, f"{delta_type} whose {field} is not a string", payload)
            if delta_type not in _SPECS_BY_BLOCK_TYPE.get(block.type, {}):
                self._mismatch(block, delta_type, payload, delta, out)
            elif replaces:
                block.signature = value
                out.append(event_class(payload, index, value))
            else:
                block.parts.append(value)
                out.append(event_class(payload, index, value))
        elif delta_type == "citations_delta":
            citation = delta.get("citation")
            if type(citation) is not dict:
                raise malformed(reports, "citations_delta whose citation is not an object", payload)
            if block.type != "text":
                self._mismatch(block, delta_type, payload, delta, out)
            else:
                block.citations.append(citation)
                out.append(CitationDelta(payload, index, citation))
        elif delta_type in _FIELD_DELTAS:
            block_type, keys = _FIELD_DELTAS[delta_type]
            if block.type != block_type:
                self._mismatch(block, delta_type, payload, delta, out)
            else:
                block._replace(delta, keys)
                out.append(OtherDelta(payload, index, delta_type, delta))
        else:
            # A delta type this library does not know: nothing it carries is lost.
            block._merge(delta)
            out.append(OtherDelta(payload, index, delta_type, delta))

    def _mismatch(
        self,
        block: ContentBlock,
        delta_type: str,
        payload: dict[str, Any],
        delta: dict[str, Any],
        out: list[MessagesEvent],
    ) -> None:
        """A delta for a block of another kind: ignored (as the SDK does), passed through."""
        self._reports.violation(
            "delta_type_mismatch",
            f"{delta_type} for block {block.index} of type {describe(block.type)} was not applied",
        )
        out.append(OtherDelta(payload, block.index, delta_type, delta))

    def stop(self, payload: dict[str, Any], out: list[MessagesEvent]) -> None:
        """``content_block_stop``: the block as ``to_api()`` gives it; a tool's parsed input."""
        index, block = self._block_for(payload, "content_block_stop")
        if block is None:
            self._reports.violation(
                "unknown_block_index", f"content_block_stop for unknown block {index}"
            )
            return
        if block.stopped:
            return
        block.stopped = True
        self.open.pop(index, None)
        loads = self._json_loads
        if block.is_tool:
            self.finish_tool_input(block)
            start = block.start
            out.append(
                ToolUseStop(
                    payload,
                    index,
                    block.to_api(loads),
                    str_or_none(start.get("id")) or "",
                    self._tool_name(block),
                    None if block.input_error else block.input,
                    block.input_error,
                )
            )
        else:
            out.append(BlockStop(payload, index, block.to_api(loads)))

    def _tool_name(self, block: ContentBlock) -> str:
        """The name of a tool block: ``""`` (and a warning) when its start gave none."""
        name = block.start.get("name")
        if type(name) is str:
            return name
        self._reports.warn(  # not a strict-mode error: the stream is well formed, the call unusable
            "tool_call_without_name", f"block {block.index} ({block.type}) stopped without a name"
        )
        return ""

    def finish_tool_input(self, block: ContentBlock) -> None:
        """Parse a tool block's input (at its stop, or at the end of a stream that cut it)."""
        block._parse_input(self._json_loads)
        if block.input_error is not None:
            self._reports.warn(
                "tool_input_invalid",
                f"block {block.index} ({describe(block.type)} "
                f"{describe(block.start.get('name'))}): {block.input_error}",
            )

    def finish_unstopped_tools(self) -> None:
        """Parse the input of every tool block that never stopped (the stream ended)."""
        for block in self._snap.content:
            if block.is_tool and not block.stopped:
                self.finish_tool_input(block)


def malformed(reports: Reports, what: str, payload: dict[str, Any]) -> ProtocolError:
    """The error for a frame whose payload this lane cannot interpret, naming the event."""
    return ProtocolError(
        f"SSE event #{reports.event_index} ({describe(payload.get('type'))}): {what}; "
        f"payload: {describe(payload, 120)}"
    )


def note_started(snapshot: MessageSnapshot, reports: Reports, kind: str) -> None:
    """A frame that needs the message: one that came before ``message_start`` implies it."""
    if not snapshot.started:
        reports.violation("missing_message_start", f"{kind} before message_start")
        snapshot.started = True


def str_or_none(value: Any) -> str | None:
    """``value`` when it is a string, else None."""
    return value if type(value) is str else None
