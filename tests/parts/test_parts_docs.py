"""docs/parts.md runs as written, and the parts' public names are where the docs say.

Each ``python`` block of the page runs in a fresh namespace and prints the
output the page shows right after it (the plain fenced block that follows);
so does the stream-driven example of docs/live-tool-input.md.
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

DOCS = Path(__file__).resolve().parents[2] / "docs"
# A python block, then (after some prose) the plain block holding what it prints.
EXAMPLE = re.compile(r"```python\n(.*?)```\n.*?```\n(.*?)```", re.DOTALL)
EXAMPLES = EXAMPLE.findall((DOCS / "parts.md").read_text(encoding="utf-8"))
STREAMED = [example for example in EXAMPLE.findall(
    (DOCS / "live-tool-input.md").read_text(encoding="utf-8")) if "PartStream" in example[0]]


def test_the_page_has_its_examples() -> None:
    assert len(EXAMPLES) == 4


@pytest.mark.parametrize("example", EXAMPLES + STREAMED)
def test_an_example_prints_what_the_page_says(example: tuple[str, str]) -> None:
    code, printed = example
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "a docs example", "exec"), {})
    assert out.getvalue() == printed


def test_live_tool_input_has_its_stream_driven_example() -> None:
    assert len(STREAMED) == 1


def test_every_part_name_is_exported_documented_and_the_same_at_the_top() -> None:
    for name in parts.__all__:
        obj = getattr(parts, name)
        if inspect.isclass(obj):
            assert inspect.getdoc(obj), name
        if name in sse_engine.__all__:
            assert getattr(sse_engine, name) is obj, name
    for name in ("PartStream", "TextDelta", "Finish", "Turn", "ToolCall", "Usage"):
        assert name in sse_engine.__all__
    # One name, one thing: TextDelta is the part; the Messages lane's event is TextBlockDelta.
    assert sse_engine.TextDelta is parts.TextDelta
    assert not hasattr(messages, "TextDelta") and messages.TextBlockDelta is not parts.TextDelta
