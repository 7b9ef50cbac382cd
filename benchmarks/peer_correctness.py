"""Tricky event-stream cases run through SSEParser and every peer; writes docs/parser_peers.md.

Each case is a list of byte chunks (fed in that order, then end of input) and
the ``(event, data, id)`` tuples the WHATWG HTML "event stream interpretation"
rules produce for them (hard-coded here from the spec's text, not from any
parser). Cases about ``retry`` also state the reconnection time the stream
leaves behind. Every case is also fed one byte at a time: a decoder must give
the same answer however the bytes are split. A short summary with a link goes
in its section of docs/benchmarks.md.

    python -m benchmarks.peer_correctness [--no-write]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import report
from benchmarks.peers import MISSING, PEERS, Peer

__all__ = ["CASES", "Case", "check", "main", "summary"]

PEERS_MD = report.REPO_ROOT / "docs" / "parser_peers.md"
SECTION = "peer_correctness"  # of docs/benchmarks.md: a summary and a link
_NO_RETRY = object()  # marker: the case does not check the reconnection time
OK, BAD = "\u2713", "\u2717"  # check mark, ballot x


@dataclass(frozen=True)
class Case:
    name: str
    rule: str  # the spec rule exercised, in a few words
    chunks: tuple[bytes, ...]
    expected: tuple[tuple[str, str, str], ...]
    retry: Any = _NO_RETRY  # expected reconnection time (ms) after the stream, if checked


def _m(data: str, id: str = "", event: str = "message") -> tuple[str, str, str]:
    return (event, data, id)


CASES: list[Case] = [
    Case("BOM at stream start",
         "one leading U+FEFF is stripped before parsing",
         (b"\xef\xbb\xbfdata: a\n\n",), (_m("a"),)),
    Case("BOM split across chunks",
         "the BOM is stripped even when its 3 bytes arrive separately",
         (b"\xef", b"\xbb", b"\xbfdata: a\n\n"), (_m("a"),)),
    Case("second BOM is data",
         "only one BOM is stripped: a second makes the field name '\\ufeffdata' (ignored)",
         (b"\xef\xbb\xbf\xef\xbb\xbfdata: a\n\ndata: b\n\n",), (_m("b"),)),
    Case("CR-only line endings",
         "a lone CR ends a line",
         (b"data: a\rdata: b\r\rdata: c\r\r",), (_m("a\nb"), _m("c"))),
    Case("CRLF split across chunks",
         "CR at a chunk end + LF at the next chunk start is one line end, not two",
         (b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"), (_m("a\nb"),)),
    Case("mixed CRLF / LF / CR",
         "all three terminators in one stream",
         (b"data: a\r\ndata: b\ndata: c\r\r\ndata: d\n\n",), (_m("a\nb\nc"), _m("d"))),
    Case("UTF-8 character split across chunks",
         "a multi-byte character cut by a read is decoded whole",
         (b"data: \xe2", b"\x82", b"\xac \xf0\x9f", b"\x99\x82\n\n"), (_m("\u20ac \U0001f642"),)),
    Case("invalid UTF-8 split across chunks",
         "invalid bytes decode to U+FFFD (one per maximal subpart), across reads too",
         (b"data: a\xe2\x82", b"(b\xff\n\n"), (_m("a\ufffd(b\ufffd"),)),
    Case("id with NUL ignored",
         "an id field whose value contains U+0000 is ignored",
         (b"id: 1\ndata: x\n\nid: a\x00b\ndata: y\n\n",), (_m("x", "1"), _m("y", "1"))),
    Case("last event id persists",
         "the last event ID is kept for later events until changed",
         (b"id: 5\ndata: a\n\ndata: b\n\nid\ndata: c\n\n",),
         (_m("a", "5"), _m("b", "5"), _m("c", ""))),
    Case("retry: only ASCII digits",
         "retry is set only when the value is all ASCII digits ('12a', '+5', ' 7' ignored)",
         (b"retry: 1000\ndata: a\n\nretry: 12a\ndata: b\n\nretry: +5\ndata: c\n\n"
          b"retry:  7\ndata: d\n\n",),
         (_m("a"), _m("b"), _m("c"), _m("d")), retry=1000),
    Case("data without colon",
         "a line with no colon is a field with an empty value",
         (b"data\ndata: x\ndata\n\n",), (_m("\nx\n"),)),
    Case("field without space",
         "'data:x' has value 'x'; only one leading space is stripped",
         (b"data:x\ndata:  y\n\n",), (_m("x\n y"),)),
    Case("empty data dispatch",
         "'data:' and 'data' add an empty line: the event is dispatched with data ''",
         (b"data:\n\ndata\n\n",), (_m(""), _m(""))),
    Case("block without data not dispatched",
         "an event type but no data: nothing is dispatched and the type is reset",
         (b"event: foo\n\ndata: x\n\n",), (_m("x"),)),
    Case("id committed by a block with no data",
         "a blank line commits the id buffer even when no event is dispatched",
         (b"id: 7\n\ndata: x\n\n",), (_m("x", "7"),)),
    Case("extra blank lines",
         "blank lines with an empty data buffer dispatch nothing",
         (b"\n\nid: 1\ndata: a\n\n\n\n\ndata: b\n\n",), (_m("a", "1"), _m("b", "1"))),
    Case("comments and unknown fields",
         "':' lines are comments; unknown or differently-cased fields are ignored",
         (b": ping\nfoo: bar\nData: no\ndata : no\ndata: x\n\n",), (_m("x"),)),
    Case("unterminated final event discarded",
         "at end of input, an event without its blank line is not dispatched",
         (b"data: a\n\ndata: b\n",), (_m("a"),)),
    Case("U+2028 / NEL / VT / FF inside data",
         "only CR and LF end lines; U+2028, U+0085, VT and FF are data",
         ("data: a\u2028b\u0085c\x0bd\x0ce\u2029f\n\n".encode(),),
         (_m("a\u2028b\u0085c\x0bd\x0ce\u2029f"),)),
]


def _run(peer: Peer, case: Case, chunks: list[bytes]) -> tuple[str, Any]:
    """("ok" | "wrong" | "raised", what the peer produced)."""
    try:
        got = peer.tuples(chunks)
        retry = peer.retry(chunks) if case.retry is not _NO_RETRY else _NO_RETRY
    except Exception as exc:
        return "raised", f"raised {type(exc).__name__}"
    if got == list(case.expected) and (case.retry is _NO_RETRY or retry == case.retry):
        return "ok", None
    shown = repr(got)
    if case.retry is not _NO_RETRY and retry != case.retry:
        shown += f", retry={retry!r}"
    return "wrong", shown


def check(peer: Peer, case: Case) -> tuple[bool, str]:
    """(passed, explanation): the case as chunked, then one byte at a time."""
    status, shown = _run(peer, case, list(case.chunks))
    if status != "ok":
        return False, shown
    data = b"".join(case.chunks)
    status, shown = _run(peer, case, [data[i : i + 1] for i in range(len(data))])
    if status != "ok":
        return False, f"{shown} (only when fed one byte at a time)"
    return True, ""


def _md_code(text: str) -> str:
    """Text for inside a Markdown code span."""
    return text.replace("`", "'")


def results(peers: list[Peer]) -> list[list[tuple[bool, str]]]:
    return [[check(peer, case) for peer in peers] for case in CASES]


def render(peers: list[Peer], res: list[list[tuple[bool, str]]]) -> str:
    lines = [
        "# SSE parsing: sse_engine and its peers on the spec's corner cases",
        "",
        "Generated by `python -m benchmarks.peer_correctness` (also run by"
        " `python -m benchmarks.run`). Each case is fed as the listed chunks, then again"
        " one byte at a time, followed by end of input; the expected `(event, data, id)`"
        " tuples are written down from the WHATWG HTML rules (\"event stream"
        " interpretation\"), not taken from any implementation. Peers' \"unset\" values"
        " are normalised as the spec reads them (no type = `message`, no id = `\"\"`);"
        " everything else counts.",
        "",
        "Peers are driven exactly as in the benchmark (`benchmarks/peers.py`): "
        + ", ".join(f"{p.name} {p.version}" for p in peers if p.name != "sse_engine") + ".",
    ]
    if MISSING:
        lines.append("Not installed (skipped): " + ", ".join(sorted(MISSING)) + ".")
    header = ["Case", "Rule", *[p.name for p in peers]]
    body = []
    notes = []
    for case, row in zip(CASES, res, strict=True):
        cells = []
        for peer, (ok, why) in zip(peers, row, strict=True):
            if ok:
                cells.append(OK)
            else:
                notes.append((case, peer, why))
                cells.append(f"{BAD} [{len(notes)}]")
        body.append([case.name, case.rule.replace("|", "\\|"), *cells])
    passed = [sum(1 for row in res if row[i][0]) for i in range(len(peers))]
    body.append(["**passed**", "", *[f"**{n}/{len(CASES)}**" for n in passed]])
    lines += ["", report.markdown_table(header, body, "ll" + "c" * len(peers)), ""]
    if notes:
        lines += ["## What the peers produced when wrong", ""]
        for i, (case, peer, why) in enumerate(notes, 1):
            lines.append(
                f"{i}. **{peer.name}**, {case.name}: expected `{list(case.expected)!r}`"
                + (f" with retry={case.retry!r}" if case.retry is not _NO_RETRY else "")
                + f"; got `{_md_code(why)}`"
            )
        lines.append("")
    lines += ["## Inputs", ""]
    for case in CASES:
        lines.append(f"- {case.name}: `{_md_code(' + '.join(repr(c) for c in case.chunks))}`")
    return "\n".join(lines) + "\n"


def summary(peers: list[Peer], res: list[list[tuple[bool, str]]]) -> str:
    """The short section of docs/benchmarks.md that points to docs/parser_peers.md."""
    passed = ", ".join(
        f"{p.name} {sum(1 for row in res if row[i][0])}/{len(CASES)}"
        for i, p in enumerate(peers)
    )
    return (
        "## Parser correctness on the spec's corner cases\n\n"
        f"{len(CASES)} event-stream corner cases (BOM, CR/CRLF/LF, split UTF-8, ids,"
        " retry, ...), the expected events written down from the WHATWG rules, each fed"
        " as listed and again one byte at a time, through the parser and every peer of"
        f" the benchmark above. Cases passed: {passed}. The cases, their inputs and what"
        " each peer produced when wrong: [SSE parsing: sse_engine and its peers on the"
        " spec's corner cases](parser_peers.md).\n"
    )


def main(write: bool = True, quick: bool = False) -> int:
    del quick  # always fast
    res = results(PEERS)
    width = max(len(c.name) for c in CASES)
    print("peer correctness: " + "  ".join(p.name for p in PEERS))
    for case, row in zip(CASES, res, strict=True):
        marks = "  ".join(
            (OK if ok else BAD).center(len(p.name)) for p, (ok, _) in zip(PEERS, row, strict=True)
        )
        print(f"  {case.name:<{width}}  {marks}")
    if write:
        PEERS_MD.parent.mkdir(parents=True, exist_ok=True)
        PEERS_MD.write_text(render(PEERS, res), encoding="utf-8")
        print(f"wrote {PEERS_MD.relative_to(report.REPO_ROOT)}")
        path = report.update_section(SECTION, summary(PEERS, res))
        print(f"wrote {path.relative_to(report.REPO_ROOT)}")
    ours = PEERS[0]
    failed = [c.name for c, row in zip(CASES, res, strict=True) if not row[0][0]]
    if failed:
        print(f"  {ours.name} FAILED: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-write", action="store_true", help="do not write docs/parser_peers.md")
    sys.exit(main(write=not ap.parse_args().no_write))
