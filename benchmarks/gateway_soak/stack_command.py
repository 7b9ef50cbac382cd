"""The gateway command itself: this process becomes ``python -m sse_engine gateway``.

Not a stack of the soak's own: the ``sse-engine gateway`` command (aiohttp,
``sse_engine.gateway``) run as a user runs it, with ``--upstream-format
messages`` in front of the soak's fake upstream. Its ``relay`` is the same
work as the soak's relays (a Chat Completions client, a Messages upstream),
done by the command's own code: the request through ``Conversation``, the
stream through its ``Relay``, its keepalives, its log line per request.

The process *execs* the command, so the process the soak measures (CPU, RSS,
the log it counts tracebacks in) is the command and nothing else. The command
says where it listens in its log, not as the soak's ``READY <port>`` line: so
the port is picked here, and a forked helper (which exits once it has spoken,
and costs the command nothing) prints that line when the port accepts.
"""

from __future__ import annotations

import os
import socket
import sys
import time

from benchmarks.gateway_soak.gateway import Config
from benchmarks.gateway_soak.procs import announce

__all__ = ["CHECKOUT_ENV", "PROFILE_ENV", "serve"]

#: The environment variable that carries the soak's ``--profile FILE`` into the command.
PROFILE_ENV = "SOAK_COMMAND_PROFILE"
#: The environment variable naming a directory whose ``sse_engine/`` the command runs
#: instead of this checkout's (an A/B of two revisions of the command in one soak).
CHECKOUT_ENV = "SOAK_COMMAND_CHECKOUT"

#: How long the command may take to listen (imports, aiohttp's start).
_START_SECONDS = 30.0


def serve(config: Config) -> None:
    """Replace this process with the gateway command serving ``config``'s upstream."""
    host, port = config.listen
    if port == 0:
        port = _free_port(host)
    if os.fork() == 0:
        _announce_when_listening(host, port)
    upstream = f"http://{config.upstream[0]}:{config.upstream[1]}"
    # --profile FILE: the command under cProfile (it stops on SIGTERM, so the profile is
    # written as the process exits).
    profile = os.environ.get(PROFILE_ENV)
    profiler = ["-m", "cProfile", "-o", profile] if profile else []
    checkout = os.environ.get(CHECKOUT_ENV)
    if checkout:
        os.chdir(checkout)  # `python -m` puts the working directory first on sys.path
    os.execv(sys.executable, [
        sys.executable, *profiler, "-m", "sse_engine", "gateway", "--upstream", upstream,
        "--upstream-format", "messages", "--listen", f"{host}:{port}",
        "--keepalive", str(config.keepalive), "--grace", "1",
    ])


def _free_port(host: str) -> int:
    # Free now, and the command binds it within a second: no other process on a
    # soak's machine picks ports meanwhile (the others ask the kernel for port 0).
    with socket.socket() as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port


def _announce_when_listening(host: str, port: int) -> None:
    """The forked helper: ``READY <port>`` once a connection to the command succeeds."""
    deadline = time.monotonic() + _START_SECONDS
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=1):
                announce(port)
                break
        except OSError:
            time.sleep(0.05)
    os._exit(0)
