"""The hypothesis settings of the byte-level properties (the parser's, PartialJSON's).

Their examples are cheap, so many of them: ``examples`` picks the count for the
profile tests/conftest.py loaded, which is why these live here and not in
tests/hypothesis_budget.py (conftest imports that before it loads a profile).
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis_budget import examples

#: For the properties whose examples are whole streams.
HEAVY = settings(
    max_examples=examples(6, thorough=300),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
#: For the properties whose examples are a line or a value.
LIGHT = settings(
    max_examples=examples(12, thorough=150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
