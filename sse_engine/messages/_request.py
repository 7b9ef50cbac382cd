"""Anthropic Messages request bodies to and from :class:`~sse_engine.conversation.Conversation`.

Reading: ``system`` is the system prompt (a string, or text blocks);
each message is a message; its blocks are text, images, ``thinking`` and
``redacted_thinking`` blocks (a :class:`~sse_engine.parts.ReasoningBlock`
with the signature or the data), ``tool_use`` calls and ``tool_result``
results; any other block (a document, a server tool's use or result) is
:class:`Native`, in place. ``thinking.budget_tokens`` and
``output_config.effort`` are the reasoning, ``output_config.format`` the
response format, ``metadata.user_id`` the user, ``tool_choice``'s
``disable_parallel_tool_use`` the parallel setting; the rest is kept in
``settings.extra["messages"]``, the sampling parameters too: the anthropic
SDK's request types have none (the newest Claude models take none), so a
body's ``temperature`` is its own, not a neutral setting.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from sse_engine.conversation import (
    Content,
    Conversation,
    Image,
    InvalidRequest,
    Message,
    Native,
    Reasoning,
    ReasoningBlock,
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
    need_bool,
    need_dict,
    need_list,
    need_str,
    opt_int,
    opt_str,
    unread,
)
from sse_engine.messages._request_write import NAME, write_body
from sse_engine.messages._wire import error_body

__all__ = ["CODEC", "read_body"]



_TEXT_KEYS: Final = frozenset({"type", "text"})
_IMAGE_KEYS: Final = frozenset({"type", "source"})


def _image(block: Mapping[str, Any], path: str) -> Content:
    source = need_dict(field(block, "source", path), at(path, "source"))
    kind = source.get("type")
    extra = unread(block, _IMAGE_KEYS)
    where = at(path, "source")
    if kind == "base64" and source.keys() == {"type", "media_type", "data"}:
        media_type = need_str(source["media_type"], at(where, "media_type"))
        data = need_str(source["data"], at(where, "data"))
        if media_type:
            return Image(data=data, media_type=media_type, extra=extra)
    elif kind == "url" and source.keys() == {"type", "url"}:
        return Image(url=need_str(source["url"], at(where, "url")), extra=extra)
    return Native(NAME, block)


def _text(block: Mapping[str, Any], path: str) -> Text:
    return Text(need_str(field(block, "text", path), at(path, "text")),
                extra=unread(block, _TEXT_KEYS))


_RESULT_KEYS: Final = frozenset({"type", "tool_use_id", "content", "is_error"})


def _result(block: Mapping[str, Any], path: str) -> ToolResult:
    call_id = need_str(field(block, "tool_use_id", path), at(path, "tool_use_id"))
    value = block.get("content")
    content: Any = [] if value is None else value  # none: an empty result
    if type(content) is not str:
        where = at(path, "content")
        pieces: list[Any] = []
        for i, raw in enumerate(need_list(content, where)):
            inner = f"{where}[{i}]"
            piece = need_dict(raw, inner)
            kind = need_str(field(piece, "type", inner), at(inner, "type"))
            pieces.append(
                _text(piece, inner) if kind == "text"
                else _image(piece, inner) if kind == "image"
                else Native(NAME, piece)
            )
        content = pieces
    flag = block.get("is_error")
    is_error = False if flag is None else need_bool(flag, at(path, "is_error"))
    return ToolResult(call_id, content, is_error, extra=unread(block, _RESULT_KEYS))


_CALL_KEYS: Final = frozenset({"type", "id", "name", "input"})


def _block(raw: Any, path: str) -> Content:
    block = need_dict(raw, path)
    kind = need_str(field(block, "type", path), at(path, "type"))
    if kind == "text":
        return _text(block, path)
    if kind == "image":
        return _image(block, path)
    if kind == "tool_use":
        call_id = need_str(field(block, "id", path), at(path, "id"))
        name = need_str(field(block, "name", path), at(path, "name"))
        value = field(block, "input", path)
        # The input is a value here; its JSON text is written when another format needs it.
        return ToolCall(call_id, name, "", value, done=True, type=kind,
                        extra=unread(block, _CALL_KEYS))
    if kind == "tool_result":
        return _result(block, path)
    if kind == "thinking" and block.keys() == {"type", "thinking", "signature"}:
        text = need_str(block["thinking"], at(path, "thinking"))
        signature = need_str(block["signature"], at(path, "signature"))
        return ReasoningBlock(text, signature=signature, raw=block)
    if kind == "redacted_thinking" and block.keys() == {"type", "data"}:
        return ReasoningBlock(redacted=need_str(block["data"], at(path, "data")), raw=block)
    return Native(NAME, block)


_ROLES: Final = ("user", "assistant", "system")


def _message(raw: Any, path: str) -> Message:
    message = need_dict(raw, path)
    role = need_str(field(message, "role", path), at(path, "role"))
    if role not in _ROLES:
        raise InvalidRequest(at(path, "role"), f"unknown role {role!r} (one of {_ROLES})")
    value = field(message, "content", path)
    extra = unread(message, frozenset({"role", "content"}))
    if type(value) is str:
        return Message(role, [Text(value)], format=NAME, plain=True, extra=extra)  # type: ignore[arg-type]
    where = at(path, "content")
    content = [_block(block, f"{where}[{i}]") for i, block in enumerate(need_list(value, where))]
    return Message(role, content, format=NAME, extra=extra)  # type: ignore[arg-type]


# -- tools and settings ----------------------------------------------------------------------

_TOOL_KEYS: Final = frozenset({"type", "name", "description", "input_schema", "strict"})


def _tool(raw: Any, path: str) -> Tool | Native:
    tool = need_dict(raw, path)
    schema = tool.get("input_schema")
    if tool.get("type") not in (None, "custom") or not isinstance(schema, Mapping):
        return Native(NAME, tool)  # a tool Anthropic defines (bash, web search, ...)
    strict = tool.get("strict")
    return Tool(
        need_str(field(tool, "name", path), at(path, "name")),
        opt_str(tool, "description", path),
        schema,
        None if strict is None else need_bool(strict, at(path, "strict")),
        format=NAME,
        extra=unread(tool, _TOOL_KEYS),
    )


_CHOICES: Final = {"auto": "auto", "any": "required", "none": "none", "tool": "tool"}
_CHOICE_KEYS: Final = frozenset({"type", "disable_parallel_tool_use"})


def _tool_choice(value: Any, settings: Settings) -> bool:
    kind = value.get("type") if isinstance(value, Mapping) else None
    if type(kind) is not str or kind not in _CHOICES:  # a list is no key of a table
        return False
    mode = _CHOICES[value["type"]]
    known = {"type", "disable_parallel_tool_use", "name"} if mode == "tool" else _CHOICE_KEYS
    if not value.keys() <= known:
        return False
    name = value.get("name")
    disable = value.get("disable_parallel_tool_use")
    if (mode == "tool") != (type(name) is str) or disable not in (None, True, False):
        return False
    settings.tool_choice = ToolChoice(mode, name)  # type: ignore[arg-type]
    if disable is not None:
        settings.parallel_tool_calls = not disable
    return True


def _thinking(value: Any, settings: Settings, extra: dict[str, Any]) -> None:
    if isinstance(value, Mapping) and value.get("type") == "enabled" and (
        type(value.get("budget_tokens")) is int
    ):
        # output_config.effort may have come first: the key order of a body is not meaning.
        effort = settings.reasoning.effort if settings.reasoning else None
        settings.reasoning = Reasoning(effort, value["budget_tokens"])
        rest = unread(value, frozenset({"type", "budget_tokens"}))
        if rest:
            extra["thinking"] = rest
    else:
        extra["thinking"] = value


def _output_config(value: Any, settings: Settings, extra: dict[str, Any]) -> None:
    config = need_dict(value, "output_config")
    rest = dict(config)
    effort = config.get("effort")
    if type(effort) is str:
        budget = settings.reasoning.budget_tokens if settings.reasoning else None
        settings.reasoning = Reasoning(effort, budget)
        del rest["effort"]
    wanted = config.get("format")
    if isinstance(wanted, Mapping) and wanted.keys() == {"type", "schema"} and (
        wanted["type"] == "json_schema" and isinstance(wanted["schema"], Mapping)
    ):
        settings.response_format = ResponseFormat(wanted["schema"])
        del rest["format"]
    if rest or len(rest) == len(config):  # nothing taken: all of it kept, even {}
        extra["output_config"] = rest


_BODY_KEYS: Final = frozenset({"model", "stream", "messages", "system", "tools"})


def _settings(body: Mapping[str, Any]) -> Settings:
    settings = Settings()
    extra: dict[str, Any] = {}
    for key, value in body.items():
        if key in _BODY_KEYS:
            continue
        if value is None:
            if key not in _NEUTRAL:
                extra[key] = value  # a key no neutral field holds: kept as it is, null too
            continue
        if key == "max_tokens":
            settings.max_tokens = opt_int(body, key, "")
        elif key == "stop_sequences" and type(value) is list and all(
            type(s) is str for s in value
        ):
            settings.stop = value
        elif key == "metadata" and isinstance(value, Mapping) and value.keys() == {"user_id"} and (
            type(value["user_id"]) is str
        ):
            settings.user = value["user_id"]
        elif key == "tool_choice" and _tool_choice(value, settings):
            pass
        elif key == "thinking":
            _thinking(value, settings, extra)
        elif key == "output_config":
            _output_config(value, settings, extra)
        else:
            extra[key] = value
    if extra:
        settings.extra[NAME] = extra
    return settings


_NEUTRAL: Final = frozenset(
    {"max_tokens", "stop_sequences", "metadata", "tool_choice", "thinking", "output_config"}
)


def _system(value: Any) -> str | list[Text] | None:
    if value is None or type(value) is str:
        return value
    blocks = need_list(value, "system")
    out = []
    for i, raw in enumerate(blocks):
        path = f"system[{i}]"
        block = need_dict(raw, path)
        kind = need_str(field(block, "type", path), at(path, "type"))
        if kind != "text":
            raise InvalidRequest(at(path, "type"), f"expected a text block, got {kind!r}")
        out.append(_text(block, path))
    return out


def read_body(body: Mapping[str, Any]) -> Conversation:
    """An Anthropic Messages request body as a conversation (raises ``InvalidRequest``)."""
    listed = need_list(field(body, "messages", ""), "messages")
    messages = [_message(raw, f"messages[{i}]") for i, raw in enumerate(listed)]
    tools_listed = need_list(body.get("tools") or [], "tools")
    tools = [_tool(tool, f"tools[{i}]") for i, tool in enumerate(tools_listed)]
    return Conversation(
        messages,
        system=_system(body.get("system")),
        tools=tools,
        settings=_settings(body),
        format=NAME,
    )

#: The Messages row's request codec.
CODEC: Final = RequestCodec(read=read_body, write=write_body, error_body=error_body)
