"""What travels in the soak: the requests, the upstream's Messages stream, and the text check.

A request asks for ``max_tokens`` text deltas. Every text delta is ``«i:t»``
(its index and the upstream's ``time.monotonic_ns() // 1000`` when it was
written, the same clock in every process of one machine) followed by 1-3
words chosen by ``(seed, i)``; the
last delta ends with ``#`` and the CRC-32 of all the text before it. A client
that knows the request's seed can then tell, from the text alone, a delta
lost, repeated, reordered or altered, and time each delta's trip.
The words include what JSON must escape and multi-byte UTF-8.
"""

from __future__ import annotations

import json
import re
import zlib
from typing import Any

__all__ = [
    "AROUND",
    "MODEL",
    "Texts",
    "chat_request",
    "chat_to_messages",
    "delta_frame",
    "delta_text",
    "filler",
    "head_frames",
    "messages_request",
    "request_of",
    "scan_marks",
    "tail_frames",
    "text_problem",
]

MODEL = "claude-soak-1"
#: Events of a stream besides its text deltas: message_start, ping,
#: content_block_start, content_block_stop, message_delta, message_stop.
AROUND = 6
_WORDS = (
    " the", " stream", " of", " tokens", " arrives", " in", " order", ",", ".", " and",
    " café", " naïve", " Zürich", " 数据", " 🙂", " “quoted”", ' "json"', " back\\slash",
    "\n", "\n\n", "\ttab", " <tag>", " a&b", " 42", " -", " **bold**", " `code`", " é",
)
_MARK = re.compile(r"«(\d+):(\d+)»")


def filler(seed: int, index: int) -> str:
    """The words of delta ``index`` of the stream with ``seed``: 1-3 of :data:`_WORDS`."""
    h = (seed * 1_000_003 + index * 7_919 + 12_345) * 2_654_435_761 & 0xFFFFFFFF
    n = len(_WORDS)
    return "".join(_WORDS[(h >> (3 + 5 * k)) % n] for k in range(1 + h % 3))


def delta_text(seed: int, index: int, t_us: int) -> str:
    """Delta ``index``'s text, stamped ``t_us`` (without the CRC the last one adds)."""
    return f"«{index}:{t_us}»{filler(seed, index)}"


class Texts:
    """One stream's text deltas as the upstream writes them, one :meth:`next` per delta."""

    __slots__ = ("crc", "deltas", "index", "seed")

    def __init__(self, seed: int, deltas: int) -> None:
        self.seed, self.deltas = seed, deltas
        self.index = 0
        self.crc = 0

    def next(self, t_us: int) -> str:
        """The next delta's text, stamped ``t_us``; the last one ends with the CRC."""
        text = delta_text(self.seed, self.index, t_us)
        self.crc = zlib.crc32(text.encode(), self.crc)
        self.index += 1
        return f"{text}#{self.crc:08x}" if self.index == self.deltas else text

    @property
    def done(self) -> bool:
        return self.index >= self.deltas


def scan_marks(text: str, start: int) -> tuple[list[tuple[int, int]], int]:
    """The ``(index, t_us)`` marks complete in ``text[start:]``, and where to scan next."""
    marks = []
    for match in _MARK.finditer(text, start):
        marks.append((int(match[1]), int(match[2])))
        start = match.end()
    return marks, start


def text_problem(text: str, seed: int, deltas: int, complete: bool = True) -> str | None:
    """Why ``text`` is not what the upstream sent for ``seed`` (None: it is).

    ``complete``: the stream must hold all ``deltas`` deltas and the CRC;
    otherwise (a client that hung up) a prefix of them, each one whole.
    """
    pieces = _MARK.split(text)
    if pieces[0]:
        return f"text before the first delta: {pieces[0][:40]!r}"
    indices, fills = pieces[1::3], pieces[3::3]
    if complete and len(indices) != deltas:
        return f"{len(indices)} deltas instead of {deltas}"
    for k, (index, fill) in enumerate(zip(indices, fills, strict=True)):
        if int(index) != k:
            return f"delta {index} where {k} was due"
        want = filler(seed, k)
        if k == deltas - 1:
            body, _, crc = fill.rpartition("#")
            if body != want:
                return f"delta {k} altered: {fill[:60]!r}"
            before = text[: len(text) - len(fill) + len(body)]
            if crc != f"{zlib.crc32(before.encode()):08x}":
                return "the text's CRC differs"
        elif fill != want and not (k == len(fills) - 1 and not complete and want.startswith(fill)):
            return f"delta {k} altered: {fill[:60]!r} instead of {want[:60]!r}"
    return None


def _frame(event: str, data: dict[str, Any]) -> bytes:
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"event: {event}\ndata: {payload}\n\n".encode()


def head_frames(seed: int) -> bytes:
    """message_start, ping and the text block's content_block_start."""
    message: dict[str, Any] = {
        "id": f"msg_01soak{seed:016d}", "type": "message", "role": "assistant", "model": MODEL,
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 1187, "cache_creation_input_tokens": 0,
                  "cache_read_input_tokens": 1024, "output_tokens": 1},
    }
    return (
        _frame("message_start", {"type": "message_start", "message": message})
        + _frame("ping", {"type": "ping"})
        + _frame("content_block_start", {"type": "content_block_start", "index": 0,
                                         "content_block": {"type": "text", "text": ""}})
    )


_DELTA_HEAD = b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,' \
    b'"delta":{"type":"text_delta","text":'


def delta_frame(text: str) -> bytes:
    """One content_block_delta event carrying ``text``."""
    return _DELTA_HEAD + json.dumps(text, ensure_ascii=False).encode() + b"}}\n\n"


def tail_frames(deltas: int) -> bytes:
    """content_block_stop, message_delta (end_turn, usage) and message_stop."""
    return (
        _frame("content_block_stop", {"type": "content_block_stop", "index": 0})
        + _frame("message_delta", {"type": "message_delta",
                                   "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                   "usage": {"output_tokens": deltas}})
        + _frame("message_stop", {"type": "message_stop"})
    )


def messages_request(seed: int, deltas: int) -> bytes:
    """A streaming Messages request for ``deltas`` deltas, whose prompt names ``seed``."""
    body = {"model": MODEL, "max_tokens": deltas, "stream": True,
            "messages": [{"role": "user", "content": f"soak {seed}"}]}
    return json.dumps(body).encode()


def chat_request(seed: int, deltas: int) -> bytes:
    """A streaming Chat Completions request for ``deltas`` deltas, whose prompt names ``seed``."""
    body = {"model": MODEL, "max_tokens": deltas, "stream": True,
            "stream_options": {"include_usage": True},
            "messages": [{"role": "user", "content": f"soak {seed}"}]}
    return json.dumps(body).encode()


def chat_to_messages(body: bytes) -> bytes:
    """The relay gateway's request mapping (text messages only; Conversation does it properly)."""
    chat = json.loads(body)
    request = {"model": chat["model"], "max_tokens": chat.get("max_tokens") or 4096,
               "stream": True, "messages": chat["messages"]}
    return json.dumps(request).encode()


def request_of(body: bytes) -> tuple[int, int]:
    """A Messages request's seed (its first message: ``soak <seed>``) and deltas (max_tokens)."""
    request = json.loads(body)
    return int(request["messages"][0]["content"].split()[1]), int(request["max_tokens"])
