"""How many examples a property test runs: a reviewed count per test, or the deep count.

The everyday run is hypothesis's ``ci`` profile (tests/conftest.py loads it):
each property test runs the count written next to it as ``ci``, or 10 where
none is written. Those counts were set from measured runs: the examples of
one test, all its parameters together, cost about 0.15 s on an idle two-core
machine, and never fewer than 5 examples (down to 1 where the parameters, not
the examples, give the breadth: a test run for every capture and target). At
0.3 s a test, the suite's 400 property tests took 39 of its 140 CPU-seconds; at
0.15 s, 24.

The deep run, ``HYPOTHESIS_PROFILE=thorough`` (or ``pytest --hypothesis-profile
thorough``), which CI runs, gives every test its ``thorough`` count, the count
it ran before the suite was budgeted, and the docs blocks and long splits their
full, slow form (:func:`deep`); run it after changing a lane or a strategy.
"""

from __future__ import annotations

from hypothesis import settings

#: The profiles tests/conftest.py registers: the everyday one and the deep one.
CI = "ci"
THOROUGH = "thorough"


def deep() -> bool:
    """Whether this is the deep run (``thorough``, what CI runs), not the everyday one."""
    return settings.get_current_profile_name() == THOROUGH


def examples(ci: int, *, thorough: int) -> int:
    """``max_examples`` for the profile in force: ``ci`` every run, ``thorough`` in the deep run."""
    assert 0 < ci <= thorough, (ci, thorough)
    return thorough if deep() else ci
