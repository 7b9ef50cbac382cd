"""docs/parts.md runs as written, and the parts' public names are where the docs say.

Each ``python`` block of the page runs in a fresh namespace and prints the
output the page shows right after it (the plain fenced block that follows).
"""

from __future__ import annotations

import contextlib
import inspect
import io
import re
from pathlib import Path

import pytest

import sse_engine
from sse_engine import messages, parts

PAGE = Path(__file__).resolve().parents[2] / "docs" / "parts.md"
TEXT = PAGE.read_text(encoding="utf-8")
# A python block, then (after some prose) the plain block holding what it prints.
EXAMPLES = re.findall(r"```python\n(.*?)```\n.*?```\n(.*?)```", TEXT, re.DOTALL)


def test_the_page_has_its_examples() -> None:
    assert len(EXAMPLES) == 2


@pytest.mark.parametrize("index", range(len(EXAMPLES)))
def test_an_example_prints_what_the_page_says(index: int) -> None:
    code, printed = EXAMPLES[index]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"docs/parts.md example {index}", "exec"), {})
    assert out.getvalue() == printed


def test_every_part_name_is_exported_documented_and_the_same_at_the_top() -> None:
    for name in parts.__all__:
        obj = getattr(parts, name)
        if inspect.isclass(obj):
            assert inspect.getdoc(obj), name
        if name in sse_engine.__all__:
            assert getattr(sse_engine, name) is obj, name
    for name in ("PartStream", "TextDelta", "Finish", "Turn", "ToolCall", "Usage"):
        assert name in sse_engine.__all__
    # The top-level TextDelta is the part; the Messages lane keeps its own event.
    assert sse_engine.TextDelta is parts.TextDelta is not messages.TextDelta
