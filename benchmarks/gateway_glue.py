"""The gateway command's own cost per relayed event, without HTTP: what the soak cannot see.

The loopback soak (:mod:`benchmarks.bench_gateway`) measures a whole process
on a shared machine, where the CPU per event moves with how many events each
upstream read carries. This drives the command's read loop
(``Exchange._pump``: the upstream's reads through its lean ``Relay`` to its
``Streaming`` downstream, the keepalive timer, the event count of the log
line) in one process, with a fake upstream (each read one event, as while a
gateway keeps up) and a fake client response (a write costs nothing), and
times, per event, in CPU time:

- ``pass``: the same loop with the bytes passed through (what a pass-through
  proxy's loop costs without its I/O);
- ``relay``: ``Relay.feed`` alone (the library's share);
- ``command``: the command's loop, relay included; ``glue`` is what it costs
  over ``relay`` and ``pass``: the gateway's own per-event work.

    python -m benchmarks.gateway_glue [--ab CHECKOUT_A CHECKOUT_B] [--rounds R]

``--ab``: the same, with the ``sse_engine/`` of two checkouts, each in its own
process, in interleaved rounds; prints the medians and B/A (below 1.00: B is
cheaper).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
#: Events per timing, and timings per figure (the best of them: a timing can only be
#: slowed by the machine's other work, not sped up).
EVENTS = 6000
REPEATS = 7
#: Concurrent streams the events are spread over, taking turns: one relay's code and data
#: stay warm in the caches, a hundred of them do not (as in the soak).
STREAMS = (1, 100)


class _Content:
    """An upstream body whose every read returns the next event (then b"": the end),
    after a turn of the loop (so that concurrent streams take turns, as on a server)."""

    def __init__(self, frames: list[bytes]) -> None:
        self._frames = iter(frames)

    async def readany(self) -> bytes:
        await asyncio.sleep(0)
        return next(self._frames, b"")


class _Upstream:
    def __init__(self, frames: list[bytes]) -> None:
        self.content = _Content(frames)


class _Response:
    """A prepared client response whose writes cost nothing."""

    prepared = True

    async def write(self, data: bytes) -> None:
        return None


def _frames() -> tuple[bytes, list[bytes]]:
    from benchmarks.gateway_soak import wire

    return wire.head_frames(1), [
        wire.delta_frame(wire.delta_text(1, i, 1_000_000 + i)) for i in range(EVENTS)
    ]


def _relay() -> Any:
    from sse_engine import FORMATS
    from sse_engine.relay import Relay

    relay = Relay(FORMATS["messages"].lane(), to="chat", model="soak", created=1, lean=True)
    relay.start(200, [("content-type", "text/event-stream")])
    return relay


def measure(streams: int = 1) -> dict[str, float]:
    """Microseconds of CPU per event over ``streams`` concurrent streams: ``pass``,
    ``relay``, ``command`` and ``glue``."""
    from sse_engine.gateway import GatewayConfig
    from sse_engine.gateway._downstream import Streaming
    from sse_engine.gateway._exchange import Exchange

    head, frames = _frames()
    each = [frames[i::streams] for i in range(streams)]
    config = GatewayConfig(upstream="http://127.0.0.1:9", upstream_format="messages")
    exchange = Exchange(config, config.upstream_row, lambda: None)  # type: ignore[arg-type,return-value]

    async def passed(frames: list[bytes]) -> None:
        upstream, response = _Upstream(frames), _Response()
        read, write = upstream.content.readany, response.write
        while True:
            chunk = await read()
            if not chunk:
                return
            await write(chunk)

    async def command(frames: list[bytes]) -> None:
        relay = _relay()
        relay.feed(head)
        downstream = Streaming(None, {})  # type: ignore[arg-type]
        downstream.response = _Response()  # type: ignore[assignment]
        await exchange._pump(_Upstream(frames), relay, downstream)  # type: ignore[arg-type]

    async def relayed(frames: list[bytes]) -> None:
        # The pass-through's loop (its turns of the loop included), feeding a relay.
        relay = _relay()
        relay.feed(head)
        read, feed = _Upstream(frames).content.readany, relay.feed
        while True:
            chunk = await read()
            if not chunk:
                return
            feed(chunk)

    def best(run: Any) -> float:
        async def all_streams() -> None:
            await asyncio.gather(*(run(part) for part in each))

        times = []
        for _ in range(REPEATS):
            loop = asyncio.new_event_loop()
            try:
                started = time.process_time()
                loop.run_until_complete(all_streams())
                times.append(time.process_time() - started)
            finally:
                loop.close()
        return min(times) / EVENTS * 1e6

    figures = {"pass": best(passed), "relay": best(relayed), "command": best(command)}
    # relay (the library, in a pass-through's loop) - pass: the library's own share.
    figures["relay"] -= figures["pass"]
    figures["glue"] = figures["command"] - figures["relay"] - figures["pass"]
    return figures


def _probe(checkout: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c",
         f"import sys; sys.path[:0] = [{str(checkout)!r}, {str(REPO_ROOT)!r}]; "
         "import json; from benchmarks.gateway_glue import measure, STREAMS; "
         "print(json.dumps({f'{k} x{n}': v for n in STREAMS for k, v in measure(n).items()}))"],
        cwd=checkout, capture_output=True, text=True, check=True,
    )
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def ab(a: Path, b: Path, rounds: int) -> None:
    """Print the medians of ``rounds`` interleaved probes of checkouts ``a`` and ``b``."""
    runs: dict[str, list[dict[str, float]]] = {"A": [], "B": []}
    for round_ in range(rounds):
        order = [("A", a), ("B", b)] if round_ % 2 == 0 else [("B", b), ("A", a)]
        for name, checkout in order:
            runs[name].append(_probe(checkout))
    print(f"A = {a}\nB = {b}\n{rounds} rounds, µs of CPU per event (median)")
    for key in runs["A"][0]:
        med = {n: statistics.median(r[key] for r in runs[n]) for n in runs}
        ratio = med["B"] / med["A"] if med["A"] > 0 else float("nan")
        print(f"  {key:13} A {med['A']:6.2f}  B {med['B']:6.2f}  B/A {ratio:.2f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").strip().splitlines()[0])
    ap.add_argument("--ab", nargs=2, type=Path, metavar=("CHECKOUT_A", "CHECKOUT_B"))
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    if args.ab:
        ab(args.ab[0].resolve(), args.ab[1].resolve(), args.rounds)
    else:
        for streams in STREAMS:
            figures = measure(streams)
            print(f"µs of CPU per event, {streams} stream(s): "
                  + ", ".join(f"{k} {v:.2f}" for k, v in figures.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
