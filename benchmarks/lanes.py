"""The harness of the lane benchmarks: one lane end to end against its SDK, on the same bytes.

A lane benchmark (``bench_chat``, ``bench_responses``, ``bench_messages``,
``bench_gemini``) is a
:class:`LaneBenchmark`: its corpora, the lane class, how to run the official
SDK's streaming path and how to compare the two final objects. This module
does the rest, the same way for every lane:

- each corpus is built at two sizes, about 10 KB and about 1 MB (a short
  answer and a long one: a ratio means little without its size), and cut
  into ragged 40-700 B reads (``corpora.chunked``, fixed seed); both sides
  get the very same reads;
- ``sse_engine``: ``Lane(json_loads=...)``, ``feed()`` per read, ``close()``,
  then ``snapshot.to_api()`` (SSE parsing, JSON, typed events, snapshot,
  outcome, final object), once with stdlib ``json.loads`` and once with
  ``orjson.loads`` injected (when installed);
- the SDK: its ``Stream`` class over an in-memory HTTP response (the SDK's own
  HTTP types, :func:`sdk_stream`) whose body yields the same reads, wrapped in
  the SDK's stream helper, run to the final object: what
  ``client....stream()`` does after the HTTP request;
- before timing, the ``orjson`` run must give the same final object as the
  ``json`` one, and the SDK's final object must agree with the lane's (the
  benchmark's ``same`` check); a corpus that fails is reported, not timed;
- timing (:mod:`benchmarks.timing`, as the parser benchmark): a sample is k
  complete runs back to back (k chosen once per row, the same for every
  contender: 1 at 1 MB, tens at 10 KB), garbage collector off during it,
  best of N rounds, every contender (the SDK too) sampled once per round,
  interleaved; the time per run is the sample's over k;
- the *floor* (:func:`parse_json_floor`): ``SSEParser`` over the same reads
  and one ``loads`` of every JSON payload, each dropped at once (a lane keeps
  none either), nothing else: what any lane built on the parser must do;
  timed in the same rounds, with each ``loads``;
- the section: MB/s, events/s and the ratio to the SDK, with and without
  orjson, the lane's share of the floor's speed, and the targets (the lane at
  least 10 times the SDK's throughput, and at least 0.75 of the floor's).
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from benchmarks import corpora, report
from benchmarks.timing import RULE, Contender, best_of
from sse_engine import SSEParser

__all__ = [
    "FLOOR_TARGET", "FULL", "QUICK", "TARGET", "LaneBenchmark", "Settings",
    "parse_json_floor", "sdk_stream", "size_label", "sized",
]

#: The lane is to reach at least this many times the SDK's throughput.
TARGET = 10.0
#: ... and at least this share of the parse+json floor's throughput.
FLOOR_TARGET = 0.75
FLOOR = "parse+json floor"
TIMES = "\u00d7"  # multiplication sign
OURS = "sse_engine"

Reads = list[bytes]


@dataclass(frozen=True)
class Settings:
    #: Corpus size in bytes (about) -> rounds at that size; every contender runs
    #: once per round.
    sizes: dict[int, int]


FULL = Settings(sizes={10_000: 9, 1_000_000: 9})
QUICK = Settings(sizes={10_000: 2, 100_000: 1})


def sized(build: Callable[[int], bytes], size: int) -> bytes:
    """``build(n_events)`` for the ``n_events`` that makes it about ``size`` bytes."""
    sample = 200
    per_event = len(build(sample)) / sample
    n = max(20, round(size / per_event))
    return build(n)


def size_label(size: int) -> str:
    """``10 KB``, ``1 MB``: the size a corpus was built for."""
    return f"{size / 1e6:g} MB" if size >= 1_000_000 else f"{size / 1e3:g} KB"


# -- the SDK side: an SDK ``Stream`` over in-memory reads ---------------------------------

_BASE_URLS = {"openai": "https://example.invalid/v1", "anthropic": "https://example.invalid"}


@functools.cache
def _http() -> tuple[Any, type]:
    """The HTTP library the SDKs use (``httpx2`` for openai 3.x / anthropic 2.x, else
    ``httpx``) and a byte stream class over a list of reads."""
    httpx: Any
    try:
        import httpx2 as httpx
    except ImportError:  # pragma: no cover - older SDKs
        import httpx

    class ListStream(httpx.SyncByteStream):  # type: ignore[misc]
        def __init__(self, chunks: Reads) -> None:
            self.chunks = chunks

        def __iter__(self) -> Iterator[bytes]:
            return iter(self.chunks)

    return httpx, ListStream


@functools.cache
def _client(package: str) -> Any:
    """A client of ``package`` (``openai`` or ``anthropic``); it never sends a request."""
    sdk = __import__(package)
    make = sdk.OpenAI if package == "openai" else sdk.Anthropic
    return make(api_key="sk-benchmark", base_url=_BASE_URLS[package])


@functools.cache
def _request(package: str, path: str) -> Any:
    httpx, _ = _http()
    return httpx.Request("POST", _BASE_URLS[package] + path)


def sdk_stream(package: str, cast_to: Any, chunks: Reads, path: str) -> Any:
    """``package.Stream`` (openai's or anthropic's) over a 200 response whose body is ``chunks``.

    This is what the SDK's client builds after sending the request; the caller
    wraps it in the SDK's stream helper.
    """
    httpx, list_stream = _http()
    response = httpx.Response(
        200, headers={"content-type": "text/event-stream"}, stream=list_stream(chunks),
        request=_request(package, path),
    )
    return sys.modules[package].Stream(cast_to=cast_to, response=response, client=_client(package))


# -- the floor: parsing and JSON, nothing else ---------------------------------------------


def parse_json_floor(chunks: Reads, loads: Callable[[str], Any] = json.loads) -> int:
    """``SSEParser`` over the reads and ``loads`` of every payload that is a JSON object;
    returns how many were loaded.

    The least a lane built on the parser does (``[DONE]`` and empty frames are
    not JSON); a lane's time over this one is what its events, checks and
    snapshot cost. Each decoded payload is dropped at once, as a lane drops
    it: keeping them all makes the floor pay for a growing heap (25% of its
    time on a 1 MB stream), which would flatter the lane's share at that size.
    """
    parser = SSEParser()
    feed = parser.feed
    loaded = 0
    for chunk in chunks:
        for event in feed(chunk):
            data = event.data
            if data[:1] == "{":
                loads(data)
                loaded += 1
    parser.close()
    return loaded


# -- one lane benchmark ---------------------------------------------------------------------


def _json_variants() -> dict[str, Callable[[str], Any]]:
    variants: dict[str, Callable[[str], Any]] = {"json": json.loads}
    try:
        import orjson
    except ImportError:  # pragma: no cover - the bench extra is not installed
        return variants
    variants["orjson"] = orjson.loads
    return variants


def floor_bound(floor_ratios: Sequence[tuple[str, float]]) -> str:
    """What a missed speed-up target is bounded by: the parse+json floor's own speed-up over
    the SDK, row by row (a lane does the floor's work and more, so it cannot pass it), and
    which rows the floor itself leaves under the target; empty without floor figures."""
    if not floor_ratios:
        return ""
    text = "; the " + FLOOR + " itself: " + ", ".join(
        f"{corpus} {r:.1f}{TIMES}" for corpus, r in floor_ratios)
    under = [corpus for corpus, r in floor_ratios if r < TARGET]
    if under:
        text += (f" (bounded: under {TARGET:g}{TIMES} even for the floor on "
                 + ", ".join(under) + ")")
    return text


@dataclass(frozen=True)
class LaneBenchmark:
    """What differs between the lane benchmarks; :meth:`run` does the rest."""

    section: str  # the section of docs/benchmarks.md
    title: str  # its heading
    lane: Callable[..., Any]  # the lane class; takes ``json_loads=``
    sdk: str  # the SDK's name, as a column label: "openai", "anthropic"
    #: Imports the SDK and returns ``run(reads) -> final object``; ImportError if
    #: missing. Its docstring (one sentence) says how the SDK is driven, in the section.
    sdk_runner: Callable[[], Callable[[Reads], Any]]
    #: Raises AssertionError (why in its message) if the lane's ``to_api()`` dict and
    #: the SDK's final object do not say the same. Its docstring goes in the section.
    same: Callable[[dict[str, Any], Any], None]
    #: Corpus name -> (builder taking the number of events, what it holds in a few words).
    corpora: Mapping[str, tuple[Callable[[int], bytes], str]]

    def lane_final(self, chunks: Reads, loads: Callable[[str], Any] = json.loads) -> Any:
        """The lane over ``chunks``, to its final object (``snapshot.to_api()``)."""
        lane = self.lane(json_loads=loads)
        feed = lane.feed
        for chunk in chunks:
            feed(chunk)
        lane.close()
        return lane.snapshot.to_api()

    def run(self, quick: bool = False, log: Callable[[str], None] = print) -> tuple[str, bool]:
        """Check, then time, every corpus at every size; the section and whether all passed."""
        settings = QUICK if quick else FULL
        load = report.load1()
        try:
            sdk_final: Callable[[Reads], Any] | None = self.sdk_runner()
        except ImportError as exc:
            sdk_final = None
            log(f"  {self.sdk} is not installed ({exc}): no SDK column")
        variants = _json_variants()
        rows: list[list[str]] = []
        ratios: dict[str, list[tuple[str, float]]] = {name: [] for name in variants}
        shares: dict[str, list[tuple[str, float]]] = {name: [] for name in variants}
        #: The floor's own speed-up over the SDK: the most a lane doing the floor's work
        #: and more can reach.
        floor_ratios: dict[str, list[tuple[str, float]]] = {name: [] for name in variants}
        problems: list[str] = []
        per_event: list[list[str]] = []
        for corpus, (build, _) in self.corpora.items():
            for size, rounds in settings.sizes.items():
                label = f"{corpus} {size_label(size)}"
                data = sized(build, size)
                chunks = corpora.chunked(data, "ragged")
                n_events = data.count(b"\n\n") + data.count(b"\r\n\r\n")  # LF or CRLF frames
                ours = {f"{OURS} ({name})": name for name in variants}
                floors = {f"{FLOOR} ({name})": name for name in variants}
                contenders: list[Contender[Reads]] = [
                    (side, functools.partial(self.lane_final, loads=variants[name]))
                    for side, name in ours.items()
                ]
                contenders += [(side, functools.partial(parse_json_floor, loads=variants[name]))
                               for side, name in floors.items()]
                if sdk_final is not None:
                    contenders.append((self.sdk, sdk_final))
                why = self._check(chunks, variants, sdk_final)
                if why is not None:
                    problems.append(f"{label}: {why}")
                    log(f"  {label}: MISMATCH, not timed: {why}")
                    continue
                timed = best_of(contenders, chunks, rounds)
                best = timed.seconds
                for name in variants:
                    lane_s, floor_s = best[f"{OURS} ({name})"], best[f"{FLOOR} ({name})"]
                    per_event.append([corpus, size_label(size), name,
                                      f"{floor_s / n_events * 1e6:.2f}",
                                      f"{lane_s / n_events * 1e6:.2f}",
                                      f"{(lane_s - floor_s) / n_events * 1e6:.2f}"])
                sdk_time = best.get(self.sdk)
                for side, seconds in best.items():
                    ratio = None if sdk_time is None else sdk_time / seconds
                    share = None
                    if side in ours:
                        share = best[f"{FLOOR} ({ours[side]})"] / seconds
                        shares[ours[side]].append((label, share))
                        if ratio is not None:
                            ratios[ours[side]].append((label, ratio))
                    elif side in floors and ratio is not None:
                        floor_ratios[floors[side]].append((label, ratio))
                    rows.append([
                        corpus, size_label(size), f"{n_events:,}", f"{len(data):,}", side,
                        str(rounds), str(timed.calls), f"{len(data) / seconds / 1e6:.1f}",
                        f"{n_events / seconds:,.0f}",
                        "—" if ratio is None else f"{ratio:.1f}{TIMES}",
                        "—" if share is None else f"{share:.2f}",
                    ])
                    log(f"  {label:<14} {side:<26} {len(data) / seconds / 1e6:6.1f} MB/s"
                        + ("" if ratio is None else f"  {ratio:5.1f}{TIMES} the SDK")
                        + ("" if share is None else f"  {share:.2f} of the floor"))
        text = self._section(settings, load, rows, ratios, problems, sdk_final is None, shares,
                             floor_ratios)
        text += "\n" + self._bound(settings, per_event, shares.get("json", []))
        return text, not problems

    def _bound(
        self, settings: Settings, per_event: list[list[str]], shares: list[tuple[str, float]],
    ) -> str:
        """What the lane adds to the floor per event, and where its time goes (cProfile of
        the corpus with the smallest share of the floor at the largest size)."""
        size = max(settings.sizes)
        at_size = [(label, share) for label, share in shares
                   if label.endswith(f" {size_label(size)}")]
        worst = min(at_size, key=lambda ls: ls[1])[0].rsplit(" ", 2)[0] if at_size else None
        corpus = worst if worst is not None and worst in self.corpora else next(iter(self.corpora))
        build = self.corpora[corpus][0]
        chunks = corpora.chunked(sized(build, size), "ragged")
        return "\n".join([
            "### Where the lane's time goes",
            "",
            "Per event, from the best times above: the floor's time, the lane's, and what the"
            " lane adds to the floor (typed events, the stream's checks, the snapshot; the"
            " final object at the end).",
            "",
            report.markdown_table(
                ["Corpus", "Size", "JSON", "floor µs/event", "lane µs/event",
                 "lane adds µs/event"], per_event, "lllrrr"),
            "",
            f"cProfile of one run of the lane over `{corpus}` at {size_label(size)} (stdlib"
            " `json`), functions by own time; cProfile's cost per call makes the lane's many"
            " small calls look heavier than the timed figures say:",
            "",
            report.profile_table(self.lane_final, chunks),
            "",
        ])

    def _check(
        self, chunks: Reads, variants: Mapping[str, Callable[[str], Any]],
        sdk_final: Callable[[Reads], Any] | None,
    ) -> str | None:
        """None if every side assembles the same final object, else why not."""
        expected = self.lane_final(chunks)
        for name, loads in variants.items():
            if self.lane_final(chunks, loads) != expected:
                return f"the lane with {name} assembles a different final object than with json"
        if sdk_final is None:
            return None
        try:
            self.same(expected, sdk_final(chunks))
        except AssertionError as exc:
            detail = f": {exc}" if str(exc) else ""
            return f"the lane and {self.sdk} assemble different final objects{detail}"
        return None

    def _section(
        self, settings: Settings, load: float | None, rows: list[list[str]],
        ratios: Mapping[str, list[tuple[str, float]]], problems: list[str], no_sdk: bool,
        shares: Mapping[str, list[tuple[str, float]]],
        floor_ratios: Mapping[str, list[tuple[str, float]]],
    ) -> str:
        load_text = "unknown" if load is None else f"{load:.2f}"
        lines = [
            f"## {self.title}",
            "",
            f"{report.stamp_line()} 1-minute load average at the start {load_text} on"
            f" {os.cpu_count() or 1} CPU(s).",
            "",
            f"Both sides get the same bytes in the same ragged 40-700 B reads. **{OURS}**:"
            f" `{self.lane.__name__}(json_loads=...)`, `feed()` per read, `close()`, then"
            " `snapshot.to_api()`: SSE parsing, JSON, typed events, snapshot, final object;"
            f" with stdlib `json.loads` and with `orjson.loads`. **{self.sdk}** (over an"
            " in-memory HTTP response, the SDK's own HTTP types, whose body yields the same"
            f" reads): {_sentence(self.sdk_runner)}",
            "",
            "Corpora, each built at about "
            + " and ".join(size_label(size) for size in settings.sizes) + ": "
            + "; ".join(f"`{name}`, {about}" for name, (_, about) in self.corpora.items()) + ".",
            "",
            "Checked before timing: the orjson run gives the same final object as the json"
            f" run, and against {self.sdk}: {_sentence(self.same)} Timing: {RULE} Every side,"
            " the SDK too, is sampled once per round, rounds interleaved, and keeps its best"
            " time per run (the Rounds column). MB/s is"
            f" 10⁶ bytes of input per second; *vs {self.sdk}* is the SDK's time divided by"
            f" the side's, within one size. The **{FLOOR}** is `SSEParser` over the same"
            " reads and one `loads` of every payload that is a JSON object, each dropped at"
            " once as a lane drops it, nothing else (the least a lane built on the parser"
            " does); *of the floor* is the floor's time with"
            " the same `loads` divided by the lane's: the share of the floor's speed the lane"
            " keeps while it also builds typed events, checks the stream and assembles the"
            " final object.",
            "",
        ]
        if rows:
            lines += [
                report.markdown_table(
                    ["Corpus", "Size", "Events", "Bytes", "Side", "Rounds", "k", "MB/s",
                     "Events/s", f"vs {self.sdk}", "of the floor"],
                    rows, "llrrlrrrrrr",
                ),
                "",
            ]
        if no_sdk:
            lines += [f"{self.sdk} is not installed: no SDK column, no target.", ""]
        else:
            lines += ["### Target", ""]
            for name, got in ratios.items():
                target = (f"- ≥ {TARGET:g}{TIMES} the {self.sdk} SDK on every corpus and size,"
                          f" with {name}: ")
                if not got:
                    lines.append(target + "**not measured** (see the mismatches)")
                    continue
                ok = all(r >= TARGET for _, r in got) and not problems
                lines.append(
                    target + ("met" if ok else "**missed**") + " — "
                    + ", ".join(f"{corpus} {r:.1f}{TIMES}" for corpus, r in got)
                    + ("" if ok else floor_bound(floor_ratios.get(name, [])))
                )
            lines.append("")
        if not no_sdk or any(shares.values()):
            if no_sdk:
                lines += ["### Target", ""]
            for name, got in shares.items():
                if not got:
                    continue
                ok = all(r >= FLOOR_TARGET for _, r in got)
                lines.append(
                    f"- ≥ {FLOOR_TARGET:g} of the {FLOOR}'s speed on every corpus and size,"
                    f" with {name}: " + ("met" if ok else "**missed**") + " — "
                    + ", ".join(f"{corpus} {r:.2f}" for corpus, r in got)
                )
            lines.append("")
        if problems:
            lines += ["### Mismatches (not timed)", "", *(f"- {p}" for p in problems), ""]
        return "\n".join(lines)

    def main(self, write: bool = True, quick: bool = False) -> int:
        """Run, print the section, write it to docs/benchmarks.md if ``write``; 1 on a mismatch."""
        print(f"{self.section} lane benchmark ({'quick' if quick else 'full'})")
        text, ok = self.run(quick)
        print()
        print(text)
        if write:
            path = report.update_section(self.section, text)
            print(f"wrote {path.relative_to(report.REPO_ROOT)}")
        return 0 if ok else 1


def _sentence(fn: Callable[..., Any]) -> str:
    """The first paragraph of ``fn``'s docstring, on one line (it goes in the section)."""
    return " ".join((inspect.getdoc(fn) or "").split("\n\n")[0].split())
