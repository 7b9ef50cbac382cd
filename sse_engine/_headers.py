"""The HTTP response headers a lane is given by ``start()``, and what the lanes read from them.

:class:`HeaderMap` is ``lane.headers``: a read-only mapping whose lookups
ignore case. The readers below turn headers into the facts a failure
report carries (how long to wait, the server's request id) and what a
gateway says it removed from the request. None of them reads a clock: an
HTTP-date ``Retry-After`` is measured against the response's own ``Date``.
"""

from __future__ import annotations

import email.utils
import math
from collections.abc import Iterable, Iterator, Mapping

__all__ = [
    "DROPPED_PARAMS_HEADER",
    "HeaderMap",
    "content_type",
    "dropped_params",
    "is_event_stream",
    "request_id",
    "retry_after",
]

#: The MindsHub gateway names here the request parameters (tools) it removed.
DROPPED_PARAMS_HEADER = "x-mindshub-dropped-params"


class HeaderMap(Mapping[str, str]):
    """Response headers, read-only, looked up without regard to case.

    Names are kept lower-cased (``list(lane.headers)`` gives ``content-type``,
    not ``Content-Type``); a header sent several times reads as its values
    joined with ``", "``, as HTTP allows for list-valued headers (``first``
    gives the first one, for a header that has one value).
    """

    __slots__ = ("_map",)

    def __init__(self, headers: Mapping[str, str] | Iterable[tuple[str, str]] = ()) -> None:
        pairs = headers.items() if isinstance(headers, Mapping) else headers
        values: dict[str, list[str]] = {}
        for name, value in pairs:
            values.setdefault(str(name).lower(), []).append(str(value))
        self._map = values

    def __getitem__(self, name: str) -> str:
        return ", ".join(self._map[name.lower()])

    def first(self, name: str) -> str | None:
        """The first value of a header sent once or more (for single-valued headers), or None."""
        values = self._map.get(name.lower())
        return values[0] if values else None

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._map

    def __iter__(self) -> Iterator[str]:
        return iter(self._map)

    def __len__(self) -> int:
        return len(self._map)

    def __repr__(self) -> str:
        return f"HeaderMap({dict(self)!r})"


def _first(headers: Mapping[str, str], name: str) -> str | None:
    """The first value of a single-valued header (a :class:`HeaderMap` keeps them all)."""
    if isinstance(headers, HeaderMap):
        return headers.first(name)
    return headers.get(name)


def content_type(headers: Mapping[str, str] | Iterable[tuple[str, str]] | None) -> str | None:
    """The media type of ``Content-Type`` (lower-cased, no parameters), or None.

    What the lanes and the reconnect glue read to tell an event stream from an
    error body. A header sent twice reads as its first value.
    """
    if headers is None:
        return None
    if not isinstance(headers, HeaderMap):
        headers = HeaderMap(headers)
    value = headers.first("content-type")
    return None if value is None else value.split(";", 1)[0].strip().lower()


def _seconds(text: str, scale: float) -> float | None:
    """A non-negative, finite number of seconds from ``text`` (``scale``: its unit), else None."""
    try:
        value = float(text.strip()) * scale
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None


def retry_after(headers: Mapping[str, str]) -> float | None:
    """How long the server asked the client to wait, in seconds, or None.

    ``retry-after-ms`` (milliseconds, the OpenAI and Anthropic APIs send it)
    wins; else ``Retry-After`` as delta-seconds, or as an HTTP date measured
    against the response's ``Date`` header (no ``Date``: None, since the
    engine never reads a clock). A value that is negative, not a number or
    not finite reads as None.
    """
    millis = _first(headers, "retry-after-ms")
    if millis is not None:
        seconds = _seconds(millis, 0.001)
        if seconds is not None:
            return seconds
    value = _first(headers, "retry-after")
    if value is None:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():
        return _seconds(value, 1.0)
    date = _first(headers, "date")
    if date is None:
        return None
    try:
        when = email.utils.parsedate_to_datetime(value)
        now = email.utils.parsedate_to_datetime(date)
        return max((when - now).total_seconds(), 0.0)
    except (TypeError, ValueError, OverflowError):
        return None


def request_id(headers: Mapping[str, str]) -> str | None:
    """The server's id for the request: ``x-request-id`` (OpenAI), else ``request-id``."""
    return _first(headers, "x-request-id") or _first(headers, "request-id") or None


def dropped_params(headers: Mapping[str, str]) -> list[str]:
    """What the gateway removed from the request, from ``X-MindsHub-Dropped-Params``.

    The header is a comma-separated list of names (the tool entries the
    gateway does not run); blanks are skipped, order is kept.
    """
    value = headers.get(DROPPED_PARAMS_HEADER)
    if not value:
        return []
    return [name for name in (part.strip() for part in value.split(",")) if name]


def is_event_stream(status: int, media_type: str | None) -> bool:
    """Whether a response of ``status`` and ``media_type`` is a stream (no type says so too).

    Anything else (an error status, a 2xx of JSON) is a body the lanes read as
    an error report instead.
    """
    return 200 <= status < 300 and media_type in (None, "text/event-stream")
