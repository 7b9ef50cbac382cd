"""The words every part and turn shares: why a turn ended, and token usage.

A room of its own because both the parts (``_parts.py``) and the turn
(``_turn.py``) use them, and each format's vocabulary (``<format>/_wire.py``)
reads its wire usage into :class:`Usage` with :func:`count_tokens`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, Literal, final

import attrs

from sse_engine._event_build import slot_builder

__all__ = [
    "FINISH_REASONS", "FinishReason", "PendingUsage", "Usage", "UsageCounts", "count_tokens",
    "counts_of", "new_usage", "read_pending",
]

#: Why a turn ended, in one vocabulary for every lane (see :class:`Finish`).
FinishReason = Literal[
    "stop", "length", "tool_calls", "content_filter", "refusal", "pause", "error", "truncated",
    "other",
]
FINISH_REASONS: Final[tuple[FinishReason, ...]] = (
    "stop", "length", "tool_calls", "content_filter", "refusal", "pause", "error", "truncated",
    "other",
)


@final
@attrs.frozen
class Usage:
    """Token counts in one shape for every lane.

    ``input_tokens`` counts the whole prompt, cached tokens included (as
    OpenAI counts it; for Messages the cache reads and writes are added to
    ``input_tokens``); ``cached_input_tokens`` is the part of it that was a
    cache hit, ``cache_write_input_tokens`` the part of it written to the
    cache (Anthropic bills these apart; the OpenAI formats do not report
    them), and ``reasoning_tokens`` the part of ``output_tokens`` spent
    reasoning. A count the server did not send is None; Messages sends no
    total, so ``total_tokens`` is input plus output there. ``raw`` is the
    lane's own usage object, as sent (not part of equality).
    """

    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    cached_input_tokens: int | None = None
    reasoning_tokens: int | None = None
    cache_write_input_tokens: int | None = None
    raw: Any = attrs.field(default=None, eq=False)


def count_tokens(usage: Mapping[str, Any], key: str, detail: str | None = None) -> int | None:
    """A token count of a wire usage object (``usage[key]``, or ``usage[key][detail]``).

    None when the server did not send it as an integer: what a format's
    ``usage_from_wire`` builds a :class:`Usage` from.
    """
    value = usage.get(key)
    if detail is not None:
        value = value.get(detail) if type(value) is dict else None
    return value if type(value) is int else None


#: ``Usage(...)`` with every field given, in the order of its fields, for a format's usage
#: reader on the hot path (a Gemini stream reports usage in every chunk): the same frozen
#: object, made slot by slot instead of through attrs' per-field ``object.__setattr__``.
new_usage: Callable[
    [int | None, int | None, int | None, int | None, int | None, int | None, Any], Usage
] = slot_builder(
    Usage, "input_tokens", "output_tokens", "total_tokens", "cached_input_tokens",
    "reasoning_tokens", "cache_write_input_tokens", "raw",
)
new_usage.__module__ = __name__  # made by exec: it would belong to no module
new_usage.__qualname__ = new_usage.__name__ = "new_usage"


#: :class:`Usage`'s six counts, in the order of its fields (``new_usage``'s first six
#: arguments): what a format whose stream reports usage in every chunk (Gemini) reads a
#: wire usage object into, for :meth:`PartBuilder.usage_counts
#: <sse_engine.parts._builder.PartBuilder.usage_counts>`.
UsageCounts = tuple[int | None, int | None, int | None, int | None, int | None, int | None]

#: A format's reader of a wire usage object's counts (Gemini's ``usage_counts``).
CountsReader = Callable[[Any], UsageCounts]

#: A usage not made yet: its counts and the wire object, ``(counts, raw)``, where
#: ``counts`` is the six counts or, not read yet, the format's function that reads
#: them from ``raw``. A ``UsageUpdate``'s and a turn's ``usage`` may hold one until
#: first read: most of a Gemini chunk's usage cost was making a Usage nobody reads
#: before the next chunk's, and a relay, which keeps only the latest report, reads
#: the counts of none but the one it writes. A plain tuple because it is made per
#: chunk (a class instance costs ten times as much), and a Usage is never one.
PendingUsage = tuple[UsageCounts | CountsReader, Any]


def read_pending(value: Usage | PendingUsage | None) -> Usage | None:
    """``value`` as a :class:`Usage`: a pending one made now, any other as it is."""
    if type(value) is tuple:
        counts, raw = value
        if not isinstance(counts, tuple):  # not read yet: the format's reader reads them now
            counts = counts(raw)
        return new_usage(*counts, raw)
    return value  # type: ignore[return-value]


def counts_of(value: Usage | PendingUsage | None) -> UsageCounts | None:
    """The counts of a usage, made or pending (None for no usage), without making it."""
    if value is None:
        return None
    if type(value) is tuple:
        counts, raw = value
        return counts if isinstance(counts, tuple) else counts(raw)
    usage: Usage = value  # type: ignore[assignment]
    return (usage.input_tokens, usage.output_tokens, usage.total_tokens,
            usage.cached_input_tokens, usage.reasoning_tokens, usage.cache_write_input_tokens)
