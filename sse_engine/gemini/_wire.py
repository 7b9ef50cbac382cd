"""The Gemini vocabulary as data: what its words mean, in one place.

Finish reasons (``candidates[].finishReason``) and prompt block reasons
(``promptFeedback.blockReason``) with the unified reason and the outcome each
means, the ``usageMetadata`` object read and written, Google's error envelope
(``{"error": {"code", "message", "status"}}``) and its status words, the keys
of a ``Part``, what a stream of this format looks like (``recognize``) and the
paths it is served on (streamed, and with the final object alone). The lane,
its parts and its emitter all read these tables; no other room spells a Gemini
wire string (but ``sse_engine._outcome``, whose one table decides retrying for
every API, Google's status words included).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from sse_engine._formats import Endpoint
from sse_engine._outcome import StreamError
from sse_engine.parts import FinishReason, Usage, UsageCounts, new_usage

__all__ = [
    "BLOCK_REASONS",
    "CALL_KEY",
    "CITATION_FIELDS",
    "COMPLETED_FINISH_REASONS",
    "ENDPOINT",
    "FAILED_FINISH_REASONS",
    "FINAL_METHOD",
    "FINAL_PATHS",
    "FINISH_REASONS",
    "INCOMPLETE_FINISH_REASONS",
    "PATHS",
    "RESPONSE_KEYS",
    "SIGNATURE_KEY",
    "STREAM_METHOD",
    "TEXT_PART_KEYS",
    "THOUGHT_KEY",
    "WIRE_REASONS",
    "call_id",
    "citations_in",
    "error_body",
    "recognize",
    "recognize_error",
    "signature_of",
    "usage_counts",
    "usage_from_wire",
    "usage_to_wire",
]

#: The method a model streams with: ``models/{model}:streamGenerateContent?alt=sse``.
STREAM_METHOD: Final = ":streamGenerateContent"
#: Where the API serves its streams (the Gemini API's ``v1beta``, and ``v1``, which
#: google-genai 3 calls by default).
PATHS: Final = (
    "/v1beta/models/{model}:streamGenerateContent",
    "/v1/models/{model}:streamGenerateContent",
)

#: The method that answers with the final ``GenerateContentResponse`` alone (google-genai's
#: ``generate_content``): the same request body as a stream's, on its own path.
FINAL_METHOD: Final = ":generateContent"
#: Where the API answers without a stream: each of :data:`PATHS` with the final method.
FINAL_PATHS: Final = tuple(path.replace(STREAM_METHOD, FINAL_METHOD) for path in PATHS)

#: How the API is called: the key in ``x-goog-api-key``; a stream path takes
#: ``alt=sse`` (without it the stream is one JSON array) and its body has no flag:
#: the path says whether the answer is a stream (:data:`PATHS`) or not (:data:`FINAL_PATHS`).
ENDPOINT: Final = Endpoint(
    key_header="x-goog-api-key",
    stream_query="?alt=sse",
    stream_flag=None,
    final_paths=FINAL_PATHS,
)

#: The top-level keys of a ``GenerateContentResponse`` (what ``recognize`` knows it by).
RESPONSE_KEYS: Final = frozenset(
    {"candidates", "usageMetadata", "promptFeedback", "modelVersion", "responseId"}
)

# -- parts -------------------------------------------------------------------------------

#: A part's flag that its text is the model's thinking.
THOUGHT_KEY: Final = "thought"
#: The opaque signature of the model's thinking that must be sent back with the part.
SIGNATURE_KEY: Final = "thoughtSignature"
#: The key of a function call part.
CALL_KEY: Final = "functionCall"
#: The keys a text (or thought) part may have and still be joined with its neighbours.
TEXT_PART_KEYS: Final = frozenset({"text", THOUGHT_KEY, SIGNATURE_KEY})


def signature_of(raw: Any) -> str | None:
    """The ``thoughtSignature`` of a Gemini part kept as a block's or a call's ``raw``.

    None for anything else, in particular another provider's ``raw`` (an
    Anthropic block, a Responses item: they have a ``type``), so that a
    signature goes back only to the API that made it.
    """
    if type(raw) is not dict or "type" in raw:
        return None
    signature = raw.get(SIGNATURE_KEY)
    return signature if type(signature) is str and signature else None


def call_id(response_id: str | None, candidate: int, index: int) -> str:
    """A stable id for a function call the API sent without one: from the response
    id and the call's place (the same stream always gives the same ids)."""
    where = f"{index}" if candidate == 0 else f"{candidate}_{index}"
    return f"call_{response_id or 'gemini'}_{where}"


# -- how a candidate ends --------------------------------------------------------------------

#: Finish reasons of a turn that stopped as the model meant it to.
COMPLETED_FINISH_REASONS: Final = frozenset({"STOP"})
#: Finish reasons of a turn cut short by a limit or a policy: the outcome is INCOMPLETE.
INCOMPLETE_FINISH_REASONS: Final = frozenset(
    {
        "MAX_TOKENS",
        "CONTINUATION",
        "SAFETY",
        "RECITATION",
        "LANGUAGE",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
        "IMAGE_RECITATION",
        "MODEL_ARMOR",
        "ESCALATION",
        "OTHER",
        "IMAGE_OTHER",
        "NO_IMAGE",
        "TOO_MANY_TOOL_CALLS",
    }
)
#: Finish reasons of a generation that went wrong: the outcome is FAILED, with the
#: reason as the error's code (retryable by the shared table: a malformed call may
#: come out right when asked again; a missing signature will not).
FAILED_FINISH_REASONS: Final = frozenset(
    {
        "MALFORMED_FUNCTION_CALL",
        "UNEXPECTED_TOOL_CALL",
        "MISSING_THOUGHT_SIGNATURE",
        "MALFORMED_RESPONSE",
        "PUP_LIMITED_DISABLED",
    }
)
_FILTERS: Final = (
    "SAFETY", "RECITATION", "LANGUAGE", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII",
    "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION", "MODEL_ARMOR", "ESCALATION",
)
#: ``finishReason`` -> the unified reason (any other is ``other``).
FINISH_REASONS: Final[Mapping[str, FinishReason]] = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "CONTINUATION": "length",
    **dict.fromkeys(_FILTERS, "content_filter"),
    **dict.fromkeys(FAILED_FINISH_REASONS, "error"),
}
#: ``promptFeedback.blockReason`` values: the prompt was refused, no candidate comes
#: (INCOMPLETE, ``content_filter``, whichever the value, known or not).
BLOCK_REASONS: Final = frozenset(
    {
        "BLOCKED_REASON_UNSPECIFIED",
        "SAFETY",
        "OTHER",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "IMAGE_SAFETY",
        "MODEL_ARMOR",
        "JAILBREAK",
    }
)
#: The unified reason -> the ``finishReason`` a relayed candidate ends with.
WIRE_REASONS: Final[Mapping[FinishReason, str]] = {
    "stop": "STOP",
    "tool_calls": "STOP",
    "pause": "STOP",
    "length": "MAX_TOKENS",
    "content_filter": "SAFETY",
    "refusal": "SAFETY",
}


# -- what a stream of this format looks like -----------------------------------------------


def recognize(event: str, payload: Any) -> str | None:
    """A ``GenerateContentResponse``: a ``candidates`` list, or its other own keys."""
    if type(payload) is not dict:
        return None
    if type(payload.get("candidates")) is list:
        return "a candidates list"
    for key in ("usageMetadata", "promptFeedback", "modelVersion"):
        if key in payload:
            return f"a {key} object"
    return None


def _google_error(payload: Any) -> bool:
    inner = payload.get("error") if type(payload) is dict else None
    return type(inner) is dict and type(inner.get("status")) is str and "type" not in inner


def recognize_error(event: str, payload: Any) -> str | None:
    """Google's ``{"error": {"code", "message", "status"}}``, alone or, as a body, in a
    one-element array (what Google answers a streaming request with)."""
    if _google_error(payload):
        return "a Google-shaped error event" if event else "a Google-shaped JSON error body"
    if not event and type(payload) is list and len(payload) == 1 and _google_error(payload[0]):
        return "a Google-shaped JSON error body (in an array)"
    return None


# -- the error envelope ------------------------------------------------------------------------

#: Each status word's HTTP status (google.rpc.Code as Google's HTTP APIs map it).
_HTTP_OF_STATUS: Final = {
    "INVALID_ARGUMENT": 400,
    "FAILED_PRECONDITION": 400,
    "OUT_OF_RANGE": 400,
    "UNAUTHENTICATED": 401,
    "PERMISSION_DENIED": 403,
    "NOT_FOUND": 404,
    "ABORTED": 409,
    "ALREADY_EXISTS": 409,
    "RESOURCE_EXHAUSTED": 429,
    "CANCELLED": 499,
    "UNKNOWN": 500,
    "INTERNAL": 500,
    "DATA_LOSS": 500,
    "UNIMPLEMENTED": 501,
    "UNAVAILABLE": 503,
    "DEADLINE_EXCEEDED": 504,
}
#: Another API's error code or type -> the nearest status word.
_STATUS_OF_CODE: Final = {
    "rate_limit_exceeded": "RESOURCE_EXHAUSTED",
    "rate_limit_error": "RESOURCE_EXHAUSTED",
    "insufficient_quota": "RESOURCE_EXHAUSTED",
    "overloaded_error": "UNAVAILABLE",
    "service_unavailable": "UNAVAILABLE",
    "server_error": "INTERNAL",
    "api_error": "INTERNAL",
    "internal_error": "INTERNAL",
    "timeout_error": "DEADLINE_EXCEEDED",
    "invalid_request_error": "INVALID_ARGUMENT",
    "invalid_request": "INVALID_ARGUMENT",
    "context_length_exceeded": "INVALID_ARGUMENT",
    "authentication_error": "UNAUTHENTICATED",
    "invalid_api_key": "UNAUTHENTICATED",
    "permission_error": "PERMISSION_DENIED",
    "billing_error": "PERMISSION_DENIED",
    "not_found_error": "NOT_FOUND",
    "model_not_found": "NOT_FOUND",
}
#: An HTTP status -> its status word, for an error that names none.
_STATUS_OF_HTTP: Final = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    402: "PERMISSION_DENIED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    408: "DEADLINE_EXCEEDED",
    409: "ABORTED",
    413: "INVALID_ARGUMENT",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    501: "UNIMPLEMENTED",
    502: "UNAVAILABLE",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
    529: "UNAVAILABLE",
}


def _status_word(error: StreamError) -> str:
    for name in (error.code, error.type):
        if name in _HTTP_OF_STATUS:
            return name
        word = _STATUS_OF_CODE.get(name or "")
        if word is not None:
            return word
    if error.status is not None and error.status in _STATUS_OF_HTTP:
        return _STATUS_OF_HTTP[error.status]
    return "INTERNAL" if error.retryable else "INVALID_ARGUMENT"


def error_body(error: StreamError) -> dict[str, Any]:
    """``error`` as Google's error body: ``{"error": {"code", "message", "status"}}``.

    ``status`` is the error's own status word when it has one, else the nearest
    one to its code, type or HTTP status; ``code`` is the HTTP status (the
    error's own, else the status word's). The same object is the data of the
    in-stream error frame, so google-genai raises the same ``APIError`` for
    either.
    """
    word = _status_word(error)
    number = error.status if error.status is not None else _HTTP_OF_STATUS.get(word, 500)
    return {"error": {"code": number, "message": error.message, "status": word}}


# -- usage -------------------------------------------------------------------------------------


def usage_from_wire(usage: Mapping[str, Any]) -> Usage:
    """A ``usageMetadata`` object as :class:`~sse_engine.Usage`.

    Input is the prompt (``promptTokenCount``, which counts the cached part,
    ``cachedContentTokenCount``) and the results of tools the server ran
    (``toolUsePromptTokenCount``); output is the answer (``candidatesTokenCount``)
    and the thinking (``thoughtsTokenCount``, the reasoning tokens), as OpenAI
    counts reasoning inside its output tokens. So input plus output is
    ``totalTokenCount``. Google's JSON leaves a count of zero out (proto3), so
    once the object holds any count, a missing input, output or total is 0
    (an object with none, as Vertex sends before the end, counts nothing).
    """
    return new_usage(*usage_counts(usage), usage)


def usage_counts(usage: Mapping[str, Any]) -> UsageCounts:
    """A ``usageMetadata`` object's counts, in the order of :class:`Usage`'s fields.

    What :func:`usage_from_wire` makes its Usage of; the parts layer keeps
    them (``PartBuilder.usage_counts``) and makes the Usage only when read.
    """
    # Plain lookups, each checked inline: most chunks carry usage, and a helper's call
    # (or a comprehension's frame) per count was most of a Gemini chunk's parts cost.
    get = usage.get
    prompt = value if type(value := get("promptTokenCount")) is int else None
    tools = value if type(value := get("toolUsePromptTokenCount")) is int else None
    answer = value if type(value := get("candidatesTokenCount")) is int else None
    thoughts = value if type(value := get("thoughtsTokenCount")) is int else None
    total = value if type(value := get("totalTokenCount")) is int else None
    cached = value if type(value := get("cachedContentTokenCount")) is int else None
    if prompt is None and tools is None and answer is None and thoughts is None and total is None:
        return (None, None, None, cached, None, None)
    input_tokens = (prompt or 0) + (tools or 0)
    output = (answer or 0) + (thoughts or 0)
    return (
        input_tokens, output, input_tokens + output if total is None else total, cached,
        thoughts, None,
    )


def usage_to_wire(usage: Usage) -> dict[str, Any]:
    """``usage`` as a ``usageMetadata`` object (the inverse of :func:`usage_from_wire`).

    The thinking is written apart from the answer (``thoughtsTokenCount``), as
    the part of the output tokens it is. A count of reasoning larger than the
    output (a provider that counts it beside the output, as Gemini's own
    OpenAI-compatible endpoint does) cannot be written so that the output
    reads back the same: the output is kept, the reasoning count left out.
    """
    prompt = usage.input_tokens or 0
    output = usage.output_tokens or 0
    thoughts = usage.reasoning_tokens
    if thoughts is not None and thoughts > output:
        thoughts = None
    out: dict[str, Any] = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": max(output - (thoughts or 0), 0),
        "totalTokenCount": usage.total_tokens if usage.total_tokens is not None
        else prompt + output,
    }
    if usage.cached_input_tokens is not None:
        out["cachedContentTokenCount"] = usage.cached_input_tokens
    if thoughts is not None:
        out["thoughtsTokenCount"] = thoughts
    return out


#: The candidate fields that cite sources: search grounding and recitation sources.
CITATION_FIELDS: Final = frozenset({"groundingMetadata", "citationMetadata"})


def citations_in(key: str, value: Any) -> list[tuple[str, str | None, str | None, Any]]:
    """The sources a candidate field cites: ``(type, url, title, raw)`` each.

    ``groundingMetadata.groundingChunks``: each chunk is one source, its type
    the chunk's kind (``web``, ``retrievedContext``, ``maps``, ``image``) and
    its ``uri`` and ``title`` that kind's; ``citationMetadata.citationSources``
    (``citations`` on Vertex): each a ``citationSource`` with its ``uri``.
    """
    if type(value) is not dict:
        return []
    found: list[tuple[str, str | None, str | None, Any]] = []
    if key == "groundingMetadata":
        chunks = value.get("groundingChunks")
        for chunk in chunks if type(chunks) is list else ():
            if type(chunk) is not dict:
                continue
            for kind, source in chunk.items():
                if type(source) is dict:
                    found.append((kind, _text_of(source, "uri"), _text_of(source, "title"), chunk))
                    break
    elif key == "citationMetadata":
        sources = value.get("citationSources", value.get("citations"))
        for source in sources if type(sources) is list else ():
            if type(source) is dict:
                found.append(
                    ("citationSource", _text_of(source, "uri"), _text_of(source, "title"), source)
                )
    return found


def _text_of(source: dict[str, Any], key: str) -> str | None:
    value = source.get(key)
    return value if type(value) is str else None

