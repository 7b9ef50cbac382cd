"""The fake upstream: an Anthropic Messages API streaming paced text deltas, in its own process.

    python -m benchmarks.gateway_soak.upstream --gap 0.010 0.030 [--think S]

``POST /v1/messages`` streams :func:`~.wire.head_frames`, as many text
deltas as the request's ``max_tokens`` a random ``--gap`` apart (seeded by
the request's seed, so a stream's pacing is the same through every gateway),
then :func:`~.wire.tail_frames`;
each event is one HTTP chunk, stamped right before it is written.
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
import json
import random
import sys
import time
import zlib
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

    def __init__(self, upstream: Upstream) -> None:
        self.upstream = upstream
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None
        self.streaming: asyncio.Task[None] | None = None
        self.seed = -1

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        if self.streaming is not None and not self.streaming.done():
            self.upstream.aborted[self.seed] = time.monotonic_ns() // 1000
            self.streaming.cancel()

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
            self.streaming = asyncio.get_running_loop().create_task(self.stream(self.seed, deltas))
        else:
            self.transport.write(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")

    def chunk(self, data: bytes) -> None:
        assert self.transport is not None
        self.transport.write(b"%x\r\n%s\r\n" % (len(data), data))

    async def stream(self, seed: int, deltas: int) -> None:
        upstream, transport = self.upstream, self.transport
        assert transport is not None
        transport.write(_HEAD)
        self.chunk(wire.head_frames(seed))
        upstream.events += 3
        if upstream.think:
            await asyncio.sleep(upstream.think)
        pace = random.Random(seed)
        low, high = upstream.gap
        crc = 0
        last = deltas - 1
        for index in range(deltas):
            await asyncio.sleep(pace.uniform(low, high))
            text = wire.delta_text(seed, index, time.monotonic_ns() // 1000)
            if index == last:
                text = f"{text}#{zlib.crc32(text.encode(), crc):08x}"
            else:
                crc = zlib.crc32(text.encode(), crc)
            self.chunk(wire.delta_frame(text))
            upstream.events += 1
        self.chunk(wire.tail_frames(deltas))
        transport.write(b"0\r\n\r\n")
        upstream.events += 3
        upstream.completed += 1


async def serve(upstream: Upstream, host: str, port: int) -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: _Connection(upstream), host, port, backlog=4096)
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
