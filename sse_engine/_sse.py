"""The parser's output items: dispatched events and (optionally) comments."""

from __future__ import annotations

import attrs


@attrs.frozen
class ServerSentEvent:
    """One dispatched Server-Sent Event.

    ``event`` is the event type (``"message"`` when the stream set none), ``data``
    the data buffer with its final line feed removed, and ``id`` the last event ID
    string at the moment of dispatch (what a reconnect sends as ``Last-Event-ID``).
    """

    event: str
    data: str
    id: str


@attrs.frozen
class Comment:
    """A comment line (``: text``), reported only when the parser asks for them.

    ``text`` is what follows the colon, with one leading space removed, exactly as
    field values are treated. Keepalives (``: keepalive``) arrive as comments.
    """

    text: str
