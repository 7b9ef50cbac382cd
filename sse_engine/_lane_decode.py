"""How a lane decodes an event's data: ``json_loads``, minus the stdlib's wrappers when it is
``json.loads``.

``json.loads(text)`` checks the argument's type and a BOM, then ``JSONDecoder.decode``
skips whitespace with a regular expression before and after calling ``raw_decode``, which
calls the C scanner: three Python frames and two regex matches around the one call that
reads the JSON. Event data is a ``str`` that almost always is one JSON value with nothing
around it, so :func:`lane_loads` gives the lanes a function that calls the scanner
directly and, whenever the text is anything else (leading or trailing whitespace, a BOM,
bad JSON, extra data), calls ``json.loads`` itself: the value, and every error, is
exactly what ``json.loads`` gives.
"""

from __future__ import annotations

import json
from typing import Any

from sse_engine._errors import ProtocolError
from sse_engine._json import describe, exception_text
from sse_engine._lane_events import JsonLoads
from sse_engine._sse import ServerSentEvent

__all__ = ["invalid_json", "lane_loads"]

#: The stdlib's ``json.loads`` as this module found it: the one ``json_loads`` replaced.
_STDLIB_LOADS = json.loads
#: The scanner of a default ``JSONDecoder`` (what ``json.loads`` ends in): ``(value, end)``.
_SCAN: Any = vars(json.JSONDecoder())["scan_once"]


def _stdlib_loads(text: str, _scan: Any = _SCAN, _loads: JsonLoads = _STDLIB_LOADS) -> Any:
    """``json.loads(text)``: the scanner's value when it read the whole text, else
    ``json.loads``'s own answer (its value, or its error)."""
    try:
        value, end = _scan(text, 0)
    except Exception:  # StopIteration, a JSONDecodeError, RecursionError: let loads say
        return _loads(text)
    if end != len(text):  # trailing whitespace or extra data: loads decides which
        return _loads(text)
    return value


def lane_loads(json_loads: JsonLoads) -> JsonLoads:
    """What a lane given ``json_loads`` decodes with: the same function, or for the stdlib's
    ``json.loads``, one that gives the same values and errors with fewer calls."""
    return _stdlib_loads if json_loads is _STDLIB_LOADS else json_loads


def invalid_json(index: int, sse: ServerSentEvent, exc: BaseException) -> ProtocolError:
    """The error for SSE event ``index`` whose data ``loads`` refused (``exc``): where, and
    how the data begins."""
    return ProtocolError(
        f"invalid JSON in SSE event #{index} (event {describe(sse.event)}): "
        f"{exception_text(exc)}; data begins {sse.data[:80]!r}"
    )
