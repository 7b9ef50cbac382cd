"""The official SDKs' request param types as a strict validator: the oracle for rendered bodies.

The openai and anthropic SDKs describe each request body as a ``TypedDict``
(``CompletionCreateParamsStreaming``, ``ResponseCreateParamsStreaming``,
``MessageCreateParamsStreaming``). A pydantic ``TypeAdapter`` over them as they
are accepts almost anything: ``Iterable[...]`` fields validate lazily (the
adapter returns an iterator and checks nothing until it is consumed), unknown
keys are ignored, and ``"1"`` passes for an int. So each TypedDict is rebuilt
here, recursively, with the same fields and required keys but:

- ``Iterable[X]`` / ``SequenceNotStr[X]`` / ``Sequence[X]`` as ``list[X]`` (validated now);
- ``extra="forbid"``: a key the SDK does not know is an error;
- ``strict=True``: no coercion (``"1"`` is not an int, ``1`` is not a string).

``tests/conversation/test_sdk_oracle.py`` shows it rejects wrong bodies
before any test trusts it to accept right ones.
"""

from __future__ import annotations

import collections.abc
import functools
import inspect
import os
import types
import typing
from typing import Any, Literal, Union, get_args, get_origin

import pydantic
import typing_extensions
from pydantic import ConfigDict, TypeAdapter

__all__ = ["ORACLES", "REQUEST_FORMATS", "sdk_type", "strict_type", "validate"]

_SEQUENCES = {
    collections.abc.Iterable,
    collections.abc.Sequence,
    typing.Iterable,
    typing.Sequence,
}
_REQUIRED = (typing.Required, typing_extensions.Required)
_NOT_REQUIRED = (typing.NotRequired, typing_extensions.NotRequired)


class _Strict:
    """Rebuilds types: each TypedDict once (a memo), so shared and recursive ones stay one."""

    def __init__(self, json_value: Any = object) -> None:
        self.memo: dict[type, Any] = {}
        self.namespace: dict[str, Any] = {}
        #: What ``object`` (a JSON schema's values, metadata, ...) becomes: a type
        #: hypothesis has a JSON strategy for, when the types generate bodies.
        self.json_value = json_value

    def rebuild(self, tp: Any) -> Any:
        if typing_extensions.is_typeddict(tp):
            return self._typeddict(tp)
        origin = get_origin(tp)
        args = get_args(tp)
        if origin is typing.IO or tp is typing.IO or origin is os.PathLike or tp is os.PathLike:
            return None  # a file to upload: no JSON body carries one (left out of its union)
        if isinstance(tp, type) and issubclass(tp, pydantic.BaseModel):
            return None  # a response object the SDK also takes: a JSON body holds dicts
        if origin is None:
            if getattr(tp, "__name__", None) == "SequenceNotStr":
                return list[Any]
            return self.json_value if tp is object else tp
        if origin in _REQUIRED or origin in _NOT_REQUIRED:
            return origin[self.rebuild(args[0])]
        if origin is typing.Annotated or origin is typing_extensions.Annotated:
            return self.rebuild(args[0])
        if origin is Literal:
            return tp
        if origin is Union or origin is types.UnionType:
            members = [m for m in (self.rebuild(a) for a in args) if m is not None]
            return Union[tuple(members)] if members else None  # noqa: UP007
        if origin in _SEQUENCES or origin is list or (
            getattr(origin, "__name__", None) == "SequenceNotStr"
        ):
            item = self.rebuild(args[0])
            return None if item is None else list[item]  # type: ignore[valid-type]
        if origin is dict:
            return dict[self.rebuild(args[0]), self.rebuild(args[1])]  # type: ignore[misc]
        return tp

    def _typeddict(self, td: type) -> Any:
        done = self.memo.get(td)
        if done is not None:
            return done
        name = f"{td.__module__.replace('.', '_')}__{td.__name__}"
        # A recursive reference while this one is being built: a forward reference by name.
        self.memo[td] = name
        hints = typing.get_type_hints(td, include_extras=True)
        totals = _totals(td)
        fields: dict[str, Any] = {}
        for key, hint in hints.items():
            origin = get_origin(hint)
            if origin in _REQUIRED or origin in _NOT_REQUIRED:
                fields[key] = self.rebuild(hint)
            elif totals.get(key, True):
                fields[key] = typing_extensions.Required[self.rebuild(hint)]
            else:
                fields[key] = typing_extensions.NotRequired[self.rebuild(hint)]
        built = typing_extensions.TypedDict(name, fields, total=False)  # type: ignore[operator]
        built.__pydantic_config__ = ConfigDict(extra="forbid", strict=True)  # type: ignore[attr-defined]
        self.memo[td] = built
        self.namespace[name] = built
        return built


def _totals(td: type) -> dict[str, bool]:
    """Each key's ``total`` as the class that declared it says (a subclass may differ).

    ``__required_keys__`` cannot be trusted here: the SDKs' modules use
    ``from __future__ import annotations``, so ``Required[...]`` is a string
    when the class is made and the keys it marks come out optional.
    """
    out: dict[str, bool] = {}
    for base in getattr(td, "__orig_bases__", ()):
        if typing_extensions.is_typeddict(base):
            out.update(_totals(base))
    total = bool(td.__dict__.get("__total__", True))
    # A TypedDict's __annotations__ repeats its bases' keys: only the others are its own.
    own = inspect.get_annotations(td)
    out.update((key, total) for key in own if key not in out)
    return out


def sdk_type(format: str) -> Any:
    """The SDK's TypedDict of a streaming request body of ``format``."""
    from anthropic.types.message_create_params import MessageCreateParamsStreaming
    from openai.types.chat.completion_create_params import CompletionCreateParamsStreaming
    from openai.types.responses.response_create_params import ResponseCreateParamsStreaming

    return {
        "chat": CompletionCreateParamsStreaming,
        "responses": ResponseCreateParamsStreaming,
        "messages": MessageCreateParamsStreaming,
    }[format]


def strict_type(format: str, json_value: Any = object) -> Any:
    """The SDK's body type rebuilt strict (see the module docstring)."""
    return _Strict(json_value).rebuild(sdk_type(format))


@functools.cache
def _adapter(format: str) -> TypeAdapter[Any]:
    strict = _Strict()
    built = strict.rebuild(sdk_type(format))
    adapter: TypeAdapter[Any] = TypeAdapter(built)
    adapter.rebuild(_types_namespace=strict.namespace)
    return adapter


#: The formats the SDKs describe (Gemini's oracle is the google-genai SDK, elsewhere).
ORACLES = ("chat", "responses", "messages")


#: Every format with a request codec: the SDK oracles and Gemini's.
REQUEST_FORMATS = (*ORACLES, "gemini")


def validate(format: str, body: Any) -> None:
    """Raise ``pydantic.ValidationError`` (a ``ValueError``; Gemini: a ``ValueError`` for an
    unknown enum value) unless ``body`` is a valid streaming request."""
    if format == "gemini":
        _validate_gemini(body)
        return
    _adapter(format).validate_python(body)


# -- Gemini: the google-genai SDK's pydantic types ----------------------------------------------
#
# google-genai describes a request with pydantic models (camelCase aliases of snake_case
# fields, unknown keys forbidden) but has no model of the REST body itself: its
# GenerateContentConfig merges the body's fields. So the body is a model made here of the
# SDK's own types for each field, validated from JSON (bytes as base64, enums by value) in
# strict mode: no coercion ("1" is not an int), no unknown keys at any depth.


@functools.cache
def _gemini_request() -> type[pydantic.BaseModel]:
    from google.genai import types as g

    return pydantic.create_model(  # type: ignore[call-overload,no-any-return]
        "GenerateContentRequest",
        __config__=ConfigDict(extra="forbid", strict=True),
        contents=(list[g.Content], ...),
        systemInstruction=(g.Content | None, None),
        tools=(list[g.Tool] | None, None),
        toolConfig=(g.ToolConfig | None, None),
        generationConfig=(g.GenerationConfig | None, None),
        safetySettings=(list[g.SafetySetting] | None, None),
        cachedContent=(str | None, None),
    )


def _validate_gemini(body: Any) -> None:
    import json
    import warnings

    # The SDK's enums take an unknown value with a warning (new values keep working):
    # for a body we write, an unknown value is a mistake.
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        try:
            _gemini_request().model_validate_json(json.dumps(body), strict=True)
        except UserWarning as warning:
            raise ValueError(str(warning)) from None
