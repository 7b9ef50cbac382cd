"""The rarer turns of a lane's read: invalid UTF-8 among the events, a ``str`` for bytes,
a payload the lane cannot read.

The parser returns a read's events; rarely, the same read also held invalid
UTF-8 (marks: where it was and how much), whose one warning must come where it
was among the events, however the reads were split: :func:`runs` cuts the read
there. :func:`refuse_str` and :func:`uninterpretable` are the errors for a read
that is no bytes and for an event whose payload has a shape the lane cannot read.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NoReturn

from sse_engine._errors import ProtocolError, UsageError
from sse_engine._json import describe, exception_text

__all__ = ["refuse_str", "runs", "uninterpretable"]


def runs(
    items: list[Any], marks: list[tuple[int, int, int]]
) -> Iterator[tuple[list[Any], tuple[int, int, int] | None]]:
    """``items`` (a read's events and kept comments) cut where the read held invalid UTF-8:
    each run with the mark that follows it (None after the last); ``marks`` are the
    parser's ``invalid_utf8`` for the read, a mark at ``position`` coming before the item
    there."""
    pending = iter(marks)
    mark = next(pending, None)
    start = 0
    while mark is not None:
        end = max(start, min(mark[0], len(items)))
        yield items[start:end], mark
        start = end
        mark = next(pending, None)
    yield items[start:], None


def refuse_str() -> NoReturn:
    """A read given as ``str``: the lane takes the body's bytes and decodes them itself.

    A read's annotation excludes ``str``, but a caller without type checking passes
    one anyway: the lane tests ``isinstance(cast(object, data), str)``.
    """
    raise UsageError(
        "feed() takes bytes, not str: pass the raw body bytes (the lane decodes UTF-8)"
    )


def uninterpretable(index: int, event: str, exc: BaseException) -> ProtocolError:
    """The error for SSE event ``index`` whose payload has a shape the lane cannot read
    (a string where an object belongs, say): the bytes cannot be interpreted."""
    wrapped = ProtocolError(
        f"SSE event #{index} ({describe(event)}) has a payload "
        f"this lane cannot interpret: {exception_text(exc)}"
    )
    wrapped.__cause__ = exc
    return wrapped
