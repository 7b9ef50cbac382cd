"""PartialJSON: one JSON document read as it streams in, in time linear in its length.

A JSON reader, not a part of the stream vocabulary: the parts layer uses it
for a tool call's input while it streams (``ToolCall.input``), and it is
usable on its own for any JSON that arrives in fragments (structured output).
:meth:`PartialJSON.feed` returns path-addressed events
(:class:`JSONStringDelta` as a string grows, :class:`JSONValue` as any value
completes); :attr:`PartialJSON.value` is the value so far. Invalid JSON raises
:class:`JSONStreamError`. See ``docs/live-tool-input.md``.
"""

from __future__ import annotations

from sse_engine._public import publish as _publish
from sse_engine.partial_json._events import (
    JSONDelta,
    JSONPath,
    JSONStreamError,
    JSONStringDelta,
    JSONValue,
)
from sse_engine.partial_json._reader import PartialJSON

__all__ = [
    "JSONDelta",
    "JSONPath",
    "JSONStreamError",
    "JSONStringDelta",
    "JSONValue",
    "PartialJSON",
]

_publish(__name__)  # help() and pickles show this module, not the private ones
