"""Liveness: the "no bytes" and "no events" budgets, from caller-supplied clock values."""

from __future__ import annotations

import pytest

from sse_engine._liveness import (
    DEFAULT_IDLE_TIMEOUT,
    DEFAULT_KEEPALIVE_ONLY_TIMEOUT,
    Liveness,
    LivenessVerdict,
)

OK = LivenessVerdict.OK
IDLE = LivenessVerdict.IDLE_TIMEOUT
CAP = LivenessVerdict.KEEPALIVE_ONLY_TIMEOUT


def test_defaults_are_the_documented_edge_numbers() -> None:
    liveness = Liveness()
    assert liveness.idle_timeout == DEFAULT_IDLE_TIMEOUT == 125.0
    assert liveness.keepalive_only_timeout == DEFAULT_KEEPALIVE_ONLY_TIMEOUT == 1800.0


def test_silence_expires_the_idle_budget_at_its_deadline() -> None:
    liveness = Liveness(idle_timeout=10, keepalive_only_timeout=None)
    liveness.start(100.0)
    assert liveness.check(109.999) is OK
    assert liveness.check(110.0) is IDLE


def test_keepalives_are_bytes_not_events() -> None:
    # A model thinking for 20 minutes behind keepalives every 15 s: the
    # connection is alive, and the no-events cap (30 min) has not run out.
    liveness = Liveness()
    liveness.start(0.0)
    liveness.on_event(1.0)
    now = 1.0
    while now < 1200.0:
        now += 15.0
        liveness.on_bytes(now)
        assert liveness.check(now) is OK
    assert liveness.last_event_at == 1.0
    assert liveness.last_bytes_at == now


def test_keepalive_only_stream_is_capped() -> None:
    liveness = Liveness(idle_timeout=60, keepalive_only_timeout=1800)
    liveness.start(0.0)
    liveness.on_event(5.0)
    for tick in range(1, 200):
        now = 5.0 + 15.0 * tick
        liveness.on_bytes(now)
        if now < 1805.0:
            assert liveness.check(now) is OK
        else:
            assert liveness.check(now) is CAP
            break
    else:
        pytest.fail("the cap never fired")


def test_an_event_resets_both_budgets() -> None:
    liveness = Liveness(idle_timeout=10, keepalive_only_timeout=30)
    liveness.start(0.0)
    liveness.on_bytes(9.0)
    liveness.on_bytes(18.0)
    liveness.on_event(27.0)
    assert liveness.check(36.0) is OK
    assert liveness.check(37.0) is IDLE
    liveness.on_bytes(36.0)
    liveness.on_bytes(45.0)
    liveness.on_bytes(54.0)
    assert liveness.check(57.0) is CAP


def test_slow_start_counts_against_the_cap_from_start() -> None:
    liveness = Liveness(idle_timeout=20, keepalive_only_timeout=100)
    liveness.start(0.0)
    for now in range(15, 100, 15):
        liveness.on_bytes(float(now))
    assert liveness.check(99.0) is OK
    assert liveness.check(100.0) is CAP


def test_when_both_expired_the_earlier_deadline_wins() -> None:
    liveness = Liveness(idle_timeout=10, keepalive_only_timeout=25)
    liveness.start(0.0)
    liveness.on_bytes(20.0)  # idle deadline 30, cap deadline 25
    assert liveness.check(40.0) is CAP
    liveness = Liveness(idle_timeout=10, keepalive_only_timeout=25)
    liveness.start(0.0)  # idle deadline 10, cap deadline 25
    assert liveness.check(40.0) is IDLE


def test_next_deadline_is_how_long_the_next_read_may_block() -> None:
    liveness = Liveness(idle_timeout=10, keepalive_only_timeout=25)
    liveness.start(0.0)
    assert liveness.next_deadline(0.0) == 10.0
    liveness.on_bytes(9.0)
    assert liveness.next_deadline(9.0) == 10.0
    liveness.on_bytes(18.0)
    # The cap (25) is nearer than the idle deadline (28).
    assert liveness.next_deadline(20.0) == 5.0
    assert liveness.next_deadline(30.0) == 0.0


def test_no_budgets_means_no_deadline() -> None:
    liveness = Liveness(idle_timeout=None, keepalive_only_timeout=None)
    assert liveness.next_deadline(5.0) is None
    assert liveness.check(1e12) is OK


def test_clocks_start_at_the_first_call() -> None:
    liveness = Liveness(idle_timeout=5, keepalive_only_timeout=None)
    assert liveness.started_at is None
    liveness.on_bytes(100.0)
    assert liveness.started_at == 100.0
    assert liveness.check(104.0) is OK
    assert liveness.check(105.0) is IDLE
    fresh = Liveness(idle_timeout=5, keepalive_only_timeout=None)
    assert fresh.next_deadline(50.0) == 5.0
    assert fresh.started_at == 50.0


def test_start_restarts_after_a_reconnect() -> None:
    liveness = Liveness(idle_timeout=5, keepalive_only_timeout=None)
    liveness.start(0.0)
    assert liveness.check(6.0) is IDLE
    liveness.start(6.0)
    assert liveness.check(6.0) is OK


def test_errors_name_the_budget_and_are_retryable() -> None:
    liveness = Liveness(idle_timeout=10, keepalive_only_timeout=30)
    liveness.start(0.0)
    idle = liveness.error(IDLE, 12.0)
    assert (idle.code, idle.retryable) == ("idle_timeout", True)
    assert "no bytes" in idle.message and "12" in idle.message
    cap = liveness.error(CAP, 31.0)
    assert (cap.code, cap.retryable) == ("keepalive_only_timeout", True)
    assert "only keepalives" in cap.message
    with pytest.raises(ValueError):
        liveness.error(OK, 1.0)


@pytest.mark.parametrize("bad", [0, -1.0])
def test_budgets_must_be_positive(bad: float) -> None:
    with pytest.raises(ValueError):
        Liveness(idle_timeout=bad)
    with pytest.raises(ValueError):
        Liveness(keepalive_only_timeout=bad)


def test_verdict_values_are_the_error_codes() -> None:
    assert [v.value for v in LivenessVerdict] == ["ok", "idle_timeout", "keepalive_only_timeout"]
    assert "idle_timeout=3" in repr(Liveness(idle_timeout=3))
