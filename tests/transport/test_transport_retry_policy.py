"""RetryPolicy: the one decision "try again, after how long?" for every failure.

The policy honours ``error.retryable`` and ``error.retry_after``, backs off
exponentially with jitter otherwise, and decides the same for a failure inside
the stream (after an early 200) as for the same failure's status before it:
the MindsHub document asks a client to retry an in-stream failure exactly where
it would have retried the failure's status.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from server import StreamServer, drive

from sse_engine import DEFAULT_MAX_RETRY_DELAY, RetryPolicy
from sse_engine._lane import Lane
from sse_engine._outcome import _NOT_RETRYABLE, _RETRYABLE, Outcome, StreamError
from sse_engine.chat import ChatCompletionsLane
from sse_engine.messages import MessagesLane
from sse_engine.responses import ResponsesLane

NO_JITTER = RetryPolicy(random=lambda: 0.0)


def error(retryable: bool = True, retry_after: float | None = None) -> StreamError:
    return StreamError("x", code="x", retryable=retryable, retry_after=retry_after)


# -- the decision, by example ------------------------------------------------------------------


def test_backoff_doubles_from_base_delay_up_to_max_delay() -> None:
    policy = RetryPolicy(max_attempts=10, base_delay=0.5, max_delay=6.0, random=lambda: 0.0)
    delays = [policy.delay(error(), attempt) for attempt in range(1, 10)]
    assert delays == [0.5, 1.0, 2.0, 4.0, 6.0, 6.0, 6.0, 6.0, 6.0]


def test_jitter_takes_up_to_half_of_the_backoff() -> None:
    for share, want in ((0.0, 2.0), (0.5, 1.5), (0.999, 1.001)):
        policy = RetryPolicy(random=lambda share=share: share)
        assert policy.delay(error(), 3) == pytest.approx(want)


def test_attempts_are_counted_from_the_first_request() -> None:
    policy = RetryPolicy(max_attempts=3, random=lambda: 0.0)
    assert policy.delay(error(), 1) == 0.5  # the first request failed: retry
    assert policy.delay(error(), 2) == 1.0  # the first retry failed: retry again
    assert policy.delay(error(), 3) is None  # three attempts made: give up
    assert RetryPolicy(max_attempts=1).delay(error(), 1) is None


def test_a_failure_that_is_not_retryable_is_never_retried() -> None:
    assert NO_JITTER.delay(error(retryable=False), 1) is None
    assert NO_JITTER.delay(error(retryable=False, retry_after=1.0), 1) is None


def test_the_servers_retry_after_is_the_wait() -> None:
    assert NO_JITTER.delay(error(retry_after=2.5), 1) == 2.5
    assert NO_JITTER.delay(error(retry_after=0.0), 1) == 0.0
    assert NO_JITTER.delay(error(retry_after=DEFAULT_MAX_RETRY_DELAY), 1) == 60.0
    assert NO_JITTER.delay(error(retry_after=2.5), 2) == 2.5  # longer than the backoff (1 s)


def test_a_server_that_says_now_again_and_again_gets_the_backoff() -> None:
    """Issue 20: ``Retry-After`` as a date already past read as 0 s for every attempt.

    "Now" is honoured once; a failure after that waits at least the backoff,
    so a server that always says "now" is not hammered five times at once.
    """
    waits = [NO_JITTER.delay(error(retry_after=0.0), attempt) for attempt in range(1, 6)]
    assert waits == [0.0, 1.0, 2.0, 4.0, 8.0]
    assert [NO_JITTER.retry_field_delay(0, attempt) for attempt in (1, 2, 3)] == [0.0, 1.0, 2.0]


def test_a_retry_after_longer_than_max_delay_means_do_not_retry() -> None:
    # Retrying before the server said it would serve again fails again (and the
    # error still carries retry_after, for a message such as "try again in 2 h").
    assert NO_JITTER.delay(error(retry_after=7200.0), 1) is None
    assert RetryPolicy(max_delay=10.0).delay(error(retry_after=10.5), 1) is None


def test_a_meaningless_retry_after_falls_back_to_backoff() -> None:
    for value in (-1.0, math.nan):
        assert NO_JITTER.delay(error(retry_after=value), 2) == 1.0
    assert NO_JITTER.delay(error(retry_after=math.inf), 2) is None


def test_the_defaults_are_documented_values() -> None:
    policy = RetryPolicy()
    assert (policy.max_attempts, policy.base_delay, policy.max_delay) == (6, 0.5, 60.0)
    assert DEFAULT_MAX_RETRY_DELAY == 60.0


@pytest.mark.parametrize(
    "options",
    [
        {"max_attempts": 0},
        {"max_attempts": 2.5},
        {"max_attempts": True},
        {"base_delay": -1.0},
        {"max_delay": math.inf},
        {"max_delay": math.nan},
    ],
)
def test_nonsense_settings_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="RetryPolicy"):
        RetryPolicy(**options)


@pytest.mark.parametrize("attempt", [0, -1])
def test_attempt_counts_the_attempts_made(attempt: int) -> None:
    with pytest.raises(ValueError, match="attempt"):
        NO_JITTER.delay(error(), attempt)


def test_the_retry_field_is_capped_at_max_delay_whatever_its_size() -> None:
    policy = RetryPolicy(max_delay=30.0)
    assert policy.retry_field_delay(1500) == 1.5
    assert policy.retry_field_delay(0) == 0.0
    for digits in (12, 25, 400):
        assert policy.retry_field_delay(int("9" * digits)) == 30.0


# -- the decision, as a property -------------------------------------------------------------

errors = st.builds(
    StreamError,
    message=st.just("x"),
    code=st.none() | st.text(max_size=5),
    retryable=st.booleans(),
    retry_after=st.none() | st.floats(allow_nan=True, allow_infinity=True),
)
policies = st.builds(
    RetryPolicy,
    max_attempts=st.integers(1, 50),
    base_delay=st.floats(0, 1e6),
    max_delay=st.floats(0, 1e6),
    # Shares in [0, 1), and broken sources (out of range, NaN) that must not break the bound.
    random=st.sampled_from([0.0, 0.5, 0.9999, 7.0, -1.0, math.nan]).map(lambda s: lambda: s),
)


@settings(max_examples=examples(50, thorough=300), deadline=None)
@given(policy=policies, err=errors, attempt=st.integers(1, 10**6))
def test_every_answer_is_none_or_a_finite_wait_within_max_delay(
    policy: RetryPolicy, err: StreamError, attempt: int
) -> None:
    delay = policy.delay(err, attempt)
    asked = err.retry_after
    refused = attempt >= policy.max_attempts or not err.retryable
    if asked is not None and asked >= 0 and asked > policy.max_delay:
        refused = True
    assert (delay is None) == refused
    if delay is not None:
        assert math.isfinite(delay) and 0.0 <= delay <= policy.max_delay
        if asked is not None and asked >= 0:
            # The server's wait, exactly the first time; then never less than the backoff.
            assert delay == (asked if attempt == 1 else max(asked, policy.backoff(attempt)))


@settings(max_examples=100, deadline=None)
@given(policy=policies, attempt=st.integers(1, 2000))
def test_the_backoff_ceiling_never_shrinks_with_more_attempts(
    policy: RetryPolicy, attempt: int
) -> None:
    steady = RetryPolicy(
        max_attempts=policy.max_attempts,
        base_delay=policy.base_delay,
        max_delay=policy.max_delay,
        random=lambda: 0.0,
    )
    assert steady.backoff(attempt) <= steady.backoff(attempt + 1) <= policy.max_delay


# -- in-stream and pre-stream forms of the same failure --------------------------------------------


def in_stream(lane_name: str, name: str) -> tuple[Lane[Any], bytes]:
    """A 200 stream whose failure, named ``name``, arrives inside it (after an early 200)."""
    if lane_name == "chat":
        body = {"error": {"message": "failed", "type": "some_type", "code": name}}
        return ChatCompletionsLane(), b"data: " + json.dumps(body).encode() + b"\n\n"
    if lane_name == "messages":
        body = {"type": "error", "error": {"type": name, "message": "failed"}}
        return MessagesLane(), b"event: error\ndata: " + json.dumps(body).encode() + b"\n\n"
    created = {
        "type": "response.created",
        "sequence_number": 0,
        "response": {"id": "resp_1", "status": "in_progress", "output": []},
    }
    failed = {
        "type": "response.failed",
        "sequence_number": 1,
        "response": {
            "id": "resp_1",
            "status": "failed",
            "output": [],
            "error": {"code": name, "message": "failed"},
        },
    }
    frames = b"".join(
        f"event: {f['type']}\ndata: {json.dumps(f)}\n\n".encode() for f in (created, failed)
    )
    return ResponsesLane(), frames


def pre_stream(lane_name: str, name: str, status: int) -> tuple[Lane[Any], bytes]:
    """The same failure as a JSON error body with an HTTP error status."""
    if lane_name == "messages":
        body: dict[str, Any] = {"type": "error", "error": {"type": name, "message": "failed"}}
        lane: Lane[Any] = MessagesLane()
    else:
        body = {"error": {"message": "failed", "type": "some_type", "code": name}}
        lane = ChatCompletionsLane() if lane_name == "chat" else ResponsesLane()
    lane.start(status, {"content-type": "application/json"})
    return lane, json.dumps(body).encode()


def failure_of(lane: Lane[Any], data: bytes) -> StreamError:
    lane.feed(data)
    lane.close()
    assert lane.outcome is Outcome.FAILED and lane.error is not None
    return lane.error


LANE_NAMES = ("chat", "messages", "responses")


@settings(max_examples=examples(20, thorough=200), deadline=None)
@given(
    name=st.sampled_from(sorted(_RETRYABLE | _NOT_RETRYABLE)),
    lane_name=st.sampled_from(LANE_NAMES),
    status=st.integers(400, 599),
    attempt=st.integers(1, 6),
)
def test_in_stream_and_pre_stream_forms_of_a_failure_get_the_same_decision(
    name: str, lane_name: str, status: int, attempt: int
) -> None:
    inside = failure_of(*in_stream(lane_name, name))
    before = failure_of(*pre_stream(lane_name, name, status))
    assert inside.status is None and before.status == status
    assert inside.retryable == before.retryable == (name in _RETRYABLE)
    assert NO_JITTER.delay(inside, attempt) == NO_JITTER.delay(before, attempt)


def test_an_in_stream_overload_is_retried_like_a_pre_stream_529() -> None:
    inside = failure_of(*in_stream("messages", "overloaded_error"))
    before = failure_of(*pre_stream("messages", "overloaded_error", 529))
    assert NO_JITTER.delay(inside, 1) == NO_JITTER.delay(before, 1) == 0.5


@pytest.mark.parametrize("lane_name", LANE_NAMES)
def test_an_in_stream_context_length_exceeded_is_not_retried_like_a_pre_stream_400(
    lane_name: str,
) -> None:
    inside = failure_of(*in_stream(lane_name, "context_length_exceeded"))
    before = failure_of(*pre_stream(lane_name, "context_length_exceeded", 400))
    assert NO_JITTER.delay(inside, 1) is NO_JITTER.delay(before, 1) is None


# Over real HTTP: the server sends each status's own error body, once as the
# response (pre-stream) and once inside a 200 after keepalives (a slow start).
LANE_PATHS = {"chat": "chat/completions", "messages": "messages", "responses": "responses"}
LANE_CLASSES: dict[str, type[Lane[Any]]] = {
    "chat": ChatCompletionsLane,
    "messages": MessagesLane,
    "responses": ResponsesLane,
}


@pytest.mark.parametrize("lane_name", LANE_NAMES)
@pytest.mark.parametrize("status", [400, 401, 404, 429, 500, 529])
def test_the_servers_late_and_early_answers_get_the_same_decision(
    stream_server: StreamServer, lane_name: str, status: int
) -> None:
    url = f"{stream_server.url}/v1/{LANE_PATHS[lane_name]}"
    decisions = []
    for query in (f"status={status}", f"late_status={status}&prelude=2&keepalive=1"):
        lane = LANE_CLASSES[lane_name]()
        result = drive("httpx", lane, f"{url}?{query}")
        assert result.exc is None and lane.outcome is Outcome.FAILED and lane.error is not None
        decisions.append((lane.error.retryable, NO_JITTER.delay(lane.error, 1)))
    assert decisions[0] == decisions[1]
    assert decisions[0][0] == (status >= 429)
