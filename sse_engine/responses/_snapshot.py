"""The Responses snapshot: the response object as it builds up, item by item.

Text grows as a list of pieces joined only when read (a long answer costs
linear time, not a re-copy per delta). Every ``.done`` event and the terminal
payload replace what the deltas built: they are authoritative. ``to_api()``
assembles the object sharing the snapshot's values, then returns one plain
JSON copy of it (made without recursion): fresh, and accepted by
``json.dumps(..., allow_nan=False)`` whatever the payloads held. Its items
are :class:`OutputItem` objects (``_output.py``).
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Callable
from typing import Any

from sse_engine._json import plain_json
from sse_engine.responses._output import ContentPart, OutputItem, TextBuffer

__all__ = ["ContentPart", "OutputItem", "ResponseSnapshot", "TextBuffer"]


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
