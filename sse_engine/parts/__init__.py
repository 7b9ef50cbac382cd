"""Parts: one vocabulary over every lane for the pieces a model's output is made of.

For now it holds :class:`PartialJSON`, the incremental reader of a tool call's
streamed JSON arguments, and the events it reports.
"""

from sse_engine.parts._json_events import (
    JSONDelta,
    JSONPath,
    JSONStreamError,
    JSONStringDelta,
    JSONValue,
)
from sse_engine.parts._partial_json import PartialJSON

__all__ = [
    "JSONDelta",
    "JSONPath",
    "JSONStreamError",
    "JSONStringDelta",
    "JSONValue",
    "PartialJSON",
]
