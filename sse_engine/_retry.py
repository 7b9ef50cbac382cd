"""RetryPolicy: whether a failed stream is worth another attempt, and how long to wait first.

One policy serves both ways of trying again: re-sending the request (any lane,
before or inside the stream: "retry it yourself") and reconnecting a dropped
Responses stream (``iter_events(..., reconnect=..., retry=policy)``). It is
sans-IO like the rest: it answers with a number of seconds, the caller sleeps.

The decision reads only the :class:`StreamError`, so a failure inside the
stream (after an early 200) gets the same answer as the same failure's HTTP
status before the stream: ``error.retryable`` comes from the one table in
``_outcome.py``, where a code decides before a status does.
"""

from __future__ import annotations

import random as _random
from collections.abc import Callable

import attrs

from sse_engine._outcome import StreamError

__all__ = ["DEFAULT_MAX_RETRY_DELAY", "RetryPolicy"]

#: The longest single wait, in seconds: caps the exponential backoff and the
#: stream's ``retry:`` field; a ``retry_after`` above it means "do not retry".
DEFAULT_MAX_RETRY_DELAY = 60.0

# 2.0 ** 1024 overflows a float; past this exponent every backoff is max_delay anyway.
_MAX_EXPONENT = 1023


def _at_least_one(_: object, attribute: attrs.Attribute[int], value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"RetryPolicy.{attribute.name} must be an int >= 1, got {value!r}")


def _finite_seconds(_: object, attribute: attrs.Attribute[float], value: float) -> None:
    if not isinstance(value, int | float) or not 0.0 <= value < float("inf"):
        raise ValueError(
            f"RetryPolicy.{attribute.name} must be a finite number of seconds >= 0, got {value!r}"
        )


@attrs.frozen
class RetryPolicy:
    """When to try a failed stream again: :meth:`delay` says how long to wait, or not to.

    ``max_attempts`` counts every attempt, the first request included (the
    default, 6, is the first request and up to 5 retries or reconnects).
    ``base_delay`` is the first backoff in seconds, doubled on each further
    attempt, never above ``max_delay`` (which also bounds how long a server may
    ask a client to wait). ``random`` returns a float in [0, 1) for the jitter
    (inject a fixed one in tests): the backoff is cut by up to half of itself,
    so clients that failed together do not all come back at the same moment.
    """

    max_attempts: int = attrs.field(default=6, validator=_at_least_one)
    base_delay: float = attrs.field(default=0.5, validator=_finite_seconds)
    max_delay: float = attrs.field(default=DEFAULT_MAX_RETRY_DELAY, validator=_finite_seconds)
    random: Callable[[], float] = attrs.field(default=_random.random, eq=False, repr=False)

    def delay(self, error: StreamError, attempt: int) -> float | None:
        """Seconds to wait before the next attempt, or None: do not retry.

        ``attempt`` is how many attempts have been made so far (1 after the
        first request failed). None when ``attempt`` has reached
        ``max_attempts``, when ``error.retryable`` is False, or when the server
        asked for a longer wait than ``max_delay`` (``error.retry_after``:
        retrying sooner than asked fails again). Otherwise the server's
        ``retry_after`` when it gave one (see :meth:`server_wait`: after the
        first attempt, never less than the backoff), else :meth:`backoff`.
        The answer is always a finite number between 0 and ``max_delay``.
        """
        if isinstance(attempt, bool) or not isinstance(attempt, int) or attempt < 1:
            raise ValueError(f"attempt counts the attempts made so far (>= 1), got {attempt!r}")
        if attempt >= self.max_attempts or not error.retryable:
            return None
        asked = error.retry_after
        if asked is not None and asked >= 0:  # NaN and negative values say nothing
            return self.server_wait(asked, attempt) if asked <= self.max_delay else None
        return self.backoff(attempt)

    def server_wait(self, asked: float, attempt: int) -> float:
        """The wait for a server that asked for ``asked`` seconds, after ``attempt`` attempts.

        A server's wait is a minimum ("not before"), so the first attempt
        waits exactly that, and a repeated failure waits at least the
        :meth:`backoff` too: ``Retry-After: 0``, a ``Retry-After`` date already
        past (both read as 0 s: "now") or ``retry: 0`` is honoured once, then
        the attempts back off instead of coming back at once, again and again.
        At most ``max_delay``.
        """
        wait = min(float(asked), self.max_delay)
        return wait if attempt <= 1 else max(wait, self.backoff(attempt))

    def backoff(self, attempt: int) -> float:
        """The wait after ``attempt`` failed attempts when the server named none.

        ``base_delay * 2 ** (attempt - 1)``, capped at ``max_delay``, less a
        random share of up to half of it (the jitter).
        """
        exponent = min(max(attempt - 1, 0), _MAX_EXPONENT)
        ceiling = min(self.max_delay, self.base_delay * 2.0**exponent)
        share = self.random()
        if not 0.0 <= share <= 1.0:  # NaN included: a broken source gives no jitter
            share = 0.0
        return ceiling * (1.0 - share / 2.0)

    def retry_field_delay(self, retry_ms: int, attempt: int = 1) -> float:
        """Seconds to wait for a stream's ``retry:`` field (ms, any size), at most ``max_delay``.

        A ``retry:`` value can have hundreds of digits: it is compared as an
        integer and converted only once it is known to be small, so it never
        overflows a float. After ``attempt`` attempts it is a server's wait
        like ``Retry-After`` (:meth:`server_wait`): from the second attempt
        on, never less than the backoff.
        """
        if retry_ms > self.max_delay * 1000.0:
            return self.server_wait(self.max_delay, attempt)
        return self.server_wait(max(retry_ms, 0) / 1000.0, attempt)
