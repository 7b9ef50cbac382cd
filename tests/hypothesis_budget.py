"""How many examples a property test runs: a reviewed count per test, or the deep count.

The suite runs under hypothesis's ``ci`` profile (tests/conftest.py loads it),
where each expensive property test runs the count written next to it as
``ci``: enough examples to cover its strategy's branches on every run, few
enough that the whole suite stays about a minute on two cores. The deep run,
``HYPOTHESIS_PROFILE=thorough`` (or ``pytest --hypothesis-profile thorough``),
runs every test at its ``thorough`` count, the count it ran before the suite
was budgeted; run it after changing a lane, a strategy, or before a release.
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
