"""Adapters that drive each SSE decoder over a list of byte chunks, with no network.

Every peer is driven the way its own library drives it over a response body:

- ``sse_engine``: ``SSEParser().feed(chunk)`` per chunk, then ``close()``.
- ``openai``: ``openai._streaming.SSEDecoder().iter_bytes(iter(chunks))``, as
  ``openai.Stream`` does over ``response.iter_bytes()``.
- ``anthropic``: ``anthropic._streaming.SSEDecoder().iter_bytes(iter(chunks))``,
  as ``anthropic.Stream`` does.
- ``httpx-sse``: what ``EventSource.iter_sse()`` does minus the transport:
  httpx's incremental ``TextDecoder`` (``response.iter_text()``), then
  ``httpx_sse._decoders.SSELineDecoder`` and ``SSEDecoder``.
- ``sseclient-py``: ``sseclient.SSEClient(generator_of_chunks).events()``.

Each peer's ``tuples`` takes a list of byte chunks and returns ``(event, data,
id)`` tuples. Peers model
"unset" differently (``None`` vs ``""``), so the tuples are normalised the way the
spec reads them: an unset type is ``"message"``, an unset id is ``""``. Nothing
else is normalised: an event a peer dispatches that the spec does not (or a
different id) shows up as a different list of tuples.

:data:`PEERS` lists the peers that are importable here, ``sse_engine`` first; a
peer that is not installed is skipped (see :data:`MISSING`).
"""

from __future__ import annotations

import codecs
import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from sse_engine import SSEParser

__all__ = ["MISSING", "PEERS", "Peer", "Tuple3"]

Tuple3 = tuple[str, str, str]
Events = Callable[[list[bytes]], list[Any]]


@dataclass(frozen=True)
class Peer:
    """One decoder under test.

    ``events(chunks)`` returns the peer's native event objects; it is what the
    benchmark times. ``tuples(chunks)`` returns normalised ``(event, data, id)``
    tuples, for checking. ``retry(chunks)`` returns the reconnection time the
    peer would apply after those bytes (the last retry value it reported), or
    None.
    """

    name: str
    distribution: str
    version: str
    events: Callable[[list[bytes]], list[Any]]
    tuples: Callable[[list[bytes]], list[Tuple3]]
    retry: Callable[[list[bytes]], Any]


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"


# --- sse_engine --------------------------------------------------------------


def sse_engine_events(chunks: list[bytes]) -> list[Any]:
    parser = SSEParser()
    feed = parser.feed
    out: list[Any] = []
    for chunk in chunks:
        out += feed(chunk)
    out += parser.close()
    return out


def sse_engine_tuples(chunks: list[bytes]) -> list[Tuple3]:
    return [(e.event, e.data, e.id) for e in sse_engine_events(chunks)]


def sse_engine_retry(chunks: list[bytes]) -> Any:
    parser = SSEParser()
    for chunk in chunks:
        parser.feed(chunk)
    parser.close()
    return parser.retry


# --- the other peers: native events, normalised for checking ------------------------


def _normalised(events: Events) -> tuple[Callable[[list[bytes]], list[Tuple3]],
                                          Callable[[list[bytes]], Any]]:
    """``tuples`` and ``retry`` for a peer whose events have ``event``, ``data``, ``id``
    (None when unset) and ``retry`` attributes."""

    def tuples(chunks: list[bytes]) -> list[Tuple3]:
        return [(e.event or "message", e.data, e.id or "") for e in events(chunks)]

    def retry(chunks: list[bytes]) -> Any:
        last = None
        for e in events(chunks):
            if e.retry is not None:
                last = e.retry  # as the peer reports it (sseclient-py: the raw string)
        return last

    return tuples, retry


# --- SDK decoders (openai, anthropic) ----------------------------------------


def _sdk_events(module: Any) -> Events:
    decoder_cls = module.SSEDecoder

    def events(chunks: list[bytes]) -> list[Any]:
        return list(decoder_cls().iter_bytes(iter(chunks)))

    return events


# --- httpx-sse ------------------------------------------------------------------


def _httpx_sse_events(decoders: Any) -> Events:
    line_decoder_cls = decoders.SSELineDecoder
    event_decoder_cls = decoders.SSEDecoder
    try:  # the exact text decoder httpx's Response.iter_text() uses
        from httpx._decoders import TextDecoder

        def text_decoder() -> Any:
            return TextDecoder("utf-8")
    except ImportError:  # pragma: no cover - same behaviour, stdlib only

        def text_decoder() -> Any:
            return codecs.getincrementaldecoder("utf-8")(errors="replace")

    def iter_events(chunks: list[bytes]) -> Iterator[Any]:
        # httpx_sse._api._iter_sse_lines + EventSource.iter_sse, minus the response.
        text = text_decoder()
        lines = line_decoder_cls()
        decoder = event_decoder_cls()
        decode = decoder.decode
        for chunk in chunks:
            piece = text.decode(chunk)
            if not piece:  # httpx's TextChunker drops empty strings
                continue
            for line in lines.decode(piece):
                sse = decode(line.rstrip("\n"))
                if sse is not None:
                    yield sse
        tail = text.flush()
        if tail:
            for line in lines.decode(tail):
                sse = decode(line.rstrip("\n"))
                if sse is not None:
                    yield sse
        for line in lines.flush():
            sse = decode(line.rstrip("\n"))
            if sse is not None:
                yield sse

    def events(chunks: list[bytes]) -> list[Any]:
        return list(iter_events(chunks))

    return events


# --- sseclient-py ---------------------------------------------------------------


def _sseclient_events(sseclient: Any) -> Events:
    client_cls = sseclient.SSEClient

    def events(chunks: list[bytes]) -> list[Any]:
        return list(client_cls(iter(chunks)).events())

    return events


# --- registry -------------------------------------------------------------------

PEERS: list[Peer] = [
    Peer("sse_engine", "sse_engine", "local", sse_engine_events, sse_engine_tuples,
         sse_engine_retry),
]
#: Peers that could not be imported, name -> reason.
MISSING: dict[str, str] = {}

#: name (the distribution's too) -> (module to import, builds ``events`` from it)
_OPTIONAL: dict[str, tuple[str, Callable[[Any], Events]]] = {
    "openai": ("openai._streaming", _sdk_events),
    "anthropic": ("anthropic._streaming", _sdk_events),
    "httpx-sse": ("httpx_sse._decoders", _httpx_sse_events),
    "sseclient-py": ("sseclient", _sseclient_events),
}

for _name, (_module, _events_from) in _OPTIONAL.items():
    try:
        _events = _events_from(importlib.import_module(_module))
    except ImportError as exc:
        MISSING[_name] = str(exc)
    else:
        PEERS.append(Peer(_name, _name, _version(_name), _events, *_normalised(_events)))
