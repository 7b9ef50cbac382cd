"""The Chat Completions snapshot: what the lane has assembled, and its ``chat.completion`` form.

Text is kept as a list of pieces joined on first read (``self.x += piece`` on an
attribute would copy the whole string on every delta: quadratic for a long
answer). Provider fields this module has no name for are merged the way the
OpenAI SDK's ``accumulate_delta`` does, with two differences: numbers are
replaced rather than added, and a null never erases a value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sse_engine._json import plain_json

__all__ = [
    "ChatChoiceSnapshot",
    "ChatCompletionSnapshot",
    "ChatFunctionCallSnapshot",
    "ChatToolCallSnapshot",
]

# Nesting deeper than this is copied by reference and replaced rather than
# merged: no payload can drive the recursion into RecursionError.
_MAX_DEPTH = 64


class _TextParts(list[str]):
    """A top-level string field being accumulated piece by piece."""

    __slots__ = ()


def _join(parts: list[str] | None) -> str | None:
    """The text of ``parts``, collapsed in place so the next read is free."""
    if parts is None:
        return None
    if len(parts) != 1:
        parts[:] = ["".join(parts)]
    return parts[0]


def json_copy(value: Any, depth: int = 0) -> Any:
    """A copy of decoded JSON (dicts and lists are new), with accumulated text joined."""
    if depth > _MAX_DEPTH:
        return value
    if type(value) is _TextParts:
        return _join(value)
    if isinstance(value, dict):
        return {k: json_copy(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [json_copy(v, depth + 1) for v in value]
    return value


def merge_field(acc: dict[str, Any], key: str, value: Any, depth: int = 0) -> None:
    """Merge one delta field into ``acc``: concatenate text, merge objects, extend lists."""
    old = acc.get(key)
    if value is None:
        acc.setdefault(key, None)
    elif old is None:
        acc[key] = _TextParts((value,)) if depth == 0 and type(value) is str else json_copy(value)
    elif type(old) is _TextParts and type(value) is str:
        old.append(value)
    elif type(old) is str and type(value) is str:
        acc[key] = old + value
    elif type(old) is dict and type(value) is dict and depth < _MAX_DEPTH:
        for k, v in value.items():
            merge_field(old, k, v, depth + 1)
    elif type(old) is list and type(value) is list:
        old.extend(json_copy(value))
    else:
        acc[key] = json_copy(value)


class _CallSnapshot:
    """A call being assembled: ``name`` and the ``arguments`` JSON text so far."""

    __slots__ = ("_parts", "name")

    def __init__(self, name: str | None = None) -> None:
        self.name = name
        self._parts: list[str] = []

    @property
    def arguments(self) -> str:
        """The arguments JSON text received so far (complete once the call is done)."""
        return _join(self._parts) or ""

    def add_arguments(self, text: str) -> None:
        self._parts.append(text)

    def to_api(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": self.arguments}


class ChatFunctionCallSnapshot(_CallSnapshot):
    """The legacy (deprecated) ``message.function_call``: ``name`` and ``arguments``."""

    __slots__ = ()


class ChatToolCallSnapshot(_CallSnapshot):
    """One entry of ``message.tool_calls``.

    ``index`` is its position in the list; ``done`` turns true when the lane
    reports the call complete; ``extra`` holds provider fields of the call
    (Gemini's ``extra_content`` with the ``thought_signature`` to send back).
    """

    __slots__ = ("done", "extra", "id", "index", "type")

    def __init__(self, index: int, id: str | None, name: str | None, type: str | None) -> None:
        super().__init__(name)
        self.index = index
        self.id = id
        self.type = type
        self.done = False
        self.extra: dict[str, Any] = {}

    def to_api(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "type": self.type or "function",
            "function": super().to_api(),
        }
        for key, value in self.extra.items():
            out.setdefault(key, json_copy(value))
        return out


class ChatChoiceSnapshot:
    """One choice (``n > 1`` gives several): its message so far and its finish reason.

    ``content`` and ``refusal`` are None until the first delta that carries
    them; ``extra`` holds delta fields without a name here (``reasoning_content``,
    ``audio``, ``annotations``, …), merged.
    """

    __slots__ = (
        "_by_wire",
        "_text",
        "current_tool",
        "extra",
        "finish_reason",
        "function_call",
        "index",
        "logprobs",
        "role",
        "tool_calls",
    )

    def __init__(self, index: int) -> None:
        self.index = index
        self.role: str | None = None
        # "content" and "refusal" text, as pieces.
        self._text: dict[str, list[str]] = {}
        self.tool_calls: list[ChatToolCallSnapshot] = []
        self.function_call: ChatFunctionCallSnapshot | None = None
        self.finish_reason: str | None = None
        self.logprobs: dict[str, list[Any] | None] | None = None
        self.extra: dict[str, Any] = {}
        #: The tool call that the last tool fragment went to (the lane's bookkeeping).
        self.current_tool: ChatToolCallSnapshot | None = None
        self._by_wire: dict[int, ChatToolCallSnapshot] = {}

    @property
    def content(self) -> str | None:
        """The message text so far."""
        return _join(self._text.get("content"))

    @property
    def refusal(self) -> str | None:
        """The refusal text so far."""
        return _join(self._text.get("refusal"))

    def add_text(self, field: str, text: str) -> None:
        """Append to ``content`` or ``refusal``."""
        parts = self._text.get(field)
        if parts is None:
            self._text[field] = [text]
        else:
            parts.append(text)

    def tool_by_wire_index(self, wire: int) -> ChatToolCallSnapshot | None:
        """The latest tool call the provider numbered ``wire``."""
        return self._by_wire.get(wire)

    def add_tool_call(
        self, wire: int | None, id: str | None, name: str | None, type: str | None
    ) -> ChatToolCallSnapshot:
        call = ChatToolCallSnapshot(len(self.tool_calls), id, name, type)
        self.tool_calls.append(call)
        if wire is not None:
            self._by_wire[wire] = call
        self.current_tool = call
        return call

    def add_logprobs(self, content: list[Any] | None, refusal: list[Any] | None) -> None:
        """Keep the first logprobs object, then extend its lists (as the SDK does)."""
        lp = self.logprobs
        if lp is None:
            self.logprobs = {
                "content": None if content is None else list(content),
                "refusal": None if refusal is None else list(refusal),
            }
            return
        for key, items in (("content", content), ("refusal", refusal)):
            if items:
                kept = lp[key]
                if kept is None:
                    lp[key] = list(items)
                else:
                    kept.extend(items)

    def to_api(self) -> dict[str, Any]:
        message: dict[str, Any] = {
            "role": self.role or "assistant",
            "content": self.content,
            "refusal": self.refusal,
        }
        if self.tool_calls:
            message["tool_calls"] = [call.to_api() for call in self.tool_calls]
        if self.function_call is not None:
            message["function_call"] = self.function_call.to_api()
        for key, value in self.extra.items():
            message.setdefault(key, json_copy(value))
        return {
            "index": self.index,
            "message": message,
            "finish_reason": self.finish_reason,
            "logprobs": json_copy(self.logprobs),
        }


class ChatCompletionSnapshot:
    """The completion being streamed; ``to_api()`` gives the ``chat.completion`` object.

    ``id``, ``model`` and ``created`` come from the first chunk that has them;
    ``system_fingerprint``, ``service_tier``, ``usage`` and ``moderation`` are the
    last values that were not null (a later ``usage: null`` does not erase usage). ``choices``
    maps each choice index to its :class:`ChatChoiceSnapshot`.
    """

    __slots__ = (
        "_on_loss",
        "choices",
        "created",
        "id",
        "model",
        "moderation",
        "service_tier",
        "system_fingerprint",
        "usage",
    )

    def __init__(self, on_loss: Callable[[str], None] | None = None) -> None:
        #: Told what ``to_api()`` had to replace to stay plain JSON (the lane warns).
        self._on_loss = on_loss
        self.id: str | None = None
        self.model: str | None = None
        self.created: int | None = None
        self.system_fingerprint: str | None = None
        self.service_tier: str | None = None
        self.moderation: dict[str, Any] | None = None
        self.usage: dict[str, Any] | None = None
        self.choices: dict[int, ChatChoiceSnapshot] = {}

    @property
    def finished(self) -> bool:
        """True when at least one choice started and every started choice has a finish reason."""
        return bool(self.choices) and all(
            c.finish_reason is not None for c in self.choices.values()
        )

    def to_api(self) -> dict[str, Any]:
        """The ``chat.completion`` object, JSON-ready (a fresh copy on every call)."""
        out: dict[str, Any] = {
            "id": self.id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.model,
            "choices": [self.choices[i].to_api() for i in sorted(self.choices)],
            "usage": json_copy(self.usage),
        }
        if self.system_fingerprint is not None:
            out["system_fingerprint"] = self.system_fingerprint
        if self.service_tier is not None:
            out["service_tier"] = self.service_tier
        if self.moderation is not None:
            out["moderation"] = json_copy(self.moderation)
        # One plain JSON copy (no NaN, no nesting past MAX_DEPTH, nothing shared).
        return plain_json(out, self._on_loss)  # type: ignore[no-any-return]
