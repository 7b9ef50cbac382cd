"""The package as a user installs it: what the wheel holds, and that mypy follows the install.

``pip install -e .`` must give an install that a type checker follows (a plain
``.pth`` path entry, not an import hook), so ``mypy --strict`` on a user's own
script, outside the repository, sees the package's types. These tests need the
package installed from this checkout (``.ci/run`` does that) and the build
backend (``pip install -e '.[dev]'``); elsewhere they skip, except under CI
(``CI`` set), where a skip would hide a broken install and fails instead.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest
from mypy_runs import run_mypy
from once import OncePerRun, early

import sse_engine

ROOT = Path(__file__).resolve().parent.parent
CAPTURES = ROOT / "sse_engine" / "captures"


def _missing(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; under CI it must be: python -m pip install -e '.[dev]'")
    pytest.skip(reason)


def _installed_from() -> Path | None:
    """The checkout sse_engine is installed from (None: not installed from a directory)."""
    try:
        dist = metadata.distribution("sse_engine")
    except metadata.PackageNotFoundError:
        return None
    text = dist.read_text("direct_url.json")
    if text is None:
        return None
    url = urlparse(json.loads(text).get("url", ""))
    return Path(unquote(url.path)).resolve() if url.scheme == "file" else None


USER_SCRIPT = """\
from sse_engine import ChatCompletionsLane, Outcome, StreamEnd

lane = ChatCompletionsLane()
events = lane.feed(b'data: {"object": "chat.completion.chunk", "choices": []}\\n\\n')
events += lane.close()
ends = [event for event in events if isinstance(event, StreamEnd)]
outcome: Outcome | None = lane.outcome
print(outcome, len(ends))
"""

#: A mistake mypy must catch: proof that it read the package's types, not Any.
USER_MISTAKE = """\
from sse_engine import ChatCompletionsLane

outcome: int = ChatCompletionsLane().outcome
"""


def _mypy_on_user_scripts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """mypy --strict on a user's two scripts outside the repository, then the correct one run."""
    installed = _installed_from()
    if installed != ROOT:
        _missing(f"sse_engine is not installed from this checkout ({installed or 'not installed'})")
    files = metadata.distribution("sse_engine").files or []
    hooks = [f.name for f in files if f.name.startswith("__editable__") and f.suffix == ".py"]
    assert not hooks, (
        f"sse_engine is installed through an import hook ({hooks[0]}), which mypy cannot "
        "follow: an install from before pyproject.toml switched to hatchling; "
        "re-run python -m pip install -e '.[dev]'"
    )
    tmp_path = tmp_path_factory.mktemp("install")
    (tmp_path / "user_script.py").write_text(USER_SCRIPT)
    (tmp_path / "user_mistake.py").write_text(USER_MISTAKE)
    # One mypy run over both scripts (cwd outside the repository: only the install
    # can provide sse_engine): every error it reports is the mistake's. Its cache
    # (tests/mypy_runs.py) holds the package's result when unchanged, but mypy still
    # finds the package through the install, or not at all.
    checked = run_mypy(["user_script.py", "user_mistake.py"], cwd=tmp_path)
    ran = subprocess.run(
        [sys.executable, "user_script.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, check=True,
    )
    return {"returncode": checked.returncode, "output": checked.stdout + checked.stderr,
            "stdout": checked.stdout, "ran": ran.stdout}


# Started when the run starts, in the background (tests/once.py): mypy takes seconds.
early(__file__, "install-mypy", _mypy_on_user_scripts, fixture="user_scripts_checked")


@pytest.fixture
def user_scripts_checked(once_per_run: OncePerRun) -> dict[str, Any]:
    checked: dict[str, Any] = once_per_run.get("install-mypy")
    return checked


def test_mypy_strict_follows_the_installed_package(user_scripts_checked: dict[str, Any]) -> None:
    checked = user_scripts_checked
    assert checked["returncode"] == 1, checked["output"]
    errors = [line for line in checked["stdout"].splitlines() if ": error:" in line]
    assert [line.split(":")[0] for line in errors] == ["user_mistake.py"], checked["stdout"]
    assert 'has type "Outcome | None", variable has type "int"' in errors[0]
    assert checked["ran"] == "Outcome.TRUNCATED 1\n"


def test_the_wheel_holds_the_package_its_type_marker_and_the_captures(tmp_path: Path) -> None:
    if importlib.util.find_spec("hatchling") is None:
        _missing("the build backend (hatchling) is not installed")
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=True,
    )
    (wheel,) = tmp_path.glob("*.whl")
    assert wheel.name == f"sse_engine-{sse_engine.__version__}-py3-none-any.whl"
    names = set(zipfile.ZipFile(wheel).namelist())
    tops = {name.split("/")[0] for name in names}
    assert tops == {"sse_engine", f"sse_engine-{sse_engine.__version__}.dist-info"}
    assert "sse_engine/py.typed" in names
    captures = {f"sse_engine/captures/{p.name}" for p in CAPTURES.iterdir() if p.is_file()}
    assert captures and captures <= names
    sources = {
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "sse_engine").rglob("*.py")
        if "__pycache__" not in p.parts
    }
    assert sources <= names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    entry_points = zipfile.ZipFile(wheel).read(
        f"sse_engine-{sse_engine.__version__}.dist-info/entry_points.txt"
    ).decode()
    assert "sse-engine = sse_engine.__main__:main" in entry_points


def test_the_version_has_one_source() -> None:
    # pyproject.toml reads the version from sse_engine/__init__.py; the installed
    # metadata (when installed from here) says the same.
    assert 'dynamic = ["version"]' in (ROOT / "pyproject.toml").read_text()
    if _installed_from() == ROOT:
        assert metadata.version("sse_engine") == sse_engine.__version__


def _set_up_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Set-up on a fresh machine\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^```\n(.*?)\n```$", section, flags=re.M | re.S)


def test_the_readme_has_two_set_up_commands_and_ci_runs_them_verbatim() -> None:
    commands = _set_up_commands()
    assert len(commands) == 2, commands
    main, tests = commands
    assert "\n" not in main and "\n" not in tests
    assert main.endswith("-m sse_engine demo") and tests.endswith("-m pytest")
    # Each command installs what it runs, into a virtual environment of its own
    # (a fresh Debian or Ubuntu refuses pip installs outside one).
    assert all(c.startswith("python3 -m venv .venv && .venv/bin/python -m pip install -e ")
               for c in commands)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert main in ci and tests in ci
    assert ci.index(tests) == len(ci) - 1  # the test run is what CI ends on


def test_the_docs_install_from_a_clone_with_python_3_11() -> None:
    # The package is not on an index: no `pip install sse_engine` that would fail.
    from_index = re.compile(r"pip install (?:-\S+ )*['\"]?sse[_-]engine\b")
    for page in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        assert not from_index.search(page.read_text(encoding="utf-8")), page.name
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "Python 3.11 or newer" in readme
    assert 'requires-python = ">=3.11"' in (ROOT / "pyproject.toml").read_text()
    for extra in ("httpx", "aiohttp", "orjson"):
        assert f"`[{extra}]`" in readme
