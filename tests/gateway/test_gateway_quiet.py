"""QuietTimer: quiet is an interval without a touch, told once per interval while it lasts."""

from __future__ import annotations

import asyncio

from sse_engine.gateway._quiet import QuietTimer


def test_a_busy_stream_is_never_quiet_and_a_quiet_one_is_told_every_interval() -> None:
    async def run() -> tuple[int, int]:
        told: list[float] = []
        loop = asyncio.get_running_loop()
        timer = QuietTimer(0.1, lambda: told.append(loop.time()))
        for _ in range(30):  # busy for 0.3 s: three intervals, touched throughout
            await asyncio.sleep(0.01)
            timer.touch()
        busy = len(told)
        await asyncio.sleep(0.35)  # then quiet: told at about 0.1, 0.2 and 0.3
        timer.cancel()
        quiet = len(told)
        await asyncio.sleep(0.15)  # cancelled: never again
        assert len(told) == quiet
        return busy, quiet

    busy, quiet = asyncio.run(run())
    assert busy == 0
    assert 2 <= quiet <= 4
