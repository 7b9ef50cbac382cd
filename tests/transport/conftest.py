"""The transport tests' ``client``: each test that takes it runs once per real HTTP client.

A test marked ``realtime(everyday=(SYNC, ASYNC))`` waits on real timers (keepalives
tens of milliseconds apart against budgets of a fraction of a second): about a
second of a worker's time per client in which it does nothing else. The everyday
run gives such a test the two clients it names, one sync and one async, chosen so
that each client is timed by some test every run; the deep run (CI's) gives it all
four.
"""

from __future__ import annotations

import pytest
from hypothesis_budget import deep
from server import CLIENTS, everyday_clients


@pytest.fixture(params=CLIENTS)
def client(request: pytest.FixtureRequest) -> str:
    """The name of a real client (tests/server.py ``drive``) the test runs with."""
    name = str(request.param)
    realtime = request.node.get_closest_marker("realtime")
    if realtime is not None and not deep() and name not in everyday_clients(realtime):
        pytest.skip(f"a real-time scenario runs with {name} in the deep run only")
    return name
