"""How a stream ended: the Outcome verdict, the StreamError that explains it, and
the one table that decides whether a failure is worth retrying."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

import attrs

from sse_engine._headers import HeaderMap, request_id, retry_after
from sse_engine._json import describe

__all__ = ["Outcome", "StreamError", "is_retryable", "with_headers"]

#: ``StreamError.code`` of an API error that named neither a code nor a type.
UNKNOWN_ERROR_CODE = "unknown_error"


class Outcome(enum.Enum):
    """The verdict on a finished stream."""

    #: The lane's terminal event arrived and the turn finished normally.
    COMPLETED = "completed"
    #: The turn was cut short by the model or a policy: max tokens, content
    #: filter, refusal, context window. The stream itself is complete.
    INCOMPLETE = "incomplete"
    #: The server reported an error, before the stream (an error status / JSON
    #: body) or inside it (an error event or error frame).
    FAILED = "failed"
    #: The transport ended before the lane's terminal event.
    TRUNCATED = "truncated"


# Codes and error types that mean "sending the same request again will fail
# the same way". Anything not listed, including codes we have never seen, is
# retryable: gateways invent codes, and a generic retry is the documented
# client behaviour for an unrecognised one.
_NOT_RETRYABLE = frozenset(
    {
        "invalid_request_error",
        "invalid_request",
        "invalid_prompt",
        "invalid_api_key",
        "authentication_error",
        "permission_error",
        "permission_denied",
        "not_found_error",
        "not_found",
        "model_not_found",
        "insufficient_quota",
        "billing_error",
        "context_length_exceeded",
        "param_not_supported",
        "request_too_large",
        "unsupported_parameter",
        "unsupported_value",
        # Google's status words (google.rpc.Code), the `status` of its error envelope.
        "INVALID_ARGUMENT",
        "FAILED_PRECONDITION",
        "OUT_OF_RANGE",
        "PERMISSION_DENIED",
        "NOT_FOUND",
        "UNAUTHENTICATED",
        "UNIMPLEMENTED",
        # Gemini finish reasons that end a stream FAILED and say the request itself
        # must change: a thought signature the client did not send back, an account
        # the Prohibited Use Policy limits.
        "MISSING_THOUGHT_SIGNATURE",
        "PUP_LIMITED_DISABLED",
    }
)

# Codes that are retryable by name; listed so that a retryable code beats a
# non-retryable HTTP status (a 400 carrying "server_error" still says retry).
_RETRYABLE = frozenset(
    {
        "rate_limit_exceeded",
        "rate_limit_error",
        "overloaded_error",
        "server_error",
        "api_error",
        "timeout_error",
        "stream_error",
        "stream_truncated",
        "internal_error",
        "service_unavailable",
        # Google's status words: quota or rate limit, overload, a server error, a
        # deadline (also retryable by their HTTP codes, 429, 503, 500, 504; listed so
        # that an in-stream error, which has no HTTP status, is decided by its word).
        "RESOURCE_EXHAUSTED",
        "UNAVAILABLE",
        "INTERNAL",
        "DEADLINE_EXCEEDED",
        "ABORTED",
        "UNKNOWN",
    }
)

# HTTP statuses of client errors; 408 (timeout), 409 (conflict) and 429 (rate
# limit) are client-class statuses that do deserve a retry. Every redirect
# (3xx) is not retryable either: a client that did not follow it gets the same
# redirect again.
_NOT_RETRYABLE_STATUS = frozenset({400, 401, 402, 403, 404, 405, 413, 415, 422, *range(300, 400)})


def is_retryable(code: str | None, type: str | None = None, status: int | None = None) -> bool:
    """Whether a failure described by ``code``, ``type`` and ``status`` is worth retrying.

    The code decides first, then the error type, then the HTTP status; a
    failure none of them recognises is retryable. Not retryable by status:
    400, 401, 402, 403, 404, 405, 413, 415, 422 and every redirect (3xx).
    """
    for name in (code, type):
        if name in _NOT_RETRYABLE:
            return False
        if name in _RETRYABLE:
            return True
    return status not in _NOT_RETRYABLE_STATUS


def http_status_of(exc: BaseException) -> int | None:
    """The HTTP status an exception carries (an error answer raised as one), or None.

    ``raise_for_status()`` turns an answer into an exception: httpx's
    ``HTTPStatusError`` and requests' ``HTTPError`` carry it as
    ``.response.status_code``, aiohttp's ``ClientResponseError`` (and
    urllib's ``HTTPError``) as ``.status``. Only a status from 300 to 599 counts:
    anything else is not an error answer.
    """
    response = getattr(exc, "response", None)
    for status in (
        getattr(response, "status_code", None),
        getattr(response, "status", None),
        getattr(exc, "status", None),
    ):
        if type(status) is int and 300 <= status <= 599:
            return status
    return None


def _response_headers(exc: BaseException) -> HeaderMap | None:
    """The headers of the answer an exception carries (``.response.headers`` or ``.headers``).

    Whatever each library keeps them in (a mapping, a multidict, an
    ``email.message.Message``), read without regard to case.
    """
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None:
        headers = getattr(exc, "headers", None)
    items = getattr(headers, "items", None)
    if not callable(items):
        return None
    try:
        return HeaderMap(items())
    except (TypeError, ValueError):  # not name/value pairs after all
        return None


def _exception_text(exc: BaseException) -> str:
    """``Type: message`` (the message trimmed), safe for an exception whose str() fails."""
    try:
        text = " ".join(str(exc).split())
    except Exception:  # a broken __str__ still names its type
        text = ""
    if len(text) > 300:
        text = text[:299] + "…"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _text(value: Any) -> str | None:
    """A payload field as text: a string as is, anything else described (never recursive)."""
    if value is None:
        return None
    return value if isinstance(value, str) else describe(value)


#: The detail of Google's error envelope that says how long to wait (``"retryDelay": "31s"``).
_RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo"


def _retry_delay(details: Any) -> float | None:
    """The seconds of a Google ``RetryInfo`` detail's ``retryDelay`` (``"31s"``, ``"0.5s"``)."""
    if type(details) is not list:
        return None
    for detail in details:
        if type(detail) is dict and detail.get("@type") == _RETRY_INFO:
            delay = detail.get("retryDelay")
            if type(delay) is str and delay.endswith("s"):
                try:
                    seconds = float(delay[:-1])
                except ValueError:
                    return None
                return seconds if 0 <= seconds < 1e9 else None  # NaN fails both
    return None


@attrs.frozen
class StreamError:
    """Why a stream failed, in one shape whatever the wire said.

    ``status`` is the HTTP status when the error came before the stream (None
    for failures reported inside a 200 stream). ``raw`` is the payload exactly
    as received (a dict, or the body text when it was not JSON).
    ``retry_after`` is how long the server asked the client to wait, in
    seconds (``retry-after-ms`` or ``Retry-After`` headers given to
    ``start()``), and ``request_id`` the server's id for the request
    (``x-request-id`` / ``request-id``), for a support ticket or a log line;
    both are None when the response did not say.
    """

    message: str
    code: str | None = None
    type: str | None = None
    param: str | None = None
    status: int | None = None
    retryable: bool = True
    raw: Any = None
    retry_after: float | None = None
    request_id: str | None = None

    @classmethod
    def from_payload(cls, payload: Any, *, status: int | None = None) -> StreamError:
        """Read an error from any of the shapes the APIs use.

        Accepted: OpenAI's nested ``{"error": {"message", "type", "param", "code"}}``,
        the flat ``{"type": "error", "code", "message", "param"}`` of a Responses
        ``error`` event, Anthropic's ``{"type": "error", "error": {"type", "message"}}``,
        and a bare error object ``{"code", "message"}`` (``response.error``).
        Google's ``{"error": {"code": 429, "message", "status":
        "RESOURCE_EXHAUSTED", "details"}}`` has its ``status`` word as the code (its
        numeric ``code`` is the HTTP status, which decides retrying when the word
        does not and no ``status`` was given), and the ``retryDelay`` of its
        ``RetryInfo`` detail as ``retry_after``. An error without a code
        (Anthropic's always, OpenAI's ``"code": null`` on a Chat error frame)
        takes its error type as its code (``overloaded_error``, ``server_error``,
        ...), and one with neither takes ``unknown_error``: ``code`` is never
        None for an API error, in every lane. ``retryable`` is judged on what the
        payload said, before that. A ``request_id`` in the body is kept. Any
        other JSON value (a string, a number, null, a list) becomes the message.
        """
        if not isinstance(payload, Mapping):
            text = payload if isinstance(payload, str) else describe(payload, 500)
            return cls.from_text(text, status=status, raw=payload)
        inner = payload.get("error")
        body: Mapping[str, Any] = inner if isinstance(inner, Mapping) else payload
        code = _text(body.get("code"))
        error_type = _text(body.get("type"))
        if error_type == "error":
            # The flat shape's "type" names the event, not the kind of error.
            error_type = None
        if code is None and isinstance(body.get("details"), Mapping):
            code = _text(body["details"].get("error_code"))
        decisive = status
        retry_after = None
        word = body.get("status")
        if type(word) is str and word and not isinstance(body.get("code"), str):
            # Google's shape: the status word names the error, the number is its HTTP status.
            number = body.get("code")
            code = word
            if decisive is None and type(number) is int:
                decisive = number
            retry_after = _retry_delay(body.get("details"))
        retryable = is_retryable(code, error_type, decisive)
        if code is None:
            # Anthropic's errors, and OpenAI's with "code": null (a Chat error
            # frame), name the failure by its type: that is their code.
            code = error_type or UNKNOWN_ERROR_CODE
        message = _text(body.get("message"))
        if not message:
            message = _text(inner) if isinstance(inner, str) else None
        request_id = payload.get("request_id")
        return cls(
            message=message or error_type or code,
            code=code,
            type=error_type,
            param=_text(body.get("param")),
            status=status,
            retryable=retryable,
            raw=payload,
            retry_after=retry_after,
            request_id=request_id if isinstance(request_id, str) else None,
        )

    @classmethod
    def from_exception(cls, exc: BaseException) -> StreamError:
        """Why a stream ended when the transport raised ``exc`` before its outcome was known.

        An exception that carries an HTTP answer (``raise_for_status()``:
        :func:`http_status_of`) is that answer's failure: ``status`` set,
        ``retryable`` judged by the status in the one table (a 404 is not
        worth retrying), ``retry_after`` and ``request_id`` read from the
        answer's headers. Any other exception (a refused connection, a reset,
        a read timeout) is a transport failure: code ``stream_truncated``,
        retryable. The message names the exception either way. The docs'
        ``except`` branches give it to ``lane.close(error=...)``, so a lane
        whose connection never opened still ends with a verdict.
        """
        text = _exception_text(exc)
        status = http_status_of(exc)
        if status is None:
            return cls(
                message=f"the transport failed before the outcome was known ({text})",
                code="stream_truncated",
                retryable=True,
            )
        headers = _response_headers(exc)
        return cls(
            message=f"HTTP {status} ({text})",
            status=status,
            retryable=is_retryable(None, None, status),
            retry_after=None if headers is None else retry_after(headers),
            request_id=None if headers is None else request_id(headers),
        )

    @classmethod
    def from_text(cls, text: str, *, status: int | None = None, raw: Any = None) -> StreamError:
        """An error whose body is not a JSON object: the message is a trimmed copy of it."""
        flat = " ".join(text.split())
        message = flat if len(flat) <= 500 else flat[:497] + "..."
        return cls(
            message=message or f"HTTP {status} with an empty body",
            status=status,
            retryable=is_retryable(None, None, status),
            raw=text if raw is None else raw,
        )


def with_headers(error: StreamError, headers: Mapping[str, str]) -> StreamError:
    """``error`` with what the response's headers say: ``retry_after``, ``request_id``.

    What the error carries itself wins; the same error when the headers add nothing.
    """
    wait = error.retry_after
    if wait is None:
        wait = retry_after(headers)
    ident = error.request_id or request_id(headers)
    if wait == error.retry_after and ident == error.request_id:
        return error
    return attrs.evolve(error, retry_after=wait, request_id=ident)
