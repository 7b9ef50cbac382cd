"""A :class:`~sse_engine.conversation.Conversation` as a Chat Completions request body.

The inverse of ``_request.py``'s reading: a body read there comes back
equal. What Chat has no place for is named in ``dropped``: another
provider's reasoning, images in a system prompt or a tool result, a tool
error flag, a thinking budget, another format's settings and fields.
"""

from __future__ import annotations

from typing import Any, Final

from sse_engine.conversation import (
    Conversation,
    Image,
    Message,
    Native,
    ReasoningBlock,
    Refusal,
    Rendered,
    Settings,
    Text,
    Tool,
    ToolCall,
    ToolResult,
    Writer,
    call_arguments,
    merge,
)

__all__ = ["NAME", "write_body"]

#: This format's name in ``sse_engine.FORMATS``.
NAME: Final = "chat"
#: The name OpenAI requires for a JSON schema when the conversation has none.
DEFAULT_SCHEMA_NAME: Final = "response"


def _text_part(text: Text, owner: str | None, path: str, out: Writer) -> dict[str, Any]:
    return {"type": "text", "text": text.text, **out.extra(owner, text.extra, path)}


def _image_part(image: Image, owner: str | None, path: str, out: Writer) -> dict[str, Any]:
    url: dict[str, Any] = {"url": image.data_url}
    if image.detail is not None:
        url["detail"] = image.detail
    return {"type": "image_url", "image_url": url, **out.extra(owner, image.extra, path)}


def _texts(
    pieces: list[Any], owner: str | None, path: str, out: Writer, plain: bool
) -> str | list[dict[str, Any]]:
    """Content that may only be text (system, developer, tool): other pieces are named.

    ``path`` is the list's (each piece's is ``path[j]``).
    """
    if plain and len(pieces) == 1 and isinstance(pieces[0], Text) and not pieces[0].extra:
        return pieces[0].text
    parts: list[dict[str, Any]] = []
    for j, piece in enumerate(pieces):
        where = f"{path}[{j}]"
        if isinstance(piece, Text):
            parts.append(_text_part(piece, owner, where, out))
        elif isinstance(piece, Native) and piece.format == NAME:
            parts.append(piece.value)
        else:
            out.drop(where)
    return parts


def _user(message: Message, path: str, out: Writer) -> list[dict[str, Any]]:
    """A user message: its tool results as ``tool`` messages first, then the rest."""
    owner = message.format
    messages: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    whole: list[dict[str, Any]] = []  # kept messages of the deprecated kinds
    others = False
    for j, piece in enumerate(message.content):
        where = f"{path}.content[{j}]"
        if isinstance(piece, ToolResult):
            if not out.answers_lost_call(piece.call_id, where):
                messages.append(_tool_message(piece, owner, where, out))
            continue
        others = True
        if isinstance(piece, Text):
            parts.append(_text_part(piece, owner, where, out))
        elif isinstance(piece, Image):
            parts.append(_image_part(piece, owner, where, out))
        elif isinstance(piece, Native) and piece.format == NAME:
            (whole if "role" in piece.value else parts).append(piece.value)
        else:
            out.drop(where)
    if whole and not parts:
        return messages + whole
    if (not others and messages) or (others and not parts):
        # Only tool messages (they have no place for the message's fields), or nothing
        # of the rest could be carried (each piece is named already).
        out.extra(None, message.extra, path)
    else:
        content: Any = parts
        if message.plain and len(parts) == 1 and parts[0].keys() == {"type", "text"}:
            content = parts[0]["text"]
        user = {"role": "user", "content": content}
        messages.append({**user, **out.extra(owner, message.extra, path)})
    return messages + whole


def _tool_message(result: ToolResult, owner: str | None, path: str, out: Writer) -> dict[str, Any]:
    content: Any = result.content
    if not isinstance(content, str):
        content = _texts(content, owner, f"{path}.content", out, plain=False)
    if result.is_error:
        out.drop(f"{path}.is_error")
    message = {"role": "tool", "tool_call_id": result.call_id, "content": content}
    return {**message, **out.extra(owner, result.extra, path)}


def _call(call: ToolCall, owner: str | None, path: str, out: Writer) -> dict[str, Any] | None:
    # A call of this format keeps its text as it was (even empty); another's is written.
    arguments = call.arguments if owner == NAME else call_arguments(call)
    if call.server or arguments is None:
        # The server ran it (its result is the server's, not in the turn), or its input
        # cannot be written as JSON text.
        out.drop_call(call.id, path)
        return None
    if call.item_id is not None and owner != NAME:
        out.drop(f"{path}.item_id")
    out.lost_calls.discard(call.id)  # a later call of the same id is carried
    extra = out.extra(owner, call.extra, path)
    if call.plain:
        custom = {"name": call.name, "input": arguments}
        return {"id": call.id, "type": "custom", "custom": custom, **extra}
    function = {"name": call.name, "arguments": arguments}
    return {"id": call.id, "type": "function", "function": function, **extra}


def _assistant(message: Message, path: str, out: Writer) -> dict[str, Any] | None:
    owner = message.format
    said = [p for p in message.content if isinstance(p, Text | Refusal)]
    texts = [p for p in said if isinstance(p, Text)]
    plain = message.plain and len(texts) <= 1 and len(said) - len(texts) <= 1 and not any(
        p.extra for p in said
    )
    parts: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    details: list[Any] = []
    body: dict[str, Any] = {"role": "assistant"}
    for j, piece in enumerate(message.content):
        where = f"{path}.content[{j}]"
        if isinstance(piece, Text):
            if plain:
                body["content"] = piece.text
            else:
                parts.append(_text_part(piece, owner, where, out))
        elif isinstance(piece, Refusal):
            if plain:
                body["refusal"] = piece.text
            else:
                refusal = {"type": "refusal", "refusal": piece.text}
                parts.append({**refusal, **out.extra(owner, piece.extra, where)})
        elif isinstance(piece, ToolCall):
            call = _call(piece, owner, where, out)
            if call is not None:
                calls.append(call)
        elif isinstance(piece, ReasoningBlock) and owner == NAME and isinstance(piece.raw, list):
            details.extend(piece.raw)  # OpenRouter's reasoning_details, sent back as they came
        elif isinstance(piece, Native) and piece.format == NAME:
            parts.append(piece.value)
        else:
            out.drop(where)
    if message.id is not None and owner != NAME:
        out.drop(f"{path}.id")
    if message.content and not (parts or calls or details or len(body) > 1):
        out.extra(None, message.extra, path)  # nothing of it could be carried: no message
        return None
    if not plain:
        body["content"] = parts
    if calls:
        body["tool_calls"] = calls
    if details:
        body["reasoning_details"] = details
    return {**body, **out.extra(owner, message.extra, path)}


def _messages(conversation: Conversation, out: Writer) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    system = conversation.system
    if system is not None:
        content: Any = system
        if not isinstance(system, str):
            content = _texts(list(system), conversation.format, "system", out, plain=False)
        messages.append({"role": "system", "content": content})
    for i, message in enumerate(conversation.messages):
        path = f"messages[{i}]"
        if message.role == "user":
            messages.extend(_user(message, path, out))
        elif message.role == "assistant":
            assistant = _assistant(message, path, out)
            if assistant is not None:
                messages.append(assistant)
        else:
            content = _texts(
                message.content, message.format, f"{path}.content", out, message.plain
            )
            extra = out.extra(message.format, message.extra, path)
            if message.content and content == []:
                out.extra(None, extra, path)  # nothing of it could be carried: no message
                continue
            body = {"role": message.role, "content": content}
            messages.append({**body, **extra})
    return messages


def _tool(tool: Tool | Native, path: str, out: Writer) -> dict[str, Any] | None:
    if isinstance(tool, Native):
        if tool.format == NAME:
            return tool.value  # type: ignore[no-any-return]
        out.drop(path)
        return None
    inner: dict[str, Any] = {"name": tool.name}
    if tool.description is not None:
        inner["description"] = tool.description
    extra = out.extra(tool.format, tool.extra, path)
    if tool.custom is not None:
        if tool.custom.get("type") == "grammar":  # nested in Chat (see _request._custom_format)
            grammar = {key: value for key, value in tool.custom.items() if key != "type"}
            inner["format"] = {"type": "grammar", "grammar": grammar}
        elif tool.custom:
            inner["format"] = tool.custom
        if tool.input_schema is not None or tool.strict is not None:
            out.drop(f"{path}.input_schema")
        return {"type": "custom", "custom": inner, **extra}
    if tool.input_schema is not None:
        inner["parameters"] = tool.input_schema
    if tool.strict is not None:
        inner["strict"] = tool.strict
    return {"type": "function", "function": inner, **extra}


def _settings(conversation: Conversation, body: dict[str, Any], out: Writer) -> None:
    settings: Settings = conversation.settings
    if settings.max_tokens is not None:
        key = settings.spelling.get(NAME, {}).get("max_tokens", "max_completion_tokens")
        body[key] = settings.max_tokens
    for name in ("temperature", "top_p", "stop", "parallel_tool_calls", "user", "metadata"):
        value = getattr(settings, name)
        if value is not None:
            body[name] = value
    choice = settings.tool_choice
    if choice is not None:
        if choice.mode != "tool":
            body["tool_choice"] = choice.mode
        else:
            custom = any(
                isinstance(t, Tool) and t.name == choice.name and t.custom is not None
                for t in conversation.tools
            )
            kind = "custom" if custom else "function"
            body["tool_choice"] = {"type": kind, kind: {"name": choice.name}}
    reasoning = settings.reasoning
    if reasoning is not None:
        if reasoning.effort is not None:
            body["reasoning_effort"] = reasoning.effort
        if reasoning.budget_tokens is not None:
            out.drop("settings.reasoning.budget_tokens")
    wanted = settings.response_format
    if wanted is not None:
        if wanted.schema is None:
            body["response_format"] = {"type": "json_object"}
            if (wanted.name, wanted.description, wanted.strict) != (None, None, None):
                out.drop("settings.response_format.name")
        else:
            name = DEFAULT_SCHEMA_NAME if wanted.name is None else wanted.name
            schema: dict[str, Any] = {"name": name}
            if wanted.description is not None:
                schema["description"] = wanted.description
            schema["schema"] = wanted.schema
            if wanted.strict is not None:
                schema["strict"] = wanted.strict
            body["response_format"] = {"type": "json_schema", "json_schema": schema}
    merge(body, out.settings_extra(settings.extra))


def write_body(conversation: Conversation, model: str | None, stream: bool) -> Rendered:
    """The conversation as a Chat Completions body for ``model``, and what it could not carry."""
    out = Writer(NAME)
    body: dict[str, Any] = {} if model is None else {"model": model}
    body["messages"] = _messages(conversation, out)
    tools = [_tool(t, f"tools[{k}]", out) for k, t in enumerate(conversation.tools)]
    if conversation.tools:
        body["tools"] = [t for t in tools if t is not None]
    _settings(conversation, body, out)
    body["stream"] = stream
    return out.rendered(body)

