"""What a conversation says, as facts with paths: the measure of "carried or named".

``facts(conversation)`` lists ``(path, fact)`` for everything in it: each
text (by role), image, refusal, tool call (id, name, input as a value), tool
result, block of reasoning, kept object, extra field, tool definition and
setting. A translation carries a fact when the conversation read back from
the written body states it too; ``unaccounted(source, back, dropped)`` lists
the source's facts that were neither carried nor named in ``dropped`` (a
path named there covers what is under it, and a fact of which a part was
named counts as named).

Written from the neutral classes' meaning, not from the codecs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from sse_engine import Conversation
from sse_engine.conversation import (
    Image,
    Native,
    ReasoningBlock,
    Refusal,
    Text,
    Tool,
    ToolCall,
    ToolResult,
)

__all__ = ["facts", "unaccounted"]


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


def _input(call: ToolCall) -> Any:
    if call.plain:
        return call.arguments
    if call.arguments.strip():
        try:
            return json.loads(call.arguments)
        except ValueError:
            return ("not json", call.arguments)
    return call.input if call.arguments == "" else {}  # blank text: no parameters


def _extras(path: str, owner: tuple[Any, ...], extra: Any) -> Iterator[tuple[str, Any]]:
    for key, value in extra.items():
        yield f"{path}.{key}", ("extra", owner, key, _key(value))


def _pieces(path: str, role: str, pieces: Any) -> Iterator[tuple[str, Any]]:
    for j, piece in enumerate(pieces):
        yield from _piece(f"{path}[{j}]", role, piece)


def _piece(where: str, role: str, piece: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(piece, Text):
        fact: tuple[Any, ...] = ("text", role, piece.text)
        yield where, fact
        yield from _extras(where, fact, piece.extra)
    elif isinstance(piece, Image):
        fact = ("image", role, piece.data_url)
        yield where, fact
        if piece.detail is not None:
            yield f"{where}.detail", ("detail", piece.data_url, piece.detail)
        yield from _extras(where, fact, piece.extra)
    elif isinstance(piece, Refusal):
        yield where, ("refusal", piece.text)
        yield from _extras(where, ("refusal", piece.text), piece.extra)
    elif isinstance(piece, ToolCall):
        fact = ("call", piece.id, piece.name, _key(_input(piece)))
        yield where, fact
        if piece.item_id is not None:
            yield f"{where}.item_id", ("item id", piece.id, piece.item_id)
        yield from _extras(where, fact, piece.extra)
    elif isinstance(piece, ToolResult):
        fact = ("result", piece.call_id)
        yield where, fact
        if isinstance(piece.content, str):
            yield f"{where}.content", ("result text", piece.call_id, piece.content)
        else:
            # Text given as pieces says what the same text given whole says (Gemini's
            # response has no list of them): one fact, the texts in order.
            texts = [p for p in piece.content if isinstance(p, Text)]
            if texts:
                yield f"{where}.content", ("result text", piece.call_id,
                                           "\n".join(p.text for p in texts))
            for j, inner in enumerate(piece.content):
                if isinstance(inner, Text):
                    yield from _extras(f"{where}.content[{j}]", ("result", piece.call_id),
                                       inner.extra)
                else:
                    yield from _piece(f"{where}.content[{j}]", f"result {piece.call_id}", inner)
        if piece.is_error:
            yield f"{where}.is_error", ("error", piece.call_id)
        yield from _extras(where, fact, piece.extra)
    elif isinstance(piece, ReasoningBlock):
        yield where, ("reasoning", piece.text, piece.signature, piece.redacted,
                      piece.encrypted_content, piece.id)
    elif isinstance(piece, Native):
        yield where, ("native", piece.format, _key(piece.value))


def facts(conversation: Conversation) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    instructions = []
    system = conversation.system
    if isinstance(system, str):
        instructions.append(system)
    elif system is not None:
        instructions.extend(block.text for block in system)
        for i, block in enumerate(system):
            out.extend(_extras(f"system[{i}]", ("system",), block.extra))
    for i, message in enumerate(conversation.messages):
        path = f"messages[{i}]"
        if message.role in ("system", "developer"):
            # Instructions: a request's own prompt or a leading message, one sequence of texts.
            for j, piece in enumerate(message.content):
                if isinstance(piece, Text):
                    instructions.append(piece.text)
                    out.extend(_extras(f"{path}.content[{j}]", ("system",), piece.extra))
                else:
                    out.extend(_piece(f"{path}.content[{j}]", "system", piece))
        else:
            out.extend(_pieces(f"{path}.content", message.role, message.content))
        if message.id is not None:
            out.append((f"{path}.id", ("message id", message.id)))
        out.extend(_extras(path, ("message", message.role), message.extra))
    if instructions:
        out.append(("system", ("instructions", "\n\n".join(instructions))))
    for k, tool in enumerate(conversation.tools):
        path = f"tools[{k}]"
        if isinstance(tool, Native):
            out.append((path, ("native tool", tool.format, _key(tool.value))))
            continue
        assert isinstance(tool, Tool)
        # No schema is "no parameters", which Anthropic must write as an empty object's.
        schema = tool.input_schema
        if schema is None and tool.custom is None:
            schema = {"type": "object", "properties": {}}
        fact = ("tool", tool.name, tool.description, _key(schema), tool.strict, _key(tool.custom))
        out.append((path, fact))
        out.extend(_extras(path, ("tool", tool.name), tool.extra))
    settings = conversation.settings
    for name in ("max_tokens", "temperature", "top_p", "tool_choice", "parallel_tool_calls",
                 "user", "metadata"):
        value = getattr(settings, name)
        if value is not None:
            out.append((f"settings.{name}", ("setting", name, _key(value))))
    if settings.stop is not None:
        stop = [settings.stop] if isinstance(settings.stop, str) else settings.stop
        out.append(("settings.stop", ("setting", "stop", _key(stop))))
    for group in ("reasoning", "response_format"):
        value = getattr(settings, group)
        for name in ("effort", "budget_tokens", "schema", "name", "description", "strict"):
            part = getattr(value, name, None)
            if part is not None:
                out.append((f"settings.{group}.{name}", ("setting", group, name, _key(part))))
        if value is not None and group == "response_format":
            out.append((f"settings.{group}", ("setting", group, "json")))
    for format, fields in settings.extra.items():
        for key, value in fields.items():
            out.append((f"settings.extra.{format}.{key}", ("extra setting", format, key,
                                                           _key(value))))
    return out


def _named(path: str, dropped: tuple[str, ...]) -> bool:
    for name in dropped:
        if path == name or path.startswith((f"{name}.", f"{name}[")):
            return True  # named itself, or something holding it
        if name.startswith((f"{path}.", f"{path}[")):
            return True  # a part of it named
    return False


def unaccounted(
    source: Conversation, back: Conversation, dropped: tuple[str, ...]
) -> list[tuple[str, Any]]:
    """The source's facts neither in ``back`` nor named in ``dropped``."""
    carried = {fact for _, fact in facts(back)}
    return [(p, f) for p, f in facts(source) if f not in carried and not _named(p, dropped)]
