"""Gemini streams built in tests: chunks as the API writes them, and the bundled captures.

``chunk(...)`` is one ``GenerateContentResponse`` frame (``data: {json}`` and
CRLF, Google's spacing: the lane's own encoder writes it); ``text``,
``thought`` and ``call`` build parts; ``run`` feeds a lane and closes it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sse_engine import ProtocolError
from sse_engine.gemini import GeminiLane, encode_gemini_event

CAPTURES = Path(__file__).resolve().parents[2] / "sse_engine" / "captures"
GEMINI_STREAMS = sorted(p.name for p in CAPTURES.glob("gemini_*.sse"))
MODEL = "gemini-2.5-flash"
RESPONSE_ID = "resp-test-0001"


def capture(name: str) -> bytes:
    return (CAPTURES / name).read_bytes()


def text(value: str, signature: str | None = None) -> dict[str, Any]:
    part: dict[str, Any] = {"text": value}
    if signature is not None:
        part["thoughtSignature"] = signature
    return part


def thought(value: str, signature: str | None = None) -> dict[str, Any]:
    part: dict[str, Any] = {"text": value, "thought": True}
    if signature is not None:
        part["thoughtSignature"] = signature
    return part


def call(name: str, args: dict[str, Any], signature: str | None = None,
         id: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name, "args": args}
    if id is not None:
        body["id"] = id
    part: dict[str, Any] = {"functionCall": body}
    if signature is not None:
        part["thoughtSignature"] = signature
    return part


def payload(
    *parts: dict[str, Any],
    finish: str | None = None,
    index: int | None = None,
    usage: dict[str, Any] | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """One ``GenerateContentResponse``: one candidate with ``parts``, and the other fields."""
    candidate: dict[str, Any] = {}
    if parts:
        candidate["content"] = {"parts": list(parts), "role": "model"}
    if finish is not None:
        candidate["finishReason"] = finish
    if index is not None:
        candidate["index"] = index
    out: dict[str, Any] = {"candidates": [candidate]} if candidate else {}
    if usage is not None:
        out["usageMetadata"] = usage
    return {**out, "modelVersion": MODEL, "responseId": RESPONSE_ID, **fields}


def chunk(*parts: dict[str, Any], **fields: Any) -> bytes:
    """The frame of :func:`payload` (the lane's own encoder writes it)."""
    return encode_gemini_event(payload(*parts, **fields))


def usage(prompt: int, answer: int, thoughts: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"promptTokenCount": prompt, "candidatesTokenCount": answer,
                           "totalTokenCount": prompt + answer + (thoughts or 0)}
    if thoughts is not None:
        out["thoughtsTokenCount"] = thoughts
    return out


def error_frame(code: int, message: str, status: str) -> bytes:
    return encode_gemini_event({"error": {"code": code, "message": message, "status": status}})


def run(data: bytes, lane: GeminiLane | None = None) -> tuple[GeminiLane, list[Any]]:
    """``data`` through a lane, closed; a ProtocolError's events are returned too."""
    lane = lane or GeminiLane()
    try:
        events = lane.feed(data)
    except ProtocolError as exc:
        return lane, list(exc.events)
    return lane, events + lane.close()
