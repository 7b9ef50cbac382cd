"""Building a lane's commonest events without attrs' ``__init__``: for the lanes' fast paths.

A frozen attrs class's ``__init__`` sets each field through a bound
``object.__setattr__`` by name; for a delta event, the most frequent object a
lane makes, that is a large part of the lane's own cost per event. A builder
from :func:`slot_builder` makes the very same object (same class, frozen,
equal, same ``raw``) by setting each slot through its descriptor, with the
values in an order the caller names.

Only for classes whose ``__init__`` does nothing else: slotted, no
validators, converters, ``on_setattr`` or ``__attrs_post_init__``, every
field named once (checked when the builder is made, so a class that gains
one of these fails at import, not silently).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import attrs

__all__ = ["slot_builder"]

T = TypeVar("T")


def slot_builder(cls: type[T], *names: str) -> Callable[..., T]:
    """A function ``build(*values) -> cls`` setting the fields ``names`` (all, in that order).

    ``build(v1, v2, ...)`` equals ``cls(**dict(zip(names, (v1, v2, ...))))``.
    """
    fields = attrs.fields(cast(Any, cls))
    if sorted(names) != sorted(field.name for field in fields):
        raise TypeError(f"{cls.__name__}'s fields are {[f.name for f in fields]}, not {names}")
    if "__slots__" not in cls.__dict__ or hasattr(cls, "__attrs_post_init__"):
        raise TypeError(f"{cls.__name__} is not a slotted attrs class without post-init")
    for field in fields:
        if field.validator is not None or field.converter is not None or (
            field.on_setattr not in (None, attrs.setters.NO_OP)
        ):
            raise TypeError(f"{cls.__name__}.{field.name} has a validator, converter or hook")
    # Generated, like attrs' own __init__: one straight line of slot stores.
    namespace: dict[str, Any] = {"new": object.__new__, "cls": cls}
    lines = ["    event = new(cls)"]
    for i, name in enumerate(names):
        namespace[f"set{i}"] = getattr(cls, name).__set__
        lines.append(f"    set{i}(event, v{i})")
    args = ", ".join(f"v{i}" for i in range(len(names)))
    source = f"def build({args}):\n" + "\n".join(lines) + "\n    return event\n"
    exec(compile(source, f"<slot_builder {cls.__name__}>", "exec"), namespace)
    build: Callable[..., T] = namespace["build"]
    build.__doc__ = f"{cls.__name__}({', '.join(names)}), built slot by slot."
    return build
