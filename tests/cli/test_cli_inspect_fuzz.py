"""``sse-engine inspect`` on any input: an exit status from its table, never a traceback.

0 completed, 1 incomplete, 2 failed or truncated, 3 unreadable (docs/cli.md).
What once escaped as a ``RecursionError`` (exit 1, a traceback): a body nested
100,000 brackets deep, where the detector or the error-body reader decodes
JSON. The class is every place the command decodes what it is given, so the
property feeds it bodies built to reach each one: a stream event, a JSON body
sent instead of a stream, a non-2xx body, with and without ``--lane`` and
``--status``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from sse_engine import FORMATS
from sse_engine.cli import main

CAPTURES = Path(__file__).resolve().parents[2] / "sse_engine" / "captures"
BODIES = [path.read_bytes() for path in sorted(CAPTURES.iterdir())]


def deep(depth: int, kind: str) -> bytes:
    return (b"[" if kind == "list" else b'{"a":') * depth + b"0" + (
        b"]" if kind == "list" else b"}") * depth


@st.composite
def bodies(draw: st.DrawFn) -> bytes:
    nested = deep(draw(st.sampled_from([10, 1000, 100_000])), draw(st.sampled_from(["list",
                                                                                    "dict"])))
    shape = draw(st.sampled_from(["event", "chunk", "body", "error", "capture", "bytes"]))
    if shape == "event":
        return b"data: " + nested + b"\n\n"
    if shape == "chunk":
        return (b'data: {"object":"chat.completion.chunk","choices":[],"x":' + nested
                + b"}\n\ndata: [DONE]\n\n")
    if shape == "body":
        return nested
    if shape == "error":
        return b'{"error": ' + nested + b"}"
    if shape == "capture":
        body = draw(st.sampled_from(BODIES))
        at = draw(st.integers(0, len(body)))
        return body[:at] + draw(st.sampled_from([nested, b"\x00", b"\xff\xfe", b"\r"])) + body[at:]
    return draw(st.binary(max_size=300))


@settings(max_examples=examples(15, thorough=60), deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.data_too_large,
    HealthCheck.function_scoped_fixture,  # capsys is read (and so emptied) by every example
])
@given(
    body=bodies(),
    lane=st.sampled_from(["auto", *FORMATS]),
    status=st.sampled_from([None, 200, 400, 503]),
)
def test_any_input_gets_an_exit_status_from_the_table(
    body: bytes, lane: str, status: int | None, tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "body"
    path.write_bytes(body)
    argv = ["inspect", str(path), "--lane", lane, "--color", "never"]
    if status is not None:
        argv += ["--status", str(status)]
    assert main(argv) in (0, 1, 2, 3)
    assert "Traceback" not in capsys.readouterr().err
