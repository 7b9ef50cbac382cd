"""The fake upstream: an Anthropic Messages API streaming paced text deltas, in its own process.

    python -m benchmarks.gateway_soak.upstream --gap 0.010 0.030 [--think S]

``POST /v1/messages`` streams :func:`~.wire.head_frames`, as many text
deltas as the request's ``max_tokens`` a random ``--gap`` apart (seeded by
the request's seed, so a stream's pacing is the same through every gateway),
then :func:`~.wire.tail_frames`;
each event is one HTTP chunk, stamped right before it is written (one timer
writes every stream's due deltas: see :class:`_Pacer`).
``--think`` seconds of silence come before the first delta (a model thinking:
what the gateway's keepalive is for). ``GET /stats`` answers, as JSON, the
events written, the streams started and completed, and, for each stream
whose connection was closed before its end, when the upstream saw it close
(``?reset=1`` zeroes them after answering).

A plain asyncio protocol, the same for every gateway measured; uvloop when
installed, to leave the cores to the gateway.
"""

from __future__ import annotations

import argparse
import asyncio
import heapq
import json
import random
import sys
import time
from typing import cast

from benchmarks.gateway_soak import wire
from benchmarks.gateway_soak.procs import announce, new_event_loop

__all__ = ["Upstream", "main"]

_HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n"
    b"cache-control: no-cache\r\nrequest-id: req_soak\r\ntransfer-encoding: chunked\r\n\r\n"
)


class Upstream:
    """The streams' settings and the counters ``/stats`` reports."""

    def __init__(self, gap: tuple[float, float], think: float) -> None:
        self.gap, self.think = gap, think
        self.reset()

    def reset(self) -> None:
        self.events = 0
        self.started = 0
        self.completed = 0
        #: seed -> time.monotonic_ns() // 1000 when its connection was seen closed mid-stream.
        self.aborted: dict[int, int] = {}

    def stats(self) -> bytes:
        return json.dumps({
            "events": self.events, "started": self.started, "completed": self.completed,
            "aborted": self.aborted,
        }).encode()


class _Connection(asyncio.Protocol):
    """One gateway connection: requests in, one streamed answer at a time."""

    def __init__(self, upstream: Upstream, pacer: _Pacer) -> None:
        self.upstream, self.pacer = upstream, pacer
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None
        self.streaming: _Stream | None = None
        self.seed = -1

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        if self.streaming is not None:  # its next step() finds the transport gone
            self.upstream.aborted[self.seed] = time.monotonic_ns() // 1000

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while self.transport is not None:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(self.buffer[:end]).decode("latin-1").split("\r\n")
            fields = dict(line.lower().split(": ", 1) for line in head[1:] if ": " in line)
            size = int(fields.get("content-length", "0"))
            if len(self.buffer) < end + 4 + size:
                return
            body = bytes(self.buffer[end + 4 : end + 4 + size])
            del self.buffer[: end + 4 + size]
            self.answer(head[0].split(" ")[1], body)

    def answer(self, target: str, body: bytes) -> None:
        assert self.transport is not None
        path, _, query = target.partition("?")
        if path == "/stats":
            data = self.upstream.stats()
            if "reset=1" in query:
                self.upstream.reset()
            self.transport.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                b"content-length: %d\r\n\r\n%s" % (len(data), data)
            )
        elif path == "/v1/messages":
            self.seed, deltas = wire.request_of(body)
            self.upstream.started += 1
            self.streaming = _Stream(self, self.seed, deltas)
            self.transport.write(_HEAD)
            self.chunk(wire.head_frames(self.seed))
            self.upstream.events += 3
            low, high = self.upstream.gap
            due = asyncio.get_running_loop().time() + self.upstream.think
            self.pacer.add(self.streaming, due + self.streaming.pace.uniform(low, high))
        else:
            self.transport.write(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")

    def chunk(self, data: bytes) -> None:
        assert self.transport is not None
        self.transport.write(b"%x\r\n%s\r\n" % (len(data), data))


class _Stream:
    """One answer being streamed: its texts, its pacing."""

    __slots__ = ("connection", "pace", "texts")

    def __init__(self, connection: _Connection, seed: int, deltas: int) -> None:
        self.connection = connection
        self.texts = wire.Texts(seed, deltas)
        self.pace = random.Random(seed)

    def step(self, upstream: Upstream) -> bool:
        """Write the next delta (and, after the last, the end); whether more are due."""
        connection, texts = self.connection, self.texts
        if connection.transport is None:
            return False
        connection.chunk(wire.delta_frame(texts.next(time.monotonic_ns() // 1000)))
        upstream.events += 1
        if not texts.done:
            return True
        connection.chunk(wire.tail_frames(texts.deltas))
        connection.transport.write(b"0\r\n\r\n")
        connection.streaming = None
        upstream.events += 3
        upstream.completed += 1
        return False


class _Pacer:
    """Every stream's next delta in one heap, written by one timer: a task and a sleep per
    delta would cost the shared cores more than the writes themselves."""

    def __init__(self, upstream: Upstream) -> None:
        self.upstream = upstream
        self.heap: list[tuple[float, int, _Stream]] = []
        self.timer: asyncio.Handle | None = None
        self.timer_due = 0.0  # (uvloop's handle for a time already past has no when())
        self.count = 0

    def add(self, stream: _Stream, due: float) -> None:
        self.count += 1
        heapq.heappush(self.heap, (due, self.count, stream))
        if self.timer is None or due < self.timer_due:
            if self.timer is not None:
                self.timer.cancel()
            self.timer = asyncio.get_running_loop().call_at(due, self._tick)
            self.timer_due = due

    def _tick(self) -> None:
        loop = asyncio.get_running_loop()
        heap, upstream = self.heap, self.upstream
        low, high = upstream.gap
        now = loop.time() + 0.0005
        while heap and heap[0][0] <= now:
            due, count, stream = heapq.heappop(heap)
            if stream.step(upstream):
                heapq.heappush(heap, (due + stream.pace.uniform(low, high), count, stream))
        self.timer = None
        if heap:
            self.timer_due = heap[0][0]
            self.timer = loop.call_at(self.timer_due, self._tick)


async def serve(upstream: Upstream, host: str, port: int) -> None:
    loop = asyncio.get_running_loop()
    pacer = _Pacer(upstream)
    server = await loop.create_server(
        lambda: _Connection(upstream, pacer), host, port, backlog=4096
    )
    announce(server.sockets[0].getsockname()[1])
    await asyncio.Event().wait()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--gap", type=float, nargs=2, default=(0.010, 0.030), metavar=("MIN", "MAX"))
    ap.add_argument("--think", type=float, default=0.0)
    args = ap.parse_args(argv)
    upstream = Upstream(tuple(args.gap), args.think)
    with new_event_loop(uvloop=True) as loop:
        loop.run_until_complete(serve(upstream, args.host, args.port))
    return 0


if __name__ == "__main__":
    sys.exit(main())
