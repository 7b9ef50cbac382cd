"""Gemini ``generateContent`` request bodies to and from
:class:`~sse_engine.conversation.Conversation`.

Reading: ``contents`` are the messages (role ``user``, or ``model`` for the
assistant; a content without a role is the user's); ``systemInstruction``'s
text parts are the system prompt. A part is text, a thought (``thought:
true``: a :class:`~sse_engine.parts.ReasoningBlock` whose ``raw`` is the
part, signature included), ``inlineData`` or ``fileData`` of an image
(:class:`Image`), a ``functionCall`` (a :class:`~sse_engine.parts.ToolCall`
whose ``raw`` is the part, so its ``thoughtSignature`` goes back with it) or
a ``functionResponse`` (a :class:`ToolResult`); any other part is
:class:`Native`, in place. A text part that carries a ``thoughtSignature``
(the signed thinking of a model that did not show it) is read as a block of
reasoning without text, whose ``raw`` is ``{"text": "", "thoughtSignature"}``,
then the text, as the Gemini lane's parts read a stream.

Gemini's calls rarely have an ``id``: a call without one is given
``call_<content>_<part>`` (its place in ``contents``), and a
``functionResponse`` without one answers the first unanswered call of its
name in the model turn before it. Neither made-up id is written back.

``tools[].functionDeclarations`` are the tools (``parametersJsonSchema``, or
the older OpenAPI-style ``parameters``, is the input schema); another entry
of ``tools`` (``googleSearch``, ``codeExecution``, ...) is :class:`Native`.
``toolConfig.functionCallingConfig`` is the tool choice; ``generationConfig``
holds ``maxOutputTokens``, ``temperature``, ``topP``, ``stopSequences``,
``thinkingConfig`` (``thinkingBudget``, ``thinkingLevel``) and the JSON
response format (``responseMimeType`` with ``responseJsonSchema`` or
``responseSchema``); the rest is kept in ``settings.extra["gemini"]``.
The model and streaming are not in the body: they are in the URL.
"""

from __future__ import annotations

import json
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
    opt_dict,
    opt_str,
    unread,
)
from sse_engine.gemini._request_write import (
    CALL,
    EFFORTS,
    JSON_MIME,
    NAME,
    PARAMETERS,
    RESPONSE,
    SCHEMA_KEYS,
    write_body,
)
from sse_engine.gemini._wire import SIGNATURE_KEY, THOUGHT_KEY, error_body

__all__ = ["CODEC", "read_body"]



class _Calls:
    """The calls of the latest model turn not yet answered, to pair responses without ids."""

    __slots__ = ("open",)

    def __init__(self) -> None:
        self.open: list[tuple[str, str]] = []  # (name, id)

    def answer(self, name: str, given: str | None, place: str) -> str:
        for k, (open_name, ident) in enumerate(self.open):
            if (given is None and open_name == name) or ident == given:
                del self.open[k]
                return ident
        return given if given is not None else f"call_{place}"  # answers no call in the body


_IMAGE_DATA_KEYS: Final = frozenset({"mimeType", "data"})


def _image(part: Mapping[str, Any], path: str) -> Content:
    # By key, as _part chose this function: a null inlineData is refused, not a KeyError.
    if "inlineData" in part:
        where = at(path, "inlineData")
        data = need_dict(part["inlineData"], where)
        media_type = need_str(field(data, "mimeType", where), at(where, "mimeType"))
        payload = need_str(field(data, "data", where), at(where, "data"))
        if data.keys() == _IMAGE_DATA_KEYS and media_type.startswith("image/") and (
            part.keys() == {"inlineData"}
        ):
            return Image(data=payload, media_type=media_type)
        return Native(NAME, part)
    where = at(path, "fileData")
    file = need_dict(part["fileData"], where)
    uri = need_str(field(file, "fileUri", where), at(where, "fileUri"))
    kind = opt_str(file, "mimeType", where)
    if file.keys() <= {"fileUri", "mimeType"} and part.keys() == {"fileData"} and (
        kind is None or kind.startswith("image/")
    ):
        return Image(url=uri, media_type=kind)
    return Native(NAME, part)


def _result(part: Mapping[str, Any], path: str, place: str, calls: _Calls) -> ToolResult:
    where = at(path, RESPONSE)
    answer = need_dict(part[RESPONSE], where)
    name = need_str(field(answer, "name", where), at(where, "name"))
    given = opt_str(answer, "id", where)
    value = answer.get("response")
    response = {} if value is None else need_dict(value, at(where, "response"))
    extra = unread(answer, {"name", "id", "response"})
    extra.update(unread(part, {RESPONSE}))
    call_id = calls.answer(name, given, place)
    # Google's convention: "output" for what the function returned, "error" for a failure.
    if response.keys() == {"output"} and type(response["output"]) is str:
        return ToolResult(call_id, response["output"], extra=extra)
    if response.keys() == {"error"} and type(response["error"]) is str:
        return ToolResult(call_id, response["error"], True, extra=extra)
    extra["response"] = response  # the object itself, for a Gemini body
    return ToolResult(call_id, _text_of(response), extra=extra)


def _text_of(response: Mapping[str, Any]) -> str:
    """A response object as text for another format: JSON, keys sorted (an object's key
    order is not meaning), "" when it cannot be written (nested too deeply)."""
    try:
        return json.dumps(response, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return ""


def _call(part: Mapping[str, Any], path: str, place: str, calls: _Calls) -> ToolCall:
    where = at(path, CALL)
    call = need_dict(part[CALL], where)
    name = need_str(field(call, "name", where), at(where, "name"))
    given = opt_str(call, "id", where)
    args = opt_dict(call, "args", where)
    ident = given if given is not None else f"call_{place}"
    calls.open.append((name, ident))
    # The part itself is the call's raw: its thoughtSignature goes back with it, to Gemini
    # only; the part's other fields are its extra, so that another format names them.
    return ToolCall(ident, name, "", {} if args is None else dict(args), done=True, raw=part,
                    extra=unread(part, {CALL}))


def _text(part: Mapping[str, Any], path: str) -> list[Content]:
    text = need_str(part["text"], at(path, "text"))
    thought = part.get(THOUGHT_KEY)
    if thought is not None and need_bool(thought, at(path, THOUGHT_KEY)):
        return [ReasoningBlock(text, raw=dict(part))]
    signature = part.get(SIGNATURE_KEY)
    extra = unread(part, {"text", THOUGHT_KEY, SIGNATURE_KEY})
    if thought is not None:
        extra[THOUGHT_KEY] = thought  # an explicit false
    if signature is None:
        return [Text(text, extra=extra)]
    signature = need_str(signature, at(path, SIGNATURE_KEY))
    return [ReasoningBlock(raw={"text": "", SIGNATURE_KEY: signature}), Text(text, extra=extra)]


def _part(raw: Any, path: str, place: str, calls: _Calls) -> list[Content]:
    """The part at ``path``; ``place`` (``<content>_<part>``) names a call given no id."""
    part = need_dict(raw, path)
    if "text" in part:
        return _text(part, path)
    if CALL in part:
        return [_call(part, path, place, calls)]
    if RESPONSE in part:
        return [_result(part, path, place, calls)]
    if "inlineData" in part or "fileData" in part:
        return [_image(part, path)]
    return [Native(NAME, part)]  # code execution, video metadata, ...


_ROLES: Final = {"user": "user", "model": "assistant"}


def _message(raw: Any, i: int, calls: _Calls) -> Message:
    path = f"contents[{i}]"
    content = need_dict(raw, path)
    role = opt_str(content, "role", path)
    if role is not None and role not in _ROLES:
        raise InvalidRequest(at(path, "role"), f"unknown role {role!r} (one of user, model)")
    if role == "model":
        calls.open = []  # a new model turn: only its calls are answered next
    where = at(path, "parts")
    parts = need_list(field(content, "parts", path), where)
    pieces = [piece for j, part in enumerate(parts)
              for piece in _part(part, f"{where}[{j}]", f"{i}_{j}", calls)]
    extra = unread(content, {"role", "parts"})
    return Message(_ROLES[role or "user"], pieces, format=NAME, extra=extra)  # type: ignore[arg-type]


# -- tools and settings ----------------------------------------------------------------------


def _tools(value: Any, settings: Settings) -> list[Tool | Native]:
    tools: list[Tool | Native] = []
    for k, raw in enumerate(need_list(value or [], "tools")):
        path = f"tools[{k}]"
        entry = need_dict(raw, path)
        if entry.keys() != {"functionDeclarations"}:
            tools.append(Native(NAME, entry))  # Google's own tools (search, code execution)
            continue
        where = at(path, "functionDeclarations")
        for n, declared in enumerate(need_list(entry["functionDeclarations"], where)):
            inner = f"{where}[{n}]"
            declaration = need_dict(declared, inner)
            name = need_str(field(declaration, "name", inner), at(inner, "name"))
            schema = None
            for key in SCHEMA_KEYS:
                if key in declaration:
                    schema = need_dict(declaration[key], at(inner, key))
                    if key == PARAMETERS:
                        settings.spelling.setdefault(NAME, {})[f"tool:{name}"] = key
            tools.append(Tool(
                name, opt_str(declaration, "description", inner), schema, format=NAME,
                extra=unread(declaration, {"name", "description", *SCHEMA_KEYS}),
            ))
    return tools


_MODES: Final = {"AUTO": "auto", "NONE": "none", "ANY": "required"}


def _tool_choice(value: Any, settings: Settings) -> bool:
    if not isinstance(value, Mapping) or value.keys() != {"functionCallingConfig"}:
        return False
    calling = value["functionCallingConfig"]
    if not isinstance(calling, Mapping):
        return False
    mode = calling.get("mode")
    names = calling.get("allowedFunctionNames")
    if type(mode) is not str or mode not in _MODES or not calling.keys() <= {
        "mode", "allowedFunctionNames"
    }:
        return False
    if names is None:
        settings.tool_choice = ToolChoice(_MODES[mode])  # type: ignore[arg-type]
        return True
    if mode == "ANY" and type(names) is list and len(names) == 1 and type(names[0]) is str:
        settings.tool_choice = ToolChoice("tool", names[0])
        return True
    return False


def _thinking(value: Any, settings: Settings, rest: dict[str, Any]) -> None:
    if not isinstance(value, Mapping):
        rest["thinkingConfig"] = value
        return
    budget = value.get("thinkingBudget")
    budget = budget if type(budget) is int else None
    word = value.get("thinkingLevel")
    level = EFFORTS.get(word) if type(word) is str else None
    if budget is None and level is None:
        rest["thinkingConfig"] = value
        return
    settings.reasoning = Reasoning(level, budget)
    taken = {"thinkingBudget"} if budget is not None else set()
    if level is not None:
        taken.add("thinkingLevel")
    left = unread(value, taken)
    if left:
        rest["thinkingConfig"] = left


def _generation(value: Any, settings: Settings) -> dict[str, Any]:
    """``generationConfig`` into the settings; what none holds is returned."""
    config = need_dict(value, "generationConfig")
    rest: dict[str, Any] = {}
    mime = config.get("responseMimeType")
    schema_key = next((k for k in ("responseJsonSchema", "responseSchema") if k in config), None)
    for key, item in config.items():
        if key == "maxOutputTokens" and type(item) is int:
            settings.max_tokens = item
        elif key in ("temperature", "topP") and type(item) in (int, float):
            setattr(settings, "temperature" if key == "temperature" else "top_p", item)
        elif key == "stopSequences" and type(item) is list and all(type(s) is str for s in item):
            settings.stop = item
        elif key == "thinkingConfig":
            _thinking(item, settings, rest)
        elif key == "responseMimeType" and item == JSON_MIME and (
            schema_key is None or isinstance(config[schema_key], Mapping)
        ):
            schema = None if schema_key is None else config[schema_key]
            settings.response_format = ResponseFormat(schema)
            if schema_key == "responseSchema":
                settings.spelling.setdefault(NAME, {})["response_format"] = schema_key
        elif key == schema_key and mime == JSON_MIME and isinstance(item, Mapping):
            continue  # read with the MIME type above
        else:
            rest[key] = item
    return rest


_BODY_KEYS: Final = frozenset({"contents", "systemInstruction", "tools"})


def _settings(body: Mapping[str, Any]) -> Settings:
    settings = Settings()
    extra: dict[str, Any] = {}
    for key, value in body.items():
        if key in _BODY_KEYS:
            continue
        if key == "toolConfig" and _tool_choice(value, settings):
            continue
        if key == "generationConfig" and value is not None:
            rest = _generation(value, settings)
            if rest or not value:
                extra[key] = rest
            continue
        extra[key] = value
    if extra:
        settings.extra[NAME] = extra
    return settings


def _system(value: Any) -> list[Text] | None:
    if value is None:
        return None
    instruction = need_dict(value, "systemInstruction")
    where = "systemInstruction.parts"
    out = []
    for j, raw in enumerate(need_list(field(instruction, "parts", "systemInstruction"), where)):
        path = f"{where}[{j}]"
        part = need_dict(raw, path)
        if "text" not in part:
            raise InvalidRequest(path, "a system instruction is text only")
        out.append(Text(need_str(part["text"], at(path, "text")), extra=unread(part, {"text"})))
    return out


def read_body(body: Mapping[str, Any]) -> Conversation:
    """A Gemini request body as a conversation (raises ``InvalidRequest``)."""
    listed = need_list(field(body, "contents", ""), "contents")
    calls = _Calls()
    messages = [_message(raw, i, calls) for i, raw in enumerate(listed)]
    settings = _settings(body)
    tools = _tools(body.get("tools"), settings)
    return Conversation(
        messages, system=_system(body.get("systemInstruction")), tools=tools,
        settings=settings, format=NAME,
    )


#: The Gemini row's request codec.
CODEC: Final = RequestCodec(read=read_body, write=write_body, error_body=error_body)
