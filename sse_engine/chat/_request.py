"""Chat Completions request bodies to and from :class:`~sse_engine.conversation.Conversation`.

Reading: ``system`` / ``developer`` messages stay messages; each run of
``tool`` messages is one user message of tool results; an assistant's
``tool_calls`` are :class:`~sse_engine.parts.ToolCall` objects after its
text; ``max_completion_tokens`` (or the older ``max_tokens``),
``reasoning_effort``, ``response_format`` and the rest map to
:class:`~sse_engine.conversation.Settings`; whatever has no neutral field is
kept (``settings.extra["chat"]``, a piece's ``extra``, :class:`Native`).
Writing is the inverse, and names by path what Chat cannot carry.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from sse_engine.chat._request_write import NAME, write_body
from sse_engine.chat._wire import error_body
from sse_engine.conversation import (
    Content,
    Conversation,
    Image,
    InvalidRequest,
    Message,
    Native,
    Reasoning,
    Refusal,
    RequestCodec,
    ResponseFormat,
    Settings,
    Text,
    Tool,
    ToolCall,
    ToolChoice,
    ToolResult,
    at,
    field,
    need_dict,
    need_list,
    need_str,
    opt_bool,
    opt_dict,
    opt_int,
    opt_number,
    opt_str,
    parse_arguments,
    unread,
)

__all__ = ["CODEC", "read_body"]

_ROLES: Final = ("system", "developer", "user", "assistant", "tool", "function")



# -- reading: content parts --------------------------------------------------------------

_TEXT_KEYS: Final = frozenset({"type", "text"})
_IMAGE_KEYS: Final = frozenset({"type", "image_url"})
_URL_KEYS: Final = frozenset({"url", "detail"})


#: The content parts each role's messages have a neutral class for (any other is kept whole).
_TEXT: Final = frozenset({"text"})
_USER_PARTS: Final = frozenset({"text", "image_url"})
_ASSISTANT_PARTS: Final = frozenset({"text", "refusal"})


def _part(part: Any, path: str, known: frozenset[str]) -> Content:
    """One content part: text, image, refusal, or (anything else) the part itself."""
    part = need_dict(part, path)
    kind = need_str(field(part, "type", path), at(path, "type"))
    if kind not in known:
        return Native(NAME, part)
    if kind == "text":
        return Text(need_str(field(part, "text", path), at(path, "text")),
                    extra=unread(part, _TEXT_KEYS))
    if kind == "refusal":
        text = need_str(field(part, "refusal", path), at(path, "refusal"))
        return Refusal(text, extra=unread(part, frozenset({"type", "refusal"})))
    if kind == "image_url":
        image = need_dict(field(part, "image_url", path), at(path, "image_url"))
        url = need_str(field(image, "url", at(path, "image_url")), at(path, "image_url.url"))
        detail = opt_str(image, "detail", at(path, "image_url"))
        if image.keys() <= _URL_KEYS:
            return Image.from_url(url, detail=detail, extra=unread(part, _IMAGE_KEYS))
    return Native(NAME, part)


def _content(value: Any, path: str, known: frozenset[str]) -> tuple[list[Content], bool]:
    """A message's content and whether it was one plain string."""
    if type(value) is str:
        return [Text(value)], True
    parts = need_list(value, path)
    return [_part(part, f"{path}[{i}]", known) for i, part in enumerate(parts)], False


# -- reading: messages -------------------------------------------------------------------

_SYSTEM_KEYS: Final = frozenset({"role", "content"})
_ASSISTANT_KEYS: Final = frozenset({"role", "content", "tool_calls", "refusal"})
_CALL_KEYS: Final = frozenset({"id", "type", "function"})
_CUSTOM_CALL_KEYS: Final = frozenset({"id", "type", "custom"})


def _tool_call(raw: Any, path: str) -> ToolCall:
    call = need_dict(raw, path)
    call_id = need_str(field(call, "id", path), at(path, "id"))
    kind = need_str(field(call, "type", path), at(path, "type"))
    if kind == "function":
        inner = need_dict(field(call, "function", path), at(path, "function"))
        where = at(path, "function")
        name = need_str(field(inner, "name", where), at(where, "name"))
        arguments = need_str(field(inner, "arguments", where), at(where, "arguments"))
        value, error = parse_arguments(arguments)
        extra = unread(call, _CALL_KEYS) | unread(inner, frozenset({"name", "arguments"}))
        return ToolCall(call_id, name, arguments, value, done=True, type=kind,
                        input_error=error, extra=extra)
    if kind == "custom":
        inner = need_dict(field(call, "custom", path), at(path, "custom"))
        where = at(path, "custom")
        name = need_str(field(inner, "name", where), at(where, "name"))
        text = need_str(field(inner, "input", where), at(where, "input"))
        extra = unread(call, _CUSTOM_CALL_KEYS) | unread(inner, frozenset({"name", "input"}))
        return ToolCall(call_id, name, text, text, done=True, type=kind, plain=True, extra=extra)
    raise InvalidRequest(at(path, "type"), f"unknown tool call type {kind!r}")


def _assistant(raw: Mapping[str, Any], path: str) -> Message:
    extra = unread(raw, _ASSISTANT_KEYS)
    value = raw.get("content")
    content, plain = (
        ([], True) if value is None else _content(value, at(path, "content"), _ASSISTANT_PARTS)
    )
    refusal = opt_str(raw, "refusal", path)
    if refusal is not None:
        if plain:
            content.append(Refusal(refusal))
        else:  # beside a list of parts, which may hold refusal parts of its own
            extra["refusal"] = refusal
    calls = raw.get("tool_calls")
    if calls is not None:
        calls = need_list(calls, at(path, "tool_calls"))
        if not calls:
            extra["tool_calls"] = calls
        where = at(path, "tool_calls")
        content.extend(_tool_call(call, f"{where}[{i}]") for i, call in enumerate(calls))
    return Message("assistant", content, format=NAME, plain=plain, extra=extra)


def _message(raw: Mapping[str, Any], role: str, path: str) -> Message:
    """A system, developer or user message."""
    known = _USER_PARTS if role == "user" else _TEXT
    content, plain = _content(field(raw, "content", path), at(path, "content"), known)
    return Message(role, content, format=NAME, plain=plain,  # type: ignore[arg-type]
                   extra=unread(raw, _SYSTEM_KEYS))


def _tool_result(raw: Mapping[str, Any], path: str) -> ToolResult:
    call_id = need_str(field(raw, "tool_call_id", path), at(path, "tool_call_id"))
    value = field(raw, "content", path)
    content: Any = value
    if type(value) is not str:
        content, _ = _content(value, at(path, "content"), _TEXT)
    extra = unread(raw, frozenset({"role", "content", "tool_call_id"}))
    return ToolResult(call_id, content, extra=extra)


def _messages(value: Any) -> list[Message]:
    out: list[Message] = []
    results: Message | None = None  # the user message the current run of tool messages fills
    for i, raw in enumerate(need_list(value, "messages")):
        path = f"messages[{i}]"
        raw = need_dict(raw, path)
        role = need_str(field(raw, "role", path), at(path, "role"))
        if role == "tool":
            result = _tool_result(raw, path)
            if results is None:
                results = Message("user", [], format=NAME)
                out.append(results)
            results.content.append(result)
            continue
        results = None
        if role == "assistant":
            out.append(_assistant(raw, path))
        elif role in ("system", "developer", "user"):
            out.append(_message(raw, role, path))
        elif role == "function":  # deprecated: kept whole
            out.append(Message("user", [Native(NAME, raw)], format=NAME))
        else:
            raise InvalidRequest(at(path, "role"), f"unknown role {role!r} (one of {_ROLES})")
    return out


# -- reading: tools and settings ---------------------------------------------------------


def _tool(raw: Any, path: str) -> Tool | Native:
    tool = need_dict(raw, path)
    kind = need_str(field(tool, "type", path), at(path, "type"))
    inner = tool.get(kind)
    if kind == "function" and tool.keys() == {"type", "function"}:
        where = at(path, "function")
        inner = need_dict(field(tool, "function", path), where)
        if inner.keys() <= {"name", "description", "parameters", "strict"}:
            return Tool(
                need_str(field(inner, "name", where), at(where, "name")),
                opt_str(inner, "description", where),
                opt_dict(inner, "parameters", where),
                opt_bool(inner, "strict", where),
                format=NAME,
            )
    elif kind == "custom" and tool.keys() == {"type", "custom"} and isinstance(inner, Mapping):
        where = at(path, "custom")
        custom = _custom_format(inner.get("format", {}))
        if inner.keys() <= {"name", "description", "format"} and custom is not None:
            return Tool(
                need_str(field(inner, "name", where), at(where, "name")),
                opt_str(inner, "description", where),
                custom=custom,
                format=NAME,
            )
    return Native(NAME, tool)


def _custom_format(value: Any) -> Mapping[str, Any] | None:
    """A custom tool's input format in the neutral (flat) shape, None when it is not one.

    Chat nests a grammar (``{"type": "grammar", "grammar": {"definition", "syntax"}}``);
    the neutral shape is Responses' flat one (``{"type": "grammar", "definition", "syntax"}``).
    """
    if value == {} or value == {"type": "text"}:
        return value  # type: ignore[no-any-return]
    if isinstance(value, Mapping) and value.keys() == {"type", "grammar"} and (
        value["type"] == "grammar" and isinstance(value["grammar"], Mapping)
        and "type" not in value["grammar"]
    ):
        return {"type": "grammar", **value["grammar"]}
    return None


def _tool_choice(value: Any, settings: Settings, tools: list[Tool | Native]) -> bool:
    if value in ("auto", "none", "required"):
        settings.tool_choice = ToolChoice(value)
        return True
    # The kind is checked to be a string before it goes into a set: a list there raised.
    if isinstance(value, Mapping) and type(kind := value.get("type")) is str and (
        value.keys() == {"type", kind}
    ):
        inner = value[kind]
        if kind in ("function", "custom") and isinstance(inner, Mapping) and (
            inner.keys() == {"name"} and type(inner["name"]) is str
        ):
            # Written back by the kind of the tool of that name: taken when that agrees.
            custom = any(
                isinstance(t, Tool) and t.name == inner["name"] and t.custom is not None
                for t in tools
            )
            if custom == (kind == "custom"):
                settings.tool_choice = ToolChoice("tool", inner["name"])
                return True
    return False


def _response_format(value: Any, settings: Settings) -> bool:
    if not isinstance(value, Mapping):
        return False
    if value.keys() == {"type"} and value["type"] == "json_object":
        settings.response_format = ResponseFormat()
        return True
    schema = value.get("json_schema")
    if value.keys() == {"type", "json_schema"} and value["type"] == "json_schema" and (
        isinstance(schema, Mapping)
        and schema.keys() <= {"name", "schema", "description", "strict"}
        and type(schema.get("name")) is str
        and isinstance(schema.get("schema"), Mapping)  # without one: kept as it is
    ):
        settings.response_format = ResponseFormat(
            opt_dict(schema, "schema", "response_format.json_schema"),
            schema["name"],
            opt_str(schema, "description", "response_format.json_schema"),
            opt_bool(schema, "strict", "response_format.json_schema"),
        )
        return True
    return False


def _stop(value: Any, settings: Settings) -> bool:
    if type(value) is str or (type(value) is list and all(type(s) is str for s in value)):
        settings.stop = value
        return True
    return False


def _metadata(value: Any, settings: Settings) -> bool:
    if isinstance(value, Mapping) and all(type(v) is str for v in value.values()):
        settings.metadata = dict(value)
        return True
    return False


def _set(name: str, read: Callable[[Mapping[str, Any], str, str], Any]) -> Any:
    def apply(value: Any, settings: Settings, body: Mapping[str, Any], key: str) -> bool:
        setattr(settings, name, read(body, key, ""))
        return True

    return apply


def _max_tokens(value: Any, settings: Settings, body: Mapping[str, Any], key: str) -> bool:
    if key == "max_tokens" and body.get("max_completion_tokens") is not None:
        return False  # both spellings: the newer one is the neutral value, this one is kept
    settings.max_tokens = opt_int(body, key, "")
    if key == "max_tokens":
        settings.spelling[NAME] = {"max_tokens": key}
    return True


def _effort(value: Any, settings: Settings, body: Mapping[str, Any], key: str) -> bool:
    settings.reasoning = Reasoning(effort=need_str(value, key))
    return True


def _plain(read: Callable[[Any, Settings], bool]) -> Any:
    return lambda value, settings, body, key: read(value, settings)


#: The body's settings with a neutral field: key -> reader (True: taken; False: kept as extra).
_SETTINGS: Final[dict[str, Any]] = {
    "max_completion_tokens": _max_tokens,
    "max_tokens": _max_tokens,
    "temperature": _set("temperature", opt_number),
    "top_p": _set("top_p", opt_number),
    "parallel_tool_calls": _set("parallel_tool_calls", opt_bool),
    "user": _set("user", opt_str),
    "reasoning_effort": _effort,
    "stop": _plain(_stop),
    "response_format": _plain(_response_format),
    "metadata": _plain(_metadata),
}
_BODY_KEYS: Final = frozenset({"model", "stream", "messages", "tools", "tool_choice"})


def read_body(body: Mapping[str, Any]) -> Conversation:
    """A Chat Completions request body as a conversation (raises ``InvalidRequest``)."""
    messages = _messages(field(body, "messages", ""))
    listed = need_list(body.get("tools", []), "tools")
    tools = [_tool(tool, f"tools[{i}]") for i, tool in enumerate(listed)]
    settings = Settings()
    extra: dict[str, Any] = {}
    for key, value in body.items():
        if key in _BODY_KEYS:
            continue
        reader = _SETTINGS.get(key)
        if value is None and reader is not None:
            continue  # null is "not said"
        if reader is None or not reader(value, settings, body, key):
            extra[key] = value
    choice = body.get("tool_choice")
    if choice is not None and not _tool_choice(choice, settings, tools):
        extra["tool_choice"] = choice
    if extra:
        settings.extra[NAME] = extra
    return Conversation(messages, tools=tools, settings=settings, format=NAME)



#: The Chat Completions row's request codec.
CODEC: Final = RequestCodec(read=read_body, write=write_body, error_body=error_body)
