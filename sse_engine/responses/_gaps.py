"""What a Responses stream's sequence gaps may have taken, and whether it came back.

A resume whose server skips sequence numbers loses the events in between. The
``.done`` events and the terminal object are authoritative, so they may put
back what was lost; when they do not, the snapshot may miss text, and the lane
must not call the turn COMPLETED. :class:`GapLoss` tells the two apart.
"""

from __future__ import annotations

from typing import Any

from sse_engine._outcome import StreamError
from sse_engine.responses._snapshot import OutputItem, ResponseSnapshot, TextBuffer

__all__ = ["GapLoss"]


class GapLoss:
    """The gaps of one stream, what each may have taken; the lane makes one at the first gap.

    Items are sequential (item N is done before N+1 opens), so a gap inside
    the item open at the time took only that item's events, which its
    ``.done`` events restore; a gap right before the next item's
    ``output_item.added`` took no item; any other gap may have taken whole
    items, which only the terminal object's ``output`` restores.
    """

    __slots__ = ("between", "gaps", "items")

    def __init__(self) -> None:
        self.gaps: list[tuple[int, int]] = []  # the missing sequence numbers, first and last
        self.items: set[int] = set()  # the items open at a gap: they may miss events
        self.between = False  # a gap that may have taken whole items

    def note(
        self,
        last: int,
        seq: int,
        kind: str,
        payload: dict[str, Any],
        current: OutputItem | None,
        snap: ResponseSnapshot,
    ) -> None:
        """Events ``last + 1 .. seq - 1`` never arrived; ``kind``/``payload`` came next.

        ``current`` is the item open when the gap happened (the lane's last
        opened item), ``snap`` the snapshot before the event is applied.
        """
        self.gaps.append((last + 1, seq - 1))
        if current is not None and not current.done:
            self.items.add(current.output_index)
            if _refers_to(current, payload):
                return
        index = payload.get("output_index")
        if kind == "response.output_item.added" and index == snap._next_index():
            return
        self.between = True

    def error(self, snap: ResponseSnapshot) -> StreamError | None:
        """At the terminal event: what the gaps took that nothing restored, or None."""
        what = [f"item #{i}" for i in sorted(self.items) if not _restored(snap.item(i))]
        if self.between:
            output = snap.response.get("output") if snap.response is not None else None
            covered = type(output) is list and len(output) == len(snap.items)
            if not (covered and all(item.done for item in snap.items)):
                what.append("possibly whole items")
        if not what:
            return None
        gaps = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in self.gaps)
        return StreamError(
            message=(
                f"sequence numbers {gaps} never arrived, and neither a .done event nor the "
                f"terminal output restored what they carried ({', '.join(what)}): the "
                "snapshot may miss text. Fetch the final object (resume_plan().retrieve(), "
                "then load())"
            ),
            code="events_missing",
            retryable=True,
        )


def _refers_to(item: OutputItem, payload: dict[str, Any]) -> bool:
    """Whether an event is about ``item`` (its ``output_index``, ``item_id`` or ``item.id``)."""
    index = payload.get("output_index")
    if type(index) is int:
        return index == item.output_index
    ident = payload.get("item_id")
    if type(ident) is not str:
        entry = payload.get("item")
        ident = entry.get("id") if type(entry) is dict else None
    return type(ident) is str and ident == item.id


def _restored(item: OutputItem | None) -> bool:
    """Whether an item holds only what the server sent as final.

    Done (``output_item.done``, or the terminal output), or every text it
    streamed (content parts numbered from 0, summary parts, tool-call input)
    was replaced by its ``.done`` value.
    """
    if item is None:
        return False
    if item.done:
        return True
    buffers: list[TextBuffer] = [*item.parts.values(), *item.summary.values()]
    if item._call_input is not None:
        buffers.append(item._call_input)
    numbered = all(sorted(parts) == list(range(len(parts))) for parts in (item.parts, item.summary))
    return bool(buffers) and numbered and all(buffer._final is not None for buffer in buffers)
