"""The soak's processes: starting one, its readiness line, its CPU time and resident memory.

Each server process prints ``READY <port>`` once it listens; :func:`spawn`
waits for that line. CPU seconds and RSS are read from ``/proc`` (Linux: the
soak measures a Linux gateway), for the whole process, every thread included.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import selectors
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

__all__ = ["REPO_ROOT", "Child", "announce", "cpu_seconds", "new_event_loop", "rss_bytes"]

REPO_ROOT = Path(__file__).resolve().parents[2]
_TICK = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")


def announce(port: int) -> None:
    """Tell the parent this process listens on ``port``."""
    print(f"READY {port}", flush=True)


@contextlib.contextmanager
def new_event_loop(uvloop: bool = False) -> Iterator[asyncio.AbstractEventLoop]:
    """A fresh event loop: uvloop's when asked and installed, else asyncio's."""
    loop: asyncio.AbstractEventLoop | None = None
    if uvloop:
        with contextlib.suppress(ImportError):
            import uvloop as _uvloop

            loop = _uvloop.new_event_loop()
    if loop is None:
        loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        yield loop
    finally:
        loop.close()


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds the process ``pid`` has used (all its threads)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


def rss_bytes(pid: int) -> int:
    """The process's resident set size in bytes."""
    with open(f"/proc/{pid}/statm", encoding="ascii") as fh:
        return int(fh.read().split()[1]) * _PAGE


class Child:
    """A soak process started with ``python -m MODULE ARGS``; stderr goes to ``log``."""

    def __init__(self, module: str, args: list[str], log: Path, ready: bool = True,
                 stdout: IO[bytes] | int | None = None, timeout: float = 30.0) -> None:
        self.log = log
        self._err = open(log, "wb")  # noqa: SIM115 - closed in stop(), after the process
        self.proc = subprocess.Popen(
            [sys.executable, "-m", module, *args], cwd=REPO_ROOT,
            stdout=subprocess.PIPE if ready else stdout, stderr=self._err,
        )
        self.pid = self.proc.pid
        self.port = self._wait_ready(timeout) if ready else 0

    def _wait_ready(self, timeout: float) -> int:
        assert self.proc.stdout is not None
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            deadline = time.monotonic() + timeout
            while (left := deadline - time.monotonic()) > 0 and sel.select(left):
                line = self.proc.stdout.readline().decode(errors="replace")
                if line.startswith("READY "):
                    return int(line.split()[1])
                if not line:
                    break
        self.stop()
        raise RuntimeError(f"{self.proc.args!r} did not start: {self.log.read_text()[-2000:]}")

    def stop(self) -> None:
        """End the process (SIGTERM, then SIGKILL after 5 s) and close its log."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self._err.close()

    def __enter__(self) -> Child:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
