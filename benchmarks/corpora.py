"""Deterministic benchmark corpora shaped like real LLM streaming traffic.

Every builder returns the exact bytes a server would send (LF line endings,
compact JSON with raw UTF-8, as the APIs send it) and is fully determined by
its arguments: the same call gives the same bytes on every machine, so the
parser benchmark and later lane benchmarks measure the same input.

Servers differ in more than the JSON: some put an ``id: N`` line before
every event (the Kindo gateway does, and so does the Responses relay), some
end lines with CRLF. :func:`with_ids` and :func:`crlf` turn an LF corpus
into those shapes, and :func:`capture` tiles one of the bundled captures
(``sse_engine/captures/*.sse``: comments, ``retry``, multi-line data, ids)
to a corpus of its own shape.

- :func:`chat_completions` — ``data: {chat.completion.chunk}`` frames (~250 B),
  a role chunk first, then content deltas, a finish chunk, a usage chunk with
  ``choices: []`` and ``data: [DONE]``.
- :func:`responses` — ``event: response.*`` + ``data: {...}`` events (~200 B
  per delta) with ``sequence_number``, from ``response.created`` to
  ``response.completed``.
- :func:`messages` — Anthropic ``event: content_block_delta`` + ``data: {...}``
  (~120 B per delta), from ``message_start`` to ``message_stop``.
- :func:`single_event` — one ``data: <payload>`` event of a given size.

:func:`chunked` cuts bytes the way a transport delivers them,
:func:`prefix_events` keeps the first *n* events of an LF corpus, and
:func:`expected_events` gives the ``(event, data, id)`` tuples a corpus must
decode to, from a literal line-by-line transcription of the WHATWG steps
written here, independently of any parser under test.
"""

from __future__ import annotations

import json
import random
import re
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = [
    "CAPTURES",
    "CHUNK_MODES",
    "CORPORA",
    "RAGGED_MAX",
    "RAGGED_MIN",
    "RAGGED_SEED",
    "SHAPES",
    "capture",
    "chat_completions",
    "chunked",
    "crlf",
    "expected_events",
    "messages",
    "prefix_events",
    "responses",
    "single_event",
    "with_ids",
]

#: Seed of the word stream (the text the "model" writes).
TEXT_SEED = 20240611
#: Seed and bounds of the ragged network reads.
RAGGED_SEED = 1729
RAGGED_MIN = 40
RAGGED_MAX = 700

CHUNK_MODES = ("64k", "ragged", "byte", "1k")

# Mostly ASCII English-like tokens, with a sprinkling of multi-byte UTF-8
# (accents, CJK, emoji, typographic punctuation) as real model output has:
# chunkers must then cut inside characters now and then.
_WORDS = [
    "the", "of", "and", "to", "in", "is", "that", "for", "it", "as", "with", "was", "on",
    "be", "by", "this", "are", "from", "at", "or", "an", "which", "model", "stream", "event",
    "token", "data", "server", "client", "parser", "buffer", "line", "field", "response",
    "message", "content", "delta", "chunk", "value", "request", "network", "latency",
    "throughput", "function", "argument", "result", "python", "bytes", "string", "json",
    "object", "array", "index", "choice",
]
_EXOTIC = ("café", "naïve", "—", "“quoted”", "日本語", "中文", "🙂", "🚀", "…", "Zürich", "€")


def _tokens(n: int, seed: int = TEXT_SEED) -> list[str]:
    """``n`` text deltas as a tokenizer would stream them (leading space, some punctuation)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        r = rng.random()
        word = rng.choice(_EXOTIC) if r < 0.04 else rng.choice(_WORDS)
        if i and rng.random() < 0.85:
            word = " " + word
        r = rng.random()
        if r < 0.06:
            word += "."
        elif r < 0.1:
            word += ","
        elif r < 0.11:
            word += "\n\n"  # paragraph break: an escaped "\n\n" inside the JSON
        out.append(word)
    return out


def _rand_id(rng: random.Random, n: int) -> str:
    return "".join(rng.choices(string.ascii_letters + string.digits, k=n))


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def _frame(data: Any, event: str | None = None) -> str:
    payload = data if isinstance(data, str) else _dumps(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n"


def chat_completions(n_events: int = 2000, seed: int = TEXT_SEED) -> bytes:
    """A Chat Completions stream of ``n_events`` SSE events (``stream_options.include_usage``).

    One role chunk, ``n_events - 4`` content chunks, a finish chunk
    (``finish_reason: "stop"``), a usage chunk (``choices: []``) and ``[DONE]``.
    Content chunks are ~250 bytes, like ``gpt-4o`` chunks.
    """
    if n_events < 4:
        raise ValueError("a chat stream needs at least 4 events")
    rng = random.Random(seed + 1)
    cid = "chatcmpl-" + _rand_id(rng, 29)
    fingerprint = "fp_" + _rand_id(rng, 10).lower()
    created = 1718000000

    def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
        return {
            "id": cid,
            "object": "chat.completion.chunk",
            "created": created,
            "model": "gpt-4o-2024-08-06",
            "system_fingerprint": fingerprint,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
            "usage": None,
        }

    parts = [_frame(chunk({"role": "assistant", "content": "", "refusal": None}, None))]
    tokens = _tokens(n_events - 4, seed)
    for tok in tokens:
        parts.append(_frame(chunk({"content": tok}, None)))
    parts.append(_frame(chunk({}, "stop")))
    usage = {
        "prompt_tokens": 1187,
        "completion_tokens": len(tokens),
        "total_tokens": 1187 + len(tokens),
        "prompt_tokens_details": {"cached_tokens": 1024, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }
    parts.append(_frame({
        "id": cid,
        "object": "chat.completion.chunk",
        "created": created,
        "model": "gpt-4o-2024-08-06",
        "system_fingerprint": fingerprint,
        "choices": [],
        "usage": usage,
    }))
    parts.append(_frame("[DONE]"))
    return "".join(parts).encode()


def responses(n_events: int = 2000, seed: int = TEXT_SEED) -> bytes:
    """A Responses API stream of ``n_events`` typed events around one message item.

    ``response.created``, ``response.in_progress``, ``response.output_item.added``,
    ``response.content_part.added``, ``n_events - 8`` ``response.output_text.delta``
    events (~200 bytes each), then ``response.output_text.done``,
    ``response.content_part.done``, ``response.output_item.done`` and
    ``response.completed``; ``sequence_number`` counts from 0.
    """
    if n_events < 9:
        raise ValueError("a responses stream needs at least 9 events")
    rng = random.Random(seed + 2)
    resp_id = "resp_" + _rand_id(rng, 48).lower()
    item_id = "msg_" + _rand_id(rng, 48).lower()
    created = 1718000000
    seq = 0
    parts: list[str] = []

    def emit(event: str, payload: dict[str, Any]) -> None:
        nonlocal seq
        parts.append(_frame({"type": event, "sequence_number": seq, **payload}, event))
        seq += 1

    def response_obj(status: str, output: list[Any], usage: Any) -> dict[str, Any]:
        return {
            "id": resp_id,
            "object": "response",
            "created_at": created,
            "status": status,
            "background": False,
            "error": None,
            "incomplete_details": None,
            "instructions": None,
            "max_output_tokens": None,
            "model": "gpt-4.1-2025-04-14",
            "output": output,
            "parallel_tool_calls": True,
            "previous_response_id": None,
            "reasoning": {"effort": None, "summary": None},
            "store": True,
            "temperature": 1.0,
            "text": {"format": {"type": "text"}},
            "tool_choice": "auto",
            "tools": [],
            "top_p": 1.0,
            "truncation": "disabled",
            "usage": usage,
            "user": None,
            "metadata": {},
        }

    tokens = _tokens(n_events - 8, seed)
    text = "".join(tokens)
    emit("response.created", {"response": response_obj("in_progress", [], None)})
    emit("response.in_progress", {"response": response_obj("in_progress", [], None)})
    emit("response.output_item.added", {
        "output_index": 0,
        "item": {"id": item_id, "type": "message", "status": "in_progress", "content": [],
                 "role": "assistant"},
    })
    emit("response.content_part.added", {
        "item_id": item_id, "output_index": 0, "content_index": 0,
        "part": {"type": "output_text", "annotations": [], "logprobs": [], "text": ""},
    })
    for tok in tokens:
        emit("response.output_text.delta", {
            "item_id": item_id, "output_index": 0, "content_index": 0, "delta": tok,
            "logprobs": [],
        })
    part = {"type": "output_text", "annotations": [], "logprobs": [], "text": text}
    emit("response.output_text.done", {
        "item_id": item_id, "output_index": 0, "content_index": 0, "text": text, "logprobs": [],
    })
    emit("response.content_part.done", {
        "item_id": item_id, "output_index": 0, "content_index": 0, "part": part,
    })
    item = {"id": item_id, "type": "message", "status": "completed", "content": [part],
            "role": "assistant"}
    emit("response.output_item.done", {"output_index": 0, "item": item})
    usage = {
        "input_tokens": 1187,
        "input_tokens_details": {"cached_tokens": 1024},
        "output_tokens": len(tokens),
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 1187 + len(tokens),
    }
    emit("response.completed", {"response": response_obj("completed", [item], usage)})
    return "".join(parts).encode()


def messages(n_events: int = 2000, seed: int = TEXT_SEED) -> bytes:
    """An Anthropic Messages stream of ``n_events`` events with one text block.

    ``message_start``, ``content_block_start``, ``ping``, ``n_events - 6``
    ``content_block_delta`` events (~120 bytes each), ``content_block_stop``,
    ``message_delta`` and ``message_stop``.
    """
    if n_events < 7:
        raise ValueError("a messages stream needs at least 7 events")
    rng = random.Random(seed + 3)
    msg_id = "msg_01" + _rand_id(rng, 22)
    tokens = _tokens(n_events - 6, seed)
    parts = [
        _frame({"type": "message_start", "message": {
            "id": msg_id, "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-20250514", "content": [], "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 1187, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": 1024, "output_tokens": 1,
                      "service_tier": "standard"},
        }}, "message_start"),
        _frame({"type": "content_block_start", "index": 0,
                "content_block": {"type": "text", "text": ""}}, "content_block_start"),
        _frame({"type": "ping"}, "ping"),
    ]
    for tok in tokens:
        parts.append(_frame({"type": "content_block_delta", "index": 0,
                             "delta": {"type": "text_delta", "text": tok}}, "content_block_delta"))
    parts.append(_frame({"type": "content_block_stop", "index": 0}, "content_block_stop"))
    parts.append(_frame({"type": "message_delta",
                         "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                         "usage": {"output_tokens": len(tokens)}}, "message_delta"))
    parts.append(_frame({"type": "message_stop"}, "message_stop"))
    return "".join(parts).encode()


def single_event(size: int, seed: int = TEXT_SEED) -> bytes:
    """One ``data: <payload>`` event whose payload is ``size`` bytes of base64-like ASCII.

    The shape of a large tool result or an inline image: one line, no line
    terminator until the very end.
    """
    rng = random.Random(seed + size)
    alphabet = (string.ascii_letters + string.digits + "+/").encode()
    block = bytes(rng.choices(alphabet, k=4096))
    payload = (block * (size // len(block) + 1))[:size]
    return b"data: " + payload + b"\n\n"


#: The event-stream corpora, by name.
CORPORA: dict[str, Callable[..., bytes]] = {
    "chat": chat_completions,
    "responses": responses,
    "messages": messages,
}


def prefix_events(data: bytes, n_events: int) -> bytes:
    """The first ``n_events`` events of an LF-delimited corpus (cut after a blank line)."""
    end = 0
    for _ in range(n_events):
        nxt = data.find(b"\n\n", end)
        if nxt < 0:
            return data
        end = nxt + 2
    return data[:end]


_EOL = re.compile(r"\r\n|\r|\n")


def expected_events(data: bytes) -> list[tuple[str, str, str]]:
    """The ``(event, data, id)`` tuples ``data`` decodes to, per the WHATWG steps, literally.

    An oracle independent of any parser under test, written for clarity, not
    speed: decode the whole stream (invalid bytes become U+FFFD), drop one
    leading BOM, split lines at CRLF, CR or LF, and interpret each line. An
    event the stream never ends (no blank line after it) is discarded.
    """
    text = data.decode("utf-8", "replace").removeprefix("\ufeff")
    *lines, _unfinished = _EOL.split(text)
    out = []
    buffer: list[str] = []
    event = last_id = id_buffer = ""
    for line in lines:
        if not line:
            last_id = id_buffer
            if buffer:
                out.append((event or "message", "\n".join(buffer), last_id))
            buffer, event = [], ""
            continue
        name, colon, value = line.partition(":")
        if not name and colon:
            continue  # a comment
        value = value.removeprefix(" ")
        if name == "data":
            buffer.append(value)
        elif name == "event":
            event = value
        elif name == "id" and "\x00" not in value:
            id_buffer = value
    return out


def with_ids(data: bytes, start: int = 0) -> bytes:
    """An LF corpus with an ``id: N`` line (N counting from ``start``) before each event.

    The shape the Kindo gateway and the Responses relay write.
    """
    blocks = data.split(b"\n\n")
    tail = blocks.pop()
    return b"".join(
        b"id: %d\n%s\n\n" % (start + i, block) for i, block in enumerate(blocks)
    ) + tail


def crlf(data: bytes) -> bytes:
    """An LF corpus with every line ended by CRLF (its JSON holds no raw line breaks)."""
    return data.replace(b"\n", b"\r\n")


def _with_ids_crlf(data: bytes) -> bytes:
    return crlf(with_ids(data))


#: The shapes servers give one corpus: name -> how the LF corpus becomes it.
SHAPES: dict[str, Callable[[bytes], bytes]] = {
    "LF": bytes,
    "id lines": with_ids,
    "CRLF": crlf,
    "id lines, CRLF": _with_ids_crlf,
}

_CAPTURES_DIR = Path(__file__).resolve().parent.parent / "sse_engine" / "captures"
#: The bundled SSE captures, by file stem.
CAPTURES: dict[str, Path] = {p.stem: p for p in sorted(_CAPTURES_DIR.glob("*.sse"))}


def capture(name: str, size: int = 512 * 1024) -> bytes:
    """The capture ``name`` (see :data:`CAPTURES`), repeated whole to at least ``size`` bytes.

    A capture cut short (no blank line at its end) is repeated up to its last
    blank line, so that each copy's events stay whole. What repeats is the
    capture's own shape: its comments, ``retry``, ``id`` and multi-line data.
    """
    raw = CAPTURES[name].read_bytes()
    end = max(raw.rfind(b"\n\n"), raw.rfind(b"\r\n\r\n") + 2, raw.rfind(b"\r\r"))
    one = raw[: end + 2]
    return one * max(1, -(-size // len(one)))


def chunked(data: bytes, mode: str, seed: int = RAGGED_SEED) -> list[bytes]:
    """Cut ``data`` into the reads a transport would deliver.

    ``"64k"``: 64 KiB reads; ``"1k"``: 1 KiB reads; ``"byte"``: one byte per
    read; ``"ragged"``: reads of 40-700 bytes cut at arbitrary offsets (inside
    lines, inside CRLF pairs, inside UTF-8 characters), from a fixed seed.
    """
    if mode == "64k":
        size = 64 * 1024
    elif mode == "1k":
        size = 1024
    elif mode == "byte":
        return [data[i : i + 1] for i in range(len(data))]
    elif mode == "ragged":
        rng = random.Random(seed)
        out = []
        pos = 0
        n = len(data)
        while pos < n:
            step = rng.randint(RAGGED_MIN, RAGGED_MAX)
            out.append(data[pos : pos + step])
            pos += step
        return out
    else:
        raise ValueError(f"unknown chunk mode {mode!r}; expected one of {CHUNK_MODES}")
    return [data[i : i + size] for i in range(0, len(data), size)]
