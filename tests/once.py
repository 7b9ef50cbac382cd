"""Slow work done once for the whole test run, started as soon as the run starts.

A mypy run or the docs site build takes seconds of a subprocess. As a plain
session fixture it would run once per pytest-xdist worker, and the tests that
need it would wait for it while a core sits idle. Here a test module names such
work with :func:`early` (a name and a function of ``tmp_path_factory`` that
returns JSON); tests/conftest.py then starts it in a background thread of every
worker when the session starts, if any of the module's tests is to run, so the
subprocess runs while the worker runs other tests. The first worker to start it
computes it (under a lock, in the run's temporary folder); the others read its
result. A fixture gets the result with :meth:`OncePerRun.get`, which waits for
the background thread. A computation that raised (a failure, or a skip) is not
kept: :meth:`OncePerRun.get` runs it again in the test's own thread, so it
fails or skips the test the same way.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

#: ``compute(tmp_path_factory)``: the JSON value of one piece of slow work.
Compute = Callable[[pytest.TempPathFactory], Any]

#: The work test modules named, by name: (the test module's path, compute, the
#: fixture that gives its result).
EARLY: dict[str, tuple[Path, Compute, str]] = {}


def early(module_file: str, name: str, compute: Compute, *, fixture: str) -> None:
    """Name slow work of the test module ``module_file``, which ``fixture`` gives to its tests.

    A run that has any of the module's tests starts it; the tests that use
    ``fixture`` run last (tests/conftest.py), so it is done before they wait.
    """
    EARLY[name] = (Path(module_file).resolve(), compute, fixture)


def needs_early_work(path: Path, fixtures: list[str]) -> bool:
    """Whether a test (its module's path, its fixtures) waits for work named with :func:`early`."""
    return any(path == module and fixture in fixtures for module, _, fixture in EARLY.values())


class OncePerRun:
    """Each named computation's (JSON) result, computed by the first worker of a run that asks."""

    def __init__(self, tmp_path_factory: pytest.TempPathFactory) -> None:
        self.factory = tmp_path_factory
        base = tmp_path_factory.getbasetemp()
        # Under xdist each worker's base is <run>/popen-gwN: share <run>, new for each run.
        self.shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
        self.started: dict[str, threading.Thread] = {}

    def start(self, name: str) -> None:
        """Compute ``name`` in a background thread (a failure is left for :meth:`get`)."""
        _, compute, _ = EARLY[name]

        def work() -> None:
            # A failure or a skip: get() computes it again, and raises it in the test.
            with contextlib.suppress(BaseException):
                self._once(name, compute)

        thread = threading.Thread(target=work, name=f"once-{name}", daemon=True)
        self.started[name] = thread
        thread.start()

    def get(self, name: str, compute: Compute | None = None) -> Any:
        """``name``'s result: waits for its background computation, or computes it."""
        thread = self.started.get(name)
        if thread is not None:
            thread.join()
        return self._once(name, compute or EARLY[name][1])

    def _once(self, name: str, compute: Compute) -> Any:
        result = self.shared / f"once-{name}.json"
        with open(self.shared / f"once-{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if result.exists():
                return json.loads(result.read_text(encoding="utf-8"))
            value = json.dumps(compute(self.factory))
            result.write_text(value, encoding="utf-8")
            # Read back, so that every worker gets the same (JSON) value.
            return json.loads(value)
