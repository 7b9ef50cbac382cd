"""The real-time scenarios' everyday clients (tests/transport/conftest.py): each scenario
names one sync and one async client, and every client is timed by some scenario."""

from __future__ import annotations

import pytest
import test_transport_http
import test_transport_misbehaving
import test_transport_refusal
import test_transport_resume
from server import CLIENTS, everyday_clients


def test_every_client_is_timed_everyday_by_some_real_time_scenario() -> None:
    pairs = {
        name: everyday_clients(mark)  # one sync and one async, or it fails here
        for module in (test_transport_http, test_transport_misbehaving, test_transport_refusal,
                       test_transport_resume)
        for name, test in vars(module).items()
        if name.startswith("test_")
        for mark in getattr(test, "pytestmark", [])
        if mark.name == "realtime"
    }
    assert len(pairs) >= 2
    assert {client for pair in pairs.values() for client in pair} == set(CLIENTS)


@pytest.mark.parametrize("everyday", [("httpx", "requests"), ("httpx", "httpx-async"),
                                      ("aiohttp",)])
def test_a_pair_that_is_not_one_sync_and_one_async_client_is_refused(
    everyday: tuple[str, ...],
) -> None:
    with pytest.raises(AssertionError):
        everyday_clients(pytest.mark.realtime(everyday=everyday).mark)
