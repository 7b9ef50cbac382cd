"""Responses request bodies to and from :class:`~sse_engine.conversation.Conversation`.

Reading: ``instructions`` is the system prompt; ``input`` is a flat list of
items, grouped into messages as the neutral form has them: a ``message``
item of role user, system or developer is a message; an assistant's
``reasoning``, ``message`` and ``function_call`` / ``custom_tool_call``
items in a row are one assistant message (with at most one ``message``
item, so it is written back as the same items); ``function_call_output``
items in a row are one user message of tool results. Any other item (an
``item_reference``, a hosted tool's call) is :class:`Native`, in place.
Settings map as Chat's do; the rest is kept in ``settings.extra["responses"]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from sse_engine.conversation import (
    Content,
    Conversation,
    Image,
    Message,
    Native,
    Reasoning,
    ReasoningBlock,
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
from sse_engine.responses._request_write import NAME, is_part, write_body
from sse_engine.responses._wire import error_body

__all__ = ["CODEC", "read_body"]



# -- content parts -------------------------------------------------------------------------

_TEXT_KEYS: Final = frozenset({"type", "text"})
_IMAGE_KEYS: Final = frozenset({"type", "image_url", "detail"})


def _part(raw: Any, path: str, output: bool) -> Content | None:
    """One content part (None: a part no neutral class reads; its item is kept whole)."""
    part = need_dict(raw, path)
    kind = need_str(field(part, "type", path), at(path, "type"))
    if not is_part(kind):
        return None
    if kind in ("input_text", "output_text") and (kind == "output_text") == output:
        extra = unread(part, _TEXT_KEYS)
        if extra.get("annotations") == []:
            del extra["annotations"]  # written back by default: output text requires it
        return Text(need_str(field(part, "text", path), at(path, "text")), extra=extra)
    if kind == "refusal" and output and part.keys() == {"type", "refusal"}:
        return Refusal(need_str(part["refusal"], at(path, "refusal")))
    if kind == "input_image" and not output and type(part.get("image_url")) is str:
        detail = opt_str(part, "detail", path)
        return Image.from_url(part["image_url"], detail=detail, extra=unread(part, _IMAGE_KEYS))
    return Native(NAME, part)


def _parts(value: Any, path: str, output: bool) -> list[Content] | None:
    parts = need_list(value, path)
    out: list[Content] = []
    for i, raw in enumerate(parts):
        piece = _part(raw, f"{path}[{i}]", output)
        if piece is None:
            return None
        out.append(piece)
    return out


# -- items ----------------------------------------------------------------------------------

_MESSAGE_KEYS: Final = frozenset({"type", "role", "content"})
_ROLES: Final = ("user", "system", "developer", "assistant")


def _message(item: Mapping[str, Any], path: str) -> Message | None:
    """A message item (None: one kept whole)."""
    role = need_str(field(item, "role", path), at(path, "role"))
    if role not in _ROLES:
        return None
    value = field(item, "content", path)
    # An output message (it has an id): output_text and refusal parts. The id is the
    # body's own, kept in extra: it goes back as it came (see _request_write).
    output = opt_str(item, "id", path) is not None
    extra = unread(item, _MESSAGE_KEYS)
    if output and extra.get("status") == "completed":
        del extra["status"]  # written back by default: an output message requires one
    if type(value) is str and not output:
        return Message(role, [Text(value)], format=NAME, plain=True, extra=extra)  # type: ignore[arg-type]
    content = _parts(value, at(path, "content"), output)
    if not content:  # an empty one has no content to place it by: kept whole
        return None
    return Message(role, content, format=NAME, extra=extra)  # type: ignore[arg-type]


_CALL_KEYS: Final = frozenset({"type", "call_id", "name", "arguments"})
_CUSTOM_CALL_KEYS: Final = frozenset({"type", "call_id", "name", "input"})


def _call(item: Mapping[str, Any], kind: str, path: str) -> ToolCall:
    call_id = need_str(field(item, "call_id", path), at(path, "call_id"))
    name = need_str(field(item, "name", path), at(path, "name"))
    opt_str(item, "id", path)  # the item's id, kept in extra as it came
    if kind == "custom_tool_call":
        text = need_str(field(item, "input", path), at(path, "input"))
        return ToolCall(call_id, name, text, text, done=True, type=kind, plain=True,
                        extra=unread(item, _CUSTOM_CALL_KEYS))
    arguments = need_str(field(item, "arguments", path), at(path, "arguments"))
    value, error = parse_arguments(arguments)
    return ToolCall(call_id, name, arguments, value, done=True, type=kind, input_error=error,
                    extra=unread(item, _CALL_KEYS))


def _reasoning(item: Mapping[str, Any], path: str) -> ReasoningBlock:
    item_id = need_str(field(item, "id", path), at(path, "id"))
    summary = need_list(field(item, "summary", path), at(path, "summary"))
    texts = []
    for i, raw in enumerate(summary):
        where = f"{path}.summary[{i}]"
        texts.append(need_str(field(need_dict(raw, where), "text", where), at(where, "text")))
    encrypted = opt_str(item, "encrypted_content", path)
    return ReasoningBlock("\n\n".join(texts), encrypted_content=encrypted, id=item_id, raw=item)


_RESULT_KEYS: Final = frozenset({"type", "call_id", "output"})


def _result(item: Mapping[str, Any], path: str) -> ToolResult | None:
    call_id = opt_str(item, "call_id", path)
    if call_id is None:
        return None
    value = field(item, "output", path)
    content: Any = value
    if type(value) is not str:
        content = _parts(value, at(path, "output"), output=False)
        if content is None or any(isinstance(p, Refusal) for p in content):
            return None
    return ToolResult(call_id, content, extra=unread(item, _RESULT_KEYS))


class _Grouper:
    """Puts each item's neutral pieces in the message they belong to (see the module docstring)."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.group = ""  # what the last message is: "assistant", "results", "message", "native"
        self.has_text = False  # the assistant message holds a message item already
        self.calls: dict[str, bool] = {}  # call_id -> the call's input is plain text

    def add(self, group: str, piece: Content, role: str = "assistant") -> None:
        if self.group != group:
            self.messages.append(Message(role, [], format=NAME))  # type: ignore[arg-type]
            self.group = group
            self.has_text = False
        self.messages[-1].content.append(piece)

    def item(self, raw: Any, path: str) -> None:
        item = need_dict(raw, path)
        kind = item.get("type")
        if kind is None:  # an easy input message, or an item_reference of null type
            kind = "message" if "role" in item else ""
        need_str(kind, at(path, "type"))
        if kind == "message" and "role" in item:
            self._message(item, path)
        elif kind in ("function_call", "custom_tool_call"):
            call = _call(item, kind, path)
            self.calls[call.id] = call.plain
            self.add("assistant", call)
        elif kind == "reasoning":
            self.add("assistant", _reasoning(item, path))
        elif kind in ("function_call_output", "custom_tool_call_output") and (
            # Written back by the kind of its call (a call not in the body: a function's).
            self.calls.get(str(item.get("call_id")), False) == (kind == "custom_tool_call_output")
        ) and (result := _result(item, path)) is not None:
            self.add("results", result, "user")
        else:
            self.native(item)

    def _message(self, item: Mapping[str, Any], path: str) -> None:
        message = _message(item, path)
        if message is None:
            self.native(item)
        elif message.role == "assistant" and self.group == "assistant" and not self.has_text:
            last = self.messages[-1]
            last.content.extend(message.content)
            last.plain, last.extra = message.plain, message.extra
            self.has_text = True
        else:
            self.messages.append(message)
            self.group = "assistant" if message.role == "assistant" else "message"
            self.has_text = True

    def native(self, item: Mapping[str, Any]) -> None:
        if not self.messages:
            self.messages.append(Message("user", [], format=NAME))
            self.group = "native"
        self.messages[-1].content.append(Native(NAME, item))


# -- tools and settings ----------------------------------------------------------------------

_FUNCTION_KEYS: Final = frozenset({"type", "name", "parameters", "strict", "description"})
_CUSTOM_KEYS: Final = frozenset({"type", "name", "description", "format"})


def _tool(raw: Any, path: str) -> Tool | Native:
    tool = need_dict(raw, path)
    kind = need_str(field(tool, "type", path), at(path, "type"))
    if kind == "function":
        return Tool(
            need_str(field(tool, "name", path), at(path, "name")),
            opt_str(tool, "description", path),
            opt_dict(tool, "parameters", path),
            opt_bool(tool, "strict", path),
            format=NAME,
            extra=unread(tool, _FUNCTION_KEYS),
        )
    if kind == "custom" and isinstance(tool.get("format", {}), Mapping):
        return Tool(
            need_str(field(tool, "name", path), at(path, "name")),
            opt_str(tool, "description", path),
            custom=tool.get("format", {}),
            format=NAME,
            extra=unread(tool, _CUSTOM_KEYS),
        )
    return Native(NAME, tool)


def _tool_choice(value: Any, tools: list[Tool | Native]) -> ToolChoice | None:
    if value in ("auto", "none", "required"):
        return ToolChoice(value)
    if isinstance(value, Mapping) and value.keys() == {"type", "name"} and (
        value["type"] in ("function", "custom") and type(value["name"]) is str
    ):
        custom = any(
            isinstance(t, Tool) and t.name == value["name"] and t.custom is not None for t in tools
        )
        if custom == (value["type"] == "custom"):
            return ToolChoice("tool", value["name"])
    return None


def _text(value: Any, settings: Settings, extra: dict[str, Any]) -> None:
    """``text``: its JSON ``format`` is the response format; the rest is kept."""
    text = dict(value) if isinstance(value, Mapping) else None
    wanted = text.get("format") if text is not None else None
    if text is None or not isinstance(wanted, Mapping):
        extra["text"] = value
        return
    if wanted.keys() == {"type"} and wanted["type"] == "json_object":
        settings.response_format = ResponseFormat()
    elif wanted.get("type") == "json_schema" and (
        wanted.keys() <= {"type", "name", "schema", "description", "strict"}
        and type(wanted.get("name")) is str
        and isinstance(wanted.get("schema"), Mapping)
    ):
        where = "text.format"
        settings.response_format = ResponseFormat(
            wanted["schema"], wanted["name"], opt_str(wanted, "description", where),
            opt_bool(wanted, "strict", where),
        )
    else:
        extra["text"] = value  # a format no neutral field holds: all of it kept
        return
    del text["format"]
    if text:
        extra["text"] = text


def _reasoning_setting(value: Any, settings: Settings, extra: dict[str, Any]) -> None:
    if not isinstance(value, Mapping):
        extra["reasoning"] = value
        return
    settings.reasoning = Reasoning(effort=opt_str(value, "effort", "reasoning"))
    rest = unread(value, frozenset({"effort"}))
    if rest:
        extra["reasoning"] = rest


_NUMBERS: Final = {"temperature": "temperature", "top_p": "top_p"}
_BODY_KEYS: Final = frozenset({"model", "stream", "input", "instructions", "tools", "tool_choice"})


def _settings(body: Mapping[str, Any], tools: list[Tool | Native]) -> Settings:
    settings = Settings()
    extra: dict[str, Any] = {}
    for key, value in body.items():
        if key in _BODY_KEYS:
            continue
        if value is None and key in _SETTING_KEYS:
            continue  # null is "not said"
        if key == "max_output_tokens":
            settings.max_tokens = opt_int(body, key, "")
        elif key in _NUMBERS:
            setattr(settings, _NUMBERS[key], opt_number(body, key, ""))
        elif key == "parallel_tool_calls":
            settings.parallel_tool_calls = opt_bool(body, key, "")
        elif key == "user":
            settings.user = opt_str(body, key, "")
        elif key == "metadata" and isinstance(value, Mapping) and all(
            type(v) is str for v in value.values()
        ):
            settings.metadata = dict(value)
        elif key == "reasoning":
            _reasoning_setting(value, settings, extra)
        elif key == "text":
            _text(value, settings, extra)
        else:
            extra[key] = value
    choice = body.get("tool_choice")
    if choice is not None:
        settings.tool_choice = _tool_choice(choice, tools)
        if settings.tool_choice is None:
            extra["tool_choice"] = choice
    if extra:
        settings.extra[NAME] = extra
    return settings


_SETTING_KEYS: Final = frozenset(
    {"max_output_tokens", "temperature", "top_p", "parallel_tool_calls", "user", "metadata",
     "reasoning", "text"}
)


def read_body(body: Mapping[str, Any]) -> Conversation:
    """A Responses request body as a conversation (raises ``InvalidRequest``)."""
    grouper = _Grouper()
    value = body.get("input")
    if type(value) is str:
        grouper.messages.append(Message("user", [Text(value)], format=NAME, plain=True))
    elif value is not None:
        for i, item in enumerate(need_list(value, "input")):
            grouper.item(item, f"input[{i}]")
    listed = need_list(body.get("tools") or [], "tools")
    tools = [_tool(tool, f"tools[{i}]") for i, tool in enumerate(listed)]
    return Conversation(
        grouper.messages,
        system=opt_str(body, "instructions", ""),
        tools=tools,
        settings=_settings(body, tools),
        format=NAME,
    )


#: The Responses row's request codec.
CODEC: Final = RequestCodec(read=read_body, write=write_body, error_body=error_body)
