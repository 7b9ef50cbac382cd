"""Building a lane's per-delta events without their attrs ``__init__``.

An attrs frozen, slotted class fills its fields in ``__init__`` through
``object.__setattr__`` (its own ``__setattr__`` refuses), behind the class
call's own machinery: on a lane's hot path, where a chunk brings two or three
events, that costs about as much as everything else the lane does per chunk.
A lane's builder function for such a class (``content_delta`` in
``chat/_events.py``, ...) allocates the instance and fills each slot through
its descriptor, with :func:`slot_setters`: the same object (same class,
fields, equality, hash and repr; still frozen), in about 60% of the time.

Only for classes whose ``__init__`` does nothing but store its arguments (no
default the builder would skip, no converter, validator or post-init hook):
:func:`slot_setters` refuses a class whose fields are not exactly the ones
named, so that a field added later cannot be left unset.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

__all__ = ["slot_setters"]

#: Sets one slot of an instance: ``setter(instance, value)``.
SlotSetter = Callable[[object, Any], None]


def slot_setters(cls: type, *names: str) -> tuple[SlotSetter, ...]:
    """The setters of the slots ``names`` of the frozen attrs class ``cls``, in that order.

    ``names`` must be every field of ``cls`` (in any order); each setter stores
    its value as ``__init__`` would, bypassing the frozen ``__setattr__``.
    """
    fields = {field.name for field in attrs.fields(cls)}
    if set(names) != fields or len(names) != len(fields):
        raise TypeError(f"{cls.__name__} has the fields {sorted(fields)}, not {sorted(names)}")
    if getattr(cls, "__attrs_post_init__", None) is not None or not attrs.has(cls):
        raise TypeError(f"{cls.__name__} is not a plain attrs class")
    for field in attrs.fields(cls):
        if field.converter is not None or field.validator is not None:
            raise TypeError(f"{cls.__name__}.{field.name} converts or validates its value")
    return tuple(getattr(cls, name).__set__ for name in names)
