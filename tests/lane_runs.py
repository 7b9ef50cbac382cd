"""What the lanes' (and parts') fast-path tests share: a run that keeps what a failure
carries, and the check that an event built slot by slot is the event its class makes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import attrs
import pytest

from sse_engine import Lane, LaneEvent, ProtocolError
from sse_engine.parts import PartStream


def feed_reads(
    lane: Lane[Any] | PartStream[Any], reads: Iterable[bytes]
) -> tuple[list[Any], str | None]:
    """Every event (or part, for a ``PartStream``) ``lane`` gives for ``reads`` and
    ``close()``, with a ``ProtocolError``'s own, and that error's message (None: the
    stream ended without one)."""
    events: list[Any] = []
    try:
        for read in reads:
            events += lane.feed(read)
        events += lane.close()
    except ProtocolError as exc:
        events += exc.events
        return events, str(exc)
    return events, None


def _hash(event: LaneEvent) -> Any:
    try:
        return hash(event)
    except TypeError as exc:  # an event holding a dict hashes it
        return str(exc)


def same_event(built: Any, made: Any) -> None:
    """``built`` (a ``slot_builder`` function's) is ``made`` (the class call's) in every
    way a reader can tell: class, equality, hash, repr, fields, and still frozen."""
    assert type(built) is type(made)
    assert built == made and _hash(built) == _hash(made) and repr(built) == repr(made)
    assert attrs.asdict(built, recurse=False) == attrs.asdict(made, recurse=False)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        built.raw = {}
