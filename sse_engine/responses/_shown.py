"""What a Responses stream's parts showed of each content part, and the final texts that settle it.

The Responses translator (``_parts.py``) holds one :class:`ShownTexts` per
stream. It keeps no text of its own: for each content part of the lane's
(a message's ``output_text`` or ``refusal``, a reasoning text or summary) it
counts the characters the parts showed of what the part's deltas built
(:attr:`ContentPart.streamed`, in the snapshot), until a final text
settles the part. A final text that says more is shown as one more delta;
one that contradicts what was shown becomes the turn's text
(``PartBuilder.replace_text``: ``Turn.text`` and ``Turn.refusal`` are the
snapshot's), with a ``text_replaced`` warning; reasoning keeps what was
shown (its blocks are already out), with the same warning. Each text delta's
way there, its :data:`Route` (which part, which channel, which builder method),
is made here once per builder class (:func:`routes`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from sse_engine.responses._output import ContentPart, OutputItem
from sse_engine.responses._wire import CALL_EVENTS, CONTENT_EVENTS, PART_CHANNELS

__all__ = ["Key", "Route", "Shown", "ShownTexts", "part_text", "routes"]

Key = tuple[int, str, int]  # (output_index, "content" or "summary", part index)


#: A text delta's route: where its text sits in its item (``content`` or ``summary``), its
#: channel, and the part builder's method it goes to (unbound: called with the builder).
Route = tuple[str, str, Callable[[Any, str, int, object], None]]

#: A reasoning summary's text delta (the content deltas' types: CONTENT_EVENTS).
_SUMMARY_DELTA = "response.reasoning_summary_text.delta"
#: The routes made for each part builder class (see routes).
_ROUTES: dict[type, dict[str, Route | None]] = {}


def routes(builder: type) -> dict[str, Route | None]:
    """Each text delta's type -> its :data:`Route` through ``builder`` (the part builder's
    class); None for a call's input fragment (the translator's ``_sink`` takes those).
    Made once per class: made per stream, it was 40% of the translator's set-up."""
    found = _ROUTES.get(builder)
    if found is None:
        found = _ROUTES[builder] = {
            kind: ("content", PART_CHANNELS[part], getattr(builder, PART_CHANNELS[part]))
            for kind, (_, part) in CONTENT_EVENTS.items()
        }
        summary = PART_CHANNELS["summary_text"]
        found[_SUMMARY_DELTA] = ("summary", summary, getattr(builder, summary))
        found.update(dict.fromkeys(CALL_EVENTS))
    return found


class _Builder(Protocol):
    """What of the stream's ``PartBuilder`` this reads (its text, refusal and reasoning too)."""

    def warn(self, code: str, message: str) -> None: ...

    def replace_text(self, kind: str, text: str, choice: int = 0) -> None: ...


class Shown:
    """What the parts showed of one content part of the lane's.

    ``length`` characters of what the part's deltas built (``part.streamed``),
    until a final text settled it: ``final`` is then the text the turn holds
    for it. ``channel`` is the turn's text it goes to (``text``, ``refusal``,
    ``reasoning``; None: no text of the turn).
    """

    __slots__ = ("channel", "final", "length", "part")

    def __init__(self, channel: str | None, part: ContentPart | None) -> None:
        self.channel = channel
        self.part = part
        self.length = 0
        self.final: str | None = None

    def text(self, final: str | None = None) -> str | None:
        """The text shown (None: not known, the lane's part is gone).

        A lean lane's part keeps no text (``Lane.make_lean``): what was shown
        is known only as the start of a ``final`` text that repeats what the
        deltas built (their length and CRC-32 agree), else None.
        """
        if self.final is not None:
            return self.final
        if not self.length:
            return ""
        part = self.part
        if part is None:
            return None
        if not part.lean:
            return part.streamed[: self.length]
        if final is None or part.streamed_length != self.length:
            return None
        shown = final[: self.length]
        return shown if part.streams(shown) else None


class ShownTexts:
    """The content parts of one stream as the parts showed them, by :data:`Key`.

    ``item`` finds the lane's item at an output index (its parts hold the
    texts), ``builder`` is the stream's part builder. The translator asks
    only about parts the lane still takes text for (not of an item done).
    """

    __slots__ = ("_builder", "_item", "_keys", "_tails", "shown")

    def __init__(self, builder: _Builder, item: Callable[[int], OutputItem | None]) -> None:
        self._builder = builder
        self._item = item
        #: Each part's record, by key (read directly on the hot path).
        self.shown: dict[Key, Shown] = {}
        self._keys: dict[int, list[Key]] = {}  # each item's parts, in the order they came
        #: Per channel, the last part that showed text: a final text for an earlier
        #: part cannot be shown as a delta at the end of the turn's text.
        self._tails: dict[str, Key] = {}

    def known(self, key: Key, channel: str | None) -> Shown:
        """The part at ``key`` as the lane has it (made now if new)."""
        shown = self.shown.get(key)
        if shown is not None:
            return shown
        index = key[0]
        item = self._item(index)
        parts = None if item is None else (item.summary if key[1] == "summary" else item.parts)
        shown = self.shown[key] = Shown(channel, None if parts is None else parts.get(key[2]))
        self._keys.setdefault(index, []).append(key)
        return shown

    def emit(self, key: Key, shown: Shown, text: str) -> None:
        """Show ``text`` as more of the part at ``key`` (its first text, or a final's rest)."""
        channel = shown.channel
        if channel is None or not text:
            return
        tail = self._tails.get(channel)
        if tail is None or key > tail:
            self._tails[channel] = key
        getattr(self._builder, channel)(text, 0, key)

    def show(self, key: Key, channel: str | None, text: str) -> None:
        """A part announced with ``text``: the lane starts it so (unless it has it already)."""
        if key in self.shown:
            return
        shown = self.known(key, channel)
        if text:
            shown.length = len(text)
            self.emit(key, shown, text)

    def settle(self, key: Key, channel: str | None, final: str | None) -> None:
        """``final`` is the whole text of the part at ``key`` (None: the final says nothing)."""
        shown = self.known(key, channel)
        if final is None:
            return
        channel = shown.channel
        current = shown.text(final)
        shown.final = final
        if current == final or channel is None:
            return
        if current is not None and final.startswith(current) and (
            channel == "reasoning" or key >= self._tails.get(channel, key)
        ):
            self.emit(key, shown, final[len(current) :])
            return
        was = "gone" if current is None else _cut(current)
        if channel == "reasoning":
            if current is not None:
                shown.final = current
            self._builder.warn(
                "text_replaced",
                f"output item #{key[0]}: the final reasoning text {_cut(final)} differs from "
                f"what its deltas showed ({was}); the turn keeps what was shown (the "
                "snapshot has the final text)",
            )
            return
        texts = [s.text() for _, s in sorted(self.shown.items()) if s.channel == channel]
        self._builder.replace_text(channel, "".join(text or "" for text in texts))
        self._builder.warn(
            "text_replaced",
            f"output item #{key[0]}: the final {channel} text {_cut(final)} differs from what "
            f"its deltas showed ({was}); turn.{channel} holds the final text, as the snapshot "
            "does (the parts hold what was shown)",
        )

    def settle_item(self, index: int, item: Mapping[str, Any]) -> None:
        """A final item: each part's final text; a part it no longer has is gone, as in the lane."""
        for where in ("summary", "content"):
            parts = item.get(where)
            finals = {
                position: part
                for position, part in enumerate(parts if type(parts) is list else ())
                if type(part) is dict
            }
            for position, part in finals.items():
                self.settle((index, where, position), *part_text(part))
            for key in self._keys.get(index, ()):
                if key[1] == where and key[2] not in finals:
                    self.settle(key, self.shown[key].channel, "")
        for key in self._keys.get(index, ()):  # done: later deltas change nothing in the lane
            shown = self.shown[key]
            if shown.final is None:
                shown.final = shown.text() or ""

    def forget(self, index: int) -> None:
        """The lane dropped the item's parts (it was added again): so does the turn."""
        for key in self._keys.pop(index, ()):
            self.settle(key, self.shown[key].channel, "")
            del self.shown[key]


def part_text(part: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """A content part's channel (None: no text of the turn) and its text (None: it has none)."""
    kind = part.get("type")
    channel = PART_CHANNELS.get(kind) if type(kind) is str else None
    text = part.get("refusal" if kind == "refusal" else "text")
    return channel, text if type(text) is str else None


def _cut(text: str) -> str:
    return repr(text if len(text) <= 40 else f"{text[:18]}...{text[-18:]}")
