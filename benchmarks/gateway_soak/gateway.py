"""One gateway of the soak, in its own process, on one HTTP stack.

    python -m benchmarks.gateway_soak.gateway --stack STACK --kind proxy|relay
        --upstream HOST:PORT [--listen HOST:PORT] [--keepalive SECONDS]

Two kinds, the same on every stack:

- ``proxy``: ``POST /v1/messages`` forwarded as it came, the upstream's
  bytes written to the client unchanged (what the stack costs by itself);
- ``relay``: ``POST /v1/chat/completions`` mapped to a Messages request
  (:func:`~.wire.chat_to_messages`), the upstream's stream served as Chat
  Completions by ``Relay(MessagesLane(), to="chat", lean=True)``, each read's output
  written at once, a keepalive comment after ``--keepalive`` quiet seconds.

On both, a client that hangs up closes its upstream at once, and nothing is
logged for it; an upstream that cannot be reached (or answers nothing) is a
502 (the relay's: in the client API's error envelope), not a traceback. The
stacks' own code is in ``stack_*.py``; what is the same on every stack (the
per-request :class:`Pump`, the keepalive timer) is here.
Prints ``READY <port>`` once it listens.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import importlib
import os
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Final

import attrs

from benchmarks.gateway_soak import wire
from sse_engine import MessagesLane
from sse_engine.relay import Relay

__all__ = ["PATHS", "STACKS", "UPSTREAM_PATH", "Config", "Pump", "Stack", "keep_alive", "main"]

#: The path each kind serves.
PATHS: Final = {"proxy": "/v1/messages", "relay": "/v1/chat/completions"}
UPSTREAM_PATH: Final = "/v1/messages"
@attrs.frozen
class Stack:
    """One HTTP stack: its module here, its loop, its server's parser, its upstream client."""

    module: str
    uvloop: bool = False
    parser: str = ""  # uvicorn's "h11" or "httptools"
    client: str = ""  # the ASGI stack's upstream client: "httpx" or "httpx2"
    #: The packages it imports, for a caller that must skip a missing one.
    packages: tuple[str, ...] = ()
    #: The kinds it serves; a stack without its own pass-through names the stack whose
    #: proxy is its baseline, and is a contender measured beside the stacks, not one to pick.
    kinds: tuple[str, ...] = ("proxy", "relay")
    proxy_of: str = ""


#: The stacks the soak can measure, by name.
STACKS: Final[dict[str, Stack]] = {
    "aiohttp": Stack("stack_aiohttp", packages=("aiohttp",)),
    "uvicorn": Stack("stack_asgi", False, "h11", "httpx", ("uvicorn", "h11", "httpx")),
    "uvicorn-fast": Stack("stack_asgi", True, "httptools", "httpx",
                          ("uvicorn", "httptools", "uvloop", "httpx")),
    "uvicorn-httpx2": Stack("stack_asgi", True, "httptools", "httpx2",
                            ("uvicorn", "httptools", "uvloop", "httpx2")),
    "h11": Stack("stack_h11", packages=("h11",)),
    "h11-uvloop": Stack("stack_h11", True, packages=("h11", "uvloop")),
    # `python -m sse_engine gateway` itself (an aiohttp application): its relay only.
    "command": Stack("stack_command", packages=("aiohttp",), kinds=("relay",),
                     proxy_of="aiohttp"),
}


@attrs.frozen
class Config:
    """What a stack's ``serve()`` needs: where to listen, the upstream, the kind, the loop."""

    kind: str
    upstream: tuple[str, int]
    listen: tuple[str, int]
    keepalive: float
    stack: Stack

    @property
    def uvloop(self) -> bool:
        return self.stack.uvloop

    @property
    def path(self) -> str:
        return PATHS[self.kind]

    @property
    def upstream_url(self) -> str:
        return f"http://{self.upstream[0]}:{self.upstream[1]}{UPSTREAM_PATH}"


#: Upstream reads of every request, told at exit (``READS <n>`` on stderr): events per
#: read say whether the gateway kept up (1) or fell behind (reads carry several events).
_reads = 0


#: ``SOAK_RELAY_LEAN=0`` in the environment: the default relay instead, for an A/B of the two.
_LEAN = os.environ.get("SOAK_RELAY_LEAN", "1") != "0"


def _tell_reads() -> None:
    print(f"READS {_reads}", file=sys.stderr, flush=True)


class Pump:
    """One request's way through the gateway: its upstream request, then upstream bytes in,
    client bytes out. The pass-through returns what it reads; the relay what Relay writes."""

    __slots__ = ("feed", "last_read", "relay")

    def __init__(self, kind: str) -> None:
        self.last_read = time.monotonic()
        self.relay = None
        if kind == "relay":
            # lean: the memory a stream holds does not grow with its text (docs/gateways.md)
            self.relay = Relay(MessagesLane(), to="chat", created=int(time.time()), lean=_LEAN)
            self.feed: Callable[[bytes], bytes] = self._relayed
        else:
            self.feed = self._passed

    def request(self, body: bytes) -> bytes:
        """The upstream's request body for the client's."""
        return body if self.relay is None else wire.chat_to_messages(body)

    def start(self, status: int, headers: list[tuple[str, str]]) -> tuple[int, str]:
        """The upstream answered: the client's status and content type."""
        if self.relay is None:
            kinds = [value for name, value in headers if name.lower() == "content-type"]
            return status, kinds[0] if kinds else "application/octet-stream"
        self.relay.start(status, headers)
        return 200, "text/event-stream"

    def _passed(self, data: bytes) -> bytes:
        global _reads
        _reads += 1
        return data

    def _relayed(self, data: bytes) -> bytes:
        global _reads
        _reads += 1
        self.last_read = time.monotonic()
        assert self.relay is not None
        return self.relay.feed(data)

    def close(self) -> bytes:
        """The upstream's body ended or broke off: the last bytes for the client."""
        return b"" if self.relay is None else self.relay.close()

    def failure(self) -> tuple[int, str, bytes]:
        """The upstream could not be reached or answered nothing: the client's status,
        content type and body (the relay's: the client API's own error)."""
        if self.relay is not None:
            self.relay.start(502, [])
            self.relay.close()
            answer = self.relay.error_response()
            if answer is not None:
                status, headers, body = answer
                kinds = [value for name, value in headers if name.lower() == "content-type"]
                return status, kinds[0] if kinds else "application/json", body
        return 502, "text/plain", b"the upstream did not answer"

    def quiet(self, every: float) -> float:
        """Seconds until a keepalive is due (0 or less: due now); only a relay sends them."""
        return self.last_read + every - time.monotonic()

    def keepalive(self) -> bytes:
        assert self.relay is not None
        self.last_read = time.monotonic()
        return self.relay.keepalive()


async def keep_alive(pump: Pump, write: Callable[[bytes], Awaitable[object]], every: float) -> None:
    """Write a keepalive whenever the upstream has been quiet ``every`` seconds (a task;
    cancel it when the stream ends)."""
    while True:
        wait = pump.quiet(every)
        if wait > 0:
            await asyncio.sleep(wait)
        else:
            await write(pump.keepalive())


def _host_port(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host or "127.0.0.1", int(port)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").strip().splitlines()[0])
    ap.add_argument("--stack", choices=STACKS, required=True)
    ap.add_argument("--kind", choices=PATHS, required=True)
    ap.add_argument("--upstream", type=_host_port, required=True, metavar="HOST:PORT")
    ap.add_argument("--listen", type=_host_port, default=("127.0.0.1", 0), metavar="HOST:PORT")
    ap.add_argument("--keepalive", type=float, default=15.0, metavar="SECONDS")
    ap.add_argument("--profile", metavar="FILE", help="cProfile the gateway into FILE (on SIGTERM)")
    args = ap.parse_args(argv)
    stack = STACKS[args.stack]
    config = Config(args.kind, args.upstream, args.listen, args.keepalive, stack)
    serve = importlib.import_module(f"benchmarks.gateway_soak.{stack.module}").serve

    profiler = cProfile.Profile() if args.profile else None
    if profiler is not None and stack.module == "stack_command":
        # The command replaces this process: it profiles itself (stack_command.PROFILE_ENV).
        os.environ["SOAK_COMMAND_PROFILE"] = args.profile
        profiler = None

    def stop(signum: int, frame: object) -> None:
        # Exit here, without unwinding through whatever task the signal interrupted
        # (that would log its SystemExit as a traceback, which the soak counts).
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(args.profile)
        _tell_reads()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    if profiler is not None:
        profiler.enable()
    serve(config)
    return 0

if __name__ == "__main__":
    # Run the module the stacks import (not this __main__ copy): one Pump, one read count.
    sys.exit(importlib.import_module("benchmarks.gateway_soak.gateway").main())
