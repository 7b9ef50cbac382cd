"""The gateway command as a contender of the soak: scheduled for its relay only, its rows
written into the gateway section without touching the rest (the soak itself runs in
test_gateway_soak.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

bench = pytest.importorskip("benchmarks.bench_gateway")
command_rows = pytest.importorskip("benchmarks.gateway_command")


def test_the_command_runs_its_relay_only_and_the_stacks_both_kinds() -> None:
    for round_ in range(4):
        runs = bench._schedule(["aiohttp", "command"], round_)
        assert ("command", "relay") in runs and ("command", "proxy") not in runs
        assert {("aiohttp", "proxy"), ("aiohttp", "relay")} <= set(runs)


def test_the_command_is_measured_against_the_aiohttp_proxy() -> None:
    assert bench._proxy_of("command") == "aiohttp"
    assert bench._proxy_of("h11") == "h11"


_DOC = """# Benchmarks

<!-- section:gateway -->
## Gateway HTTP stack: a loopback soak

intro

### N = 100 concurrent streams

rows

### The Relay's own memory

memory
<!-- /section:gateway -->

<!-- section:other -->
### The Relay's own memory (not the gateway's)
<!-- /section:other -->
"""


def test_the_rows_go_into_the_gateway_section_once_and_the_rest_stays(tmp_path: Path) -> None:
    path = tmp_path / "benchmarks.md"
    path.write_text(_DOC, encoding="utf-8")
    first = f"{command_rows.TITLE}\n\nfirst figures\n"
    command_rows.write(first, path)
    text = path.read_text(encoding="utf-8")
    assert text.replace(first.strip() + "\n\n", "") == _DOC
    assert text.index("first figures") < text.index("### The Relay's own memory\n")
    command_rows.write(f"{command_rows.TITLE}\n\nsecond figures\n", path)
    again = path.read_text(encoding="utf-8")
    assert "first figures" not in again and again.count(command_rows.TITLE) == 1
    assert again.replace(f"{command_rows.TITLE}\n\nsecond figures\n\n", "") == _DOC
