"""``sse_engine._json``: the plain JSON copy behind every ``to_api()`` and ``describe()``.

Both must hold for any value a ``json_loads`` can return, however deep, and
never recurse (a recursive walk of 100,000 levels would raise RecursionError).
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from sse_engine._json import LOSS_DEPTH, LOSS_NAN, LOSS_TYPE, MAX_DEPTH, describe, plain_json

SETTINGS = settings(
    max_examples=examples(12, thorough=200),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=30,
)


def nested(depth: int, kind: str = "list") -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value] if kind == "list" else {"a": value}
    return value


def depth_of(value: Any) -> int:
    depth, level = 0, [value]
    while level:
        level = [c for v in level if isinstance(v, (list, dict))
                 for c in (v.values() if isinstance(v, dict) else v)]
        depth += 1
    return depth - 1


@SETTINGS
@given(_VALUES)
def test_a_plain_copy_is_accepted_by_strict_json_and_equal_where_json_can_say_it(
    value: Any,
) -> None:
    losses: list[str] = []
    copy = plain_json(value, losses.append)
    text = json.dumps(copy, allow_nan=False)
    has_nan = any(
        isinstance(x, float) and not math.isfinite(x)
        for c in [value, *_containers(value)]
        for x in (c.values() if isinstance(c, dict) else c if isinstance(c, list) else [c])
    )
    assert losses == ([LOSS_NAN] if has_nan else [])
    if not has_nan:
        assert json.loads(text) == json.loads(json.dumps(value))


@SETTINGS
@given(_VALUES)
def test_a_plain_copy_shares_no_container_with_its_source(value: Any) -> None:
    copy = plain_json({"v": value})
    seen = {id(x) for x in _containers({"v": value})}
    assert not any(id(x) in seen for x in _containers(copy))


def _containers(value: Any) -> list[Any]:
    out, todo = [], [value]
    while todo:
        item = todo.pop()
        if isinstance(item, (list, dict)):
            out.append(item)
            todo.extend(item.values() if isinstance(item, dict) else item)
    return out


def test_nesting_past_the_cap_becomes_null_without_recursion() -> None:
    for kind in ("list", "dict"):
        losses: list[str] = []
        copy = plain_json(nested(100_000, kind), losses.append)
        assert losses == [LOSS_DEPTH]
        assert depth_of(copy) == MAX_DEPTH
        json.dumps(copy)  # the cap leaves json.dumps room on any sane stack


def test_other_types_become_their_json_kin_or_null() -> None:
    losses: list[str] = []
    copy = plain_json(
        {"t": (1, 2), "d": Decimal("1.5"), "k": {1: "x", None: "y"}, "o": object(),
         "inf": Decimal("Infinity")},
        losses.append,
    )
    assert copy == {"t": [1, 2], "d": 1.5, "k": {"1": "x", "null": "y"}, "o": None, "inf": None}
    assert sorted(losses) == sorted([LOSS_TYPE, LOSS_NAN])


@SETTINGS
@given(_VALUES, st.integers(1, 200))
def test_describe_is_short_and_never_raises(value: Any, limit: int) -> None:
    text = describe(value, limit)
    assert len(text) <= max(limit, 1) and isinstance(text, str)


def test_describe_of_deep_huge_and_odd_values() -> None:
    assert describe(nested(100_000)) == "[[…]]"
    assert describe(nested(100_000, "dict")) == '{"a": {…}}'
    assert describe("x" * 1000).endswith('…"') and len(describe("x" * 1000)) <= 80
    assert describe(10**5000).startswith("<int of about")
    assert describe(float("nan")) == "NaN" and describe(None) == "null"
    assert describe(["a", 1, {}, []]) == '["a", 1, {}, []]'

    class Hostile:
        def __str__(self) -> str:
            raise RuntimeError

    assert describe(Hostile()) == "<Hostile>"
    assert describe({"k": float("inf")}) == '{"k": Infinity}'
