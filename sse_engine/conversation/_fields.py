"""Reading a request body's fields, for the format codecs: each check names the path it failed at.

Paths are written as the body's own (``messages[3].content[0].type``), built
only for what is read, so a body costs time linear in its size. A value of
the wrong kind raises :class:`~sse_engine.conversation.InvalidRequest`; the
codecs raise nothing else for a body.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from sse_engine.conversation._errors import InvalidRequest

__all__ = [
    "at",
    "field",
    "kind",
    "need_bool",
    "need_dict",
    "need_int",
    "need_list",
    "need_number",
    "need_str",
    "opt_bool",
    "opt_dict",
    "opt_int",
    "opt_number",
    "opt_str",
    "unread",
]

_KINDS: Final = {
    dict: "an object", list: "a list", str: "a string", bool: "a boolean",
    int: "a number", float: "a number", type(None): "null",
}


def kind(value: Any) -> str:
    """What a JSON value is, for a message (``"a list"``, ``"null"``, ...)."""
    found = _KINDS.get(type(value))
    if found is not None:
        return found
    return "an object" if isinstance(value, Mapping) else f"a {type(value).__name__}"


def at(path: str, key: str | int) -> str:
    """The path of ``key`` (a field name, or a list index) under ``path``."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _wrong(path: str, expected: str, value: Any) -> InvalidRequest:
    return InvalidRequest(path, f"expected {expected}, got {kind(value)}")


def need_dict(value: Any, path: str) -> Mapping[str, Any]:
    if isinstance(value, Mapping):
        return value
    raise _wrong(path, "an object", value)


def need_list(value: Any, path: str) -> list[Any]:
    if type(value) is list:
        return value
    raise _wrong(path, "a list", value)


def need_str(value: Any, path: str) -> str:
    if type(value) is str:
        return value
    raise _wrong(path, "a string", value)


def need_bool(value: Any, path: str) -> bool:
    if type(value) is bool:
        return value
    raise _wrong(path, "true or false", value)


def need_int(value: Any, path: str) -> int:
    if type(value) is int:
        return value
    raise _wrong(path, "an integer", value)


def need_number(value: Any, path: str) -> float:
    if type(value) in (int, float):
        return value  # type: ignore[no-any-return]
    raise _wrong(path, "a number", value)


def field(obj: Mapping[str, Any], key: str, path: str) -> Any:
    """``obj[key]``, which the format requires: missing (or null) is an InvalidRequest."""
    value = obj.get(key)
    if value is None:
        raise InvalidRequest(at(path, key), "missing" if key not in obj else "must not be null")
    return value


def opt_dict(obj: Mapping[str, Any], key: str, path: str) -> Mapping[str, Any] | None:
    value = obj.get(key)
    return None if value is None else need_dict(value, at(path, key))


def opt_str(obj: Mapping[str, Any], key: str, path: str) -> str | None:
    value = obj.get(key)
    return None if value is None else need_str(value, at(path, key))


def opt_bool(obj: Mapping[str, Any], key: str, path: str) -> bool | None:
    value = obj.get(key)
    return None if value is None else need_bool(value, at(path, key))


def opt_int(obj: Mapping[str, Any], key: str, path: str) -> int | None:
    value = obj.get(key)
    return None if value is None else need_int(value, at(path, key))


def opt_number(obj: Mapping[str, Any], key: str, path: str) -> float | None:
    value = obj.get(key)
    return None if value is None else need_number(value, at(path, key))


def unread(obj: Mapping[str, Any], known: frozenset[str] | set[str]) -> dict[str, Any]:
    """The fields of ``obj`` a reader did not take: what it keeps in ``extra``."""
    return {key: value for key, value in obj.items() if key not in known}
