"""One output item of a Responses snapshot as it builds: :class:`OutputItem`, its
:class:`ContentPart` objects, and the private :class:`TextBuffer` their texts grow in.

Text grows as a list of pieces joined only when read (a long answer costs
linear time, not a re-copy per delta). A ``.done`` value replaces what the
deltas built as the text, and the deltas' text stays readable (``streamed``).
A lean snapshot's parts (``Lane.make_lean``) count what the deltas built
instead: ``streamed`` reads ``""`` and ``streamed_length`` says how long it is.
"""

from __future__ import annotations

from typing import Any, Final

from sse_engine._json import plain_json
from sse_engine._tally import CheckedTally, Tally, said, text_crc
from sse_engine.responses._wire import CALL_ITEMS

__all__ = ["ContentPart", "OutputItem", "TextBuffer"]

#: How many deltas a lean text's CRC takes at a time (its append, inline below).
_CRC_RUN: Final = CheckedTally.RUN


class TextBuffer:
    """A text value built from delta pieces until a ``.done`` value replaces it.

    Private to the snapshot (the public objects show its text as strings):
    ``text`` is the value, ``streamed`` what the deltas built, which a
    ``.done`` value replaces but does not erase.
    """

    __slots__ = ("_final", "_pieces")

    def __init__(self, initial: Any = None, lean: bool = False) -> None:
        # Lean: counted, with a checksum (a final text is compared with it: _shown.py).
        pieces: list[str] = CheckedTally() if lean else []
        if type(initial) is str and initial:
            pieces.append(initial)
        self._pieces = pieces
        self._final: str | None = None

    def _append(self, delta: str) -> None:
        pieces = self._pieces
        if type(pieces) is CheckedTally:  # lean: CheckedTally.append, less its call
            pieces.length += len(delta)
            pending = pieces.pending
            pending.append(delta)
            if len(pending) >= _CRC_RUN:
                pieces.fold()
        else:
            pieces.append(delta)

    def _set(self, text: str) -> None:
        """The authoritative value (from a ``.done`` event); later deltas are ignored."""
        self._final = text

    @property
    def text(self) -> str:
        """The value so far: the ``.done`` text if there was one, else the joined deltas."""
        if self._final is not None:
            return self._final
        return self.streamed

    @property
    def streamed(self) -> str:
        """What the deltas built (after the announced text, if any), whatever replaced it."""
        pieces = self._pieces
        if len(pieces) > 1:
            pieces[:] = ["".join(pieces)]
        return pieces[0] if pieces else ""

    @property
    def lean(self) -> bool:
        """Whether what the deltas built is counted, not kept (``streamed`` reads ``""``)."""
        return isinstance(self._pieces, Tally)

    @property
    def streamed_length(self) -> int:
        """How many characters the deltas built (kept or, lean, only counted)."""
        pieces = self._pieces
        return pieces.length if isinstance(pieces, Tally) else len(self.streamed)

    def streams(self, text: str) -> bool:
        """Whether ``text`` is what the deltas built (lean: by length and CRC-32)."""
        pieces = self._pieces
        if type(pieces) is CheckedTally:
            return pieces.length == len(text) and pieces.crc == text_crc(text)
        return self.streamed == text

    @property
    def has_text(self) -> bool:
        """Whether the value is not empty (lean: whether any text came)."""
        return bool(self._final) if self._final is not None else said(self._pieces)


class ContentPart(TextBuffer):
    """One content part: a message's ``output_text`` or ``refusal``, a reasoning text or summary.

    ``part`` is the part object as last announced (``content_part.added``, or
    ``.done`` which replaces it); ``field`` is where its text lives (``text``, or
    ``refusal`` for a refusal part); ``annotations`` are the part's citations,
    including those added by ``annotation.added`` events; ``done`` is True
    once ``content_part.done`` (or ``reasoning_summary_part.done``) arrived,
    or the item holding the part is done (its parts are final).

    ``text`` is the part's text: its final value once a ``.done`` event, its
    ``content_part.done`` or its item's ``output_item.done`` said it, else what
    the deltas built. ``streamed`` is what the deltas built (from the text the
    part was announced with), kept when a final value replaces it: what a
    client that showed the deltas showed. One part stays one object for its
    item's life: the final forms update it in place.
    """

    __slots__ = ("annotations", "done", "field", "part")

    def __init__(self, part: dict[str, Any], *, done: bool = False, lean: bool = False) -> None:
        field = self.field = "refusal" if part.get("type") == "refusal" else "text"
        TextBuffer.__init__(self, part.get(field), lean)
        self.part = part
        annotations = part.get("annotations")
        self.annotations: list[Any] | None = (
            list(annotations) if type(annotations) is list else None
        )
        self.done = done

    def _finish(self, part: dict[str, Any]) -> None:
        """The part's final form (``content_part.done``, its item's ``output_item.done``).

        It replaces the announced part; its text, when it has one, is the
        part's final text (a final part without it says nothing about the
        text); its annotations, when it has them, replace those gathered.
        """
        self.part = part
        field = self.field = "refusal" if part.get("type") == "refusal" else "text"
        text = part.get(field)
        if type(text) is str:
            self._final = text
        annotations = part.get("annotations")
        if type(annotations) is list:
            self.annotations = list(annotations)
        self.done = True

    def _annotate(self, index: int, annotation: Any) -> None:
        annotations = self.annotations
        if annotations is None:
            annotations = self.annotations = []
        if 0 <= index < len(annotations):
            annotations[index] = annotation
        else:
            annotations.append(annotation)

    def to_api(self) -> dict[str, Any]:
        """The part object as the API has it (a plain JSON copy)."""
        return plain_json(self._build())  # type: ignore[no-any-return]

    def _build(self) -> dict[str, Any]:
        part = dict(self.part)
        if self.field in part or self._pieces or self._final is not None:
            part[self.field] = self.text
        if self.annotations is not None:
            part["annotations"] = self.annotations
        return part


def _parts(
    value: Any, before: dict[int, ContentPart] | None = None, lean: bool = False
) -> dict[int, ContentPart]:
    """The parts of a ``content`` or ``summary`` list, by index.

    ``before``: the parts the item streamed, when ``value`` is its final
    list: each one the list still holds is finished in place (so what its
    deltas built stays readable as ``streamed``), the others are gone.
    """
    if type(value) is not list:
        return {}
    parts: dict[int, ContentPart] = {}
    for index, part in enumerate(value):
        if type(part) is not dict:
            continue
        known = before.get(index) if before else None
        if known is None:
            parts[index] = ContentPart(part, done=before is not None, lean=lean)
        else:
            known._finish(part)
            parts[index] = known
    return parts


class OutputItem:
    """One output item as it builds: the item object plus what its events streamed.

    ``item`` is the object from ``output_item.added`` until ``output_item.done``
    replaces it (``done`` is then True and :meth:`to_api` returns it as sent).
    ``parts`` (message or reasoning content) and ``summary`` (reasoning
    summary parts) hold its :class:`ContentPart` objects by index;
    ``arguments`` (function/MCP/Kindo ``arguments``, custom tool ``input``,
    code interpreter ``code``), ``commands`` (a shell call's commands) and
    ``shell_output`` (a shell call output's entries) are the streamed values
    as they stand. ``progress`` is the last status event's status
    (``"searching"``, ...). ``implicit`` says the item was never announced: an
    event referred to it first.
    """

    __slots__ = (
        "_call_input",
        "_commands",
        "_shell_output",
        "call_field",
        "done",
        "implicit",
        "item",
        "lean",
        "output_index",
        "parts",
        "progress",
        "summary",
    )

    def __init__(
        self, output_index: int, item: dict[str, Any], *, implicit: bool = False,
        lean: bool = False,
    ) -> None:
        self.output_index = output_index
        self.implicit = implicit
        #: Text and summary deltas are counted, not kept (see ``Lane.make_lean``).
        self.lean = lean
        self.done = False
        self.progress: str | None = None
        self.parts: dict[int, ContentPart] = {}
        self.summary: dict[int, ContentPart] = {}
        self._seed(item)

    def _seed(self, item: dict[str, Any], *, final: bool = False) -> None:
        """Take ``item`` as the item; ``final``: its final form, over what streamed."""
        self.item = item
        before = self.parts if final else None
        self.parts = _parts(item.get("content"), before, self.lean)
        self.summary = _parts(item.get("summary"), self.summary if final else None, self.lean)
        kind = item.get("type")
        call = CALL_ITEMS.get(kind) if type(kind) is str else None
        field = None if call is None or call.events is None else call.field  # streamed input
        self.call_field = field
        self._call_input = TextBuffer(item.get(field)) if field else None
        action = item.get("action")
        commands = action.get("commands") if type(action) is dict else None
        self._commands: dict[int, TextBuffer] = (
            {i: TextBuffer(c) for i, c in enumerate(commands) if type(c) is str}
            if type(commands) is list
            else {}
        )
        self._shell_output: dict[int, Any] = {}

    def __repr__(self) -> str:
        state = "done" if self.done else "open"
        return f"<OutputItem #{self.output_index} {self.type} {self.id!r} {state}>"

    # -- what the lane does ----------------------------------------------------------

    def _adopt(self, item: dict[str, Any]) -> None:
        """``output_item.added`` for an item events had already opened implicitly."""
        self.item = item
        self.implicit = False

    def _finish(self, item: dict[str, Any]) -> None:
        """``output_item.done``: the final item replaces everything streamed; its parts are done.

        A part the final item still holds stays the same object (finished in
        place: what its deltas built stays readable as ``streamed``).
        """
        self._seed(item, final=True)
        self.done = True

    def _part(self, index: int, kind: str) -> ContentPart:
        """The content part at ``index``, opened as ``kind`` if no event announced it."""
        part = self.parts.get(index)
        if part is None:
            part = self.parts[index] = ContentPart(_empty_part(kind), lean=self.lean)
        return part

    def _summary_part(self, index: int) -> ContentPart:
        part = self.summary.get(index)
        if part is None:
            part = self.summary[index] = ContentPart(
                {"type": "summary_text", "text": ""}, lean=self.lean
            )
        return part

    def _call(self, field: str) -> TextBuffer:
        """The buffer of the call's streamed input (``arguments``, ``input`` or ``code``)."""
        buffer = self._call_input
        if buffer is None or self.call_field != field:
            self.call_field = field
            buffer = self._call_input = TextBuffer(self.item.get(field))
        return buffer

    def _command(self, index: int) -> TextBuffer:
        buffer = self._commands.get(index)
        if buffer is None:
            buffer = self._commands[index] = TextBuffer()
        return buffer

    def _announce_command(self, index: int, text: str) -> None:
        """``shell_call_command.added``: the command at ``index`` starts as ``text``."""
        self._commands[index] = TextBuffer(text)

    def _output_done(self, index: int, entries: list[Any]) -> None:
        """``shell_call_output_content.done``: the command's output entries, as sent."""
        self._shell_output[index] = entries

    def _output_delta(self, index: int, delta: dict[str, Any]) -> None:
        """``shell_call_output_content.delta``: more of each named stream (stdout, ...)."""
        outputs = self._shell_output
        streams = outputs.get(index)
        if type(streams) is not dict:
            streams = outputs[index] = {}
        for name, text in delta.items():
            if type(text) is str:
                streams.setdefault(name, TextBuffer())._append(text)

    # -- reading --------------------------------------------------------------------------

    @property
    def type(self) -> str | None:
        kind = self.item.get("type")
        return kind if type(kind) is str else None

    @property
    def id(self) -> str | None:
        ident = self.item.get("id")
        return ident if type(ident) is str else None

    @property
    def text(self) -> str:
        """The ``output_text`` of a message (its parts joined), else ``""``."""
        return "".join(
            p.text for _, p in sorted(self.parts.items()) if p.part.get("type") == "output_text"
        )

    @property
    def has_answer_text(self) -> bool:
        """Whether a message has output text or a refusal (lean: whether any came)."""
        return any(
            p.has_text for p in self.parts.values()
            if p.part.get("type") == "output_text" or p.field == "refusal"
        )

    @property
    def refusal(self) -> str | None:
        """The refusal text of a message that refused, else None."""
        texts = [p.text for _, p in sorted(self.parts.items()) if p.field == "refusal"]
        return "".join(texts) if texts else None

    @property
    def arguments(self) -> str | None:
        """A tool call's input so far: ``arguments``, custom tool ``input`` or ``code``."""
        return None if self._call_input is None else self._call_input.text

    @property
    def commands(self) -> list[str]:
        """A shell call's commands so far, in order (a fresh list)."""
        return [buffer.text for _, buffer in sorted(self._commands.items())]

    @property
    def shell_output(self) -> list[Any]:
        """A shell call output's entries so far, in order (as ``to_api()`` writes them)."""
        return _shell_entries(self._shell_output)

    @property
    def summary_text(self) -> list[str]:
        """A reasoning item's summary parts, in order."""
        return [p.text for _, p in sorted(self.summary.items())]

    def to_api(self) -> dict[str, Any]:
        """The item object: as ``output_item.done`` sent it, or rebuilt from the stream so far."""
        return plain_json(self._build())  # type: ignore[no-any-return]

    def _build(self) -> dict[str, Any]:
        item = dict(self.item)
        if self.done:
            return item
        if self.parts or "content" in item:
            item["content"] = [p._build() for _, p in sorted(self.parts.items())]
        if self.summary or "summary" in item:
            item["summary"] = [p._build() for _, p in sorted(self.summary.items())]
        if self._call_input is not None and self.call_field is not None:
            item[self.call_field] = self._call_input.text
        if self._commands:
            action = item.get("action")
            action = item["action"] = dict(action) if type(action) is dict else {}
            action["commands"] = self.commands
        if self._shell_output:
            item["output"] = self.shell_output
        return item


def _empty_part(kind: str) -> dict[str, Any]:
    if kind == "refusal":
        return {"type": "refusal", "refusal": ""}
    if kind == "output_text":
        return {"type": "output_text", "annotations": [], "text": ""}
    return {"type": kind, "text": ""}


def _shell_entries(outputs: dict[int, Any]) -> list[Any]:
    entries: list[Any] = []
    for _, value in sorted(outputs.items()):
        if type(value) is list:  # the .done entries
            entries.extend(value)
        else:  # streams of stdout / stderr
            entries.append({name: buffer.text for name, buffer in value.items()})
    return entries
