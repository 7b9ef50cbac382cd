"""The code blocks of docs/chat.md run as written (each in a fresh namespace)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "chat.md"
BLOCKS = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.DOTALL)


def test_the_page_has_code_blocks() -> None:
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_a_code_block_runs(index: int) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(BLOCKS[index], f"docs/chat.md block {index}", "exec"), {})
    if index == 0:
        assert out.getvalue() == "Checking\nrun get_weather({'city': 'Paris'})\n"
