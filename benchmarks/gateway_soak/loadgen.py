"""The load generator: concurrent streaming clients that check every stream, in one process.

    python -m benchmarks.gateway_soak.loadgen --port P --kind proxy|relay|direct
        --clients N [--procs K --index I] [--requests R] [--deltas D] [--ramp S]
        [--start-at T] [--hangup-every M --hangup-at J] --out FILE.json

Client ``j`` (of N, this process taking those with ``j % K == I``) starts at
``T + j * S / N`` (``T`` on ``time.monotonic()``, the same clock in every
process), opens one keep-alive connection and makes R streaming requests on
it, one after another: a Messages request to the proxy or straight to the
upstream (``direct``), a Chat request to the relay. Each answer must end as
its API ends a finished turn (Messages: ``message_stop``; Chat: a ``stop``
finish, then ``[DONE]``; no error event), and its text must be what the
upstream sent (:func:`~.wire.text_problem`); each delta is timed from the
upstream's stamp to the read that brought it. A stream whose seed is a
multiple of M hangs up after delta J (its text so far is checked, and when it
left is reported, to time the upstream's close).

The client must cost little next to the gateway it measures, on the same
cores: asyncio streams (uvloop when installed), its own small HTTP/1.1
response reader, sse_engine's ``SSEParser`` and ``json.loads`` per event.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import sys
import time
from typing import Any

import attrs

from benchmarks.gateway_soak import wire
from benchmarks.gateway_soak.procs import new_event_loop
from sse_engine import Comment, SSEParser

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
    cpu: float = 0.0  # the load generator processes' own CPU seconds

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
        self.cpu += other.cpu


class _Response:
    """An HTTP/1.1 response read as it comes: the head, then the body (chunked, sized, or
    to the end of the connection), decoded read by read. Cheaper than h11 per read: the
    client must stay a small share of the machine's CPU."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.status = 0
        self.reusable = True
        self.done = False
        self._chunked = False
        self._left = -1  # sized body: bytes still due; chunked: bytes left in this chunk
        self._crlf = False  # chunked: a chunk's data ended, its CRLF is due

    def feed(self, data: bytes) -> bytes:
        """The body bytes that ``data`` completes (``data=b""``: the connection ended)."""
        buf = self.buffer
        buf += data
        if not self.status:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return b""
            head = bytes(buf[:end]).decode("latin-1").lower().split("\r\n")
            del buf[: end + 4]
            self.status = int(head[0].split()[1])
            fields = dict(line.split(": ", 1) for line in head[1:] if ": " in line)
            self._chunked = "chunked" in fields.get("transfer-encoding", "")
            self._left = int(fields.get("content-length", "-1"))
            sized = self._chunked or self._left >= 0
            self.reusable = sized and fields.get("connection") != "close"
            if self._chunked:
                self._left = 0
        if not self._chunked:
            out = bytes(buf if self._left < 0 else buf[: self._left])
            del buf[: len(out)]
            if self._left >= 0:
                self._left -= len(out)
                self.done = self._left == 0
            return out
        return self._chunks(buf)

    def _chunks(self, buf: bytearray) -> bytes:
        out = []
        while True:
            if self._left:
                piece = bytes(buf[: self._left])
                del buf[: len(piece)]
                out.append(piece)
                self._left -= len(piece)
                if self._left:
                    break
                self._crlf = True
            if self._crlf:
                if len(buf) < 2:
                    break
                del buf[:2]
                self._crlf = False
            end = buf.find(b"\r\n")
            if end < 0:
                break
            size = int(bytes(buf[:end]).split(b";")[0], 16)
            if size == 0:  # the last chunk: no trailers expected, just the closing CRLF
                if len(buf) < end + 4:
                    break  # read it again, whole, with the next bytes
                del buf[: end + 4]
                self.done = True
                break
            del buf[: end + 2]
            self._left = size
        return b"".join(out)


class _Stream:
    """One request's answer as it is read: SSE events, the text, the marks seen, the end."""

    def __init__(self, plan: Plan, seed: int, tally: Tally) -> None:
        self.chat = _KINDS[plan.kind][2]
        self.events = SSEParser(comments=True)
        self.plan, self.seed, self.tally = plan, seed, tally
        self.texts: list[str] = []
        self.hang = bool(plan.hangup_every) and seed % plan.hangup_every == 0
        self.left = False
        self.finished = False  # the answer's own ending: [DONE] after a "stop", message_stop
        self.stopped = False  # Chat: a choice finished with "stop"
        self.failure = ""
        self.keepalives = 0

    def feed(self, data: bytes, now_us: int) -> None:
        for item in self.events.feed(data):
            if type(item) is Comment:
                self.keepalives += 1
                continue
            text = self._text(item.data)  # type: ignore[union-attr]
            if text:
                self._delta(text, now_us)

    def _text(self, data: str) -> str | None:
        """The text an event carries; notes the answer's end or failure."""
        if self.chat:
            if data == "[DONE]":
                self.finished = self.stopped
                return None
            chunk = json.loads(data)
            if "error" in chunk:
                self.failure = str(chunk["error"].get("code") or chunk["error"])
            text = None
            for choice in chunk.get("choices") or ():
                text = choice.get("delta", {}).get("content")
                reason = choice.get("finish_reason")
                if reason == "stop":
                    self.stopped = True
                elif reason is not None:
                    self.failure = f"finish_reason {reason}"
            return text
        event = json.loads(data)
        kind = event["type"]
        if kind == "content_block_delta":
            return event["delta"].get("text")  # type: ignore[no-any-return]
        if kind == "message_stop":
            self.finished = True
        elif kind == "error":
            self.failure = str(event["error"].get("type"))
        return None

    def _delta(self, text: str, now_us: int) -> None:
        self.texts.append(text)
        latencies = self.tally.latencies_us
        for index, stamp in wire.scan_marks(text, 0)[0]:
            latencies.append(now_us - stamp)
            self.tally.deltas += 1
            if self.hang and index >= self.plan.hangup_at:
                self.left = True

    def finish(self) -> None:
        """The answer ended or we hung up: check it and count it."""
        tally, plan = self.tally, self.plan
        tally.streams += 1
        tally.keepalives += self.keepalives
        if self.left:
            tally.hung_up += 1
        elif self.failure or not self.finished:
            tally.error(self.failure or "cut (no ending)", self.seed)
            return
        problem = wire.text_problem("".join(self.texts), self.seed, plan.deltas, not self.left)
        if problem is not None:
            tally.bad_text += 1
            tally.examples.append(f"seed {self.seed}: {problem}")
        elif not self.left:
            tally.ok += 1


async def _one(plan: Plan, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
               seed: int, tally: Tally) -> bool:
    """One streamed request on an open connection; whether the connection can be reused."""
    path, build, _ = _KINDS[plan.kind]
    body = build(seed, plan.deltas)
    writer.write(
        f"POST {path} HTTP/1.1\r\nhost: {plan.host}:{plan.port}\r\n"
        f"content-type: application/json\r\ncontent-length: {len(body)}\r\n\r\n".encode()
        + body
    )
    response = _Response()
    stream = _Stream(plan, seed, tally)
    while not response.done:
        data = await reader.read(65536)
        now_us = time.monotonic_ns() // 1000
        body = response.feed(data)
        if response.status and response.status != 200:
            tally.streams += 1
            tally.error(f"status {response.status}", seed)
            return False
        if body:
            stream.feed(body, now_us)
            if stream.left:
                tally.hangups[str(seed)] = time.monotonic_ns() // 1000
                writer.close()  # hang up: the gateway must close its upstream now
                stream.finish()
                return False
        if not data:
            break
    stream.finish()
    return response.done and response.reusable


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
                reusable = await _one(plan, reader, writer, seed, tally)
        except (OSError, TimeoutError, ValueError) as exc:
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
        before = resource.getrusage(resource.RUSAGE_SELF)  # the imports are not the load's
        tally = loop.run_until_complete(run(plan))
        after = resource.getrusage(resource.RUSAGE_SELF)
    tally.cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(attrs.asdict(tally), fh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
