"""The value tree PartialJSON builds in place, and where in it the reader is.

The base of :class:`~sse_engine.parts.PartialJSON`, which reads the text (the
tokenizer, in :mod:`sse_engine.partial_json._reader`) and hands each completed
item here. This room keeps the tree: the open containers and their paths, the
key being filled, where each completed value goes and the event that reports
it, and the grammar state that completing a value or a container moves on to.
It also shows a scalar that is still arriving (an unfinished number, or a
string with ``partial_strings``) where it will go, and takes it out again, as
jiter's partial modes do.

Nothing here reads characters; the tokenizer never touches the tree but
through these methods.
"""

from __future__ import annotations

from typing import Any

from sse_engine.partial_json._events import JSONDelta, JSONPath, JSONValue
from sse_engine.partial_json._grammar import (
    ABSENT,
    AFTER,
    END,
    KEY_OR_CLOSE,
    VALUE,
    VALUE_OR_CLOSE,
)

__all__: list[str] = []  # private: imported by name


class ValueTree:
    """The value tree and the reader's place in it; the base of PartialJSON, not used alone."""

    __slots__ = ("_key", "_paths", "_placed", "_root", "_saved", "_stack", "_state")

    def __init__(self) -> None:
        self._state: int = VALUE
        self._stack: list[dict[str, Any] | list[Any]] = []  # the open containers, outermost first
        self._paths: list[JSONPath] = []  # the path of each open container
        self._key = ""  # the current key of the innermost open object
        self._root: Any = None
        # the pending scalar shown in the tree (see _show)
        self._placed = False
        self._saved: Any = ABSENT

    def _child_path(self) -> JSONPath:
        """The path of the value being read in the innermost open container."""
        if not self._stack:
            return ()
        top = self._stack[-1]
        if type(top) is list:
            return (*self._paths[-1], len(top) - self._placed)
        return (*self._paths[-1], self._key)

    def _put(self, value: Any, events: list[JSONDelta], path: JSONPath | None = None) -> None:
        """Store a completed scalar where the reader is and report it (at ``path`` if known)."""
        stack = self._stack
        if stack:
            top = stack[-1]
            if type(top) is list:
                if self._placed:
                    top[-1] = value
                    self._placed = False
                else:
                    top.append(value)
                if path is None:
                    path = (*self._paths[-1], len(top) - 1)
            else:
                key = self._key
                top[key] = value  # type: ignore[call-overload]
                self._placed = False
                if path is None:
                    path = (*self._paths[-1], key)
            self._state = AFTER
        else:
            self._root = value
            self._state = END
            path = ()
        events.append(JSONValue(path, value))

    def _open(self, container: dict[str, Any] | list[Any]) -> None:
        stack = self._stack
        if stack:
            path = self._child_path()
            top = stack[-1]
            if type(top) is list:
                top.append(container)
            else:
                top[self._key] = container  # type: ignore[call-overload]
        else:
            path = ()
            self._root = container
        stack.append(container)
        self._paths.append(path)
        self._state = KEY_OR_CLOSE if type(container) is dict else VALUE_OR_CLOSE

    def _close_container(self, events: list[JSONDelta]) -> None:
        container = self._stack.pop()
        events.append(JSONValue(self._paths.pop(), container))
        self._state = AFTER if self._stack else END

    def _show(self, shown: Any) -> None:
        """Show the pending scalar ``shown`` where it will go, or take it out (``ABSENT``).

        A shown scalar sits where it will go when complete (``_placed``); in
        an object it may hide an earlier value of a duplicate key, kept in
        ``_saved`` until the new value is complete or withdrawn.
        """
        stack = self._stack
        if not stack:
            if self._state != END:
                self._root = None if shown is ABSENT else shown
            return
        top = stack[-1]
        if type(top) is list:
            if shown is ABSENT:
                if self._placed:
                    top.pop()
            elif self._placed:
                top[-1] = shown
            else:
                top.append(shown)
        else:
            key = self._key
            if shown is ABSENT:
                if self._placed:
                    if self._saved is ABSENT:
                        del top[key]  # type: ignore[arg-type]
                    else:
                        top[key] = self._saved  # type: ignore[call-overload]
            else:
                if not self._placed:
                    self._saved = top.get(key, ABSENT)  # type: ignore[union-attr]
                top[key] = shown  # type: ignore[call-overload]
        self._placed = shown is not ABSENT
