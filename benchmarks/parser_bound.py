"""What bounds the parser on the rows where it misses its target: a floor to compare with.

A row of the parser benchmark can miss "at least 2x the fastest peer" for two
reasons: sse_engine does more work than it must, or the work any parser of
this kind must do in Python already costs more than half the peer's time.
This module tells the two apart by timing a *floor*: the least an incremental
pure-Python parser that returns each read's events can do per read. It keeps
the bytes after the last blank line, finds the last blank line of each read,
decodes the complete part once, splits it into blocks and builds one event
per block, reading no field at all (so it is not a parser, only a bound on
one: every correct parser does at least this). Timed in one interleaved run
with sse_engine and the row's fastest peer, each the same number of rounds:

- *peer ÷ floor* is the best ratio any parser built this way could reach on
  the row: under 2, the target is out of reach by per-read work alone;
- *sse_engine ÷ floor* is what sse_engine costs over that floor: the field
  names, ``id``, CR handling, the spec's corner cases.

It also gives each side's cost per read and per event, and which of the
floor's steps cost what.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import report
from benchmarks.peers import PEERS
from benchmarks.timing import RULE, best_of
from sse_engine import ServerSentEvent


class Row(Protocol):
    """What this reads of a ``bench_parser.Row`` (a protocol, so the two modules do not
    import each other)."""

    label: str
    shape: str
    reads: str
    size: str
    group: str
    chunks: list[bytes]
    expected: list[tuple[str, str, str]]

    def fastest_peer(self) -> tuple[str, float] | None: ...

    def ratio(self) -> float | None: ...

__all__ = ["blank_line", "floor_events", "section"]

TIMES = "\u00d7"
_new = tuple.__new__


def blank_line(chunks: list[bytes]) -> bytes:
    """The blank line the floor splits ``chunks`` at: CRLF where the stream's lines end so.

    Read from the bytes, not from the row's shape: a capture keeps its own line
    endings (the Gemini captures are CRLF). Split at the wrong one, the floor finds no
    block, decodes nothing and re-joins a growing tail on every read: no floor at all.
    """
    data = b"".join(chunks)
    return b"\r\n\r\n" if data.count(b"\r\n\r\n") > data.count(b"\n\n") else b"\n\n"


def floor_events(chunks: list[bytes], blank: bytes = b"\n\n") -> list[Any]:
    """The floor: per read, the last blank line, one decode, one split, one tuple per block."""
    events: list[Any] = []
    text_blank = blank.decode()
    tail = b""
    for chunk in chunks:
        data = tail + chunk if tail else chunk
        end = data.rfind(blank)
        if end < 0:
            tail = data
            continue
        tail = data[end + len(blank) :]
        for block in data[:end].decode("utf-8", "replace").split(text_blank):
            events.append(_new(ServerSentEvent, ("message", block, "")))
    return events


def _reads_only(chunks: list[bytes], blank: bytes = b"\n\n") -> int:
    """The floor's bytes work without its blocks: find, keep, decode (no split, no events)."""
    tail = b""
    total = 0
    for chunk in chunks:
        data = tail + chunk if tail else chunk
        end = data.rfind(blank)
        if end < 0:
            tail = data
            continue
        tail = data[end + len(blank) :]
        total += len(data[:end].decode("utf-8", "replace"))
    return total


def _representatives(rows: Sequence[Row]) -> list[Row]:
    """The worst missed row of each group, size and kind of reads (at most eight rows)."""
    worst: dict[tuple[str, str, str], Row] = {}
    for row in rows:
        key = (row.group, row.size, row.reads)
        ratio = row.ratio() or 0.0
        if key not in worst or ratio < (worst[key].ratio() or 0.0):
            worst[key] = row
    return list(worst.values())


def section(missed: Sequence[Row], quick: bool = False) -> str:
    """The Markdown that says what bounds the missed rows ("" when none missed)."""
    if not missed:
        return ""
    ours = next(p for p in PEERS if p.name == "sse_engine").events
    rounds = 2 if quick else 15
    table: list[list[str]] = []
    for row in _representatives(missed):
        fastest = row.fastest_peer()
        if fastest is None:
            continue
        peer = next(p for p in PEERS if p.name == fastest[0])
        blank = blank_line(row.chunks)
        if len(floor_events(row.chunks, blank)) < len(row.expected):
            raise RuntimeError(f"{row.label}: the floor finds fewer blocks than the row has events")
        contenders: list[tuple[str, Callable[[list[bytes]], Any]]] = [
            ("sse_engine", ours),
            (peer.name, peer.events),
            ("floor", functools.partial(floor_events, blank=blank)),
            ("reads only", functools.partial(_reads_only, blank=blank)),
        ]
        timed = best_of(contenders, row.chunks, rounds)
        best = timed.seconds
        reads = len(row.chunks)
        events = len(row.expected)
        us = {name: t * 1e6 for name, t in best.items()}
        table.append([
            f"{row.label.split(' (')[0]}, {row.size}, {row.shape}, {row.reads}",
            f"{reads:,} / {events:,}", str(timed.calls),
            f"{us['sse_engine'] / reads:.2f} / {us['sse_engine'] / events:.2f}",
            f"{us[peer.name] / reads:.2f} / {us[peer.name] / events:.2f} ({peer.name})",
            f"{us['floor'] / reads:.2f} / {us['floor'] / events:.2f}",
            f"{us['reads only'] / us['floor']:.0%}",
            f"{best[peer.name] / best['floor']:.2f}{TIMES}",
            f"{best['sse_engine'] / best['floor']:.2f}{TIMES}",
            f"{best[peer.name] / best['sse_engine']:.2f}{TIMES}",
        ])
    return "\n".join([
        "### What bounds the rows under the target",
        "",
        "For the worst missed row of each kind, sse_engine, the row's fastest peer and a"
        " *floor* (`benchmarks/parser_bound.py`: per read, keep the bytes after the last"
        " blank line, find the last blank line, decode the complete part once, split it"
        " into blocks, one tuple per block, no field read: the least an incremental"
        " pure-Python parser that returns each read's events does) in one interleaved run,"
        f" best of {rounds} rounds each. {RULE} *Reads only* is the floor's share spent before"
        " any block is looked at (find, keep, decode). Peer ÷ floor is the most any parser"
        f" built this way could reach on the row: under 2{TIMES}, the target is out of reach"
        " by the per-read work alone.",
        "",
        report.markdown_table(
            ["Row", "Reads / events", "k", "sse_engine µs per read / event",
             "fastest peer µs per read / event", "floor µs per read / event",
             "reads only", "peer ÷ floor", "sse_engine ÷ floor", "sse_engine vs peer"],
            table, "lrrrrrrrrr",
        ),
    ])
