"""A :class:`~sse_engine.conversation.Conversation` as an Anthropic Messages request body.

The inverse of ``_request.py``'s reading. Instructions given as messages by
another format fold into ``system`` when they lead the conversation;
images go as base64 or URL sources (the four media types Anthropic takes);
a tool call's input goes as a value. Only blocks of reasoning this format
made go back (a ``thinking`` block with its signature, a
``redacted_thinking`` block), in their place: before the ``tool_use`` they
led to. What Anthropic has no place for is named in ``dropped``: another
provider's reasoning, refusals, custom (plain-text) tools and their calls,
image detail, OpenAI's metadata and JSON mode, response format names,
sampling parameters (the anthropic SDK's request types have none).

Anthropic requires ``max_tokens``: without one, the body asks for
:data:`DEFAULT_MAX_TOKENS` (more than the thinking budget, when there is one).
"""

from __future__ import annotations

from typing import Any, Final

from sse_engine.conversation import (
    Conversation,
    Image,
    Message,
    Native,
    ReasoningBlock,
    Rendered,
    Settings,
    Text,
    Tool,
    ToolCall,
    ToolResult,
    Writer,
    call_input,
    merge,
)

__all__ = ["DEFAULT_MAX_TOKENS", "NAME", "write_body"]

#: This format's name in ``sse_engine.FORMATS``.
NAME: Final = "messages"
#: ``max_tokens`` when the conversation sets none (Anthropic requires one).
DEFAULT_MAX_TOKENS: Final = 4096
#: The image media types Anthropic takes inline.
IMAGE_TYPES: Final = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
#: An input schema for a tool defined without one (no parameters).
NO_PARAMETERS: Final = {"type": "object", "properties": {}}
_EFFORTS: Final = frozenset({"low", "medium", "high", "xhigh", "max"})


def _text(text: Text, owner: str | None, path: str, out: Writer) -> dict[str, Any]:
    return {"type": "text", "text": text.text, **out.extra(owner, text.extra, path)}


def _image(image: Image, owner: str | None, path: str, out: Writer) -> dict[str, Any] | None:
    source: dict[str, Any]
    if image.data is not None:
        if image.media_type not in IMAGE_TYPES:
            out.drop(path)
            return None
        source = {"type": "base64", "media_type": image.media_type, "data": image.data}
    else:
        source = {"type": "url", "url": image.url}
    if image.detail is not None:
        out.drop(f"{path}.detail")
    return {"type": "image", "source": source, **out.extra(owner, image.extra, path)}


def _result(result: ToolResult, owner: str | None, path: str, out: Writer) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": result.call_id}
    content = result.content
    if isinstance(content, str):
        block["content"] = content
    elif content:
        blocks: list[Any] = []
        for j, piece in enumerate(content):
            where = f"{path}.content[{j}]"
            written = (
                _text(piece, owner, where, out) if isinstance(piece, Text)
                else _image(piece, owner, where, out) if isinstance(piece, Image)
                else piece.value if piece.format == NAME
                else None
            )
            if written is not None:
                blocks.append(written)
            elif isinstance(piece, Native):
                out.drop(where)
        block["content"] = blocks
    if result.is_error:
        block["is_error"] = True
    return {**block, **out.extra(owner, result.extra, path)}


def _call(call: ToolCall, owner: str | None, path: str, out: Writer) -> dict[str, Any] | None:
    if call.server or call.plain:
        out.drop_call(call.id, path)  # a server's own call (its result is not in the turn),
        return None  # or a plain-text input
    out.lost_calls.discard(call.id)  # a later call of the same id is carried
    value = call.input if owner == NAME else call_input(call)
    if not isinstance(value, dict) and owner != NAME:
        out.drop(f"{path}.arguments")  # not a JSON object: Anthropic takes objects only
        value = {}
    if call.item_id is not None:
        out.drop(f"{path}.item_id")
    block = {"type": "tool_use", "id": call.id, "name": call.name, "input": value}
    return {**block, **out.extra(owner, call.extra, path)}


def _reasoning(block: ReasoningBlock, owner: str | None, path: str, out: Writer) -> Any:
    if owner == NAME and block.redacted is not None:
        return {"type": "redacted_thinking", "data": block.redacted}
    if owner == NAME and block.signature is not None:
        return {"type": "thinking", "thinking": block.text, "signature": block.signature}
    out.drop(path)  # another provider's, or unsigned: Anthropic takes neither back
    return None


def _content(message: Message, path: str, out: Writer) -> list[Any]:
    owner = message.format
    instructions = message.role in ("system", "developer")  # text only
    blocks: list[Any] = []
    for j, piece in enumerate(message.content):
        where = f"{path}.content[{j}]"
        written: Any = None
        if isinstance(piece, Text):
            written = _text(piece, owner, where, out)
        elif instructions:
            out.drop(where)
        elif isinstance(piece, Image):
            written = _image(piece, owner, where, out)
        elif isinstance(piece, ToolCall):
            written = _call(piece, owner, where, out)
        elif isinstance(piece, ToolResult):
            if not out.answers_lost_call(piece.call_id, where):
                written = _result(piece, owner, where, out)
        elif isinstance(piece, ReasoningBlock):
            written = _reasoning(piece, owner, where, out)
        elif isinstance(piece, Native) and piece.format == NAME:
            written = piece.value
        else:
            out.drop(where)  # a refusal, another format's own object
        if written is not None:
            blocks.append(written)
    return blocks


def _message(message: Message, path: str, out: Writer) -> dict[str, Any] | None:
    blocks = _content(message, path, out)
    extra = out.extra(message.format, message.extra, path)
    if not blocks and message.content:
        out.extra(None, extra, path)  # no message to carry them
        return None  # nothing of it could be carried (each piece is named)
    content: Any = blocks
    if message.plain and len(blocks) == 1 and blocks[0].keys() == {"type", "text"} and (
        blocks[0]["type"] == "text"
    ):
        content = blocks[0]["text"]
    if message.id is not None:
        out.drop(f"{path}.id")
    role = "system" if message.role == "developer" else message.role
    written = {"role": role, "content": content}
    return {**written, **extra}


def _system(conversation: Conversation, out: Writer) -> tuple[Any, int]:
    """The ``system`` field, and how many leading messages it took in.

    Instructions another format gave as messages (Chat's leading ``system``
    and ``developer`` messages) are Anthropic's system prompt: they join it.
    """
    system = conversation.system
    blocks: list[Any] = (
        [] if system is None
        else [{"type": "text", "text": system}] if isinstance(system, str)
        else [_text(block, conversation.format, f"system[{i}]", out)
              for i, block in enumerate(system)]
    )
    taken = 0
    for message in conversation.messages:
        if message.role not in ("system", "developer") or message.format == NAME:
            break
        path = f"messages[{taken}]"
        for j, piece in enumerate(message.content):
            if isinstance(piece, Text):
                blocks.append(_text(piece, message.format, f"{path}.content[{j}]", out))
            else:
                out.drop(f"{path}.content[{j}]")  # a system prompt is text only
        out.extra(None, message.extra, path)
        taken += 1
    if taken == 0 and (system is None or isinstance(system, str)):
        return system, 0
    if taken == 1 and system is None and conversation.messages[0].plain and len(blocks) == 1:
        return blocks[0]["text"], 1
    return blocks, taken


def _settings(conversation: Conversation, body: dict[str, Any], out: Writer) -> None:
    settings: Settings = conversation.settings
    reasoning = settings.reasoning
    budget = reasoning.budget_tokens if reasoning is not None else None
    if settings.max_tokens is not None:
        body["max_tokens"] = settings.max_tokens
    else:
        body["max_tokens"] = DEFAULT_MAX_TOKENS + (budget or 0)
    for name in ("temperature", "top_p"):  # the SDK's types have no sampling parameters
        if getattr(settings, name) is not None:
            out.drop(f"settings.{name}")
    stop = settings.stop
    if stop is not None:
        body["stop_sequences"] = [stop] if isinstance(stop, str) else stop
    if settings.user is not None:
        body["metadata"] = {"user_id": settings.user}
    if settings.metadata is not None:
        out.drop("settings.metadata")
    choice = settings.tool_choice
    parallel = settings.parallel_tool_calls
    if choice is not None or parallel is not None:
        mode = "auto" if choice is None else choice.mode
        written: dict[str, Any] = {"type": "any" if mode == "required" else mode}
        if choice is not None and choice.mode == "tool":
            written["name"] = choice.name
        if parallel is not None:
            if mode == "none":
                out.drop("settings.parallel_tool_calls")
            else:
                written["disable_parallel_tool_use"] = not parallel
        body["tool_choice"] = written
    config: dict[str, Any] = {}
    if reasoning is not None:
        if budget is not None:
            body["thinking"] = {"type": "enabled", "budget_tokens": budget}
        if reasoning.effort in _EFFORTS:
            config["effort"] = reasoning.effort
        elif reasoning.effort is not None:
            out.drop("settings.reasoning.effort")
    wanted = settings.response_format
    if wanted is not None:
        if wanted.schema is None:
            out.drop("settings.response_format")  # JSON mode without a schema
        else:
            config["format"] = {"type": "json_schema", "schema": wanted.schema}
            for name in ("name", "description", "strict"):
                if getattr(wanted, name) is not None:
                    out.drop(f"settings.response_format.{name}")
    if config:
        body["output_config"] = config
    merge(body, out.settings_extra(settings.extra))


def _tool(tool: Tool | Native, path: str, out: Writer) -> dict[str, Any] | None:
    if isinstance(tool, Native):
        if tool.format == NAME:
            return tool.value  # type: ignore[no-any-return]
        out.drop(path)
        return None
    if tool.custom is not None:
        out.drop(path)  # a plain-text tool: Anthropic's tools take JSON objects
        return None
    written: dict[str, Any] = {"name": tool.name}
    if tool.description is not None:
        written["description"] = tool.description
    written["input_schema"] = NO_PARAMETERS if tool.input_schema is None else tool.input_schema
    if tool.strict is not None:
        written["strict"] = tool.strict
    return {**written, **out.extra(tool.format, tool.extra, path)}


def write_body(conversation: Conversation, model: str | None, stream: bool) -> Rendered:
    """The conversation as a Messages body for ``model``, and what it could not carry."""
    out = Writer(NAME)
    body: dict[str, Any] = {} if model is None else {"model": model}
    system, taken = _system(conversation, out)
    if system is not None:
        body["system"] = system
    messages = []
    for i, message in enumerate(conversation.messages[taken:], start=taken):
        written = _message(message, f"messages[{i}]", out)
        if written is not None:
            messages.append(written)
    body["messages"] = messages
    tools = [_tool(t, f"tools[{k}]", out) for k, t in enumerate(conversation.tools)]
    if conversation.tools:
        body["tools"] = [t for t in tools if t is not None]
    _settings(conversation, body, out)
    body["stream"] = stream
    return out.rendered(body)
