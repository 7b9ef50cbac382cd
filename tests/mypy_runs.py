"""One way to run mypy for the tests that type-check a user's code: one set of options, one cache.

Three test modules run ``mypy --strict`` over code as a user writes it: the docs'
blocks (tests/test_docs_snippets.py), the typing scripts (tests/test_typing.py) and
a script outside the repository that finds sse_engine through its install
(tests/test_install.py). On a fresh clone mypy's cache is empty, and each run
checked the standard library and sse_engine from scratch, in a cache of its own
(most of a cold run is the docs block that imports ``anthropic``: 14 s of mypy
for that import alone). mypy keeps a module's result in the cache for the options
that can change it, so runs with the same options can share one: here every run
has the same options and the same cache, the first run of a test run fills it and
the others read it.
Two mypy processes must not write one cache at once, so they take turns (a lock).
"""

from __future__ import annotations

import fcntl
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The cache every run shares, kept between test runs (git ignores .mypy_cache).
CACHE = ROOT / ".mypy_cache" / "tests"

#: The options of every run. ``--python-version`` is the project's (pyproject.toml),
#: whatever the directory a run starts in, so each module has one cached result.
OPTIONS = (
    "--strict", "--warn-unreachable", "--python-version", "3.11",
    "--no-color-output", "--show-error-codes", "--no-error-summary",
)


def run_mypy(
    paths: Sequence[str], *, cwd: Path, env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """mypy with :data:`OPTIONS` over ``paths`` from ``cwd``, when no other run writes the cache."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        return subprocess.run(
            [sys.executable, "-m", "mypy", *OPTIONS, "--cache-dir", str(CACHE), *paths],
            cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False,
        )
