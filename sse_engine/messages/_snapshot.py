"""The Messages lane's snapshot: the message and its content blocks as assembled so far.

Text, thinking and tool-input fragments are kept as lists of pieces and joined
only when read, so a long stream costs linear time. A tool block's input JSON
is parsed once, when the block stops (or when ``to_api()`` is called on a
block that never stopped); a fragment text that is not valid JSON is reported
in ``input_error`` and never turned into a partial dict.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sse_engine._json import plain_json
from sse_engine._tally import Tally, said
from sse_engine.messages._wire import TOOL_BLOCK_TYPES

__all__ = ["ContentBlock", "MessageSnapshot"]

#: Block types whose input streams as ``input_json_delta`` fragments. The
#: stable SDK tracks tool_use and server_tool_use; the beta SDK adds mcp_tool_use.

# The field that accumulates the block's streamed text, per block type.
_TEXT_FIELD = {"text": "text", "thinking": "thinking"}


class _Pieces(list[str]):
    """A string field of an unknown delta type, growing piece by piece (joined when read)."""

    __slots__ = ()

JsonLoads = Callable[[str], Any]


class ContentBlock:
    """One content block, as assembled so far.

    ``start`` is the ``content_block`` object of ``content_block_start`` (never
    modified). ``parts`` are the streamed pieces: text for a ``text`` block,
    thinking for a ``thinking`` block, input JSON fragments for a tool block.
    ``citations`` are those added by ``citations_delta``; ``signature`` is the
    last ``signature_delta`` (None if none came). ``fields`` holds what other
    deltas set: a ``compaction_delta``'s ``content`` and ``encrypted_content``
    (each replaces the block's), and the fields of a delta type this library
    does not know, merged in so that nothing the server sent is lost (strings
    concatenate onto the block's, other values replace it). ``stopped`` is
    True once ``content_block_stop`` arrived.
    """

    __slots__ = (
        "_parsed_parts",
        "citations",
        "fields",
        "index",
        "input",
        "input_error",
        "parts",
        "signature",
        "start",
        "stopped",
        "type",
    )

    def __init__(
        self, index: int, start: dict[str, Any], block_type: str, lean: bool = False
    ) -> None:
        self.index = index
        self.start = start
        self.type = block_type
        self.stopped = False
        self.signature: str | None = None
        self.citations: list[Any] = []
        field = _TEXT_FIELD.get(block_type)
        initial = start.get(field, "") if field is not None else ""
        # Lean (see ``Lane.make_lean``): text and thinking are counted, not kept.
        parts: list[str] = Tally() if lean and block_type not in TOOL_BLOCK_TYPES else []
        if type(initial) is str and initial:
            parts.append(initial)
        self.parts = parts
        #: The parsed tool input (tool blocks): the start value until the
        #: fragments parse. ``input_error`` says why they did not.
        self.input: Any = start.get("input", {})
        self.input_error: str | None = None
        self._parsed_parts = 0
        self.fields: dict[str, Any] | None = None

    def _replace(self, delta: dict[str, Any], keys: tuple[str, ...]) -> None:
        """A known delta that sets fields (``compaction_delta``): each key it has replaces."""
        fields = self.fields
        if fields is None:
            fields = self.fields = {}
        for key in keys:
            if key in delta:
                fields[key] = delta[key]

    def _merge(self, delta: dict[str, Any]) -> None:
        """A delta of a type the lane does not know: its fields merge into the block.

        Strings concatenate (onto the block's own string, from its start or
        an earlier delta); any other value replaces; null changes nothing.
        """
        fields = self.fields
        if fields is None:
            fields = self.fields = {}
        text_field = _TEXT_FIELD.get(self.type)
        for key, value in delta.items():
            if key == "type" or value is None:
                continue
            if key == text_field and type(value) is str:
                self.parts.append(value)  # more of the block's own text
                continue
            old = fields[key] if key in fields else self.start.get(key)
            if type(value) is not str:
                fields[key] = value
            elif type(old) is _Pieces:
                old.append(value)
            else:
                fields[key] = _Pieces((old, value) if type(old) is str and old else (value,))

    @property
    def is_tool(self) -> bool:
        """Whether the block's input streams as JSON fragments (tool_use and kin)."""
        return self.type in TOOL_BLOCK_TYPES

    @property
    def has_text(self) -> bool:
        """Whether any text (or thinking, or input) came into the block, kept or only counted."""
        return said(self.parts)

    def joined(self) -> str:
        """The streamed pieces joined: the text, the thinking or the input JSON text."""
        parts = self.parts
        if len(parts) > 1:
            parts[:] = ["".join(parts)]
        return parts[0] if parts else ""

    @property
    def text(self) -> str:
        """The block's text (text blocks) or thinking (thinking blocks) so far."""
        return self.joined() if self.type in _TEXT_FIELD else ""

    def _parse_input(self, loads: JsonLoads) -> None:
        """Parse the input JSON fragments (tool blocks), once per new fragment count.

        No fragments, or only empty ones, leave the start value (normally
        ``{}``), as the API and the SDK do for a tool without parameters.
        """
        count = len(self.parts)
        if count == self._parsed_parts:
            return
        self._parsed_parts = count
        text = self.joined()
        if not text:
            return
        try:
            self.input = loads(text)
            self.input_error = None
        except (ValueError, TypeError, RecursionError) as exc:
            self.input = self.start.get("input", {})
            cut = text if len(text) <= 200 else text[:100] + " ... " + text[-100:]
            self.input_error = f"the tool input is not valid JSON ({exc}): {cut!r}"

    def to_api(self, loads: JsonLoads) -> dict[str, Any]:
        """The block as the API's final message has it (JSON-ready; treat as read-only)."""
        block = dict(self.start)
        kind = self.type
        if kind == "text":
            block["text"] = self.joined()
            if self.citations:
                earlier = block.get("citations")
                block["citations"] = (
                    [*earlier, *self.citations] if isinstance(earlier, list) else
                    list(self.citations)
                )
        elif kind == "thinking":
            block["thinking"] = self.joined()
            if self.signature is not None:
                block["signature"] = self.signature
        elif kind in TOOL_BLOCK_TYPES:
            self._parse_input(loads)
            block["input"] = self.input
        if self.fields:
            for key, value in self.fields.items():
                if type(value) is _Pieces:
                    if len(value) > 1:
                        value[:] = ["".join(value)]
                    value = value[0]
                block[key] = value
        return block


_SKELETON_DEFAULTS: dict[str, Any] = {
    "id": None,
    "type": "message",
    "role": "assistant",
    "model": None,
    "stop_reason": None,
    "stop_sequence": None,
}


class MessageSnapshot:
    """The message being streamed: ``to_api()`` gives the final ``message`` object.

    ``message`` holds the ``message_start`` message (its ``content`` and
    ``usage`` live in ``content`` and ``usage``); ``message_delta`` updates its
    stop fields. ``content`` lists the blocks in the order they started.
    ``started`` is False until ``message_start`` (or the first event that
    implies it) arrived. ``lean``: the blocks keep no streamed text or
    thinking (see ``Lane.make_lean``).
    """

    def __init__(self, loads: JsonLoads, on_loss: Callable[[str], None] | None = None) -> None:
        self._loads = loads
        self.lean = False
        #: Told what ``to_api()`` had to replace to stay plain JSON (the lane warns).
        self._on_loss = on_loss
        self.started = False
        self.message: dict[str, Any] = {}
        self.usage: dict[str, Any] = {}
        self.content: list[ContentBlock] = []
        self._by_index: dict[int, ContentBlock] = {}

    def _text_field(self, key: str) -> str | None:
        value = self.message.get(key)
        return value if type(value) is str else None

    @property
    def id(self) -> str | None:
        """The message id (``msg_...``); None until a string one arrived."""
        return self._text_field("id")

    @property
    def model(self) -> str | None:
        """The model that answers; None until a string one arrived."""
        return self._text_field("model")

    @property
    def stop_reason(self) -> str | None:
        """The stop reason from ``message_delta`` (None until a string one arrives)."""
        return self._text_field("stop_reason")

    @property
    def stop_sequence(self) -> str | None:
        """The stop sequence that ended the turn, if that is why it stopped."""
        return self._text_field("stop_sequence")

    @property
    def text(self) -> str:
        """The text of every text block, joined: what the model said."""
        return "".join(b.joined() for b in self.content if b.type == "text")

    def to_api(self) -> dict[str, Any]:
        """The ``message`` object the API (and the SDK's ``get_final_message()``) gives.

        A fresh plain JSON copy on every call: NaN, Infinity and nesting
        deeper than 256 levels become null (a
        ``not_plain_json`` warning). Tool inputs are parsed; one whose JSON
        does not parse keeps its start value (``{}``) and its block's
        ``input_error`` says why.
        """
        message = {**_SKELETON_DEFAULTS, **self.message}
        loads = self._loads
        message["content"] = [block.to_api(loads) for block in self.content]
        message["usage"] = self.usage
        return plain_json(message, self._on_loss)  # type: ignore[no-any-return]
