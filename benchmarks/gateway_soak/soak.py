"""One soak run: a fresh upstream, one gateway (or none: ``direct``), the load, the measures.

:func:`run_one` starts the upstream and the gateway, each in its own
process, warms the gateway with a few short streams (imports, pools),
reads its idle RSS, then starts the load generator processes and, while
they run, samples the gateway's RSS every 0.2 s. Measured on the gateway
process (``/proc``): CPU seconds from just before the load starts to its
end, and the peak RSS; from the upstream: the events it wrote during the
load and when it saw each hung-up stream's connection close; from the
clients: every stream's verdict and every delta's latency. A traceback in
the gateway's stderr is counted too (a client hanging up must not log one).
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
import time
import urllib.request
from pathlib import Path

import attrs

from benchmarks.gateway_soak import loadgen
from benchmarks.gateway_soak.procs import Child, cpu_seconds, rss_bytes

__all__ = ["Load", "Result", "run_one"]


@attrs.frozen
class Load:
    """What the clients and the upstream do in one run."""

    clients: int
    deltas: int = 300
    gap: tuple[float, float] = (0.010, 0.030)
    requests: int = 1
    ramp: float = 2.0
    think: float = 0.0
    keepalive: float = 15.0
    hangup_every: int = 0
    hangup_at: int = 150
    procs: int = 1
    #: Seconds the gateway idles after the warm-up before its idle memory is read.
    settle: float = 0.5
    #: Seconds the clients' processes get to import before the first request is due
    #: (one that is late starts at once: only the figures of a real soak care).
    head_start: float = 1.5

    @property
    def seconds(self) -> float:
        """About how long the load runs: the ramp, then each client's streams."""
        return self.ramp + self.requests * (self.think + self.deltas * sum(self.gap) / 2)


@attrs.frozen
class Result:
    """The figures of one run of one (stack, kind, load)."""

    stack: str
    kind: str
    load: Load
    seconds: float
    events: int
    cpu: float
    idle_rss: int
    peak_rss: int
    latencies_ms: tuple[float, float] | None  # p50, p99
    tally: loadgen.Tally
    hangup_close_ms: tuple[float, ...]
    not_closed: int
    tracebacks: int
    load1: float
    upstream_cpu: float
    log_excerpt: str = ""  # the end of the gateway's stderr, when it logged a traceback
    reads: int = 0  # the gateway's upstream reads, warm-up included (0: not told)
    warm_events: int = 0  # the events of the warm-up streams

    @property
    def events_per_read(self) -> float:
        """Events per upstream read: 1 while the gateway keeps up, more when it falls behind
        (its reads then carry several events, and each event costs it less)."""
        return (self.events + self.warm_events) / self.reads if self.reads else float("nan")

    @property
    def cpu_per_1000(self) -> float:
        """Gateway CPU seconds per 1,000 upstream events."""
        return self.cpu / self.events * 1000 if self.events else float("nan")

    @property
    def bytes_per_stream(self) -> float:
        """Peak RSS over idle, per concurrent stream."""
        return (self.peak_rss - self.idle_rss) / self.load.clients

    @property
    def failures(self) -> int:
        """Streams that ended in error, or whose text was lost or altered."""
        return sum(self.tally.errors.values()) + self.tally.bad_text


def _stats(port: int, reset: bool = False) -> dict[str, object]:
    query = "?reset=1" if reset else ""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/stats{query}", timeout=10) as answer:
        stats: dict[str, object] = json.loads(answer.read())
    return stats


def _percentiles(values: list[int]) -> tuple[float, float] | None:
    if not values:
        return None
    values.sort()
    p99 = values[min(len(values) - 1, len(values) * 99 // 100)]
    return values[len(values) // 2] / 1000, p99 / 1000


def _warm(port: int, kind: str) -> None:
    """A few short streams through the gateway: imports, pools and caches in place."""
    plan = loadgen.Plan(port=port, kind=kind, clients=4, deltas=3, ramp=0.0, timeout=30.0,
                        seed_base=10**9)
    tally = asyncio.run(loadgen.run(plan))
    if tally.ok != plan.clients:
        raise RuntimeError(f"the warm-up streams failed: {tally.examples}")


def run_one(stack: str | None, kind: str, load: Load, seed_base: int = 1,
            workdir: Path | None = None, profile: Path | None = None) -> Result:
    """Run ``load`` through ``stack``'s ``kind`` gateway (``stack=None``: straight to the
    upstream, ``kind`` then ``direct``) and measure it (``profile``: cProfile the gateway
    into that file; its figures are then the profiler's)."""
    with tempfile.TemporaryDirectory(prefix="soak-", dir=workdir) as tmp:
        return _run(stack, kind, load, seed_base, Path(tmp), profile)


def _run(stack: str | None, kind: str, load: Load, seed_base: int, tmp: Path,
         profile: Path | None) -> Result:
    gap = [str(g) for g in load.gap]
    with Child("benchmarks.gateway_soak.upstream",
               ["--gap", *gap, "--think", str(load.think)], tmp / "upstream.log") as upstream:
        gateway = None
        clients: list[Child] = []
        if stack is not None:
            gateway = Child("benchmarks.gateway_soak.gateway", [
                "--stack", stack, "--kind", kind, "--upstream", f"127.0.0.1:{upstream.port}",
                "--keepalive", str(load.keepalive),
                *(["--profile", str(profile)] if profile else []),
            ], tmp / "gateway.log")
        try:
            port = upstream.port if gateway is None else gateway.port
            _warm(port, kind)
            time.sleep(load.settle)
            idle = rss_bytes(gateway.pid) if gateway else 0
            warm = _stats(upstream.port, reset=True)["events"]
            load1 = os.getloadavg()[0]
            start_at = time.monotonic() + load.head_start
            clients += [
                Child("benchmarks.gateway_soak.loadgen", [
                    "--port", str(port), "--kind", kind, "--clients", str(load.clients),
                    "--procs", str(load.procs), "--index", str(i),
                    "--requests", str(load.requests), "--deltas", str(load.deltas),
                    "--ramp", str(load.ramp), "--start-at", str(start_at),
                    "--hangup-every", str(load.hangup_every), "--hangup-at", str(load.hangup_at),
                    "--timeout", str(60 + 4 * load.seconds), "--seed-base", str(seed_base),
                    "--out", str(tmp / f"clients{i}.json"),
                ], tmp / f"clients{i}.log", ready=False)
                for i in range(load.procs)
            ]
            cpu0 = cpu_seconds(gateway.pid) if gateway else 0.0
            upstream_cpu0 = cpu_seconds(upstream.pid)
            peak = idle
            while any(c.proc.poll() is None for c in clients):
                if gateway is not None:
                    peak = max(peak, rss_bytes(gateway.pid))
                time.sleep(0.2)
            cpu = cpu_seconds(gateway.pid) - cpu0 if gateway else 0.0
            seconds = time.monotonic() - start_at
            stats = _stats(upstream.port)
            upstream_cpu = cpu_seconds(upstream.pid) - upstream_cpu0
        finally:
            if gateway is not None:
                gateway.stop()
            for c in clients:
                c.stop()
        tally = loadgen.Tally()
        for i, c in enumerate(clients):
            if c.proc.returncode != 0:
                raise RuntimeError(f"load generator {i} failed: {c.log.read_text()[-2000:]}")
            part = json.loads((tmp / f"clients{i}.json").read_text())
            tally.merge(loadgen.Tally(**part))
    log = gateway.log.read_text(errors="replace") if gateway else ""
    tracebacks = log.count("Traceback")
    told = [line.split()[1] for line in log.splitlines() if line.startswith("READS ")]
    aborted = stats["aborted"]
    assert isinstance(aborted, dict)
    lags = tuple(sorted((aborted[seed] - left) / 1000 for seed, left in tally.hangups.items()
                        if seed in aborted))
    events = stats["events"]
    assert isinstance(events, int)
    return Result(
        stack=stack or "direct", kind=kind, load=load, seconds=seconds, events=events, cpu=cpu,
        idle_rss=idle, peak_rss=peak, latencies_ms=_percentiles(tally.latencies_us),
        tally=tally, hangup_close_ms=lags, not_closed=len(tally.hangups) - len(lags),
        tracebacks=tracebacks, load1=load1, upstream_cpu=upstream_cpu,
        log_excerpt=log[log.find("Traceback"):][:3000] if tracebacks else "",
        reads=int(told[-1]) if told else 0, warm_events=int(warm),  # type: ignore[call-overload]
    )
