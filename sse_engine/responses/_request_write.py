"""A :class:`~sse_engine.conversation.Conversation` as a Responses request body.

The inverse of ``_request.py``'s reading. A message is written as items in
its content's order: a run of text, refusals and images is one ``message``
item (an output message, with ``output_text`` parts, when it has an id),
each tool call a ``function_call`` or ``custom_tool_call`` item, each block
of reasoning of this format a ``reasoning`` item with its ``id`` and
``encrypted_content``, each tool result a ``function_call_output`` (or
``custom_tool_call_output``) item.

Item ids: a body's own (read into a piece's ``extra``) go back as they came;
the ids of an appended turn (``Message.id``, ``ToolCall.item_id``) go back
unless the request says ``store: false``: the API keeps no items then, and
rejects a request naming one it does not have (a reasoning item's ``id`` is
required, and found through its ``encrypted_content``).
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

__all__ = ["NAME", "is_part", "write_body"]

#: This format's name in ``sse_engine.FORMATS``.
NAME: Final = "responses"
#: The name OpenAI requires for a JSON schema when the conversation has none.
DEFAULT_SCHEMA_NAME: Final = "response"
#: The detail an input image must say when the conversation does not (the API's default).
DEFAULT_DETAIL: Final = "auto"
#: The content parts of a message item (any other ``type`` is an item of its own).
_PART_TYPES: Final = frozenset(
    {"input_text", "input_image", "input_file", "output_text", "refusal"}
)


def is_part(kind: str) -> bool:
    """Whether ``kind`` is the type of a message item's content part."""
    return kind in _PART_TYPES


class _Items:
    """The items of the body being written, and what it needs to know to write them."""

    def __init__(self, out: Writer, store: Any) -> None:
        self.out = out
        self.items: list[Any] = []
        self.keep_ids = store is not False
        self.plain_calls: dict[str, bool] = {}  # call id -> a custom tool's call

    def turn_id(self, value: str | None, path: str) -> str | None:
        """A turn's item id, unless the request stores nothing (then named in ``dropped``)."""
        if value is not None and not self.keep_ids:
            self.out.drop(path)
            return None
        return value

    # -- a message's runs of text -----------------------------------------------------

    def message(self, message: Message, run: list[tuple[int, Any]], path: str, first: bool) -> None:
        out = self.out
        owner = message.format
        extra = out.extra(owner, message.extra, path) if first else {}
        item_id = extra.get("id")
        if item_id is None and first:
            item_id = self.turn_id(message.id, f"{path}.id")
        output = message.role == "assistant" and item_id is not None
        parts: list[Any] = []
        for j, piece in run:
            where = f"{path}.content[{j}]"
            if isinstance(piece, Text):
                own = out.extra(owner, piece.extra, where)
                if output:
                    annotations = own.get("annotations", [])
                    part = {"type": "output_text", "text": piece.text, "annotations": annotations}
                    parts.append({**own, **part})
                else:
                    parts.append({"type": "input_text", "text": piece.text, **own})
            elif isinstance(piece, Refusal) and output:
                refusal = {"type": "refusal", "refusal": piece.text}
                parts.append({**refusal, **out.extra(owner, piece.extra, where)})
            elif isinstance(piece, Image) and not output:
                image = {"type": "input_image", "image_url": piece.data_url,
                         "detail": piece.detail or DEFAULT_DETAIL}
                parts.append({**image, **out.extra(owner, piece.extra, where)})
            elif isinstance(piece, Native) and piece.format == NAME:
                parts.append(piece.value)
            else:
                out.drop(where)
        if run and not parts:
            out.extra(None, extra, path)  # nothing of it could be carried: no message item
            return
        if output:
            item = {"type": "message", "id": item_id, "role": "assistant",
                    "status": extra.get("status", "completed"), "content": parts}
            self.items.append({**extra, **item})
            return
        if item_id is not None:
            out.drop(f"{path}.id")  # a user's message has no id to send
        content: Any = parts
        if message.plain and len(parts) == 1 and parts[0].keys() == {"type", "text"}:
            content = parts[0]["text"]
        self.items.append({"role": message.role, "content": content, **extra})

    # -- the other pieces -------------------------------------------------------------------

    def call(self, call: ToolCall, owner: str | None, path: str) -> None:
        arguments = call.arguments if owner == NAME else call_arguments(call)
        if call.server or arguments is None:
            self.out.drop_call(call.id, path)
            return
        self.out.lost_calls.discard(call.id)  # a later call of the same id is carried
        item: dict[str, Any] = {"call_id": call.id, "name": call.name}
        if call.plain:
            item = {"type": "custom_tool_call", **item, "input": arguments}
        else:
            item = {"type": "function_call", **item, "arguments": arguments}
        extra = self.out.extra(owner, call.extra, path)
        item_id = extra.get("id") or self.turn_id(call.item_id, f"{path}.item_id")
        if item_id is not None:
            item["id"] = item_id
        self.plain_calls[call.id] = call.plain
        self.items.append({**item, **extra})

    def reasoning(self, block: ReasoningBlock, owner: str | None, path: str) -> None:
        raw = block.raw
        if owner != NAME or block.id is None:
            self.out.drop(path)  # another provider's, or none of the API's: nothing to send
            return
        item: dict[str, Any] = dict(raw) if isinstance(raw, dict) else {}
        if not isinstance(item.get("summary"), list):
            item["summary"] = [{"type": "summary_text", "text": block.text}] if block.text else []
        item["type"] = "reasoning"
        item["id"] = block.id
        if block.encrypted_content is not None:
            item["encrypted_content"] = block.encrypted_content
        self.items.append(item)

    def result(self, result: ToolResult, owner: str | None, path: str) -> None:
        out = self.out
        if out.answers_lost_call(result.call_id, path):
            return
        content: Any = result.content
        if not isinstance(content, str):
            content = []
            for j, piece in enumerate(result.content):
                where = f"{path}.content[{j}]"
                if isinstance(piece, Text):
                    text = {"type": "input_text", "text": piece.text}
                    content.append({**text, **out.extra(owner, piece.extra, where)})
                elif isinstance(piece, Image):
                    image: dict[str, Any] = {"type": "input_image", "image_url": piece.data_url}
                    if piece.detail is not None:
                        image["detail"] = piece.detail
                    content.append({**image, **out.extra(owner, piece.extra, where)})
                elif isinstance(piece, Native) and piece.format == NAME:
                    content.append(piece.value)
                else:
                    out.drop(where)
        if result.is_error:
            out.drop(f"{path}.is_error")
        custom = self.plain_calls.get(result.call_id, False)
        kind = "custom_tool_call_output" if custom else "function_call_output"
        item = {"type": kind, "call_id": result.call_id, "output": content}
        self.items.append({**item, **out.extra(owner, result.extra, path)})

    def add(self, message: Message, path: str) -> None:
        """Every item of ``message``, in its content's order."""
        owner = message.format
        run: list[tuple[int, Any]] = []
        first = True
        for j, piece in enumerate(message.content):
            where = f"{path}.content[{j}]"
            if isinstance(piece, Text | Refusal | Image) or (
                isinstance(piece, Native) and piece.format == NAME
                and is_part(str(piece.value.get("type")))
            ):
                run.append((j, piece))
                continue
            if run:
                self.message(message, run, path, first)
                run, first = [], False
            if isinstance(piece, ToolCall):
                self.call(piece, owner, where)
            elif isinstance(piece, ReasoningBlock):
                self.reasoning(piece, owner, where)
            elif isinstance(piece, ToolResult):
                self.result(piece, owner, where)
            elif isinstance(piece, Native) and piece.format == NAME:
                self.items.append(piece.value)
            else:
                self.out.drop(where)
        if run or not message.content:
            self.message(message, run, path, first)
        elif first:
            self.out.extra(None, message.extra, path)  # no message item to carry them


def _tool(tool: Tool | Native, path: str, out: Writer) -> dict[str, Any] | None:
    if isinstance(tool, Native):
        if tool.format == NAME:
            return tool.value  # type: ignore[no-any-return]
        out.drop(path)
        return None
    written: dict[str, Any] = {"name": tool.name}
    if tool.description is not None:
        written["description"] = tool.description
    extra = out.extra(tool.format, tool.extra, path)
    if tool.custom is not None:
        if tool.custom:
            written["format"] = tool.custom
        if tool.input_schema is not None or tool.strict is not None:
            out.drop(f"{path}.input_schema")
        return {"type": "custom", **written, **extra}
    written["parameters"] = tool.input_schema
    written["strict"] = tool.strict
    return {"type": "function", **written, **extra}


def _settings(conversation: Conversation, body: dict[str, Any], out: Writer) -> None:
    settings: Settings = conversation.settings
    if settings.max_tokens is not None:
        body["max_output_tokens"] = settings.max_tokens
    for name in ("temperature", "top_p", "parallel_tool_calls", "user", "metadata"):
        value = getattr(settings, name)
        if value is not None:
            body[name] = value
    if settings.stop is not None:
        out.drop("settings.stop")
    choice = settings.tool_choice
    if choice is not None:
        if choice.mode != "tool":
            body["tool_choice"] = choice.mode
        else:
            custom = any(
                isinstance(t, Tool) and t.name == choice.name and t.custom is not None
                for t in conversation.tools
            )
            body["tool_choice"] = {"type": "custom" if custom else "function", "name": choice.name}
    reasoning = settings.reasoning
    if reasoning is not None:
        body["reasoning"] = {} if reasoning.effort is None else {"effort": reasoning.effort}
        if reasoning.budget_tokens is not None:
            out.drop("settings.reasoning.budget_tokens")
    wanted = settings.response_format
    if wanted is not None:
        if wanted.schema is None:
            body["text"] = {"format": {"type": "json_object"}}
            if (wanted.name, wanted.description, wanted.strict) != (None, None, None):
                out.drop("settings.response_format.name")
        else:
            name = DEFAULT_SCHEMA_NAME if wanted.name is None else wanted.name
            schema: dict[str, Any] = {"type": "json_schema", "name": name, "schema": wanted.schema}
            if wanted.description is not None:
                schema["description"] = wanted.description
            if wanted.strict is not None:
                schema["strict"] = wanted.strict
            body["text"] = {"format": schema}
    merge(body, out.settings_extra(settings.extra))


def _instructions(conversation: Conversation, out: Writer) -> str | None:
    system = conversation.system
    if system is None or isinstance(system, str):
        return system
    for i, block in enumerate(system):
        out.extra(None, block.extra, f"system[{i}]")  # instructions are one plain string
    return "\n\n".join(block.text for block in system) if system else None


def write_body(conversation: Conversation, model: str | None, stream: bool) -> Rendered:
    """The conversation as a Responses body for ``model``, and what it could not carry."""
    out = Writer(NAME)
    own = conversation.settings.extra.get(NAME, {})
    items = _Items(out, own.get("store"))
    body: dict[str, Any] = {} if model is None else {"model": model}
    instructions = _instructions(conversation, out)
    if instructions is not None:
        body["instructions"] = instructions
    for i, message in enumerate(conversation.messages):
        items.add(message, f"messages[{i}]")
    if items.items:
        body["input"] = items.items
    tools = [_tool(t, f"tools[{k}]", out) for k, t in enumerate(conversation.tools)]
    if conversation.tools:
        body["tools"] = [t for t in tools if t is not None]
    _settings(conversation, body, out)
    body["stream"] = stream
    return out.rendered(body)
