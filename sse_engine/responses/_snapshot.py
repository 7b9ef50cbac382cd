"""The Responses snapshot: the response object as it builds up, item by item.

Text grows as a list of pieces joined only when read (a long answer costs
linear time, not a re-copy per delta). Every ``.done`` event and the terminal
payload replace what the deltas built: they are authoritative. ``to_api()``
assembles the object sharing the snapshot's values, then returns one plain
JSON copy of it (made without recursion): fresh, and accepted by
``json.dumps(..., allow_nan=False)`` whatever the payloads held.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Callable
from typing import Any

from sse_engine._json import plain_json
from sse_engine._tally import Tally, said
from sse_engine.responses._wire import CALL_ITEMS

__all__ = ["ContentPart", "OutputItem", "ResponseSnapshot", "TextBuffer"]



class TextBuffer:
    """A text value built from delta pieces until a ``.done`` value replaces it."""

    __slots__ = ("_final", "_pieces")

    def __init__(self, initial: Any = None, lean: bool = False) -> None:
        # Lean (see ``Lane.make_lean``): the deltas are counted, not kept.
        pieces: list[str] = Tally() if lean else []
        if type(initial) is str and initial:
            pieces.append(initial)
        self._pieces = pieces
        self._final: str | None = None

    def _append(self, delta: str) -> None:
        self._pieces.append(delta)

    def _set(self, text: str) -> None:
        """The authoritative value (from a ``.done`` event); later deltas are ignored."""
        self._final = text

    @property
    def text(self) -> str:
        """The value so far: the ``.done`` text if there was one, else the joined deltas."""
        if self._final is not None:
            return self._final
        pieces = self._pieces
        if len(pieces) > 1:
            pieces[:] = ["".join(pieces)]
        return pieces[0] if pieces else ""

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
    """

    __slots__ = ("annotations", "done", "field", "part")

    def __init__(self, part: dict[str, Any], *, done: bool = False, lean: bool = False) -> None:
        self._load(part, lean)
        self.done = done

    def _load(self, part: dict[str, Any], lean: bool = False) -> None:
        field = self.field = "refusal" if part.get("type") == "refusal" else "text"
        TextBuffer.__init__(self, part.get(field), lean)
        self.part = part
        annotations = part.get("annotations")
        self.annotations: list[Any] | None = (
            list(annotations) if type(annotations) is list else None
        )

    def _finish(self, part: dict[str, Any]) -> None:
        """``content_part.done``: the final part replaces the announced one and its text."""
        self._load(part, type(self._pieces) is Tally)
        text = part.get(self.field)
        if type(text) is str:
            self._set(text)
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


def _parts(value: Any, *, done: bool = False, lean: bool = False) -> dict[int, ContentPart]:
    if type(value) is not list:
        return {}
    return {
        i: ContentPart(part, done=done, lean=lean)
        for i, part in enumerate(value)
        if type(part) is dict
    }


class OutputItem:
    """One output item as it builds: the item object plus what its events streamed.

    ``item`` is the object from ``output_item.added`` until ``output_item.done``
    replaces it (``done`` is then True and :meth:`to_api` returns it as sent).
    ``parts`` (message or reasoning content), ``summary`` (reasoning summary
    parts), ``call_input`` (function/MCP/Kindo ``arguments``, custom tool
    ``input``, code interpreter ``code``), ``commands`` (a shell call's
    commands) and ``shell_output`` (a shell call output's entries) hold the
    streamed values by index. ``progress`` is the last status event's status
    (``"searching"``, ...). ``implicit`` says the item was never announced: an
    event referred to it first.
    """

    __slots__ = (
        "call_field",
        "call_input",
        "commands",
        "done",
        "implicit",
        "item",
        "lean",
        "output_index",
        "parts",
        "progress",
        "shell_output",
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
        self._seed(item)

    def _seed(self, item: dict[str, Any], *, done: bool = False) -> None:
        self.item = item
        self.parts = _parts(item.get("content"), done=done, lean=self.lean)
        self.summary = _parts(item.get("summary"), done=done, lean=self.lean)
        kind = item.get("type")
        call = CALL_ITEMS.get(kind) if type(kind) is str else None
        field = None if call is None else call.field
        self.call_field = field
        self.call_input = TextBuffer(item.get(field)) if field else None
        action = item.get("action")
        commands = action.get("commands") if type(action) is dict else None
        self.commands: dict[int, TextBuffer] = (
            {i: TextBuffer(c) for i, c in enumerate(commands) if type(c) is str}
            if type(commands) is list
            else {}
        )
        self.shell_output: dict[int, Any] = {}

    def __repr__(self) -> str:
        state = "done" if self.done else "open"
        return f"<OutputItem #{self.output_index} {self.type} {self.id!r} {state}>"

    # -- what the lane does ----------------------------------------------------------

    def _adopt(self, item: dict[str, Any]) -> None:
        """``output_item.added`` for an item events had already opened implicitly."""
        self.item = item
        self.implicit = False

    def _finish(self, item: dict[str, Any]) -> None:
        """``output_item.done``: the final item replaces everything streamed; its parts are done."""
        self._seed(item, done=True)
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
        if self.call_input is None or self.call_field != field:
            self.call_field = field
            self.call_input = TextBuffer(self.item.get(field))
        return self.call_input

    def _command(self, index: int) -> TextBuffer:
        buffer = self.commands.get(index)
        if buffer is None:
            buffer = self.commands[index] = TextBuffer()
        return buffer

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
        return None if self.call_input is None else self.call_input.text

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
        if self.call_input is not None and self.call_field is not None:
            item[self.call_field] = self.call_input.text
        if self.commands:
            action = item.get("action")
            action = item["action"] = dict(action) if type(action) is dict else {}
            action["commands"] = [b.text for _, b in sorted(self.commands.items())]
        if self.shell_output:
            item["output"] = _shell_entries(self.shell_output)
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


class ResponseSnapshot:
    """The response as it builds up; ``to_api()`` is the API's ``response`` object.

    ``response`` is the latest response object the server sent: lifecycle
    events (``created``, ``in_progress``, ``queued``) merge into it, and the
    terminal event's object replaces it (``terminal`` is then True). ``items``
    are the output items in ``output_index`` order. ``lean``: the items keep
    no streamed text (see ``Lane.make_lean``).
    """

    __slots__ = ("_by_id", "_by_index", "_on_loss", "items", "lean", "response", "terminal")

    def __init__(
        self, on_loss: Callable[[str], None] | None = None, lean: bool = False
    ) -> None:
        #: Told what ``to_api()`` had to replace to stay plain JSON (the lane warns).
        self._on_loss = on_loss
        self.lean = lean
        self.response: dict[str, Any] | None = None
        self.terminal = False
        self.items: list[OutputItem] = []
        self._by_index: dict[int, OutputItem] = {}
        self._by_id: dict[str, OutputItem] = {}

    def __repr__(self) -> str:
        return f"<ResponseSnapshot {self.id!r} {self.status!r} items={len(self.items)}>"

    # -- what the lane does -------------------------------------------------------------

    def _update(self, response: dict[str, Any]) -> None:
        """A lifecycle event: its fields replace those seen before."""
        if self.response is None:
            self.response = dict(response)
        else:
            self.response.update(response)

    def _finish(self, response: dict[str, Any]) -> None:
        """The terminal event: its object is the final word, on the items too.

        When it carries ``output``, each item the stream left unfinished (no
        ``output_item.done``: a resume that skipped it, say) becomes the
        terminal object's item, and an item the stream never announced is
        added: ``output_text`` then reads what ``to_api()`` returns.
        """
        self.response = response
        self.terminal = True
        output = response.get("output")
        if type(output) is list:
            for index, entry in enumerate(output):
                # An entry that is no item object stays in to_api() only, as load() keeps it.
                if type(entry) is dict and type(entry.get("type", "")) is str:
                    self._settle(index, entry)

    def _settle(self, index: int, entry: dict[str, Any]) -> None:
        """The terminal object's item ``entry`` (at ``index``) over the streamed one, if open."""
        ident = entry.get("id")
        state = self._by_id.get(ident) if type(ident) is str else None
        if state is None:
            state = self._by_index.get(index)
            if state is not None and state.id is not None and state.id != ident:
                return  # another item holds that place: nothing to guess from
        if state is None:
            state = self._add(index, entry)
        elif state.done:
            return
        state._finish(entry)
        self._index_id(state)

    def _add(
        self, output_index: int, item: dict[str, Any], *, implicit: bool = False
    ) -> OutputItem:
        state = OutputItem(output_index, item, implicit=implicit, lean=self.lean)
        old = self._by_index.get(output_index)
        if old is not None:
            self.items.remove(old)
        self._by_index[output_index] = state
        if not self.items or output_index > self.items[-1].output_index:
            self.items.append(state)
        else:
            insort(self.items, state, key=_index_of)
        self._index_id(state)
        return state

    def _index_id(self, state: OutputItem) -> None:
        """Find ``state`` by its id from now on (it may have one only once done)."""
        ident = state.id
        if ident is not None:
            self._by_id[ident] = state

    def _next_index(self) -> int:
        """The ``output_index`` after the last item's: where an unnumbered item goes."""
        return self.items[-1].output_index + 1 if self.items else 0

    def _item_with_id(self, item_id: str) -> OutputItem | None:
        return self._by_id.get(item_id)

    # -- reading ------------------------------------------------------------------------

    def _field(self, name: str) -> Any:
        return None if self.response is None else self.response.get(name)

    @property
    def id(self) -> str | None:
        """The response id (``resp_...``), once ``response.created`` said it."""
        ident = self._field("id")
        return ident if type(ident) is str else None

    @property
    def status(self) -> str | None:
        """``queued``, ``in_progress``, ``completed``, ``incomplete`` or ``failed``."""
        status = self._field("status")
        return status if type(status) is str else None

    @property
    def usage(self) -> dict[str, Any] | None:
        """Token usage (on the terminal event)."""
        usage = self._field("usage")
        return usage if type(usage) is dict else None

    @property
    def error(self) -> dict[str, Any] | None:
        """``response.error`` of a failed response."""
        error = self._field("error")
        return error if type(error) is dict else None

    @property
    def incomplete_reason(self) -> str | None:
        """``incomplete_details.reason``: ``max_output_tokens`` or ``content_filter``."""
        details = self._field("incomplete_details")
        reason = details.get("reason") if type(details) is dict else None
        return reason if type(reason) is str else None

    @property
    def output_text(self) -> str:
        """All ``output_text`` of all message items, joined (the SDK's ``output_text``)."""
        return "".join(item.text for item in self.items if item.type == "message")

    def item(self, output_index: int) -> OutputItem | None:
        """The item at ``output_index``, or None."""
        return self._by_index.get(output_index)

    @property
    def output(self) -> list[dict[str, Any]]:
        """The output items as objects, in order (final ones as sent, open ones rebuilt)."""
        return plain_json([item._build() for item in self.items], self._on_loss)  # type: ignore[no-any-return]

    def to_api(self) -> dict[str, Any]:
        """The ``response`` object, JSON-ready and independent of the snapshot.

        After the terminal event: its object as sent, with ``output`` rebuilt
        from the items only when it has none. Before: the latest lifecycle
        object with ``output`` rebuilt from the items streamed so far. Plain
        JSON whatever the payloads held: NaN, Infinity and nesting deeper than
        256 levels become null (a ``not_plain_json`` warning).
        """
        response: dict[str, Any] = (
            {"object": "response"} if self.response is None else dict(self.response)
        )
        if not self.terminal or response.get("output") is None:
            response["output"] = [item._build() for item in self.items]
        return plain_json(response, self._on_loss)  # type: ignore[no-any-return]


def _index_of(item: OutputItem) -> int:
    return item.output_index
