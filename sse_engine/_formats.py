"""FORMATS: the one registry of wire formats; everything that serves every format asks it.

A wire format (Chat Completions, Responses, Messages, ...) is one folder,
``sse_engine/<name>/``, that knows the format both ways: reading it (its
lane), its events as parts, parts as its bytes (the relay's target side),
its request bodies. The folder's ``__init__`` adds the format's row here
with :func:`register_format`, as a codec registers with Python's
``codecs``; ``sse_engine/__init__`` imports every format folder, so the
table is full once ``sse_engine`` is imported. What serves every format
(:class:`~sse_engine.PartStream`, :class:`~sse_engine.Relay`, the command
line) looks a format up here and never names one.

This room sits below the lanes and the layers above them and imports none
of them: a row's pieces are the format folder's, typed here by what the
registry knows of them (a class, a function), and each layer that uses a
piece knows its own base class.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, final

import attrs

__all__ = ["FORMATS", "Endpoint", "Recognizer", "WireFormat", "format_of", "register_format"]

#: Says why an SSE event is of a format, as a short phrase ("object
#: chat.completion.chunk"), or None when it is not. It is given the ``event:``
#: name and the data decoded as JSON (the command line's detector gives data
#: that is not JSON as its stripped text, so that a sentinel like ``[DONE]`` tells).
Recognizer = Callable[[str, Any], str | None]


@final
@attrs.frozen
class Endpoint:
    """How a format's API is called over HTTP, besides its bodies: what a gateway needs
    to call it as an upstream and to read what its clients ask.

    - ``key_header``: the header that carries an API key (``authorization``).
    - ``key_prefix``: written before the key in that header (``Bearer ``).
    - ``fixed_headers``: headers every request carries (an API version).
    - ``stream_query``: the query a streamed request's path takes (``?alt=sse``).
    - ``stream_flag``: the body's boolean that asks for a stream (``stream``);
      None when the format's ``paths`` are stream paths and the body says
      nothing of it.
    - ``stream_fields``: what a streamed request's body gets unless it says
      otherwise, for the stream to carry all the final object would (Chat
      Completions sends usage only when asked).
    - ``final_paths``: the paths the API answers with its final object alone,
      never a stream, for the same request body as its ``paths`` take
      (Gemini's ``models/{model}:generateContent``); a format whose body asks
      for the stream (``stream_flag``) has none.
    """

    key_header: str
    key_prefix: str = ""
    fixed_headers: tuple[tuple[str, str], ...] = ()
    stream_query: str = ""
    stream_flag: str | None = "stream"
    stream_fields: tuple[tuple[str, Any], ...] = ()
    final_paths: tuple[str, ...] = ()

    def headers(self, key: str | None) -> dict[str, str]:
        """The headers of a request to the API: the fixed ones, and ``key`` (None: no key)."""
        headers = dict(self.fixed_headers)
        if key is not None:
            headers[self.key_header] = self.key_prefix + key
        return headers

    def streamed(self, body: dict[str, Any]) -> dict[str, Any]:
        """``body`` with the :attr:`stream_fields` it does not set (a new dict when any)."""
        missing = [(key, value) for key, value in self.stream_fields if key not in body]
        return {**body, **dict(missing)} if missing else body

    def wants_stream(self, body: Mapping[str, Any], path: str) -> bool:
        """Whether a request with ``body`` on ``path`` (one of the format's ``paths`` or
        :attr:`final_paths`, as written there: ``{model}`` unfilled) asks for a stream."""
        if path in self.final_paths:
            return False
        return self.stream_flag is None or body.get(self.stream_flag) is True


@final
@attrs.frozen
class WireFormat:
    """One wire format: its name and the pieces its folder provides.

    - ``name``: the short name (``"chat"``): ``Relay(to=...)``, the CLI's
      ``--lane``, the bundled captures' prefix.
    - ``title``: the API's name for messages (``"Chat Completions"``).
    - ``lane``: the lane class that reads the format (a :class:`~sse_engine.Lane`).
    - ``parts``: its events as parts: the translator class
      :class:`~sse_engine.PartStream` drives (a ``sse_engine.parts.Translator``).
    - ``emitter``: parts as its wire bytes: the relay's target side (a
      ``sse_engine.relay.Emitter``).
    - ``encode``: one of its lane events, or a payload dict, as its wire frame
      (``b""`` when the event carries no frame of its own); the inverse of the
      lane's ``feed()``.
    - ``recognize``: why an SSE event is one this format sends (its own
      shapes, never an error report: every API sends those), or None.
    - ``recognize_error``: why an error report (``event`` ``""`` for a JSON
      body sent instead of a stream) has this format's own shape, or None;
      several APIs share one envelope, so most name no format.
    - ``paths``: the HTTP paths the API serves its streams on.
    - ``request``: its request bodies to and from the format-neutral
      conversation (None while the format has no request codec).
    - ``endpoint``: how its API is called over HTTP (:class:`Endpoint`: the
      key's header, a stream's query), for the gateway; None: not known.
    """

    name: str
    title: str
    lane: type[Any]
    parts: type[Any]
    emitter: type[Any]
    encode: Callable[[Any], bytes]
    recognize: Recognizer
    recognize_error: Recognizer
    paths: tuple[str, ...] = ()
    request: Any = None
    endpoint: Endpoint | None = None


class _Registry(Mapping[str, WireFormat]):
    """The formats by name, in the order they were registered; read-only but for ``add``."""

    def __init__(self) -> None:
        self._rows: dict[str, WireFormat] = {}

    def add(self, row: WireFormat) -> None:
        rows = self._rows
        if row.name in rows:
            raise ValueError(f"a wire format named {row.name!r} is registered already")
        for other in rows.values():
            if other.lane is row.lane:
                raise ValueError(f"{row.lane.__name__} is the lane of {other.name!r} already")
        rows[row.name] = row

    def __getitem__(self, name: str) -> WireFormat:
        return self._rows[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    def __repr__(self) -> str:
        return f"FORMATS({', '.join(self._rows)})"


_REGISTRY = _Registry()
#: Every wire format, by name (``FORMATS["chat"]``), in registration order.
FORMATS: Mapping[str, WireFormat] = _REGISTRY


def register_format(row: WireFormat) -> WireFormat:
    """Add a wire format's row (a format folder's ``__init__`` does, once).

    Raises ``ValueError`` for a name or a lane class that is registered already.
    """
    _REGISTRY.add(row)
    return row


def format_of(lane: object) -> WireFormat:
    """The format whose lane ``lane`` is: an instance of its class (or of a subclass),
    or the class itself.

    Raises ``TypeError`` naming the known lanes for anything else.
    """
    cls = lane if isinstance(lane, type) else type(lane)
    for row in FORMATS.values():
        if issubclass(cls, row.lane):
            return row
    known = ", ".join(row.lane.__name__ for row in FORMATS.values())
    raise TypeError(f"{cls.__name__} is not the lane of any wire format (known: {known})")
