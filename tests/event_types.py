"""What a lane emits is what its types say: a helper the lane property tests share.

:func:`check_event` holds one event to its class's field annotations (as
``typing.get_type_hints`` resolves them), to the ``Literal`` its Responses
``type`` is narrowed to (``EVENT_TYPES``, the run-time copy), and to its
lane's event union. A field typed ``int`` that holds None, or ``str`` that
holds a number a server sent, fails here however the bytes came.
"""

from __future__ import annotations

import types
import typing
from functools import cache
from typing import Any

import attrs

from sse_engine.chat import ChatEvent
from sse_engine.gemini import GeminiEvent
from sse_engine.messages import MessagesEvent
from sse_engine.responses import ResponsesEvent
from sse_engine.responses._types import EVENT_TYPES

#: Each lane's event union, by the lane's short name.
UNIONS: dict[str, Any] = {
    "chat": ChatEvent,
    "responses": ResponsesEvent,
    "messages": MessagesEvent,
    "gemini": GeminiEvent,
}


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def conforms(value: Any, hint: Any) -> bool:
    """Whether ``value`` is of type ``hint`` (unions, Literal, Any, and containers' origins)."""
    if hint is Any:
        return True
    if hint is None or hint is type(None):
        return value is None
    origin = typing.get_origin(hint)
    if origin is typing.Union or origin is types.UnionType:
        return any(conforms(value, arg) for arg in typing.get_args(hint))
    if origin is typing.Literal:
        return value in typing.get_args(hint)
    if origin is not None:  # dict[str, Any], list[Any]: the container's own type
        return isinstance(value, origin)
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def check_event(event: Any, lane: str) -> None:
    """Fail unless ``event`` is in ``lane``'s union and every field holds its declared type."""
    assert isinstance(event, UNIONS[lane]), (lane, event)
    cls = type(event)
    if not attrs.has(cls):
        return
    hints = _hints(cls)
    for field in attrs.fields(cls):
        value = getattr(event, field.name)
        assert conforms(value, hints[field.name]), (
            f"{cls.__name__}.{field.name} is declared {hints[field.name]}, holds {value!r}"
        )
    types_of = EVENT_TYPES.get(cls)
    if types_of is not None:
        assert event.type in types_of, f"{cls.__name__} carries type {event.type!r}"
