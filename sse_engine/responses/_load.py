"""What a final ``response`` object says, for ``ResponsesLane.load``: its verdict and snapshot.

Past the resume window (or when a resume is refused) the final object is
fetched with a plain GET (:meth:`ResumePlan.retrieve`). Loading it makes the
lane's snapshot that object and its outcome the one its ``status`` names,
exactly as if the stream had delivered its final items and terminal event.
These functions read the object; the lane applies what they say.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sse_engine._outcome import Outcome, StreamError
from sse_engine.responses._snapshot import ResponseSnapshot

__all__ = [
    "STATUS_OUTCOMES",
    "failure_of",
    "load_verdict",
    "loaded_snapshot",
    "malformed_items",
]

#: A response's ``status`` -> the outcome it ends a stream with. ``cancelled``
#: is a turn cut short on request: the output so far stands, nothing failed, a
#: retry would not help, which is INCOMPLETE. ``queued`` and ``in_progress`` are
#: not an end: the stream stays TRUNCATED (retryable) until a later GET says more.
STATUS_OUTCOMES = {
    "completed": Outcome.COMPLETED,
    "incomplete": Outcome.INCOMPLETE,
    "cancelled": Outcome.INCOMPLETE,
    "failed": Outcome.FAILED,
    "queued": Outcome.TRUNCATED,
    "in_progress": Outcome.TRUNCATED,
}


def load_verdict(response: Mapping[str, Any]) -> tuple[Outcome, StreamError | None]:
    """The outcome a final ``response`` object ends a stream with, and its error."""
    status = response.get("status")
    outcome = STATUS_OUTCOMES.get(status) if isinstance(status, str) else None
    if outcome is Outcome.FAILED:
        return outcome, failure_of(response)
    if outcome is Outcome.TRUNCATED:
        return outcome, StreamError(
            message=f"the response is still {status}: fetch it again later",
            code="response_in_progress",
            retryable=True,
            raw=dict(response),
        )
    if outcome is None:
        return Outcome.FAILED, _not_a_response(response, status)
    return outcome, None


def malformed_items(response: Mapping[str, Any]) -> list[int]:
    """The positions in ``output`` that hold no item object with a string type."""
    output = response.get("output")
    return [
        index
        for index, item in enumerate(output if isinstance(output, list) else ())
        if not isinstance(item, dict) or not isinstance(item.get("type", ""), str)
    ]


def loaded_snapshot(
    response: Mapping[str, Any], streamed: ResponseSnapshot, final: bool
) -> ResponseSnapshot:
    """The snapshot after loading ``response``: of its output items (all done, as sent),
    or, when it carries no output, the ``streamed`` one with what it says."""
    if isinstance(response.get("output"), list):
        snap = _snapshot_of(response, final)
        snap._on_loss = streamed._on_loss  # to_api() losses are the lane's warnings still
        return snap
    if isinstance(response.get("status"), str):
        _record(streamed, response, final)
    return streamed


def failure_of(response: Mapping[str, Any]) -> StreamError:
    """The error a failed response object reports (its ``error``)."""
    error = response.get("error")
    if isinstance(error, Mapping):
        return StreamError.from_payload(error)
    return StreamError(message="response.failed without an error object", raw=dict(response))


def _snapshot_of(response: Mapping[str, Any], final: bool) -> ResponseSnapshot:
    """A snapshot of ``response`` and its output items (all done, as sent)."""
    snap = ResponseSnapshot()
    for index, item in enumerate(response["output"]):
        if isinstance(item, dict) and isinstance(item.get("type", ""), str):
            snap._add(index, item)._finish(item)
    _record(snap, response, final)
    return snap


def _record(snap: ResponseSnapshot, response: Mapping[str, Any], final: bool) -> None:
    """A finished response is the final word; one still running updates what is known."""
    if final:
        snap._finish(dict(response))
    else:
        snap._update(dict(response))


def _not_a_response(response: Mapping[str, Any], status: Any) -> StreamError:
    """What an object that is no finished response says: its error, or what was wrong."""
    if status is None and isinstance(response.get("error"), Mapping):
        # An error envelope (the body of a refused GET) rather than a response.
        return StreamError.from_payload(response)
    return StreamError(
        message=f"not a response object with a known status (status {status!r})",
        code="unexpected_response",
        retryable=False,
        raw=dict(response),
    )
