"""Gemini request bodies for the Conversation tests, drawn as tool loops.

google-genai describes a request with pydantic models, not TypedDicts, and
no model of the REST body exists to draw from; so the bodies are drawn here,
from the REST reference's shapes: ``contents`` alternating ``user`` and
``model`` turns whose parts are text (some with a ``thoughtSignature``),
thoughts, images (``inlineData``, ``fileData``), function calls (with or
without ids and signatures) and the ``functionResponse`` parts answering
them in the next user turn, and a part only Gemini has (``executableCode``);
``systemInstruction``, ``tools`` (function declarations, Google Search),
``toolConfig``, ``generationConfig`` (thinking, JSON output, sampling and
what no other format has) and ``safetySettings``. Every body drawn is
validated by the oracle (``sdk_oracle.validate``) in the tests that use them.
"""

from __future__ import annotations

import base64
from typing import Any

from hypothesis import strategies as st

__all__ = ["gemini_bodies"]

NAMES = ("get_weather", "write_file")
words = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
signatures = st.binary(min_size=1, max_size=12).map(lambda b: base64.b64encode(b).decode())
json_objects = st.dictionaries(
    st.text(max_size=5), st.none() | st.booleans() | st.integers(-9, 9) | words, max_size=3)


@st.composite
def _text(draw: Any) -> dict[str, Any]:
    part: dict[str, Any] = {"text": draw(words)}
    if draw(st.booleans()):
        part["thoughtSignature"] = draw(signatures)
    return part


@st.composite
def _thought(draw: Any) -> dict[str, Any]:
    part: dict[str, Any] = {"text": draw(words), "thought": True}
    if draw(st.booleans()):
        part["thoughtSignature"] = draw(signatures)
    return part


_images = st.one_of(
    st.builds(lambda kind, data: {"inlineData": {"mimeType": kind, "data": data}},
              st.sampled_from(["image/png", "image/jpeg", "image/webp"]), signatures),
    st.builds(lambda name, kind: {"fileData": {"fileUri": f"https://example.com/{name}.png",
                                               **({"mimeType": kind} if kind else {})}},
              st.integers(0, 99), st.sampled_from([None, "image/png"])),
    st.just({"inlineData": {"mimeType": "application/pdf", "data": "JVBERg=="}}),
)
_native = st.builds(lambda code: {"executableCode": {"language": "PYTHON", "code": code}}, words)


@st.composite
def _call(draw: Any, number: int, ids: bool) -> dict[str, Any]:
    call: dict[str, Any] = {"name": draw(st.sampled_from(NAMES)), "args": draw(json_objects)}
    if ids:
        call["id"] = f"call_{number}"
    part: dict[str, Any] = {"functionCall": call}
    if draw(st.booleans()):
        part["thoughtSignature"] = draw(signatures)
    return part


@st.composite
def _answer(draw: Any, call: dict[str, Any]) -> dict[str, Any]:
    response = draw(st.one_of(
        words.map(lambda t: {"output": t}), words.map(lambda t: {"error": t}), json_objects))
    answer = {"name": call["name"], "response": response}
    if "id" in call:
        answer["id"] = call["id"]
    return {"functionResponse": answer}


@st.composite
def _contents(draw: Any) -> list[dict[str, Any]]:
    ids = draw(st.booleans())
    contents: list[dict[str, Any]] = []
    answers: list[dict[str, Any]] = []
    numbered = 0
    for turn in range(draw(st.integers(1, 6))):
        if turn % 2 == 0:  # the user's: the last turn's answers, then text and images
            parts = answers + draw(st.lists(st.one_of(_text(), _images), max_size=3))
            answers = []
            contents.append({"role": "user", "parts": parts or [{"text": "go"}]})
            continue
        parts = draw(st.lists(st.one_of(_thought(), _text(), _native), max_size=3))
        calls = []
        for _ in range(draw(st.integers(0, 2))):
            calls.append(draw(_call(numbered, ids)))
            numbered += 1
        answers = [draw(_answer(c["functionCall"])) for c in calls]
        contents.append({"role": "model", "parts": parts + calls or [{"text": "ok"}]})
    return contents


_schema = st.fixed_dictionaries({"type": st.just("object"), "properties": st.dictionaries(
    st.sampled_from(["city", "path"]), st.just({"type": "string"}), max_size=2)})


@st.composite
def _tools(draw: Any) -> list[dict[str, Any]]:
    declarations = []
    for name in draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=2)):
        declared: dict[str, Any] = {"name": name}
        if draw(st.booleans()):
            declared["description"] = draw(words)
        key = draw(st.sampled_from([None, "parametersJsonSchema", "parameters"]))
        if key is not None:
            declared[key] = draw(_schema)
        declarations.append(declared)
    tools = [{"functionDeclarations": declarations}] if declarations else []
    return tools + ([{"googleSearch": {}}] if draw(st.booleans()) else [])


_tool_configs = st.sampled_from([
    {"functionCallingConfig": {"mode": "AUTO"}},
    {"functionCallingConfig": {"mode": "NONE"}},
    {"functionCallingConfig": {"mode": "ANY"}},
    {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}},
    {"functionCallingConfig": {"mode": "VALIDATED"}},
])


@st.composite
def _generation(draw: Any) -> dict[str, Any]:
    optional = {
        "maxOutputTokens": st.integers(1, 8192),
        "temperature": st.floats(0, 2, allow_nan=False) | st.integers(0, 2),
        "topP": st.floats(0, 1, allow_nan=False),
        "topK": st.integers(1, 40),
        "candidateCount": st.integers(1, 2),
        "seed": st.integers(0, 99),
        "stopSequences": st.lists(words, max_size=2),
        "thinkingConfig": st.fixed_dictionaries({}, optional={
            "thinkingBudget": st.integers(-1, 4096),
            "thinkingLevel": st.sampled_from(["LOW", "HIGH", "MINIMAL", "MEDIUM"]),
            "includeThoughts": st.booleans()}),
    }
    config = draw(st.fixed_dictionaries({}, optional=optional))
    if draw(st.booleans()):
        config["responseMimeType"] = draw(st.sampled_from(["application/json", "text/plain"]))
        key = draw(st.sampled_from([None, "responseJsonSchema", "responseSchema"]))
        if key is not None:
            config[key] = draw(_schema)
    return config


@st.composite
def gemini_bodies(draw: Any) -> dict[str, Any]:
    """A Gemini streamGenerateContent body whose contents are a tool loop."""
    body: dict[str, Any] = {"contents": draw(_contents())}
    if draw(st.booleans()):
        body["systemInstruction"] = {"parts": draw(st.lists(
            words.map(lambda t: {"text": t}), min_size=1, max_size=2))}
    if draw(st.booleans()):
        body["tools"] = draw(_tools())
    if draw(st.booleans()):
        body["toolConfig"] = draw(_tool_configs)
    if draw(st.booleans()):
        body["generationConfig"] = draw(_generation())
    if draw(st.booleans()):
        body["safetySettings"] = [{"category": "HARM_CATEGORY_HARASSMENT",
                                   "threshold": "BLOCK_ONLY_HIGH"}]
    return body
