"""Typed reads of payload fields for the Responses lane.

A field of the wrong type raises :class:`Malformed`, which the lane turns into a
``malformed_event`` warning (a ProtocolError only in strict mode): the event is
passed through as a ``ResponseUnknownEvent`` and the stream goes on.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Malformed", "opt_field", "req_dict", "req_int", "req_str"]


class Malformed(Exception):
    """A payload field of the wrong type (becomes a ``malformed_event`` warning)."""


def req_str(payload: dict[str, Any], key: str) -> str:
    value = payload.get(key)
    if type(value) is not str:
        raise Malformed(f"{key!r} must be a string, got {type(value).__name__}")
    return value


def req_int(payload: dict[str, Any], key: str) -> int:
    value = payload.get(key)
    if type(value) is not int:
        raise Malformed(f"{key!r} must be an integer, got {type(value).__name__}")
    return value


def req_dict(payload: dict[str, Any], key: str) -> dict[str, Any]:
    value = payload.get(key)
    if type(value) is not dict:
        raise Malformed(f"{key!r} must be an object, got {type(value).__name__}")
    return value


def opt_field(payload: dict[str, Any], key: str, kind: type, default: Any = None) -> Any:
    """An optional field: ``default`` when absent or null, else it must be of ``kind``."""
    value = payload.get(key)
    if value is None:
        return default
    if type(value) is not kind:
        raise Malformed(f"{key!r} must be {kind.__name__} or null, got {type(value).__name__}")
    return value
