"""Every ```python block in README.md and docs/*.md type-checks and runs, as a user would run it.

A reader copies a block into a file and runs it, so each block is:

- type-checked with ``mypy --strict`` (one run over all blocks, each in its own
  file), with the scripts of ``docs/examples/`` that the transports page quotes;
- run as a script (as ``python block.py`` would, with a timeout), with
  ``SSE_ENGINE_BASE_URL`` pointing at the loopback test server (tests/server.py),
  which every example that makes a request reads, defaulting to the public API.
  A block's runs share one Python process (tests/block_runner.py: each run starts
  from a clean environment, the imports are paid once); in the everyday run every
  block of a pytest-xdist worker shares it, in the deep run (CI's) each block
  has its own.

A block that streams from the server is run again with the connection cut
mid-stream, with a pre-stream HTTP 429 error and, where the lane has one, with
a refusal. It must never end in a traceback; a block that prints the verdict
(its last line names an outcome) must name the right one each time, print the
answer, and never print a refusal as answer text.

Two markers, an HTML comment on the line before the fence, make exceptions:

- ``<!-- excerpt: FILE -->``: the block is lines of ``docs/examples/FILE``; the
  whole file is type-checked here, and run by tests/transport/test_transport_examples.py;
- ``<!-- fragment: WHY -->``: not runnable on its own (say why); type-checked only.
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis_budget import deep
from mypy_runs import run_mypy
from once import OncePerRun, early
from server import StreamServer, capture_bytes, lane_of_path

from sse_engine import FORMATS
from sse_engine._lane import Lane

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples"
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUN_TIMEOUT = 60
RUNNER = Path(__file__).resolve().parent / "block_runner.py"

_FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>[\w+-]*)(?P<info>.*)$")
_MARKER = re.compile(r"^\s*<!--\s*(?P<kind>excerpt|fragment):\s*(?P<arg>.*?)\s*-->\s*$")
#: How a block prints the verdict: ``Outcome.TRUNCATED`` (the enum) or ``outcome: truncated``.
_OUTCOME = re.compile(r"\b(?:Outcome\.|outcome: ?)(completed|incomplete|failed|truncated)\b", re.I)


@attrs.frozen
class Block:
    """One fenced python block: where it is, its code (dedented), its marker."""

    page: str
    line: int
    code: str
    kind: str | None = None  # "excerpt", "fragment" or None (runnable)
    argument: str = ""

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def module(self) -> str:
        return "block_" + re.sub(r"\W", "_", self.id.removesuffix(".md").lower())


def read_blocks(path: Path) -> Iterator[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    page = path.relative_to(ROOT).as_posix()
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if fence is None or not fence["lang"]:
            i += 1
            continue
        indent, start = fence["indent"], i
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            i += 1
        if fence["lang"] == "python":
            before = next((s for s in reversed(lines[:start]) if s.strip()), "")
            marker = _MARKER.match(before)
            code = textwrap.dedent("\n".join(lines[start + 1 : i])) + "\n"
            assert all(s.startswith(indent) or not s.strip() for s in lines[start + 1 : i])
            yield Block(
                page, start + 1, code,
                marker["kind"] if marker else None, marker["arg"] if marker else "",
            )
        i += 1


BLOCKS = [block for page in PAGES for block in read_blocks(page)]
RUNNABLE = [block for block in BLOCKS if block.kind is None]


def test_blocks_are_found_and_python_fences_say_python() -> None:
    assert len(RUNNABLE) >= 10
    assert {b.page for b in RUNNABLE} >= {"README.md", "docs/index.md"}
    for page in PAGES:
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            fence = _FENCE.match(line)
            lang = fence["lang"] if fence else ""
            # Any other spelling of python would escape this test.
            assert lang in ("", "python") or not lang.startswith("py"), f"{page.name}:{n}"


def test_every_marker_is_honest() -> None:
    for block in BLOCKS:
        if block.kind == "excerpt":
            assert (EXAMPLES / block.argument).is_file(), block.id
        elif block.kind == "fragment":
            assert len(block.argument) > 10, f"{block.id}: say why it cannot run"


# -- one mypy --strict run over every block ----------------------------------------------------


#: Where the blocks are written to be run, one folder per pytest-xdist worker (gw0,
#: gw1, ...; "main" without xdist), as workers write and delete them at the same time.
WORK = ROOT / ".mypy_cache" / "doc_blocks" / os.environ.get("PYTEST_XDIST_WORKER", "main")
#: Where they are written to be type-checked: one run for the whole run
#: (tests/once.py), whichever worker makes it, with the cache tests/mypy_runs.py keeps
#: between runs. The files stay at the same paths from run to run: mypy's cache is
#: keyed by module name, and would replay the errors of a same-named file elsewhere.
CHECKS = ROOT / ".mypy_cache" / "doc_blocks" / "checked"


def write_blocks(folder: Path) -> dict[str, Path]:
    """Each block (but the excerpts) in its own file in ``folder``, by block id."""
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.py"):
        old.unlink()
    files = {}
    for block in BLOCKS:
        if block.kind != "excerpt":
            path = folder / f"{block.module}.py"
            path.write_text(block.code, encoding="utf-8")
            files[block.id] = path
    return files


# Session scope, not module: with pytest-xdist a worker may run tests of other
# modules between this module's, and a module fixture would be set up again.
@pytest.fixture(scope="session")
def block_files() -> dict[str, Path]:
    """Each block (but the excerpts) in its own file, by block id."""
    return write_blocks(WORK / "blocks")


def _unit_of(block: Block) -> str:
    return f"docs/examples/{block.argument}" if block.kind == "excerpt" else block.id


CHECKED = sorted({_unit_of(b) for b in BLOCKS} | {
    f"docs/examples/{p.name}" for p in EXAMPLES.glob("*.py")
})


def _syntax_error(path: Path) -> str | None:
    try:
        compile(path.read_text(encoding="utf-8"), str(path), "exec")
    except SyntaxError as exc:
        return f"{exc.lineno}: {exc.msg}"
    return None


@pytest.fixture(scope="session")
def mypy_errors(once_per_run: OncePerRun) -> dict[str, list[str]]:
    """mypy --strict's errors, by block id (or example script): one run for all workers."""
    errors: dict[str, list[str]] = once_per_run.get("docs-mypy")
    return errors


def _mypy_errors(_: pytest.TempPathFactory) -> dict[str, list[str]]:
    block_files = write_blocks(CHECKS / "blocks")
    # A syntax error would stop mypy's whole run: report it for its block alone.
    syntax = {unit: _syntax_error(path) for unit, path in block_files.items()}
    paths = {str(path): unit for unit, path in block_files.items() if syntax[unit] is None}
    paths |= {str(EXAMPLES / p.name): f"docs/examples/{p.name}" for p in EXAMPLES.glob("*.py")}
    # MYPYPATH: this checkout's sse_engine, whatever else is installed.
    env = {**os.environ, "MYPYPATH": str(ROOT)}
    done = run_mypy(list(paths), cwd=ROOT, env=env)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    errors = {unit: [f"syntax error, line {bad}"] for unit, bad in syntax.items() if bad}
    errors |= {unit: [] for unit in paths.values()}
    for line in done.stdout.splitlines():
        path, _, rest = line.partition(":")
        unit = paths.get(path) or paths.get(str((ROOT / path).resolve()))
        assert unit is not None, line
        if ": error:" in line:
            errors[unit].append(rest)
    return errors


early(__file__, "docs-mypy", _mypy_errors, fixture="mypy_errors")


# One mypy run checks every block, whichever pytest-xdist workers its tests run on.
@pytest.mark.parametrize("unit", CHECKED)
def test_block_type_checks(unit: str, mypy_errors: dict[str, list[str]]) -> None:
    errors = mypy_errors[unit]
    assert not errors, f"mypy --strict on {unit}:\n" + "\n".join(errors)


# -- each runnable block runs ---------------------------------------------------------------------


@attrs.frozen
class Run:
    returncode: int
    stdout: str
    stderr: str
    lanes: frozenset[str]
    resumed: bool

    @property
    def last_line(self) -> str:
        lines = [line for line in self.stdout.splitlines() if line.strip()]
        return lines[-1] if lines else ""

    @property
    def verdict(self) -> str | None:
        found = _OUTCOME.search(self.last_line)
        return found[1].lower() if found else None

    def assert_clean(self, what: str) -> None:
        assert "Traceback" not in self.stderr, f"{what}:\n{self.stderr}"
        assert self.returncode == 0, f"{what}: exit status {self.returncode}\n{self.stderr}"


#: Where nothing listens: every connect is refused (port 1 needs root to bind).
UNREACHABLE = "http://127.0.0.1:1"


class BlockProcess:
    """One Python process that runs blocks again and again (tests/block_runner.py).

    Each run is what ``python block.py`` does (see block_runner.py for what carries
    over: imported modules), but the imports are paid once, not once a run.
    If a run ends the process, the next run starts another.
    """

    def __init__(self, out: Path) -> None:
        self.out = out
        self.process: subprocess.Popen[bytes] | None = None
        self.runs = 0

    def _start(self, env: dict[str, str]) -> subprocess.Popen[bytes]:
        requests_read, self.requests = os.pipe()
        self.responses, responses_write = os.pipe()
        process = subprocess.Popen(
            [sys.executable, str(RUNNER), str(requests_read), str(responses_write)],
            cwd=self.out, env=env, stdin=subprocess.DEVNULL,
            pass_fds=(requests_read, responses_write),
        )
        os.close(requests_read)
        os.close(responses_write)
        return process

    def run(self, script: Path, env: dict[str, str]) -> tuple[int, str, str]:
        if self.process is None or self.process.poll() is not None:
            self.close()
            self.process = self._start(env)
        self.runs += 1
        stdout, stderr = self.out / f"{self.runs}.out", self.out / f"{self.runs}.err"
        request = {"script": str(script), "env": env, "stdout": str(stdout),
                   "stderr": str(stderr)}
        try:
            os.write(self.requests, (json.dumps(request) + "\n").encode())
            answer = self._answer(script)
        except BrokenPipeError:
            answer = b""
        if answer:
            returncode = json.loads(answer)["returncode"]
        else:  # the block ended the process: its exit status is the run's
            assert self.process is not None
            returncode = self.process.wait(timeout=RUN_TIMEOUT)
            self.close()
        def read(path: Path) -> str:
            text = path.read_bytes().decode(errors="replace") if path.exists() else ""
            return text.replace("\r\n", "\n")  # as subprocess.run(text=True) reads it
        return returncode, read(stdout), read(stderr)

    def _answer(self, script: Path) -> bytes:
        assert self.process is not None
        answer = b""
        deadline = time.monotonic() + RUN_TIMEOUT
        while not answer.endswith(b"\n"):
            ready, _, _ = select.select([self.responses], [], [], deadline - time.monotonic())
            if not ready:
                self.close()
                raise subprocess.TimeoutExpired([str(script)], RUN_TIMEOUT)
            piece = os.read(self.responses, 4096)
            if not piece:
                return b""
            answer += piece
        return answer

    def close(self) -> None:
        if self.process is None:
            return
        os.close(self.requests)
        os.close(self.responses)
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.process = None


@attrs.define
class BlockScript:
    """One block's file, run in a :class:`BlockProcess`."""

    path: Path
    process: BlockProcess

    def run(self, env: dict[str, str]) -> tuple[int, str, str]:
        return self.process.run(self.path, env)


def run_block(
    process: BlockScript, server: StreamServer, *, keys: bool = True, url: str | None = None,
    **faults: str,
) -> Run:
    """Run a block against the server with ``faults`` (without API ``keys``, or at ``url``)."""
    server.reset()
    server.defaults.update(faults)
    python_path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    base = url or server.url
    env = {
        **{k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")},
        "PYTHONPATH": python_path,  # this checkout's sse_engine, whatever else is installed
        "SSE_ENGINE_BASE_URL": f"{base}/v1",
        "OPENAI_BASE_URL": f"{base}/v1",  # for blocks that show the official SDKs
        "ANTHROPIC_BASE_URL": base,
    }
    if keys:
        env |= {"OPENAI_API_KEY": "sk-test", "ANTHROPIC_API_KEY": "sk-ant-test"}
    returncode, stdout, stderr = process.run(env)
    lanes = frozenset(
        lane for s in server.seen if s.method == "POST" and (lane := lane_of_path(s.path))
    )
    resumed = any(s.method == "GET" for s in server.seen)
    return Run(returncode, stdout, stderr, lanes, resumed)


LANES: dict[str, type[Lane[Any]]] = {name: row.lane for name, row in FORMATS.items()}


def assembled(capture: str) -> dict[str, str]:
    """The answer text and the refusal text a lane assembles from a bundled capture."""
    lane_name = capture.split("_")[0]
    lane = LANES[lane_name]()
    lane.feed(capture_bytes(capture))
    lane.close()
    snapshot: Any = lane.snapshot
    if lane_name == "chat":
        message = snapshot.to_api()["choices"][0]["message"]
        return {"text": message.get("content") or "", "refusal": message.get("refusal") or ""}
    if lane_name == "responses":
        refusal = "".join(item.refusal or "" for item in snapshot.items)
        return {"text": snapshot.output_text, "refusal": refusal}
    return {"text": snapshot.text, "refusal": ""}  # Messages, Gemini: no refusal field


@pytest.fixture(scope="session")
def shared_block_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BlockProcess]:
    """The everyday run's one process for every block a worker runs (the deep run: none)."""
    process = BlockProcess(tmp_path_factory.mktemp("block-runs"))
    yield process
    process.close()


@pytest.mark.parametrize("block", RUNNABLE, ids=lambda b: b.id)
def test_block_runs(
    block: Block, block_files: dict[str, Path], stream_server: StreamServer, tmp_path: Path,
    shared_block_process: BlockProcess,
) -> None:
    # Everyday, a worker's blocks share one process (its imports paid once); the deep run
    # (CI's) gives each block its own, whose first run is exactly `python block.py`.
    own = BlockProcess(tmp_path) if deep() else None
    try:
        check_block_runs(BlockScript(block_files[block.id], own or shared_block_process),
                         stream_server)
    finally:
        if own is not None:
            own.close()


def check_block_runs(process: BlockScript, stream_server: StreamServer) -> None:
    normal = run_block(process, stream_server)
    normal.assert_clean("as written")
    if not normal.lanes:
        return
    (lane,) = normal.lanes
    prints_verdict = normal.verdict is not None
    if prints_verdict:
        assert normal.verdict == "completed", normal.stdout
        assert assembled(f"{lane}_basic")["text"] in normal.stdout

    cut = run_block(process, stream_server, cut="5:10")
    cut.assert_clean("with the connection cut mid-stream")
    if prints_verdict:
        assert cut.verdict == ("completed" if cut.resumed else "truncated"), cut.stdout

    refused = run_block(process, stream_server, status="429")
    refused.assert_clean("with an HTTP 429 before the stream")
    if prints_verdict:
        assert refused.verdict == "failed", refused.stdout

    # Issue 20: no key set (an empty "Bearer " is a header h11 refuses to send), and a
    # connection that never opens (the lane was never started: its verdict was None).
    keyless = run_block(process, stream_server, keys=False)
    keyless.assert_clean("without an API key")
    assert keyless.verdict == normal.verdict, keyless.stdout
    unreachable = run_block(process, stream_server, url=UNREACHABLE)
    unreachable.assert_clean("with a server that refuses the connection")
    if prints_verdict:
        assert unreachable.verdict == "truncated", unreachable.stdout

    if (ROOT / "sse_engine" / "captures" / f"{lane}_refusal.sse").exists():
        refusal = run_block(process, stream_server, capture=f"{lane}_refusal")
        refusal.assert_clean("with a refusal")
        text = assembled(f"{lane}_refusal")["refusal"]
        assert text
        assert text not in refusal.stdout, "a refusal printed as answer text"
        if prints_verdict:
            assert refusal.verdict is not None
