"""The load generator: concurrent streaming clients that check every stream, in one process.

    python -m benchmarks.gateway_soak.loadgen --port P --kind proxy|relay|direct
        --clients N [--procs K --index I] [--requests R] [--deltas D] [--ramp S]
        [--start-at T] [--hangup-every M --hangup-at J] --out FILE.json

Client ``j`` (of N, this process taking those with ``j % K == I``) starts at
``T + j * S / N`` (``T`` on ``time.monotonic()``, the same clock in every
process), opens one keep-alive connection and makes R streaming requests on
it, one after another: a Messages request to the proxy or straight to the
upstream (``direct``), a Chat request to the relay. Each answer is read by
sse_engine's own lane (through a ``PartStream``), which must end COMPLETED,
and its text must be what the upstream sent (:func:`~.wire.text_problem`);
each delta is timed from the upstream's stamp to the read that brought it.
A stream whose seed is a multiple of M hangs up after delta J (its text so
far is checked, and when it left is reported, to time the upstream's close).
HTTP/1.1 through h11 on asyncio streams; uvloop when installed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any

import attrs
import h11

from benchmarks.gateway_soak import wire
from benchmarks.gateway_soak.procs import new_event_loop
from sse_engine import ChatCompletionsLane, MessagesLane, Outcome
from sse_engine.parts import PartStream, TextDelta

__all__ = ["Plan", "Tally", "main", "run"]

#: Kind -> (path, request builder, whether the answer is Chat Completions).
_KINDS = {
    "proxy": ("/v1/messages", wire.messages_request, False),
    "direct": ("/v1/messages", wire.messages_request, False),
    "relay": ("/v1/chat/completions", wire.chat_request, True),
}


@attrs.frozen
class Plan:
    """Who this process is and what its clients do."""

    port: int
    kind: str
    clients: int
    procs: int = 1
    index: int = 0
    requests: int = 1
    deltas: int = 300
    ramp: float = 1.0
    start_at: float = 0.0
    hangup_every: int = 0
    hangup_at: int = 0
    timeout: float = 600.0
    seed_base: int = 1
    host: str = "127.0.0.1"


@attrs.define
class Tally:
    """What the clients saw; merged across processes by :meth:`merge`."""

    streams: int = 0
    ok: int = 0
    hung_up: int = 0
    errors: dict[str, int] = attrs.Factory(dict)
    bad_text: int = 0
    examples: list[str] = attrs.Factory(list)
    latencies_us: list[int] = attrs.Factory(list)
    hangups: dict[str, int] = attrs.Factory(dict)
    keepalives: int = 0
    deltas: int = 0

    def error(self, why: str, seed: int) -> None:
        self.errors[why] = self.errors.get(why, 0) + 1
        if len(self.examples) < 10:
            self.examples.append(f"seed {seed}: {why}")

    def merge(self, other: Tally) -> None:
        self.streams += other.streams
        self.ok += other.ok
        self.hung_up += other.hung_up
        for why, count in other.errors.items():
            self.errors[why] = self.errors.get(why, 0) + count
        self.bad_text += other.bad_text
        self.examples += other.examples[: max(0, 10 - len(self.examples))]
        self.latencies_us += other.latencies_us
        self.hangups.update(other.hangups)
        self.keepalives += other.keepalives
        self.deltas += other.deltas


class _Stream:
    """One request's answer as it is read: the lane, the text, the marks seen."""

    def __init__(self, plan: Plan, seed: int, tally: Tally) -> None:
        chat = _KINDS[plan.kind][2]
        lane = ChatCompletionsLane() if chat else MessagesLane()
        lane.count_comments()
        self.parts = PartStream(lane)
        self.plan, self.seed, self.tally = plan, seed, tally
        self.texts: list[str] = []
        self.hang = bool(plan.hangup_every) and seed % plan.hangup_every == 0
        self.left = False

    def feed(self, data: bytes, now_us: int) -> None:
        latencies = self.tally.latencies_us
        for part in self.parts.feed(data):
            if type(part) is TextDelta:
                self.texts.append(part.text)
                for index, stamp in wire.scan_marks(part.text, 0)[0]:
                    latencies.append(now_us - stamp)
                    self.tally.deltas += 1
                    if self.hang and index >= self.plan.hangup_at:
                        self.left = True

    def finish(self, ended: bool) -> None:
        """The answer ended (``ended``) or we hung up: check it and count it."""
        tally, plan = self.tally, self.plan
        tally.streams += 1
        text = "".join(self.texts)
        if self.left:
            tally.hung_up += 1
            complete = False
        else:
            self.parts.close()
            complete = True
            if not ended or self.parts.outcome is not Outcome.COMPLETED:
                why = self.parts.error.code if self.parts.error is not None else "cut"
                tally.error(f"outcome {self.parts.outcome} ({why})", self.seed)
                return
        tally.keepalives += self.parts.lane.comments_read or 0
        problem = wire.text_problem(text, self.seed, plan.deltas, complete)
        if problem is not None:
            tally.bad_text += 1
            tally.examples.append(f"seed {self.seed}: {problem}")
        elif complete:
            tally.ok += 1


async def _one(plan: Plan, conn: h11.Connection, reader: asyncio.StreamReader,
               writer: asyncio.StreamWriter, seed: int, tally: Tally) -> bool:
    """One streamed request on an open connection; whether the connection can be reused."""
    path, build, _ = _KINDS[plan.kind]
    body = build(seed, plan.deltas)
    headers = [("host", f"{plan.host}:{plan.port}"), ("content-type", "application/json"),
               ("content-length", str(len(body)))]
    request = (h11.Request(method="POST", target=path, headers=headers), h11.Data(data=body),
               h11.EndOfMessage())
    writer.write(b"".join(conn.send(event) or b"" for event in request))
    stream = _Stream(plan, seed, tally)
    while True:
        data = await reader.read(65536)
        now_us = time.monotonic_ns() // 1000
        conn.receive_data(data)
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                break
            if isinstance(event, h11.Data):
                stream.feed(event.data, now_us)
                if stream.left:
                    tally.hangups[str(seed)] = time.monotonic_ns() // 1000
                    writer.close()  # hang up: the gateway must close its upstream now
                    stream.finish(False)
                    return False
            elif isinstance(event, h11.Response):
                if event.status_code != 200:
                    tally.error(f"status {event.status_code}", seed)
                    return False
            elif isinstance(event, h11.EndOfMessage):
                stream.finish(True)
                conn.start_next_cycle()
                return True
            elif isinstance(event, h11.ConnectionClosed):
                stream.finish(False)
                return False


async def _client(plan: Plan, j: int, tally: Tally) -> None:
    await asyncio.sleep(max(0.0, plan.start_at + j * plan.ramp / plan.clients - time.monotonic()))
    writer: asyncio.StreamWriter | None = None
    for r in range(plan.requests):
        seed = plan.seed_base + j * plan.requests + r
        reusable = False
        try:
            async with asyncio.timeout(plan.timeout):
                if writer is None:
                    reader, writer = await asyncio.open_connection(plan.host, plan.port)
                    conn = h11.Connection(h11.CLIENT)
                reusable = await _one(plan, conn, reader, writer, seed, tally)
        except (OSError, TimeoutError, h11.ProtocolError) as exc:
            tally.streams += 1
            tally.error(type(exc).__name__, seed)
        if not reusable and writer is not None:
            writer.close()
            writer = None
    if writer is not None:
        writer.close()


async def run(plan: Plan) -> Tally:
    """Run this process's clients to the end; what they saw."""
    tally = Tally()
    mine = range(plan.index, plan.clients, plan.procs)
    await asyncio.gather(*(_client(plan, j, tally) for j in mine))
    return tally


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").strip().splitlines()[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--kind", choices=_KINDS, required=True)
    ap.add_argument("--clients", type=int, required=True)
    ap.add_argument("--procs", type=int, default=1)
    ap.add_argument("--index", type=int, default=0)
    ap.add_argument("--requests", type=int, default=1)
    ap.add_argument("--deltas", type=int, default=300)
    ap.add_argument("--ramp", type=float, default=1.0)
    ap.add_argument("--start-at", type=float, default=0.0)
    ap.add_argument("--hangup-every", type=int, default=0)
    ap.add_argument("--hangup-at", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--seed-base", type=int, default=1)
    ap.add_argument("--out", required=True)
    args: Any = ap.parse_args(argv)
    plan = Plan(**{k: v for k, v in vars(args).items() if k != "out"})
    with new_event_loop(uvloop=True) as loop:
        tally = loop.run_until_complete(run(plan))
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(attrs.asdict(tally), fh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
