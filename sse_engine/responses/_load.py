"""``ResponsesLane.load``: end a stream from the non-streamed ``response`` object.

Past the resume window (or when a resume is refused) the final object is
fetched with a plain GET (:meth:`ResumePlan.retrieve`). Loading it makes the
lane's snapshot that object and its outcome the one its ``status`` names,
exactly as if the stream had delivered its final items and terminal event.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sse_engine._errors import UsageError
from sse_engine._outcome import Outcome, StreamError
from sse_engine.responses._snapshot import ResponseSnapshot
from sse_engine.responses._types import ResponsesEvent

if TYPE_CHECKING:
    from sse_engine.responses._lane import ResponsesLane

__all__ = ["STATUS_OUTCOMES", "load_response"]

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


def load_response(lane: ResponsesLane, response: dict[str, Any]) -> list[ResponsesEvent]:
    """Fill ``lane`` from a non-streamed ``response`` object; return ``[StreamEnd]``.

    See :meth:`ResponsesLane.load`.
    """
    if not isinstance(response, Mapping):
        raise UsageError(
            f"load() takes the response object as decoded JSON (a dict), "
            f"not {type(response).__name__}"
        )
    if lane.outcome is not None and lane.outcome is not Outcome.TRUNCATED:
        raise UsageError(
            f"the stream already ended {lane.outcome.name}: load() completes a fresh "
            "lane or a TRUNCATED one"
        )
    status = response.get("status")
    outcome = STATUS_OUTCOMES.get(status) if isinstance(status, str) else None
    error: StreamError | None = None
    if outcome is Outcome.FAILED:
        error = _failure(response)
    elif outcome is Outcome.TRUNCATED:
        error = StreamError(
            message=f"the response is still {status}: fetch it again later",
            code="response_in_progress",
            retryable=True,
            raw=dict(response),
        )
    elif outcome is None:
        outcome, error = Outcome.FAILED, _not_a_response(response, status)
    output = response.get("output")
    for index, item in enumerate(output if isinstance(output, list) else ()):
        if not isinstance(item, dict) or not isinstance(item.get("type", ""), str):
            # A warning (an error when strict), before anything changed; to_api()
            # still returns the object as sent, this item included.
            lane._violation(
                "malformed_event",
                f"load(): output[{index}] is not an item object with a string type; "
                "it is left out of snapshot.items",
            )
    lane._reopen()  # withdraws a TRUNCATED verdict, as a resume does
    ident = response.get("id")
    if isinstance(ident, str):
        lane._note_id("load()", dict(response))
    final = outcome is not Outcome.TRUNCATED
    if isinstance(response.get("output"), list):
        lane._snap = _snapshot_of(response, final)
        lane._snap._on_loss = lane._reports.note_loss  # to_api() losses become lane warnings
    elif isinstance(status, str):  # no output: keep the items streamed so far
        _record(lane._snap, response, final)
    lane._open = None
    out: list[ResponsesEvent] = []
    lane._end(outcome, error, out)
    lane.close()  # the lane is over: a later feed() is a usage error
    return out


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


def _failure(response: Mapping[str, Any]) -> StreamError:
    from sse_engine.responses._lane import _failure_of  # the lane imports this module

    return _failure_of(dict(response))


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
