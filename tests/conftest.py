"""Shared pytest fixtures: the real HTTP test server (see tests/server.py).

Also whether compiled bytecode is kept. The tests start about a hundred Python
processes (the docs' code blocks, the examples, the CLI, mypy); where the
environment says not to write bytecode (``PYTHONDONTWRITEBYTECODE``), each of
them compiled sse_engine and the tests from source again. Here every process
pytest starts (its pytest-xdist workers too: they are started after this file is
read) writes it, beside the sources, in the ``__pycache__`` folders git ignores.
Not in a cache of its own elsewhere (``PYTHONPYCACHEPREFIX``, as this file did
before): Python then reads bytecode only from there, so every process compiled
the installed packages again too (pip compiles them where they are), the three
SDKs' thousands of modules: 21 s to collect the tests instead of 10 s, on every
fresh machine, CI's included.

Here too ``once_per_run``: work a session fixture does once for the whole run, however
many pytest-xdist workers ask for it (a mypy run, the docs site build), started in the
background when the run starts (tests/once.py).

And hypothesis's profiles (tests/hypothesis_budget.py): ``ci``, loaded unless
``HYPOTHESIS_PROFILE`` or ``--hypothesis-profile`` names another, runs each
property test at its reviewed count; ``thorough`` at the full counts.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Generator, Iterator
from pathlib import Path

if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
    # This process too (pytest's, or the only one under `-n 0`): it imports the
    # tests' helpers below, and with bytecode off it rewrote and compiled them again
    # on every run.
    sys.dont_write_bytecode = False

import pytest
from hypothesis import settings
from hypothesis_budget import CI, THOROUGH
from once import EARLY, OncePerRun, needs_early_work
from server import _stream_server, stream_server

__all__ = ["_stream_server", "once_per_run", "stream_server"]

# No deadline in either profile: how long an example takes is the benchmarks' business
# (benchmarks/), and on a loaded two-core machine a deadline only makes tests flaky.
# Tests without a count of their own run 10 examples every run, 100 in the deep run.
settings.register_profile(CI, max_examples=10, deadline=None)
settings.register_profile(THOROUGH, max_examples=100, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", CI))


@pytest.fixture(scope="session")
def once_per_run(tmp_path_factory: pytest.TempPathFactory) -> OncePerRun:
    """Slow work (a mypy run, the docs site build) done once for the whole run (tests/once.py)."""
    return OncePerRun(tmp_path_factory)


@pytest.fixture(scope="session", autouse=True)
def _start_early_work(
    request: pytest.FixtureRequest, once_per_run: OncePerRun
) -> Iterator[None]:
    """Start, in the background, the slow work that this run's tests will need."""
    modules = {Path(item.path).resolve() for item in request.session.items}
    for name, (module, _, _) in EARLY.items():
        if module in modules:
            once_per_run.start(name)
    yield
    # A worker that started the work finishes it, for the worker whose tests use it.
    for thread in once_per_run.started.values():
        thread.join()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked ``waits`` run first, and the tests that wait for slow work (a mypy
    run, the site build) run last.

    A test that mostly waits on child processes or sockets (the gateway soak) takes
    seconds of wall time and little CPU: started first, its waiting overlaps the other
    tests instead of trailing at the end of the run. The slow work starts in the
    background when the run starts (tests/once.py); run last, its tests find it done
    instead of holding a worker while it runs. The order is the same in every
    pytest-xdist worker, as xdist requires.
    """
    items.sort(key=lambda item: (
        item.get_closest_marker("waits") is None,
        needs_early_work(Path(item.path).resolve(), list(getattr(item, "fixturenames", ()))),
    ))


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Generator[None, object, object]:
    """No garbage collection while the tests are collected.

    Collecting is mostly importing (the three SDKs build thousands of pydantic models):
    millions of objects that stay alive, and almost no garbage (1,896 unreachable
    objects after the SDKs' imports). The collector's passes over that growing heap
    were about 0.6 s of each worker's collection, and found nothing to free.
    What is alive when collection ends is frozen (below); the collector then runs
    again, over what the tests make.
    """
    gc.disable()
    try:
        return (yield)
    finally:
        gc.enable()


def pytest_collection_finish(session: pytest.Session) -> None:
    """Everything alive once the tests are collected is kept out of the collector's reach.

    That is most of what a worker holds for the whole run: the three SDKs' modules and
    models, sse_engine, the test modules and their tables. Left in the oldest
    generation, each full collection walked all of it again: measured with
    ``gc.callbacks``, 46 to 112 full collections a worker, 3.3-3.5 s of each worker's
    time; each ``gc.collect()`` a test asks for (before a weakref check) cost 0.3 s.
    Nothing a test makes is frozen, so a test still sees its own garbage collected.
    """
    gc.freeze()


_thaw = gc.unfreeze
_thawed = False


def _unfreeze() -> None:
    global _thawed
    _thawed = True
    _thaw()


# gc.unfreeze() has no nesting: the benchmarks' gc_frozen and the memory tests freeze and
# thaw around what they measure, which thaws the whole worker too. Noted here, and frozen
# again once that test is over (gc.get_freeze_count() would tell, but it walks every
# frozen object: a second a call).
gc.unfreeze = _unfreeze


def pytest_runtest_logfinish(nodeid: str, location: tuple[str, int | None, str]) -> None:
    """Freeze the worker's heap again after a test that thawed it."""
    global _thawed
    if _thawed:
        _thawed = False
        gc.freeze()


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker per core.

    Not one more for the time tests spend waiting (child processes, sockets, timers):
    measured on two cores, a third worker cost more than the waits it covered (its
    own collection and imports, about 8 CPU-seconds, and every test slower beside
    it): 84 s against 78 s for the whole run.
    """
    return os.cpu_count() or 1


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """A pytest-xdist worker leaves as soon as it is done, without tearing down its
    interpreter.

    By now the worker has sent its last report and its ``workerfinished`` (pytest-xdist
    then counts it as down, not crashed), its session fixtures are torn down (servers
    stopped, child processes ended) and every plugin's own unconfigure has run. What
    is left is Python freeing, one by one, the millions of objects a worker holds (the
    three SDKs' models above all), while the run waits for it: measured, 4.7 s at the
    end of every run.
    """
    if os.environ.get("PYTEST_XDIST_WORKER"):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
