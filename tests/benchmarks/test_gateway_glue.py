"""benchmarks/gateway_glue.py drives the gateway command's own read loop (no HTTP): it must keep
working as the gateway changes, and its figures must add up. Nothing about speed is asserted."""

from __future__ import annotations

import pytest

glue = pytest.importorskip("benchmarks.gateway_glue")
pytest.importorskip("aiohttp")


@pytest.mark.parametrize("streams", [1, 4])
def test_the_command_loop_relays_every_event_and_the_figures_add_up(
    monkeypatch: pytest.MonkeyPatch, streams: int
) -> None:
    monkeypatch.setattr(glue, "EVENTS", 40)
    monkeypatch.setattr(glue, "REPEATS", 1)
    written: list[bytes] = []

    async def write(self: object, data: bytes) -> None:
        written.append(data)

    monkeypatch.setattr(glue._Response, "write", write)
    figures = glue.measure(streams)
    assert set(figures) == {"pass", "relay", "command", "glue"}
    assert figures["pass"] > 0 and figures["command"] > 0
    assert figures["glue"] == pytest.approx(
        figures["command"] - figures["relay"] - figures["pass"]
    )
    # The pass-through wrote each event as read; the command wrote each one relayed (one
    # Chat chunk per Messages delta), both once per repeat.
    relayed = [chunk for chunk in written if b"chat.completion.chunk" in chunk]
    assert len(relayed) == 40
    assert all(chunk.count(b"\n\n") == 1 for chunk in relayed)
