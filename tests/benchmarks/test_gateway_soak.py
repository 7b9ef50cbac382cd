"""The gateway soak (benchmarks/gateway_soak) end to end at a small N, and the checks it relies on.

The full soak (``python -m benchmarks.bench_gateway``) picks the gateway's HTTP
stack by its figures; those figures mean something only if the harness
counts right. So, here:

- the text check rejects every way a stream can be lost or altered (a check
  that passes everything would make the soak's "0 lost" meaningless);
- the load generator's HTTP reader gives the same body however the bytes are
  split into reads;
- five clients through the recommended stack's two gateways (pass-through and
  relay) and through the gateway command (``python -m sse_engine gateway``), two
  streams each (the harness's own gateways in the deep run only, CI's:
  ``HYPOTHESIS_PROFILE=thorough``): every stream whole and unaltered, no error, no
  traceback in the gateway's log, every hung-up client's upstream closed
  before its stream would have ended, keepalives through the relay while the
  upstream is silent. Nothing about speed is asserted.
"""

from __future__ import annotations

import importlib.util
import json
import pstats
import shutil
import socket
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis_budget import deep, examples

wire = pytest.importorskip("benchmarks.gateway_soak.wire")
loadgen = pytest.importorskip("benchmarks.gateway_soak.loadgen")
soak = pytest.importorskip("benchmarks.gateway_soak.soak")
bench = pytest.importorskip("benchmarks.bench_gateway")
gateway = pytest.importorskip("benchmarks.gateway_soak.gateway")

DELTAS = 12


def upstream_text(seed: int, deltas: int = DELTAS) -> list[str]:
    """The deltas the upstream writes for ``seed``, stamped as it would."""
    texts = wire.Texts(seed, deltas)
    return [texts.next(1_000_000 + 20_000 * i) for i in range(deltas)]


@given(seed=st.integers(0, 10**9))
def test_the_upstream_text_passes_whole_and_as_any_prefix_of_whole_deltas(seed: int) -> None:
    deltas = upstream_text(seed)
    assert wire.text_problem("".join(deltas), seed, DELTAS) is None
    for cut in range(DELTAS):
        assert wire.text_problem("".join(deltas[:cut]), seed, DELTAS, complete=False) is None


_MUTATIONS = ("drop", "repeat", "swap", "replace char", "insert char", "truncate", "other seed")


@settings(max_examples=examples(8, thorough=300), deadline=None)
@given(seed=st.integers(0, 10**6), how=st.sampled_from(_MUTATIONS), data=st.data())
def test_any_lost_or_altered_text_is_reported(seed: int, how: str, data: st.DataObject) -> None:
    deltas = upstream_text(seed)
    i = data.draw(st.integers(0, DELTAS - 2), label="delta")
    if how == "drop":
        del deltas[i]
    elif how == "repeat":
        deltas.insert(i, deltas[i])
    elif how == "swap":
        deltas[i], deltas[i + 1] = deltas[i + 1], deltas[i]
    elif how == "truncate":
        deltas = deltas[: i + 1]
    elif how == "other seed":
        deltas = upstream_text(seed + 1)
    else:
        text = "".join(deltas)
        at = data.draw(st.integers(0, len(text) - 1), label="at")
        char = data.draw(st.characters(codec="utf-8"), label="char")
        if how == "replace char":
            assume(char != text[at])
            text = text[:at] + char + text[at + 1 :]
        else:
            text = text[:at] + char + text[at:]
        deltas = [text]
    assert wire.text_problem("".join(deltas), seed, DELTAS) is not None


def _chunked(body: bytes, sizes: list[int]) -> bytes:
    """``body`` in chunks of ``sizes`` (the rest in one more), then the last chunk."""
    pieces, at = [], 0
    for size in [*sizes, len(body)]:
        if at < len(body):
            pieces.append(body[at : at + size])
            at += size
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"


@given(body=st.binary(min_size=0, max_size=300), sizes=st.lists(st.integers(1, 80), max_size=8),
       cuts=st.lists(st.integers(1, 400), max_size=12), chunked=st.booleans())
def test_the_response_reader_gives_the_body_however_it_is_split(
    body: bytes, sizes: list[int], cuts: list[int], chunked: bool
) -> None:
    head = (b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            + (b"transfer-encoding: chunked\r\n\r\n" if chunked
               else b"content-length: %d\r\n\r\n" % len(body)))
    wire_bytes = head + (_chunked(body, sizes) if chunked else body)
    response = loadgen._Response()
    got, at = [], 0
    for cut in sorted(set(cuts)):
        got.append(response.feed(wire_bytes[at:cut]))
        at = max(at, cut)
    got.append(response.feed(wire_bytes[at:]))
    assert response.status == 200
    assert b"".join(got) == body
    assert response.done and response.reusable and not response.buffer


_STACK = bench.RECOMMENDED
_MISSING = [p for p in gateway.STACKS[_STACK].packages if importlib.util.find_spec(p) is None]
#: Two streams per client; the silent start is several keepalive intervals long; a
#: hung-up stream still has ~25 deltas (about 0.5 s) to go when its client leaves. No
#: settling and no head start for the clients' imports: the suite reads no figure.
_LOAD = soak.Load(clients=5, deltas=30, gap=(0.01, 0.03), requests=2, ramp=0.1, think=0.15,
                  keepalive=0.04, hangup_every=5, hangup_at=5, settle=0.0, head_start=0.0)


#: The benchmark harness's own gateways and its A/B of two checkouts are the deep run's
#: (CI's): each costs the everyday run a few processes and seconds, and none of them is
#: the product. The gateway command, the product, is soaked in every run.
_HARNESS_ONLY = pytest.mark.skipif(
    not deep(), reason="the soak harness's own: the deep run's (HYPOTHESIS_PROFILE=thorough)"
)


@pytest.mark.waits
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the soak reads /proc")
@pytest.mark.skipif(bool(_MISSING), reason=f"{_STACK} needs {', '.join(_MISSING)}")
@pytest.mark.parametrize(("stack", "kind"), [
    pytest.param(_STACK, "proxy", marks=_HARNESS_ONLY),
    pytest.param(_STACK, "relay", marks=_HARNESS_ONLY),
    ("command", "relay"),
])
def test_small_soak_on_the_recommended_stack(stack: str, kind: str) -> None:
    """The recommended stack's two gateways, and the gateway command (its relay)."""
    result = soak.run_one(stack, kind, _LOAD)
    tally = result.tally
    assert tally.errors == {} and tally.bad_text == 0, tally.examples
    assert (tally.streams, tally.ok, tally.hung_up) == (10, 8, 2)
    assert tally.deltas >= 8 * _LOAD.deltas
    assert result.tracebacks == 0
    assert len(result.hangup_close_ms) == 2 and result.not_closed == 0
    if kind == "relay":
        assert tally.keepalives >= 8  # at least one per finished stream's silent start
    else:
        assert tally.keepalives == 0  # the upstream sends none; a proxy adds none
    assert result.events > 0 and result.peak_rss >= result.idle_rss > 0


@pytest.mark.waits
@_HARNESS_ONLY
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the soak reads /proc")
@pytest.mark.skipif(bool(_MISSING), reason=f"{_STACK} needs {', '.join(_MISSING)}")
def test_the_command_of_another_checkout_runs_profiled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An A/B of two revisions of the command in one soak: SOAK_COMMAND_CHECKOUT runs that
    directory's sse_engine, and --profile reaches the command (its profile names the
    checkout's files)."""
    checkout = tmp_path / "checkout"
    shutil.copytree(Path(soak.__file__).resolve().parents[2] / "sse_engine",
                    checkout / "sse_engine", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setenv("SOAK_COMMAND_CHECKOUT", str(checkout))
    load = soak.Load(clients=2, deltas=10, gap=(0.01, 0.02), ramp=0.1, settle=0.0, head_start=0.0)
    profile = tmp_path / "command.prof"
    result = soak.run_one("command", "relay", load, profile=profile)
    assert result.tally.ok == 2 and result.tracebacks == 0
    files = {path for path, _, _ in pstats.Stats(str(profile)).stats}  # type: ignore[attr-defined]
    pumps = [path for path in files if path.endswith("_exchange.py")]
    assert pumps and all(path.startswith(str(checkout)) for path in pumps)


@pytest.mark.waits
@_HARNESS_ONLY
@pytest.mark.skipif(bool(_MISSING), reason=f"{_STACK} needs {', '.join(_MISSING)}")
@pytest.mark.parametrize("kind", ["proxy", "relay"])
def test_an_unreachable_upstream_is_a_502_not_a_traceback(kind: str, tmp_path: Path) -> None:
    """The recommended stack's gateways answer a request they cannot take upstream with a
    502 (the relay's in the Chat error envelope) and log no traceback. Only the stack the
    gateway uses: the others are candidates the soak measures, and each would cost the
    suite a process start."""
    procs = pytest.importorskip("benchmarks.gateway_soak.procs")
    # A port bound and not listening refuses connections, and stays ours for the test
    # (no other test process can take it meanwhile).
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        upstream = f"127.0.0.1:{closed.getsockname()[1]}"
        args = ["--stack", _STACK, "--kind", kind, "--upstream", upstream]
        log = tmp_path / "gateway.log"
        with procs.Child("benchmarks.gateway_soak.gateway", args, log) as gw:
            _ask_unreachable(gw.port, kind)
    assert "Traceback" not in log.read_text()


def _ask_unreachable(port: int, kind: str) -> None:
    body = (wire.chat_request if kind == "relay" else wire.messages_request)(1, 3)
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{gateway.PATHS[kind]}", data=body,
        headers={"content-type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as answer:
        urllib.request.urlopen(request, timeout=30)
    assert answer.value.code == 502
    data = answer.value.read()
    if kind == "relay":
        assert "message" in json.loads(data)["error"]
