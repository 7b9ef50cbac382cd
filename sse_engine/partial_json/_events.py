"""What :class:`~sse_engine.parts.PartialJSON` reports: its events, their paths, its error.

A path names a place in the document from the root: object keys (``str``) and
array indexes (``int``), so ``("rows", 2, "name")`` is ``doc["rows"][2]["name"]``
and ``()`` is the whole document.
"""

from __future__ import annotations

from typing import Any, TypeAlias, final

import attrs

from sse_engine._errors import SSEEngineError

__all__ = ["JSONDelta", "JSONPath", "JSONStreamError", "JSONStringDelta", "JSONValue"]

#: Where a value sits: object keys and array indexes from the root; ``()`` is the root.
JSONPath: TypeAlias = tuple[str | int, ...]


@final
@attrs.frozen
class JSONStringDelta:
    """A string value grew: ``text`` holds the characters decoded in this ``feed()``.

    At most one per string per ``feed()``, never with empty ``text``; object keys
    produce none. Concatenating the ``text`` of every delta with one ``path`` gives
    the complete string, so a UI can show a field (say ``("content",)``) as it
    streams. The string's :class:`JSONValue` follows when its closing quote arrives.
    """

    path: JSONPath
    text: str


@final
@attrs.frozen
class JSONValue:
    """A value is complete: a string, number, ``true``/``false``/``null``, or a container.

    A container is reported when its closing bracket arrives, after the values
    inside it; ``value`` is then the same object as in
    :attr:`PartialJSON.value <sse_engine.parts.PartialJSON.value>` and does not
    change any more. The top-level value is reported last, with path ``()``.
    """

    path: JSONPath
    value: Any


#: One of the events :meth:`PartialJSON.feed <sse_engine.parts.PartialJSON.feed>` returns.
JSONDelta: TypeAlias = JSONStringDelta | JSONValue


class JSONStreamError(SSEEngineError, ValueError):
    """The text is not JSON (RFC 8259), or the input ended before the value did.

    ``offset`` is the position of the offending character in all the text fed so
    far (in characters, from 0); ``expected`` says what would have been valid
    there and ``got`` what came instead (``"end of input"`` from ``close()``).
    """

    def __init__(self, offset: int, expected: str, got: str) -> None:
        super().__init__(f"invalid JSON at offset {offset}: {expected}, got {got}")
        self.offset = offset
        self.expected = expected
        self.got = got

    def __reduce__(self) -> tuple[type[JSONStreamError], tuple[int, str, str]]:
        return (type(self), (self.offset, self.expected, self.got))
