"""The parser's inverse: bytes a server (or a test fixture) sends.

Every encoder output parses back to exactly what was encoded, with one
unavoidable exception: SSE has no way to carry a CR inside data, so CR, LF and
CRLF in ``data`` all become one line break and come back as LF.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, Any

from sse_engine._formats import format_of
from sse_engine._sse import Comment

if TYPE_CHECKING:  # the lanes import this module's encoders
    from sse_engine._lane import Lane, LaneEvent

__all__ = [
    "encode_comment",
    "encode_event",
    "encode_json",
    "encode_lane_events",
    "json_text",
    "not_this_lane",
]

_LINE_BREAKS = ("\r\n", "\r")


def _check_field(name: str, value: str, forbidden: str) -> None:
    for char in forbidden:
        if char in value:
            raise ValueError(f"SSE {name} must not contain {char!r}: {value!r}")


def _head(event: str | None, id: str | None, retry: int | None) -> str:
    """The ``event:``, ``id:`` and ``retry:`` lines of a frame, each ended, checked."""
    head = ""
    if event is not None:
        _check_field("event", event, "\r\n")
        head = f"event: {event}\n"
    if id is not None:
        _check_field("id", id, "\r\n\x00")
        head += f"id: {id}\n"
    if retry is not None:
        if isinstance(retry, bool) or not isinstance(retry, int) or retry < 0:
            raise ValueError(f"SSE retry must be a non-negative int, not {retry!r}")
        head += f"retry: {retry}\n"
    return head


def encode_event(
    data: str,
    event: str | None = None,
    id: str | None = None,
    retry: int | None = None,
) -> bytes:
    """Encode one event: optional ``event``/``id``/``retry`` lines, ``data`` lines, blank line.

    ``event`` and ``id`` may not contain CR or LF (``id`` not NUL either, which
    the parser would ignore); ``retry`` must be a non-negative int. Raises
    ``ValueError`` naming the offending field.
    """
    head = _head(event, id, retry)
    for brk in _LINE_BREAKS:
        if brk in data:
            data = data.replace(brk, "\n")
    body = "\n".join(f"data: {line}" for line in data.split("\n"))
    return f"{head}{body}\n\n".encode()


def encode_comment(text: str = "") -> bytes:
    """Encode a comment line followed by a blank line, e.g. a ``: keepalive`` frame.

    The blank line makes proxies that buffer by event flush it; it dispatches
    nothing. ``text`` may not contain CR or LF.
    """
    _check_field("comment", text, "\r\n")
    return f": {text}\n\n".encode()


_Encode = Callable[[Any, int], list[str]]
#: The C accelerator's encoder factory (None where ``json`` runs without it).
_make_encoder: Any = getattr(json.encoder, "c_make_encoder", None)
#: ``json`` 's C encoder, one per separator pair, made once: ``json.dumps`` builds an
#: encoder object and its C encoder at every call, several times the cost of encoding
#: a small payload (an LLM stream's frames are small and many).
_ENCODERS: dict[tuple[str, str], _Encode] = {}


def _encoder(item_separator: str, key_separator: str) -> _Encode | None:
    encode = _ENCODERS.get((item_separator, key_separator))
    if encode is None and _make_encoder is not None:
        # markers=None: no circular check; the C encoder's recursion limit stops a cycle,
        # and json_text then lets json.dumps raise what it always raised.
        encode = _ENCODERS[item_separator, key_separator] = _make_encoder(
            None, json.JSONEncoder().default, encode_basestring, None,
            key_separator, item_separator, False, False, True,
        )
    return encode


_COMPACT = (",", ":")


def json_text(payload: Any, separators: tuple[str, str] = _COMPACT) -> str:
    """``payload`` as JSON text with ``separators``: what ``json.dumps(payload,
    ensure_ascii=False, separators=separators)`` returns, with its exceptions, at a
    fraction of its cost for a small payload. Text is kept as UTF-8 but for a payload
    with no UTF-8 form (a lone surrogate, which JSON carries as ``\\ud800``): that one
    falls back to ASCII escapes, so it still round-trips."""
    text = _utf8_json(payload, separators)
    try:
        text.encode()
    except UnicodeEncodeError:
        text = json.dumps(payload, separators=separators)
    return text


def _utf8_json(payload: Any, separators: tuple[str, str]) -> str:
    """:func:`json_text` before its check that the text has a UTF-8 form."""
    encode = _encoder(*separators)
    try:
        if encode is None:  # json without its C accelerator
            return json.dumps(payload, ensure_ascii=False, separators=separators)
        return "".join(encode(payload, 0))
    except (RecursionError, ValueError, TypeError):
        # A cycle, a value JSON has no form for: json.dumps's own exception, as always.
        return json.dumps(payload, ensure_ascii=False, separators=separators)


def encode_json(payload: Any, event: str | None = None, id: str | None = None) -> bytes:
    """Encode a JSON payload as one ``data:`` line, compact, as the LLM APIs send it.

    Text is kept as UTF-8; only a value that has no UTF-8 form (a lone
    surrogate, which JSON can carry as ``\\ud800``) makes it fall back to
    ASCII escapes, so the payload still round-trips.
    """
    return json_frame("" if event is None and id is None else _head(event, id, None), payload)


def json_frame(head: str, payload: Any) -> bytes:
    """:func:`encode_json` of ``payload`` under ``head``: its ``event:``/``id:`` lines,
    each ended, written by the caller and not checked (an emitter's own event names
    and numbers, which need no check: the check was a sixth of a small frame's cost)."""
    # JSON text holds no CR or LF (both are escaped in strings): one data line, as is.
    try:
        # Encoded once: json_text's check that it can be is this encode itself.
        return f"{head}data: {_utf8_json(payload, _COMPACT)}\n\n".encode()
    except UnicodeEncodeError:
        return f"{head}data: {json.dumps(payload, separators=_COMPACT)}\n\n".encode()


def not_this_lane(item: object, lane: str) -> TypeError:
    """The error a lane's frame encoder raises for another lane's event."""
    return TypeError(f"{type(item).__name__} is not a {lane} event or payload")


def encode_lane_events(
    lane: Lane[Any] | type[Lane[Any]],
    events: Iterable[LaneEvent | Comment | Mapping[str, Any]],
) -> Iterator[bytes]:
    """The frames of a lane's events (or payloads), in order, skipping the empty ones.

    A :class:`~sse_engine.Comment` (what ``Lane.feed_with_comments`` returns
    too) is written back as the comment line it was.

    ``lane`` (a lane or a lane class) picks the wire format, whose ``encode``
    in ``FORMATS`` writes each frame (``encode_chat_event``,
    ``encode_responses_event``, ``encode_messages_event``, ...). Joined, the
    frames are a stream that a new lane of the same kind reads back to the
    same events, snapshot and outcome.
    """
    encode = format_of(lane).encode
    for event in events:
        frame = encode_comment(event.text) if type(event) is Comment else encode(event)
        if frame:
            yield frame
