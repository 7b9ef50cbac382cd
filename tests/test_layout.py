"""The layout holds: a wire format is one folder, rooms are small, imports point down.

Read from the code itself (its imports and string constants), so the rules
cannot drift from it:

- no module imports another folder's private modules (``sse_engine.chat._lane``
  from ``sse_engine/parts/``): a folder's face is its ``__init__``;
- no import cycle among the package's modules (``if TYPE_CHECKING`` imports
  and imports inside functions count: they are arrows all the same);
- no module over 500 lines;
- a format's own wire strings (what its ``_wire.py`` tables name: event
  types, object names, reasons, block kinds, paths) appear as code only in
  its folder. Two rooms are shared on purpose: ``_outcome.py`` keeps the one
  table of error codes that decides retrying for every API (gateways carry
  one API's codes inside another's stream), and ``_openai.py`` the error
  object the two OpenAI formats share.
"""

from __future__ import annotations

import ast
import collections
import functools
import importlib
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs

import sse_engine
from sse_engine import FINISH_REASONS, FORMATS

PACKAGE = Path(sse_engine.__file__).resolve().parent
MODULES = sorted(PACKAGE.rglob("*.py"))
MAX_LINES = 500
#: Rooms that name several formats' wire strings on purpose (see the module docstring).
SHARED_ROOMS = {"_outcome.py", "_openai.py"}
#: What a wire identifier looks like (a generic word such as "text" is no format's own).
IDENTIFIER = re.compile(r"[._/\[]")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@functools.cache
def tree(path: Path) -> ast.Module:
    """``path`` parsed, once per run (each rule reads every module)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def imports(path: Path) -> Iterator[str]:
    """Every ``sse_engine`` module ``path`` imports, wherever the import statement is."""
    package = module_name(path) if path.name == "__init__.py" else module_name(path.parent)
    for node in ast.walk(tree(path)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        yield from (name for name in names if name.startswith("sse_engine"))


def graph() -> dict[str, set[str]]:
    known = {module_name(path) for path in MODULES}
    edges: dict[str, set[str]] = {}
    for path in MODULES:
        source = module_name(path)
        edges[source] = {name for name in imports(path) if name in known and name != source}
    return edges


def test_no_module_imports_another_folders_private_modules() -> None:
    bad = []
    for path in MODULES:
        home = module_name(path) if path.name == "__init__.py" else module_name(path.parent)
        for name in imports(path):
            parts = name.split(".")
            private = next((i for i, part in enumerate(parts) if part.startswith("_")), None)
            if private is None or private < 2:
                continue  # public, or a shared room of the package's own (sse_engine._lane)
            folder = ".".join(parts[:private])
            if folder != home:
                bad.append(f"{module_name(path)} imports {name}")
    assert not bad, "\n".join(bad)


def test_there_is_no_import_cycle() -> None:
    edges = graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for child in edges[node]:
            if child not in index:
                visit(child)
                low[node] = min(low[node], low[child])
            elif child in on_stack:
                low[node] = min(low[node], index[child])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    # A package's __init__ re-exports its rooms, which import their siblings, not it.
    assert not cycles, cycles


def test_no_module_is_over_500_lines() -> None:
    long = {
        str(path.relative_to(PACKAGE)): n
        for path in MODULES
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, long


def _strings(value: Any, depth: int = 0) -> Iterator[str]:
    if depth > 4:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _strings(key, depth + 1)
            yield from _strings(item, depth + 1)
    elif isinstance(value, tuple | frozenset | set | list):
        for item in value:
            yield from _strings(item, depth + 1)
    elif hasattr(type(value), "__attrs_attrs__"):
        for field in type(value).__attrs_attrs__:
            yield from _strings(getattr(value, field.name), depth + 1)


def own_wire_strings() -> dict[str, str]:
    """Each wire identifier that exactly one format's ``_wire.py`` tables name -> that format."""
    named: dict[str, set[str]] = {}
    for name in FORMATS:
        wire = importlib.import_module(f"sse_engine.{name}._wire")
        named[name] = {
            word
            for attr, value in vars(wire).items()
            if not attr.startswith("__") and (not callable(value) or attrs.has(type(value)))
            for word in _strings(value)
            if IDENTIFIER.search(word) and word not in FINISH_REASONS
        }
    count = collections.Counter(word for words in named.values() for word in words)
    return {word: name for name, words in named.items() for word in words if count[word] == 1}


def code_strings(path: Path) -> Iterator[tuple[str, int]]:
    """The string constants of a module's code (its docstrings are prose, not code)."""
    module = tree(path)
    docstrings = set()
    for node in ast.walk(module):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    for node in ast.walk(module):
        is_text = isinstance(node, ast.Constant) and type(node.value) is str
        if is_text and id(node) not in docstrings:
            yield node.value, node.lineno


def test_a_formats_wire_strings_are_code_only_in_its_folder() -> None:
    own = own_wire_strings()
    assert {"chat.completion.chunk", "end_turn", "response.completed"} <= set(own)
    found = []
    for path in MODULES:
        room = path.relative_to(PACKAGE)
        if room.parts[0] in FORMATS or str(room) in SHARED_ROOMS:
            continue
        for text, line in code_strings(path):
            if text in own:
                found.append(f"{room}:{line}: {text!r} is {own[text]}'s")
    assert not found, "\n".join(found)
