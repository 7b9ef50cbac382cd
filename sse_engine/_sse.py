"""The parser's output items: dispatched events and (optionally) comments.

Both are ``typing.NamedTuple`` classes: immutable, slotted (no per-instance
``__dict__``), and the cheapest object CPython can build, which matters because
one is built per event on the parser's hot path (an attrs frozen class costs
about four times as much to construct and measurably slowed every benchmark
row). They compare, hash, pickle, unpack and ``match`` like the named tuples
they are; ``_replace()`` and ``_asdict()`` are there too.
"""

from __future__ import annotations

from typing import NamedTuple


class ServerSentEvent(NamedTuple):
    """One dispatched Server-Sent Event.

    ``event`` is the event type (``"message"`` when the stream set none), ``data``
    the data buffer with its final line feed removed, and ``id`` the last event ID
    string at the moment of dispatch (what a reconnect sends as ``Last-Event-ID``).
    """

    event: str
    data: str
    id: str


class Comment(NamedTuple):
    """A comment line (``: text``), reported only when the parser asks for them.

    ``text`` is what follows the colon, with one leading space removed, exactly as
    field values are treated. Keepalives (``: keepalive``) arrive as comments.
    """

    text: str
