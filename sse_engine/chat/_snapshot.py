"""The Chat Completions snapshot: what the lane has assembled, and its ``chat.completion`` form.

Every text that grows is kept as a list of pieces and joined when it is read
(``x = x + piece`` copies the whole string on every delta: quadratic for a long
answer or a long nested field such as ``delta.audio.data``). That holds at any
depth: provider fields this module has no name for are merged the way the
OpenAI SDK's ``accumulate_delta`` does (strings concatenated, objects merged,
lists extended, ``index`` and ``type`` replaced), with two differences: numbers
are replaced rather than added, and a null never erases a value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sse_engine._json import plain_json
from sse_engine._tally import Tally, said

__all__ = [
    "ChatChoiceSnapshot",
    "ChatCompletionSnapshot",
    "ChatFunctionCallSnapshot",
    "ChatToolCallSnapshot",
]

# Objects nested deeper than this are replaced rather than merged key by key,
# so no payload can drive merge_field's recursion into RecursionError.
_MAX_DEPTH = 64
# Keys the SDK replaces instead of concatenating: they name a list position or
# a variant, so "type": "text" sent twice is still "text".
_REPLACED = frozenset({"index", "type"})


class _TextParts(list[str]):
    """A string field being accumulated piece by piece (at any depth of ``extra``)."""

    __slots__ = ()


def _join(parts: list[str] | None) -> str | None:
    """The text of ``parts``, collapsed in place so the next read is free."""
    if parts is None:
        return None
    if len(parts) != 1:
        parts[:] = ["".join(parts)]
    return parts[0]


def json_copy(value: Any) -> Any:
    """A fresh copy of decoded JSON, with accumulated text joined.

    Every dict and list is new, at any depth (an explicit stack, not recursion:
    no nesting is too deep to copy), so a caller may mutate the copy freely.
    """
    if type(value) is _TextParts or type(value) is Tally:
        return _join(value)
    if not isinstance(value, dict | list):
        return value
    root: Any = {} if isinstance(value, dict) else []
    stack: list[tuple[Any, Any]] = [(value, root)]
    pop, push = stack.pop, stack.append
    while stack:
        source, target = pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        is_dict = isinstance(target, dict)
        for key, item in items:
            if type(item) is _TextParts or type(item) is Tally:
                item = _join(item)
            elif isinstance(item, dict | list):
                child: Any = {} if isinstance(item, dict) else []
                push((item, child))
                item = child
            if is_dict:
                target[key] = item
            else:
                target.append(item)
    return root


def merge_field(
    acc: dict[str, Any], key: str, value: Any, depth: int = 0, lean: bool = False
) -> None:
    """Merge one delta field into ``acc``: concatenate text, merge objects, extend lists.

    Each string piece is appended to a list of pieces, never added to the text
    so far: the cost is linear in what was sent, however deep the field. A
    list whose entries carry an ``index`` (OpenRouter's ``reasoning_details``)
    is merged entry by entry at that index, as the SDK does; other lists grow.
    ``lean``: text is counted, not kept (a :class:`Tally`; it reads ``""``).
    """
    old = acc.get(key)
    if value is None:
        acc.setdefault(key, None)
    elif key in _REPLACED:
        acc[key] = json_copy(value)
    elif type(value) is str:
        if type(old) is _TextParts or type(old) is Tally:
            old.append(value)
        elif lean:
            acc[key] = tally = Tally()
            tally.append(value)
        elif type(old) is str:
            acc[key] = _TextParts((old, value))
        else:
            acc[key] = value
    elif type(value) is list and (old is None or type(old) is list):
        if old is None:
            old = acc[key] = []
        if depth < _MAX_DEPTH and _has_indexed_entries(value):
            _merge_entries(old, value, depth + 1, lean)
        else:
            old.extend(json_copy(value))
    elif type(old) is dict and type(value) is dict and depth < _MAX_DEPTH:
        for k, v in value.items():
            merge_field(old, k, v, depth + 1, lean)
    else:
        acc[key] = json_copy(value)


def _has_indexed_entries(items: list[Any]) -> bool:
    return any(type(item) is dict and "index" in item for item in items)


def _merge_entries(acc: list[Any], entries: list[Any], depth: int, lean: bool) -> None:
    """Merge each entry into the one at its ``index``, or append it (a new index)."""
    for entry in entries:
        index = entry.get("index") if type(entry) is dict else None
        if type(index) is int and 0 <= index < len(acc) and type(acc[index]) is dict:
            target = acc[index]
            for k, v in entry.items():
                merge_field(target, k, v, depth + 1, lean)
        else:
            acc.append(json_copy(entry))


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

    def _add_arguments(self, text: str) -> None:
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
    ``wire_index`` is the ``index`` the provider gave it (None when it gave
    none, as Gemini does).
    """

    __slots__ = ("done", "extra", "id", "index", "type", "wire_index")

    def __init__(
        self,
        index: int,
        id: str | None,
        name: str | None,
        type: str | None,
        *,
        wire_index: int | None = None,
    ) -> None:
        super().__init__(name)
        self.index = index
        self.id = id
        self.type = type
        self.wire_index = wire_index
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
    ``audio``, ``annotations``, …), merged. A ``lean`` choice keeps none of the
    streamed text (see ``Lane.make_lean``): its texts read ``""``.
    """

    __slots__ = (
        "_text",
        "extra",
        "finish_reason",
        "function_call",
        "index",
        "lean",
        "logprobs",
        "role",
        "tool_calls",
    )

    def __init__(self, index: int, lean: bool = False) -> None:
        self.index = index
        self.lean = lean
        self.role: str | None = None
        # "content" and "refusal" text, as pieces.
        self._text: dict[str, list[str]] = {}
        self.tool_calls: list[ChatToolCallSnapshot] = []
        self.function_call: ChatFunctionCallSnapshot | None = None
        self.finish_reason: str | None = None
        self.logprobs: dict[str, list[Any] | None] | None = None
        self.extra: dict[str, Any] = {}

    @property
    def content(self) -> str | None:
        """The message text so far."""
        return _join(self._text.get("content"))

    @property
    def refusal(self) -> str | None:
        """The refusal text so far."""
        return _join(self._text.get("refusal"))

    def has_text(self, field: str) -> bool:
        """Whether any ``content`` or ``refusal`` text came (kept or, lean, only counted)."""
        return said(self._text.get(field))

    # -- what the lane does ----------------------------------------------------------

    def _add_text(self, field: str, text: str) -> None:
        """Append to ``content`` or ``refusal``."""
        parts = self._text.get(field)
        if parts is None:
            if self.lean:
                parts = self._text[field] = Tally()
                parts.append(text)
            else:
                self._text[field] = [text]
        else:
            parts.append(text)

    def _merge(self, key: str, value: Any) -> None:
        """A delta field without a name here, merged into ``extra``."""
        merge_field(self.extra, key, value, lean=self.lean)

    def _add_tool_call(
        self, wire: int | None, id: str | None, name: str | None, type: str | None
    ) -> ChatToolCallSnapshot:
        """A new tool call, at the end of ``tool_calls``."""
        call = ChatToolCallSnapshot(len(self.tool_calls), id, name, type, wire_index=wire)
        self.tool_calls.append(call)
        return call

    def _add_logprobs(self, content: list[Any] | None, refusal: list[Any] | None) -> None:
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
    maps each choice index to its :class:`ChatChoiceSnapshot`. ``lean``: the
    snapshot keeps no streamed text (see ``Lane.make_lean``).
    """

    __slots__ = (
        "_on_loss",
        "choices",
        "created",
        "id",
        "lean",
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
        self.lean = False

    @property
    def finished(self) -> bool:
        """True when at least one choice started and every started choice has a finish reason."""
        return bool(self.choices) and all(
            c.finish_reason is not None for c in self.choices.values()
        )

    def to_api(self) -> dict[str, Any]:
        """The ``chat.completion`` object, JSON-ready (a fresh copy on every call)."""
        # A provider may send any JSON in place of a string or a number, and the
        # caller owns what it gets: the fields below are values as sent (never
        # merged text), and the one plain_json copy at the end copies them.
        out: dict[str, Any] = {
            "id": self.id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.model,
            "choices": [self.choices[i].to_api() for i in sorted(self.choices)],
            "usage": self.usage,
        }
        if self.system_fingerprint is not None:
            out["system_fingerprint"] = self.system_fingerprint
        if self.service_tier is not None:
            out["service_tier"] = self.service_tier
        if self.moderation is not None:
            out["moderation"] = self.moderation
        # One plain JSON copy (no NaN, no nesting past MAX_DEPTH, nothing shared).
        return plain_json(out, self._on_loss)  # type: ignore[no-any-return]
