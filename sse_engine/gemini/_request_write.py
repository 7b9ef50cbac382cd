"""A :class:`~sse_engine.conversation.Conversation` as a Gemini ``generateContent`` request body.

The inverse of ``_request.py``'s reading. The assistant's messages are
``model`` contents, the others ``user`` contents; instructions another format
gave as messages join ``systemInstruction`` (Gemini has no such message; where
they stood is not kept). Images go as ``inlineData`` (base64 data; data that is
not base64 is named in ``dropped``) or ``fileData`` (a URL). What Gemini needs back goes
back to Gemini only: a thought part and a function call part of a Gemini
turn are written as they came, ``thoughtSignature`` included (the signature
of hidden thinking rides on the text part after it, where it came from);
a call Gemini gave no id is written without one, and so is its answer. A
``functionResponse`` names its call's function, found by the call's id;
its ``response`` is ``{"output": ...}`` (``{"error": ...}`` for a failed
tool), as Google's examples have it.

What Gemini has no place for is named in ``dropped``: another provider's
reasoning (and a signature it made), refusals, custom (plain-text) tools and
their calls, images in a tool result, image detail, strict schemas, the
parallel-calls switch, response format names, user and metadata.
"""

from __future__ import annotations

import binascii
from base64 import b64decode
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
    ToolCall,
    ToolResult,
    Writer,
    call_input,
    merge,
)
from sse_engine.gemini._wire import SIGNATURE_KEY, THOUGHT_KEY

__all__ = [
    "CALL",
    "EFFORTS",
    "JSON_MIME",
    "NAME",
    "PARAMETERS",
    "RESPONSE",
    "SCHEMA_KEYS",
    "write_body",
]

#: This format's name in ``sse_engine.FORMATS``.
NAME: Final = "gemini"
#: The part keys of a function call and of its answer.
CALL: Final = "functionCall"
RESPONSE: Final = "functionResponse"
#: A function declaration's input schema: a JSON schema, or the older OpenAPI-style one.
PARAMETERS: Final = "parameters"
SCHEMA_KEYS: Final = ("parametersJsonSchema", PARAMETERS)
#: The ``responseMimeType`` of a JSON answer.
JSON_MIME: Final = "application/json"
_LEVELS: Final = {"minimal": "MINIMAL", "low": "LOW", "medium": "MEDIUM", "high": "HIGH"}
#: ``thinkingLevel`` -> the neutral effort word.
EFFORTS: Final = {level: effort for effort, level in _LEVELS.items()}
_MODES: Final = {"auto": "AUTO", "none": "NONE", "required": "ANY", "tool": "ANY"}


def _is_gemini_part(raw: Any, key: str) -> bool:
    """Whether ``raw`` is a Gemini part holding ``key`` (not another provider's object)."""
    return type(raw) is dict and key in raw and "type" not in raw


class _Calls:
    """Each tool call's function name, and whether it is written with its id."""

    __slots__ = ("named",)

    def __init__(self, conversation: Conversation) -> None:
        self.named: dict[str, tuple[str, bool]] = {}
        for message in conversation.messages:
            for piece in message.content:
                if isinstance(piece, ToolCall):
                    own = message.format == NAME and _is_gemini_part(piece.raw, CALL)
                    with_id = not own or "id" in piece.raw[CALL]
                    self.named[piece.id] = (piece.name, with_id)


class _Parts:
    """One message's parts, as they are written (a hidden thought's signature held for the
    text part it came on)."""

    __slots__ = ("out", "owner", "parts", "signature")

    def __init__(self, out: Writer, owner: str | None) -> None:
        self.out = out
        self.owner = owner
        self.parts: list[dict[str, Any]] = []
        self.signature: str | None = None

    def add(self, part: dict[str, Any]) -> None:
        if self.signature is not None and "text" in part and part.get(THOUGHT_KEY) is not True:
            part = {**part, SIGNATURE_KEY: self.signature}
            self.signature = None
        self._flush()
        self.parts.append(part)

    def _flush(self) -> None:
        """A held signature with no text part after it: a part of its own, as it came."""
        if self.signature is not None:
            self.parts.append({"text": "", SIGNATURE_KEY: self.signature})
            self.signature = None

    def close(self) -> list[dict[str, Any]]:
        self._flush()
        return self.parts

    def reasoning(self, block: ReasoningBlock, path: str) -> None:
        raw = block.raw
        if self.owner != NAME or not _is_gemini_part(raw, "text"):
            self.out.drop(path)  # another provider's (or one made by hand): Gemini takes neither
            return
        if raw.get(THOUGHT_KEY) is True:
            self.add(dict(raw))
        elif type(raw.get(SIGNATURE_KEY)) is str:
            self._flush()
            self.signature = raw[SIGNATURE_KEY]  # for the text part it came on, next
        else:
            self.out.drop(path)

    def image(self, image: Image, path: str) -> None:
        if image.detail is not None:
            self.out.drop(f"{path}.detail")
        self.out.extra(None, image.extra, path)  # no place for them on a part: named
        if image.data is not None:
            try:
                b64decode(image.data, validate=True)  # Gemini decodes it: bytes, or a 400
            except (binascii.Error, ValueError):
                self.out.drop(path)
                return
            self.add({"inlineData": {"mimeType": image.media_type, "data": image.data}})
            return
        file: dict[str, Any] = {"fileUri": image.url}
        if image.media_type is not None:
            file["mimeType"] = image.media_type
        self.add({"fileData": file})

    def call(self, call: ToolCall, path: str) -> None:
        out = self.out
        if call.server or call.plain:
            out.drop_call(call.id, path)  # a server's own call, or a plain-text input
            return
        out.lost_calls.discard(call.id)
        if self.owner == NAME and _is_gemini_part(call.raw, CALL):
            self.add(dict(call.raw))  # as Gemini sent it, thoughtSignature included
            return
        value = call_input(call)
        if not isinstance(value, dict):
            out.drop(f"{path}.arguments")  # not a JSON object: Gemini's args are objects
            value = {}
        if call.item_id is not None:
            out.drop(f"{path}.item_id")
        out.extra(None, call.extra, path)  # no place for them on a part: named
        self.add({CALL: {"name": call.name, "args": value, "id": call.id}})

    def result(self, result: ToolResult, path: str, calls: _Calls) -> None:
        out = self.out
        if out.answers_lost_call(result.call_id, path):
            return
        named = calls.named.get(result.call_id)
        if named is None:
            out.drop(path)  # no call of that id: no function to name
            return
        name, with_id = named
        extra = dict(out.extra(self.owner, result.extra, path))
        response = extra.pop("response", None)
        if response is None:
            response = {"error" if result.is_error else "output": self._text(result, path)}
        elif result.is_error:
            out.drop(f"{path}.is_error")
        answer: dict[str, Any] = {"name": name, "response": response}
        if with_id:
            answer["id"] = result.call_id
        self.add({RESPONSE: {**answer, **extra}})

    def _text(self, result: ToolResult, path: str) -> str:
        if isinstance(result.content, str):
            return result.content
        texts = []
        for j, piece in enumerate(result.content):
            if isinstance(piece, Text):
                texts.append(piece.text)
                self.out.extra(self.owner, piece.extra, f"{path}.content[{j}]")
            else:
                self.out.drop(f"{path}.content[{j}]")  # an image or another format's own
        return "\n".join(texts)


def _message(message: Message, path: str, out: Writer, calls: _Calls) -> dict[str, Any] | None:
    owner = message.format
    parts = _Parts(out, owner)
    for j, piece in enumerate(message.content):
        where = f"{path}.content[{j}]"
        if isinstance(piece, Text):
            parts.add({"text": piece.text, **out.extra(owner, piece.extra, where)})
        elif isinstance(piece, Image):
            parts.image(piece, where)
        elif isinstance(piece, ToolCall):
            parts.call(piece, where)
        elif isinstance(piece, ToolResult):
            parts.result(piece, where, calls)
        elif isinstance(piece, ReasoningBlock):
            parts.reasoning(piece, where)
        elif isinstance(piece, Native) and piece.format == NAME:
            parts.add(piece.value)
        else:
            out.drop(where)  # a refusal, another format's own object
    written = parts.close()
    extra = out.extra(owner, message.extra, path)
    if not written:
        if not message.content:
            return {"role": "model" if message.role == "assistant" else "user", "parts": []}
        out.extra(None, extra, path)
        return None  # nothing of it could go (each piece is named)
    if message.id is not None:
        out.drop(f"{path}.id")
    role = "model" if message.role == "assistant" else "user"
    return {"role": role, "parts": written, **extra}


def _system(conversation: Conversation, out: Writer) -> dict[str, Any] | None:
    """``systemInstruction``: the system prompt, and the text of every instruction another
    format gave as a message (Gemini has no such message; their place is not kept)."""
    system = conversation.system
    parts: list[dict[str, Any]] = (
        [] if system is None
        else [{"text": system}] if isinstance(system, str)
        else [{"text": block.text, **out.extra(conversation.format, block.extra, f"system[{i}]")}
              for i, block in enumerate(system)]
    )
    found = system is not None
    for i, message in enumerate(conversation.messages):
        if message.role not in ("system", "developer"):
            continue
        found = True
        path = f"messages[{i}]"
        for j, piece in enumerate(message.content):
            if isinstance(piece, Text):
                where = f"{path}.content[{j}]"
                parts.append({"text": piece.text, **out.extra(message.format, piece.extra, where)})
            else:
                out.drop(f"{path}.content[{j}]")  # a system instruction is text only
        out.extra(None, message.extra, path)
        if message.id is not None:
            out.drop(f"{path}.id")
    return {"parts": parts} if found else None


def _settings(conversation: Conversation, body: dict[str, Any], out: Writer) -> None:
    settings: Settings = conversation.settings
    spelling = settings.spelling.get(NAME, {})
    config: dict[str, Any] = {}
    if settings.max_tokens is not None:
        config["maxOutputTokens"] = settings.max_tokens
    if settings.temperature is not None:
        config["temperature"] = settings.temperature
    if settings.top_p is not None:
        config["topP"] = settings.top_p
    if settings.stop is not None:
        stop = settings.stop
        config["stopSequences"] = [stop] if isinstance(stop, str) else stop
    reasoning = settings.reasoning
    if reasoning is not None:
        thinking: dict[str, Any] = {}
        if reasoning.budget_tokens is not None:
            thinking["thinkingBudget"] = reasoning.budget_tokens
        if reasoning.effort in _LEVELS:
            thinking["thinkingLevel"] = _LEVELS[reasoning.effort]
        elif reasoning.effort is not None:
            out.drop("settings.reasoning.effort")
        if thinking:
            config["thinkingConfig"] = thinking
    wanted = settings.response_format
    if wanted is not None:
        config["responseMimeType"] = JSON_MIME
        if wanted.schema is not None:
            config[spelling.get("response_format", "responseJsonSchema")] = wanted.schema
        for name in ("name", "description", "strict"):
            if getattr(wanted, name) is not None:
                out.drop(f"settings.response_format.{name}")
    for name in ("user", "metadata", "parallel_tool_calls"):
        if getattr(settings, name) is not None:
            out.drop(f"settings.{name}")  # Gemini has no such field
    choice = settings.tool_choice
    if choice is not None:
        calling: dict[str, Any] = {"mode": _MODES[choice.mode]}
        if choice.mode == "tool":
            calling["allowedFunctionNames"] = [choice.name]
        body["toolConfig"] = {"functionCallingConfig": calling}
    own = dict(out.settings_extra(settings.extra))
    more = own.get("generationConfig")
    if isinstance(more, dict) and isinstance(more.get("thinkingConfig"), dict) and (
        "thinkingConfig" in config
    ):  # the body's own thinking fields beside the neutral ones: one object
        own["generationConfig"] = {
            **more, "thinkingConfig": {**config["thinkingConfig"], **more["thinkingConfig"]}}
    if config:
        body["generationConfig"] = config
    merge(body, own)


def _tools(conversation: Conversation, out: Writer) -> list[dict[str, Any]]:
    spelling = conversation.settings.spelling.get(NAME, {})
    declarations: list[dict[str, Any]] = []
    others: list[dict[str, Any]] = []
    for k, tool in enumerate(conversation.tools):
        path = f"tools[{k}]"
        if isinstance(tool, Native):
            if tool.format == NAME:
                others.append(tool.value)
            else:
                out.drop(path)  # another provider's hosted tool
            continue
        if tool.custom is not None:
            out.drop(path)  # a plain-text tool: Gemini's functions take JSON objects
            continue
        written: dict[str, Any] = {"name": tool.name}
        if tool.description is not None:
            written["description"] = tool.description
        if tool.input_schema is not None:
            key = spelling.get(f"tool:{tool.name}", SCHEMA_KEYS[0]) if tool.format == NAME \
                else SCHEMA_KEYS[0]
            written[key] = tool.input_schema
        if tool.strict is not None:
            out.drop(f"{path}.strict")
        declarations.append({**written, **out.extra(tool.format, tool.extra, path)})
    return ([{"functionDeclarations": declarations}] if declarations else []) + others


def write_body(conversation: Conversation, model: str | None, stream: bool) -> Rendered:
    """The conversation as a Gemini body, and what it could not carry.

    ``model`` and ``stream`` are not written: Gemini names both in the URL
    (``models/{model}:streamGenerateContent``).
    """
    out = Writer(NAME)
    body: dict[str, Any] = {}
    system = _system(conversation, out)
    calls = _Calls(conversation)
    contents = []
    for i, message in enumerate(conversation.messages):
        if message.role in ("system", "developer"):
            continue  # in systemInstruction
        written = _message(message, f"messages[{i}]", out, calls)
        if written is not None:
            contents.append(written)
    body["contents"] = contents
    if system is not None:
        body["systemInstruction"] = system
    tools = _tools(conversation, out)
    if tools or conversation.tools:
        body["tools"] = tools
    _settings(conversation, body, out)
    return out.rendered(body)
