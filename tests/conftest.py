"""Shared pytest fixtures: the real HTTP test server (see tests/server.py).

Also where compiled bytecode goes. The tests start about a hundred Python
processes (the docs' code blocks, the examples, the CLI, mypy); where the
environment says not to write bytecode (``PYTHONDONTWRITEBYTECODE``), each of
them compiled sse_engine and the tests' imports from source again. Here every
process pytest starts (its pytest-xdist workers too: they are started after
this file is read) keeps its bytecode in one cache outside the repository
(``PYTHONPYCACHEPREFIX``, unless one is set already), so the repository stays
clean and each module is compiled once.

Here too ``once_per_run``: work a session fixture does once for the whole run, however
many pytest-xdist workers ask for it (a mypy run, the docs site build).

And hypothesis's profiles (tests/hypothesis_budget.py): ``ci``, loaded unless
``HYPOTHESIS_PROFILE`` or ``--hypothesis-profile`` names another, runs each
property test at its reviewed count; ``thorough`` at the full counts.
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from hypothesis_budget import CI, THOROUGH
from server import _stream_server, stream_server

__all__ = ["_stream_server", "once_per_run", "stream_server"]

if not os.environ.get("PYTHONPYCACHEPREFIX"):
    os.environ["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "sse_engine-pycache")
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# No deadline in either profile: how long an example takes is the benchmarks' business
# (benchmarks/), and on a loaded two-core machine a deadline only makes tests flaky.
# Tests without a count of their own run 50 examples every run, 100 in the deep run.
settings.register_profile(CI, max_examples=50, deadline=None)
settings.register_profile(THOROUGH, max_examples=100, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", CI))


#: ``once(name, compute)``: ``compute()``'s JSON result, computed by the first worker that asks.
Once = Callable[[str, Callable[[], Any]], Any]


@pytest.fixture(scope="session")
def once_per_run(tmp_path_factory: pytest.TempPathFactory) -> Once:
    """Share a session fixture's (JSON) result between the pytest-xdist workers of one run.

    Each worker has its own session, so a session fixture runs once per worker;
    for a mypy run or a site build that doubles the suite's slowest work. The
    first worker to ask computes the result under a lock and leaves it in the
    run's temporary folder; the others wait for it and read it. (pytest-xdist's
    ``xdist_group`` would keep such tests on one worker, but under pytest 9 it
    no longer groups anything.) A result that raised is not kept: the next
    worker computes it again and fails, or skips, the same way.
    """
    base = tmp_path_factory.getbasetemp()
    # Under xdist each worker's base is <run>/popen-gwN: share <run>, new for each run.
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base

    def once(name: str, compute: Callable[[], Any]) -> Any:
        result = shared / f"once-{name}.json"
        with open(shared / f"once-{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if result.exists():
                return json.loads(result.read_text(encoding="utf-8"))
            result.write_text(json.dumps(compute()), encoding="utf-8")
            # Read back, so that every worker gets the same (JSON) value.
            return json.loads(result.read_text(encoding="utf-8"))

    return once
