"""Run docs code blocks many times in one Python process, as if each run were its own.

tests/test_docs_snippets.py runs every runnable block up to six times (as written,
then under faults). Started as ``python block_runner.py REQUESTS RESPONSES``
(two pipe file descriptors), this script reads one JSON request per line, each
``{"script": BLOCK.py, "env": ..., "stdout": PATH, "stderr": PATH}``, and answers
each with ``{"returncode": N}`` once the block has run as ``__main__`` under that
environment, its file descriptors 1 and 2 written to the two paths. The everyday
run sends every block of a pytest-xdist worker to one such process; the deep run
(``HYPOTHESIS_PROFILE=thorough``, what CI runs) starts one for each block, so
there each block's first run starts as clean as ``python BLOCK.py``.

A run is what ``python BLOCK.py`` would do, but for what the process keeps from
one run to the next: imported modules (so sse_engine, httpx and the SDKs are
imported once, not six times: the point of this file) and the state they hold.
What a fresh process would start without is reset before each run: the
environment, the working directory, ``sys.path[0]``, ``sys.argv`` and the
warnings already shown. The exit status is the interpreter's: 0, ``sys.exit``'s
code, or 1 with the traceback on stderr. If the block ends the process itself
(``os._exit``), the caller sees it exit and starts another for the next run.

This file is not a test module; it imports nothing of the tests' or the library's,
so the first run in a process starts as clean as ``python BLOCK.py`` does.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
import threading
import traceback
import warnings


def _exit_code(exit: SystemExit) -> int:
    """The status ``python`` exits with for ``sys.exit(code)`` (a message goes to stderr)."""
    code = exit.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _forget_warnings() -> None:
    # A fresh process shows each warning once: forget the ones the earlier runs showed.
    for module in list(sys.modules.values()):
        registry = getattr(module, "__warningregistry__", None)
        if isinstance(registry, dict):
            registry.clear()
    warnings.resetwarnings()
    for option in sys.warnoptions:  # what -W and PYTHONWARNINGS set at start-up
        warnings._setoption(option)  # type: ignore[attr-defined]


def run(script: str, env: dict[str, str], stdout: str, stderr: str) -> int:
    """Run ``script`` once as ``__main__``, its fds 1 and 2 sent to the two paths."""
    os.environ.clear()
    os.environ.update(env)
    os.chdir(os.path.dirname(script))
    sys.path[0] = os.path.dirname(script)
    sys.argv = [script]
    _forget_warnings()
    before = set(threading.enumerate())
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    out = os.open(stdout, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    err = os.open(stderr, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(out, 1)
    os.dup2(err, 2)
    try:
        try:
            runpy.run_path(script, run_name="__main__")
            code = 0
        except SystemExit as exit:
            code = _exit_code(exit)
        except BaseException:
            traceback.print_exc()
            code = 1
        # As at exit, wait for the threads the run started and left running.
        for thread in set(threading.enumerate()) - before:
            if not thread.daemon:
                thread.join()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, out, err):
            os.close(fd)
    return code


def main() -> None:
    requests, responses = int(sys.argv[1]), int(sys.argv[2])
    with open(requests, encoding="utf-8") as inbox, open(responses, "w") as outbox:
        for line in inbox:
            request = json.loads(line)
            code = run(request["script"], request["env"], request["stdout"], request["stderr"])
            outbox.write(json.dumps({"returncode": code}) + "\n")
            outbox.flush()


if __name__ == "__main__":
    main()
