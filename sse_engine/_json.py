"""Decoded JSON made safe to hand on: plain copies for ``to_api()``, short text for messages.

A ``json_loads`` can return values that break the code handling them later:
nesting a thousand levels deep (``orjson`` accepts 1024) makes every
recursive walk (``repr``, ``str``, ``json.dumps``, a recursive copy) raise
``RecursionError``; stdlib ``json`` returns ``NaN`` and ``Infinity``, which
``json.dumps(..., allow_nan=False)`` refuses; a custom loads may return types
JSON has no name for. The two helpers here never recurse and never raise:

- :func:`plain_json` is the one copy every snapshot's ``to_api()`` returns:
  fresh containers, nesting cut at :data:`MAX_DEPTH`, NaN and Infinity
  turned into null, each loss reported to a callback (the lane's warning).
- :func:`describe` is what an error or warning message says about a payload
  value: its JSON spelling, shallow and clipped.
"""

from __future__ import annotations

import json
import numbers
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["MAX_DEPTH", "describe", "exception_text", "plain_json"]

#: Containers nested deeper than this are replaced by null in :func:`plain_json`.
#: No API sends a tenth of it; it leaves the caller's ``json.dumps`` (one
#: interpreter frame per level, with Python's default limit of 1000) room to
#: run from a deep stack.
MAX_DEPTH = 256

#: What :func:`plain_json` reports to its ``on_loss`` callback.
LOSS_DEPTH = f"containers nested deeper than {MAX_DEPTH} levels were replaced by null"
LOSS_NAN = "NaN or Infinity (not JSON) was replaced by null"
LOSS_TYPE = "a value of a type JSON has no name for was replaced by null"


def plain_json(value: Any, on_loss: Callable[[str], None] | None = None) -> Any:
    """A copy of ``value`` that ``json.dumps(allow_nan=False)`` accepts, made without recursion.

    Dicts and lists are rebuilt (the result shares no container with
    ``value``); strings, integers, booleans and None are kept; other
    mappings, sequences and numbers become their JSON kin. What JSON cannot
    carry (NaN, Infinity, nesting past :data:`MAX_DEPTH`, unknown types)
    becomes None, and ``on_loss`` is called once per kind of loss.
    """
    losses: set[str] = set()
    root: list[Any] = [None]
    # (container to fill, key in it, value to copy there, its depth)
    todo: list[tuple[Any, Any, Any, int]] = [(root, 0, value, 0)]
    pop, push = todo.pop, todo.append
    while todo:
        parent, key, item, depth = pop()
        kind = type(item)
        if kind is dict or isinstance(item, Mapping):
            if depth >= MAX_DEPTH:
                losses.add(LOSS_DEPTH)
                continue  # the slot already holds None
            below = depth + 1
            new: dict[str, Any] = {}
            parent[key] = new
            for k, v in item.items():
                if type(k) is not str:
                    k = _key(k)
                t = type(v)
                # A float is kept when finite (inf - inf and NaN - NaN are NaN).
                if t is str or t is int or v is None or t is bool or (t is float and v - v == 0.0):
                    new[k] = v
                else:
                    new[k] = None
                    push((new, k, v, below))
        elif kind is list or isinstance(item, (list, tuple)):
            if depth >= MAX_DEPTH:
                losses.add(LOSS_DEPTH)
                continue
            below = depth + 1
            copy = list(item)
            parent[key] = copy
            for i, v in enumerate(copy):
                t = type(v)
                if not (t is str or t is int or v is None or t is bool) and not (
                    t is float and v - v == 0.0
                ):
                    copy[i] = None
                    push((copy, i, v, below))
        else:
            parent[key] = _leaf(item, losses)
    if losses and on_loss is not None:
        for loss in sorted(losses):
            on_loss(loss)
    return root[0]


def _leaf(value: Any, losses: set[str]) -> Any:
    """A scalar as plain JSON: a subclass becomes its base type, NaN and the unknown None."""
    if value is None:
        return None
    if isinstance(value, str):
        return str(value)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, numbers.Number):
        try:
            number = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError, OverflowError):
            number = float("nan")
        if number - number == 0.0:
            return number
        losses.add(LOSS_NAN)
        return None
    losses.add(LOSS_TYPE)
    return None


def _key(key: Any) -> str:
    """An object key as JSON text (JSON keys are strings; a custom loads may differ)."""
    if isinstance(key, str):
        return str(key)
    if key is None or isinstance(key, (bool, int, float)):
        return json.dumps(key)
    return describe(key)


#: How much of a value :func:`describe` shows by default.
DESCRIBE_LIMIT = 80
_ELLIPSIS = "…"


def describe(value: Any, limit: int = DESCRIBE_LIMIT) -> str:
    """A short, safe spelling of a payload value for an error or warning message.

    Scalars read as JSON (``"text"``, ``3``, ``null``); a container shows its
    first level only, nested containers as ``[…]`` / ``{…}``; the whole is
    clipped to about ``limit`` characters. Never recursive, never raises,
    whatever a ``json_loads`` returned.
    """
    try:
        if isinstance(value, Mapping):
            parts = []
            size = 0
            for k, v in value.items():
                part = f"{_scalar(k, limit)}: {_shallow(v, limit)}"
                parts.append(part)
                size += len(part) + 2
                if size > limit:
                    break
            text = "{" + ", ".join(parts) + "}"
        elif isinstance(value, (list, tuple)):
            parts = []
            size = 0
            for v in value:
                part = _shallow(v, limit)
                parts.append(part)
                size += len(part) + 2
                if size > limit:
                    break
            text = "[" + ", ".join(parts) + "]"
        else:
            text = _scalar(value, limit)
    except Exception:  # a hostile __str__ or __len__: name the type, say nothing more
        return f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 1] + _ELLIPSIS


def _shallow(value: Any, limit: int) -> str:
    if isinstance(value, Mapping):
        return "{…}" if value else "{}"
    if isinstance(value, (list, tuple)):
        return "[…]" if value else "[]"
    return _scalar(value, limit)


def _scalar(value: Any, limit: int) -> str:
    if isinstance(value, str):
        room = max(limit - 3, 1)  # the quotes and the ellipsis
        clipped = value if len(value) <= room else value[:room]
        text = json.dumps(clipped, ensure_ascii=False)
        return text if clipped is value else text[:-1] + _ELLIPSIS + '"'
    if value is None or isinstance(value, (bool, float)):
        return json.dumps(value)
    if isinstance(value, int):
        try:
            return str(value)
        except ValueError:  # more digits than int_max_str_digits allows
            return f"<int of about {value.bit_length() * 3 // 10} digits>"
    return f"<{type(value).__name__}>"


def exception_text(exc: BaseException) -> str:
    """An exception as ``Type: message``, clipped, safe for one that carries a payload value."""
    try:
        text = str(exc)
    except (RecursionError, ValueError):
        text = ""
    if len(text) > 200:
        text = text[:199] + "…"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
