"""``sse-engine --version``: the package's version, from the one place it is written."""

from __future__ import annotations

import subprocess
import sys

import pytest

import sse_engine
from sse_engine.cli import main


def test_version_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"sse-engine {sse_engine.__version__}\n"


def test_version_from_the_module_entry_point() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "sse_engine", "--version"],
        capture_output=True, text=True, check=True, timeout=60,
    )
    assert result.stdout.strip() == f"sse-engine {sse_engine.__version__}"
    assert sse_engine.__version__.count(".") == 2
