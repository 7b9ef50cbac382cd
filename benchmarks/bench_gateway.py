"""The gateway's HTTP stack, picked by measurement: a loopback soak of many concurrent streams.

For each load (N concurrent clients, 300 paced text deltas per stream) and each
HTTP stack, two gateways run in their own process in front of a fake Anthropic
Messages upstream (its own process): a pass-through proxy (what the stack
costs by itself) and a relay serving the upstream as Chat Completions through
``Relay(MessagesLane(), to="chat", lean=True)``. The clients (their own processes) check
every stream's text and time every delta; a run straight to the upstream
(``direct``) gives the latency the gateways add to. See
:mod:`benchmarks.gateway_soak` for the pieces and ``docs/benchmarks.md`` for
the method and the figures.

    python -m benchmarks.bench_gateway [--quick] [--no-write] [--stacks A,B] [--rounds R]
                                       [--save FILE | --load FILE]

``--quick``: 20 clients, 60 deltas, every stack once, nothing written. The
full run (N = 100 and 1,000) takes about 40 minutes.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib.util
import os
import pickle
import signal
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import attrs

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import report
from benchmarks.gateway_soak import relay_memory
from benchmarks.gateway_soak.gateway import STACKS
from benchmarks.gateway_soak.soak import Load, Result, run_one
from benchmarks.lanes import TIMES

__all__ = ["FULL", "QUICK", "RECOMMENDED", "available", "clean", "main", "recommend", "soak"]

#: The loads of the full run: the same 2,000 upstream events per second in both,
#: so that N alone changes (10x the streams, each 10x slower).
FULL = (
    Load(clients=100, gap=(0.025, 0.075), requests=2, ramp=2.0, hangup_every=50, hangup_at=150),
    Load(clients=1000, gap=(0.25, 0.75), requests=1, ramp=5.0, hangup_every=50, hangup_at=150),
)
#: Rounds of each full load (the N = 1,000 runs take ~150 s each).
FULL_ROUNDS = {100: 2, 1000: 1}
QUICK = (
    Load(clients=20, deltas=60, gap=(0.01, 0.03), ramp=0.5, hangup_every=10, hangup_at=30),
)
#: The stack the soak picked (docs/benchmarks.md), the gateway command's; the suite's small soak
#: runs on it.
RECOMMENDED = "aiohttp"
MEMORY_TARGET = 64 * 1024  # bytes per concurrent stream at N = 1,000
CPU_TARGET = 1.5  # relay CPU per event over the pass-through's, same stack
#: Relays this close in CPU per event (within the cheapest's times this) are a tie: the
#: same run repeated moves about as much on a shared machine.
CPU_TIE = 1.10
#: A tie goes to the stack that costs least to own: one library that serves and fetches,
#: then an ASGI server with an HTTP client, then connection code of the gateway's own.
OWNING_ORDER = ("aiohttp", "uvicorn-httpx2", "uvicorn-fast", "uvicorn", "h11-uvloop", "h11")
#: What choosing a stack means beyond its figures.
COSTS = {
    "aiohttp": "one dependency (aiohttp, with its C extensions) for server and client; "
               "handler cancellation tells of a client that left",
    "uvicorn": "uvicorn + httpx (httpcore, anyio): an ASGI app learns of a client that left "
               "only from a task waiting on receive(); pure Python on asyncio",
    "uvicorn-fast": "as uvicorn, with httptools and uvloop (uvicorn[standard])",
    "uvicorn-httpx2": "as uvicorn-fast, with httpx2 (the successor httpx, reworked pool)",
    "h11": "h11 only (pure Python, sans-IO like sse_engine); the gateway owns its "
           "connection code (~300 lines: server and pooled client, backpressure, hang-ups)",
    "h11-uvloop": "as h11, on uvloop (optional: falls back to asyncio's loop)",
}


def available(stack: str) -> bool:
    """Whether every package ``stack`` imports is installed."""
    return all(importlib.util.find_spec(name) is not None for name in STACKS[stack].packages)


def _schedule(stacks: list[str], round_: int) -> list[tuple[str | None, str]]:
    """One round's runs: direct, then each stack's two gateways back to back, the stacks
    rotated and the kinds swapped from round to round."""
    shift = round_ % len(stacks)
    order = stacks[shift:] + stacks[:shift]
    kinds = ("proxy", "relay") if round_ % 2 == 0 else ("relay", "proxy")
    return [(None, "direct")] + [(stack, kind) for stack in order for kind in kinds
                                 if kind in STACKS[stack].kinds]


Key = tuple[str, str, int]  # stack, kind, clients


def _cpu(results: list[Result]) -> float:
    # The median, not the best: contention moves a gateway's CPU per event both ways
    # (cache misses raise it; falling behind lowers it, as each read then carries
    # several events), so the best round is not the least disturbed one.
    return statistics.median(r.cpu_per_1000 for r in results)


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _runs(by: dict[Key, list[Result]], stack: str, kind: str | None = None) -> list[Result]:
    return [r for (s, k, _), rs in by.items() if s == stack and kind in (None, k) for r in rs]


def clean(by: dict[Key, list[Result]], stack: str) -> bool:
    """Whether every run of ``stack`` lost nothing, failed nothing, logged no traceback and
    had every hung-up client's upstream closed."""
    runs = _runs(by, stack)
    return bool(runs) and all(
        r.failures == 0 and r.tracebacks == 0 and r.not_closed == 0 for r in runs
    )


def _relay_memory(by: dict[Key, list[Result]], stack: str, clients: int) -> float:
    """Median bytes per stream of ``stack``'s relay at ``clients`` (inf: not measured)."""
    return _median([r.bytes_per_stream for r in by.get((stack, "relay", clients), [])]
                   or [float("inf")])


def recommend(by: dict[Key, list[Result]], stacks: list[str], clients: int) -> str | None:
    """The rule that picks the stack.

    Among the :func:`clean` stacks, those whose relay meets the memory target
    (:data:`MEMORY_TARGET` per stream at ``clients``; all clean ones if none
    does), the one whose relay costs the least CPU per event (the median of all
    its relay runs): with the lean relay, memory is a bound every stack can meet,
    and CPU per event is what decides how many streams a core carries. Relays
    within :data:`CPU_TIE` of the cheapest are a tie, which goes to the stack
    that costs least to own (:data:`OWNING_ORDER`)."""
    fit = [s for s in stacks if clean(by, s) and _runs(by, s, "relay")]
    if not fit:
        return None
    small = [s for s in fit if _relay_memory(by, s, clients) <= MEMORY_TARGET] or fit
    cpu = {s: _cpu(_runs(by, s, "relay")) for s in small}
    tied = [s for s in small if cpu[s] <= CPU_TIE * min(cpu.values())]
    return min(tied, key=lambda s: (_owning(s), cpu[s]))


def _owning(stack: str) -> int:
    return OWNING_ORDER.index(stack) if stack in OWNING_ORDER else len(OWNING_ORDER)


def _spread(by: dict[Key, list[Result]]) -> float:
    """The largest spread of CPU per event between rounds of one (stack, kind, N)."""
    spreads = [(max(c) - min(c)) / statistics.median(c) for rs in by.values()
               if len(c := [r.cpu_per_1000 for r in rs]) > 1 and rs[0].stack != "direct"]
    return max(spreads, default=0.0)


def _row(key: Key, runs: list[Result], direct: list[Result], proxy: list[Result] | None,
         ) -> list[str]:
    stack, kind, _ = key
    p50 = _median([r.latencies_ms[0] for r in runs if r.latencies_ms])
    p99 = _median([r.latencies_ms[1] for r in runs if r.latencies_ms])
    base = _median([r.latencies_ms[0] for r in direct if r.latencies_ms])
    tally = [r.tally for r in runs]
    closes = [ms for r in runs for ms in r.hangup_close_ms]
    not_closed = sum(r.not_closed for r in runs)
    close = f"{max(closes):,.0f}" if closes else "-"
    if not_closed:
        close += f" ({not_closed} not closed)"
    gateway = stack != "direct"
    return [
        stack, kind,
        f"{_cpu(runs) * 1000:.0f}" if gateway else "-",
        f"{_cpu(runs) / _cpu(proxy):.2f}{TIMES}" if proxy else "",
        f"{_median([r.cpu / r.seconds for r in runs]):.0%}" if gateway else "-",
        f"{_median([r.events_per_read for r in runs]):.2f}" if gateway and runs[0].reads else "-",
        f"{_median([r.bytes_per_stream for r in runs]) / 1024:.1f}" if gateway else "-",
        f"{p50:.1f} / {p99:.0f}",
        f"{p50 - base:+.1f}" if gateway else "",
        f"{sum(t.ok for t in tally):,} / {sum(t.streams - t.hung_up for t in tally):,}",
        f"{sum(t.hung_up for t in tally):,}",
        str(sum(sum(t.errors.values()) for t in tally)),
        str(sum(t.bad_text for t in tally)),
        close,
        str(sum(r.tracebacks for r in runs)) if gateway else "-",
        " / ".join(f"{r.load1:.1f}" for r in runs),
    ]


_HEADER = ["Stack", "Kind", "CPU ms / 1,000 events", "relay ÷ proxy", "gateway busy",
           "events / read",
           "KB / stream", "latency p50 / p99 ms", "added p50 ms", "streams ok",
           "hung up (on purpose)", "errors",
           "lost / altered", "hang-up → upstream closed, max ms", "tracebacks",
           "load average (1 min) at the start, each round"]


def _rate(load: Load) -> float:
    """The upstream events per second of ``load`` at its plateau (text deltas)."""
    return load.clients / (sum(load.gap) / 2)


def section(by: dict[Key, list[Result]], stacks: list[str], loads: tuple[Load, ...],
            rounds: dict[int, int], minutes: float, memory: RelayMemory) -> tuple[str, bool]:
    """The markdown section and whether the recommended stack met every target."""
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    loads1 = [r.load1 for rs in by.values() for r in rs]
    lines = [
        "## Gateway HTTP stack: a loopback soak",
        "",
        f"Measured {now}, sse_engine {report.git_revision()}, "
        + ", ".join(f"{rounds.get(load.clients, 1)} round(s) at N = {load.clients:,}"
                    for load in loads)
        + f", {minutes:.0f} min;"
        f" {os.cpu_count() or 1} CPU(s) shared with other work: 1-minute "
        f"load average {min(loads1):.1f} to {max(loads1):.1f} when the runs started.",
        "",
        "Every process is its own: the fake upstream (an Anthropic Messages stream, each"
        " delta one HTTP chunk stamped with the time it was written), the gateway, and the"
        " clients (asyncio, one keep-alive connection each, their own HTTP/1.1 reader,"
        " sse_engine's SSE parser). Two gateways per stack: **proxy** forwards the bytes"
        " unchanged (what the stack costs alone); **relay** serves the Messages upstream as"
        " Chat Completions through `Relay(MessagesLane(), to=\"chat\", lean=True)` (the"
        " relay that keeps only what the client still needs), a keepalive timer"
        " per stream. Both close the upstream when a client hangs up: one stream in 50"
        " hangs up after delta 150 (on purpose: **streams ok** counts the others, whole"
        " and unaltered; **hung up** these), and the upstream notes when it saw its"
        " connection close. **direct** is the clients reading the upstream themselves: the latency"
        " baseline. Each stream's text must arrive whole and unaltered (every delta"
        " carries its index; the words follow from the request's seed; the last delta"
        " carries the CRC-32 of all the text).",
        "",
        "Measured on the gateway process (`/proc`): CPU seconds over the load, per 1,000"
        " events the upstream wrote (the median of the rounds); **gateway busy** is that"
        " CPU over the wall time; **events / read** is how many events each of the"
        " gateway's upstream reads carried (about 1.01 while it keeps up: the head's and"
        " the end's three events come in one chunk each; more once it falls behind, and"
        " then each event costs it less); **KB / stream** is the peak RSS during the load"
        " minus the idle RSS after a warm-up, over N (1 KB = 1,024 bytes); latency is"
        " from the upstream's write of a delta to the client's read of it: on a machine"
        " this loaded it says more about the machine than the stack, and **added p50** is"
        " over the direct run of the same N. Rows of one N ran one after"
        " another, the stacks in turn (rotated each round), each stack's two gateways"
        " back to back.",
        "",
        "The pacing: at 10-30 ms a delta (a fast model) 1,000 streams are 50,000 events a"
        " second, more than two shared cores carry for the upstream, the gateway and the"
        " clients together in Python. So the soak holds the whole at about "
        + " and ".join(sorted({f"{_rate(load):,.0f}" for load in loads}))
        + " events a second: "
        + ", ".join(f"{load.gap[0] * 1000:.0f}-{load.gap[1] * 1000:.0f} ms a delta at"
                    f" N = {load.clients:,}" for load in loads)
        + " (the larger N, the slower each stream: a slow model, or a reasoning one between"
        " bursts). What changes with N is then the number of streams the gateway holds at"
        " once, which is what memory per stream and the stacks' per-connection costs"
        " depend on.",
        "",
    ]
    if any(STACKS[s].proxy_of for s in stacks):
        lines += ["**command** is `python -m sse_engine gateway --upstream-format messages`"
                  " itself, its relay only (not a stack to pick: the command is an aiohttp"
                  " application); its relay ÷ proxy is over the aiohttp proxy, and it does not"
                  " tell its reads.", ""]
    for load in loads:
        n = load.clients
        rate = _rate(load)
        lines += [
            f"### N = {n:,} concurrent streams",
            "",
            f"{load.deltas} deltas per stream, {load.gap[0] * 1000:.0f}-{load.gap[1] * 1000:.0f}"
            f" ms apart (about {rate:,.0f} upstream events per second in all),"
            f" {load.requests} stream(s) per client one after another, the clients starting"
            f" over {load.ramp:g} s.",
            "",
        ]
        rows = []
        direct = by.get(("direct", "direct", n), [])
        if direct:
            rows.append(_row(("direct", "direct", n), direct, direct, None))
        for stack in stacks:
            proxy = by.get((_proxy_of(stack), "proxy", n))
            for kind in ("proxy", "relay"):
                runs = by.get((stack, kind, n))
                if runs:
                    rows.append(_row((stack, kind, n), runs, direct,
                                     proxy if kind == "relay" else None))
        lines += [report.markdown_table(_HEADER, rows, "llrrrrrrrrrrrrrr"), ""]
        cpu = [r.tally.cpu / max(1, r.events) * 1e6 for rs in by.values() for r in rs
               if r.load.clients == n]
        up = [r.upstream_cpu / max(1, r.events) * 1e6 for rs in by.values() for r in rs
              if r.load.clients == n]
        lines += [f"The clients used {_median(cpu):.0f} µs of CPU per event, the upstream"
                  f" {_median(up):.0f} µs (medians over the runs), on the same cores.", ""]
    lines += _relay_share(by, stacks, loads, memory)
    return _verdict(lines, by, [s for s in stacks if not STACKS[s].proxy_of], loads, memory)


def _proxy_of(stack: str) -> str:
    """The stack whose pass-through is ``stack``'s baseline (its own, unless it has none)."""
    return STACKS[stack].proxy_of or stack if stack in STACKS else stack


@attrs.frozen
class RelayMemory:
    """The Relay's own memory, measured without HTTP (:mod:`.gateway_soak.relay_memory`)."""

    deltas: int
    streams: int
    retained: dict[int, float]  # deltas fed -> tracemalloc bytes per relay
    resident: dict[int, float]  # deltas fed -> RSS bytes per relay, ``streams`` at once
    lingering: tuple[int, int]  # objects, bytes a finished relay leaves to gc.collect()

    @classmethod
    def measure(cls, deltas: int, streams: int) -> RelayMemory:
        return cls(
            deltas, streams,
            {k: relay_memory.retained(k, deltas) for k in (0, deltas // 2, deltas)},
            {k: relay_memory.resident(streams, k, deltas) for k in (0, deltas)},
            relay_memory.lingering(deltas),
        )


def _relay_share(by: dict[Key, list[Result]], stacks: list[str], loads: tuple[Load, ...],
                 memory: RelayMemory) -> list[str]:
    deltas, n = memory.deltas, memory.streams
    head, end = memory.retained[0], memory.retained[deltas]
    own = memory.resident[deltas]
    rows = []
    for stack in stacks:
        relay, proxy = by.get((stack, "relay", n)), by.get((_proxy_of(stack), "proxy", n))
        if relay and proxy:
            gw = _median([r.bytes_per_stream for r in relay])
            rows.append([stack, f"{_median([r.bytes_per_stream for r in proxy]) / 1024:.1f}",
                         f"{gw / 1024:.1f}", f"{(gw - own) / 1024:.1f}"])
    objects, freed = memory.lingering
    several = [load.clients for load in loads if load.requests > 1]
    return [
        "### The Relay's own memory",
        "",
        "Measured without HTTP, the upstream's stream fed to the gateway's lean relays in"
        f" one process. By `tracemalloc`, a relay holds {head / 1024:.1f} KB once the head"
        f" is read and {end / 1024:.1f} KB after {deltas} deltas"
        f" ({(end - head) / deltas:+.0f} bytes per delta: it keeps no text; the default"
        " relay keeps about 90 bytes per delta, see \"Relay memory per stream\"). In RSS,"
        f" a fresh process holding {n:,} relays fed round-robin grows by"
        f" {memory.resident[0] / 1024:.1f} KB per relay after the head and"
        f" {own / 1024:.1f} KB after {deltas} deltas. The rest of a gateway's memory per"
        f" stream is the stack's (and the gateway's own objects). At N = {n:,}, KB per"
        " stream:",
        "",
        report.markdown_table(["Stack", "proxy", "relay", "relay less the Relay's RSS"],
                              rows, "lrrr"),
        "",
        "A finished relay, once dropped, is freed at once by reference counting: it"
        " leaves no object in a reference cycle for `gc.collect()` to find"
        " (tests/test_no_reference_cycles.py)."
        if objects == 0 else
        f"A finished relay, once dropped, leaves {objects} objects in reference cycles"
        f" holding {freed / 1024:.0f} KB until `gc.collect()` finds them (a long"
        " stream's objects are in the collector's oldest generation, which it visits"
        " rarely)."
        + (" Where clients make several streams one after another (N = "
           + ", ".join(f"{c:,}" for c in several)
           + " here), the peak counts finished streams not yet collected too."
           if several else ""),
        "",
    ]


def _verdict(lines: list[str], by: dict[Key, list[Result]], stacks: list[str],
             loads: tuple[Load, ...], memory_: RelayMemory) -> tuple[str, bool]:
    n_max = max(load.clients for load in loads)
    best = recommend(by, stacks, n_max)
    lines += ["### Targets and the choice", ""]
    if best is None:
        lines += ["No stack ran clean (errors, lost text, tracebacks or unclosed upstreams).", ""]
        return "\n".join(lines), False
    relay = by[(best, "relay", n_max)]
    memory = _median([r.bytes_per_stream for r in relay])
    growth = memory_.resident[memory_.deltas] - memory_.resident[0]
    ratios = {load.clients: _cpu(by[(best, "relay", load.clients)])
              / _cpu(by[(best, "proxy", load.clients)]) for load in loads
              if (best, "proxy", load.clients) in by and (best, "relay", load.clients) in by}
    lost = sum(r.tally.bad_text for rs in by.values() for r in rs)
    targets: list[report.Target] = [
        (f"{best}: memory ≤ 64 KB per concurrent stream at N = {n_max:,} (relay)",
         memory <= MEMORY_TARGET,
         f"{memory / 1024:.1f} KB, of which the lean Relay's own growth over"
         f" {memory_.deltas} deltas is {growth / 1024:.1f} KB (RSS)"),
        (f"{best}: relay CPU per event ≤ {CPU_TARGET:g}{TIMES} the pass-through's",
         all(v <= CPU_TARGET for v in ratios.values()),
         ", ".join(f"N = {n:,}: {v:.2f}{TIMES}" for n, v in ratios.items())),
        ("0 lost or altered text, every stack and run", lost == 0, f"{lost} streams"),
    ]
    fit = [s for s in stacks if clean(by, s)]
    unfit = [s for s in stacks if s not in fit]
    relay_cpu = {s: _cpu(_runs(by, s, "relay")) for s in stacks if _runs(by, s, "relay")}
    cheapest = min(relay_cpu[s] for s in fit)
    proxy_kb = {s: _median([r.bytes_per_stream for r in by.get((s, "proxy", n_max), [])])
                / 1024 for s in stacks}
    lines += [
        *report.target_lines(targets),
        "",
        "The rule: among the stacks with no error, no"
        " lost text, no traceback and every hung-up upstream closed"
        + (f" (not: {', '.join(unfit)})" if unfit else "")
        + f", those whose relay holds at most 64 KB per stream at N = {n_max:,}; of those,"
        " the one whose relay costs the least CPU per event (the median of all its runs),"
        f" stacks within {CPU_TIE:g}{TIMES} of it being a tie"
        + (f" (the same run repeated moved by up to {_spread(by):.0%} here)"
           if _spread(by) else "")
        + ", which goes to the stack that costs least to own: "
        + ", then ".join(OWNING_ORDER)
        + " (one library that serves and fetches; an ASGI server and an HTTP client;"
        " HTTP connection code of the gateway's own). Relay CPU per event, over the"
        " cheapest clean stack's: "
        + ", ".join(f"{s} {relay_cpu[s] / cheapest:.2f}{TIMES}"
                    for s in sorted(relay_cpu, key=relay_cpu.__getitem__))
        + f"; relay KB per stream at N = {n_max:,}: "
        + ", ".join(f"{s} {_relay_memory(by, s, n_max) / 1024:.1f}"
                    for s in sorted(relay_cpu, key=lambda s: _relay_memory(by, s, n_max)))
        + "; pass-through KB per stream: "
        + ", ".join(f"{s} {proxy_kb[s]:.1f}" for s in sorted(proxy_kb, key=proxy_kb.__getitem__))
        + ".",
        "",
        f"The gateway's stack is **{best}**: {relay_cpu[best] * 1000:.0f} ms of CPU per 1,000"
        f" relayed events, {proxy_kb[best]:.1f} KB per stream of its own. What it means:"
        f" {COSTS.get(best, '')}.",
        "",
    ]
    return "\n".join(lines), all(ok for _, ok, _ in targets)


def run(stacks: list[str], loads: tuple[Load, ...], rounds: dict[int, int],
        log: Callable[[str], None] = print) -> tuple[dict[Key, list[Result]], float]:
    """Every load, its rounds (by N), every (stack, kind); the results by key, and the
    minutes it took."""
    by: dict[Key, list[Result]] = defaultdict(list)
    started = time.monotonic()
    count = 0
    for load in loads:
        for round_ in range(rounds.get(load.clients, 1)):
            for stack, kind in _schedule(stacks, round_):
                count += 1
                result = run_one(stack, kind, load, seed_base=count * 10_000)
                by[(result.stack, kind, load.clients)].append(result)
                t = result.tally
                lat = result.latencies_ms or (float("nan"), float("nan"))
                log(f"  N={load.clients:<5} {result.stack:<15} {kind:<6} "
                    f"cpu {result.cpu_per_1000 * 1000:6.1f} ms/1k  "
                    f"mem {result.bytes_per_stream / 1024:6.1f} KB  "
                    f"lat {lat[0]:7.1f}/{lat[1]:7.0f} ms  ok {t.ok}/{t.streams - t.hung_up}"
                    f" (+{t.hung_up} hung up)  "
                    f"err {sum(t.errors.values())} bad {t.bad_text} tb {result.tracebacks} "
                    f"load {result.load1:.1f}" + (f"  {t.examples[:2]}" if t.examples else ""))
                if result.log_excerpt:
                    log(result.log_excerpt)
    return by, (time.monotonic() - started) / 60


def main(write: bool = True, quick: bool = False) -> int:
    """Run the soak on every installed stack, print the section, write it if ``write``."""
    return soak(write, quick)


def soak(write: bool = True, quick: bool = False, stacks: list[str] | None = None,
         rounds: int | None = None, save: Path | None = None, load: Path | None = None) -> int:
    """Run the soak on ``stacks`` (default: every installed one); 1 if a target was missed.

    ``save``: pickle the results there; ``load``: write the section from results
    saved before instead of running.
    """
    if not sys.platform.startswith("linux"):
        print("the gateway soak reads /proc: Linux only, skipped")
        return 0
    if load is not None:
        with open(load, "rb") as fh:
            by, chosen, loads, per_load, minutes = pickle.load(fh)  # our own file
    else:
        chosen = [s for s in (stacks or list(STACKS)) if available(s)]
        missing = sorted(set(stacks or STACKS) - set(chosen))
        print(f"gateway soak ({'quick' if quick else 'full'}): {', '.join(chosen)}"
              + (f"; not installed: {', '.join(missing)}" if missing else ""))
        loads = QUICK if quick else FULL
        per_load = {load.clients: rounds for load in loads} if rounds else (
            {} if quick else FULL_ROUNDS)
        by, minutes = run(chosen, loads, per_load)
        if save is not None:
            with open(save, "wb") as fh:
                pickle.dump((dict(by), chosen, loads, per_load, minutes), fh)
    memory = RelayMemory.measure(loads[-1].deltas, loads[-1].clients)
    text, ok = section(by, chosen, loads, per_load, minutes, memory)
    print()
    print(text)
    if write:
        path = report.update_section("gateway", text)
        print(f"wrote {path.relative_to(report.REPO_ROOT)}")
    return 0 if ok else 1


def _cli(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").strip().splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="20 clients, 60 deltas; writes nothing")
    ap.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    ap.add_argument("--stacks", help=f"comma-separated, of: {', '.join(STACKS)}")
    ap.add_argument("--rounds", type=int, help="rounds of every load (default: 2 at N = 100, "
                    "1 at N = 1,000; 1 with --quick)")
    ap.add_argument("--save", type=Path, metavar="FILE", help="pickle the results into FILE")
    ap.add_argument("--load", type=Path, metavar="FILE",
                    help="write the section from results --save'd before, without running")
    args = ap.parse_args(argv)
    # Stopped with SIGTERM: unwind, so that every process the soak started is stopped too.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    stacks = args.stacks.split(",") if args.stacks else None
    for stack in stacks or ():
        if stack not in STACKS:
            ap.error(f"unknown stack {stack!r}")
    return soak(write=not args.no_write and not args.quick, quick=args.quick, stacks=stacks,
                rounds=args.rounds, save=args.save, load=args.load)


if __name__ == "__main__":
    sys.exit(_cli())
