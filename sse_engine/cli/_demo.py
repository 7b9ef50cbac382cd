"""``sse-engine demo``: the bundled captures of every format through ``inspect``, no network.

Per format in ``FORMATS``: a normal stream with text and a tool call, a
stream cut mid-way, a stream that fails inside, and a JSON error body sent
instead of a stream (HTTP 429), bundled as ``<format>_basic.sse`` and so on.
Then, for a format whose lane can resume, a dropped stream resumed: the
basic capture is cut, the resume plan is printed, and the capture's events
from the one the cut fell in (what the server replays after the last event
received) are fed through ``lane.resume()``; the final snapshot must equal
the uncut stream's.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import Any, TextIO

import attrs

from sse_engine._formats import FORMATS, WireFormat
from sse_engine._lane import Lane
from sse_engine._outcome import Outcome
from sse_engine._parser import SSEParser
from sse_engine.cli._inspect import inspect_body, run_parts
from sse_engine.cli._render import DEFAULT_WIDTH, Style, render
from sse_engine.cli._trace import LineIndex, trace
from sse_engine.parts import PartStream

__all__ = ["SCENARIOS", "Scenario", "run_demo"]

#: The base URL the printed resume plan is joined to (nothing is sent).
DEMO_BASE_URL = "https://api.openai.com/v1"
_LABEL = 11
#: Where to go from here: the demo's last lines.
NEXT_STEPS = (
    "sse-engine inspect YOUR_CAPTURE.sse: the same report on a stream of yours "
    "(save one with curl -sN ... > YOUR_CAPTURE.sse; curl -si keeps the status and headers, "
    "which inspect reads too)",
    "read docs/cli.md (every line of these reports) and docs/index.md "
    "(the library: one example per API) in the repository",
)


@attrs.frozen
class Scenario:
    """One bundled capture, what it shows, and the outcome it must end with."""

    capture: str
    title: str
    expected: Outcome
    status: int | None = None


def _scenarios(lane: str) -> list[Scenario]:
    return [
        Scenario(f"{lane}_basic.sse", "a normal stream: text and a tool call", Outcome.COMPLETED),
        Scenario(f"{lane}_truncated.sse", "the connection dropped mid-stream", Outcome.TRUNCATED),
        Scenario(f"{lane}_error.sse", "the server fails inside a 200 stream", Outcome.FAILED),
        Scenario(
            f"{lane}_prestream_429.json",
            "a JSON error body instead of a stream (HTTP 429)",
            Outcome.FAILED,
            429,
        ),
    ]


SCENARIOS: dict[str, list[Scenario]] = {name: _scenarios(name) for name in FORMATS}


def _heading(style: Style, text: str, width: int) -> str:
    return style(f"── {text} " + "─" * max(3, min(width, 82) - 4 - len(text)), "bold", "cyan")


def run_demo(
    out: TextIO,
    style: Style,
    lanes: list[str],
    load: Callable[[str], bytes],
    width: int = DEFAULT_WIDTH,
) -> int:
    """Print every section, then the verdict and the next steps; 0 when each
    capture ended as expected, else 1.

    ``load`` reads a bundled capture by name; ``width`` is the terminal's.
    """
    ok = True
    for lane in lanes:
        wire = FORMATS[lane]
        out.write("\n" + style(f"{wire.title} lane", "bold") + "\n")
        for scenario in SCENARIOS[lane]:
            out.write(_heading(style, f"{scenario.capture}: {scenario.title}", width) + "\n")
            report = inspect_body(
                load(scenario.capture),
                source=scenario.capture,
                lane="auto" if scenario.status is None else lane,
                status=scenario.status,
            )
            out.write(render(report, style, width=width, compact=True))
            if report["outcome"] != scenario.expected.value:
                ok = False
                out.write(style(f"  expected {scenario.expected.value.upper()}", "red") + "\n")
        if wire.lane.resumable:
            ok = _resume(out, style, wire, load, width) and ok
    status = 0 if ok else 1
    verdict = "every capture ended as expected" if ok else "some captures did NOT end as expected"
    out.write(
        "\n" + style(f"demo: {verdict} (exit status {status})", "bold", "green" if ok else "red")
        + "\n"
    )
    for n, step in enumerate(NEXT_STEPS):
        label = "next steps" if n == 0 else ""
        out.write(_row(style, label, _wrapped(step, width)))
    return status


def _row(style: Style, label: str, text: str) -> str:
    pad = "\n" + " " * _LABEL
    return style(label.ljust(_LABEL - 1), "bold") + " " + text.replace("\n", pad) + "\n"


def _wrapped(text: str, width: int) -> str:
    return "\n".join(textwrap.wrap(text, max(width - _LABEL, 30), break_on_hyphens=False))


def _resume(
    out: TextIO, style: Style, wire: WireFormat, load: Callable[[str], bytes], width: int
) -> bool:
    """Cut the capture, print the plan, resume with the rest, compare with the uncut run."""
    capture = f"{wire.name}_basic.sse"
    body = load(capture)
    out.write(_heading(style, f"{capture} cut mid-stream, then resumed", width) + "\n")
    uncut: Lane[Any] = wire.lane()
    trace(uncut, body)
    # Cut inside an event a little past the middle, as a dropped connection would.
    cut = body.index(b"\n\n", len(body) * 3 // 5) - 10
    lane: Lane[Any] = wire.lane()
    stream = PartStream(lane)  # the turn, read through the cut and the resume
    # Not closed: a stream is resumed instead (its one Finish comes at its end).
    run_parts(stream, body[:cut], close=False)
    line = LineIndex(body).line_of(cut)
    plan = lane.resume_plan()
    if plan is None:
        out.write(style("  no resume plan", "red") + "\n")
        return False
    out.write(_row(
        style, "cut",
        f"at byte {cut} of {len(body)} (line {line}): the connection dropped "
        f"({style('TRUNCATED', 'bold', 'red')} if closed), "
        f"last sequence_number {plan.starting_after}",
    ))
    out.write(_row(style, "plan", f"{plan.method} {plan.url(DEMO_BASE_URL)}"))
    headers = ", ".join(f"{k}: {v}" for k, v in plan.headers.items())
    out.write(_row(
        style, "",
        f"headers: {headers}" if headers else
        "headers: no Last-Event-ID (this capture sets no SSE id:; starting_after says where)",
    ))
    # What the server replays: every event after the last one received whole.
    continuation = body[body.rfind(b"\n\n", 0, cut) + 2 :]
    replayed = len(SSEParser(None).feed(continuation))
    restarted = stream.resume()
    resumed, _ = run_parts(stream, continuation)
    out.write(_row(
        style, "resume",
        f"lane.resume() then {replayed} events replayed after sequence_number "
        f"{plan.starting_after} ({len(continuation)} bytes of the capture)"
        + (" [full replay]" if restarted else ""),
    ))
    outcome = lane.outcome
    verdict = outcome.value.upper() if outcome else "?"
    color = "green" if outcome is Outcome.COMPLETED else "red"
    out.write(_row(style, "outcome", style(verdict, "bold", color)))
    same = lane.snapshot.to_api() == uncut.snapshot.to_api()
    out.write(_row(
        style, "snapshot",
        style("equals the uncut stream's to_api()", "green") if same
        else style("DIFFERS from the uncut stream's to_api()", "red"),
    ))
    text = " ".join(stream.turn.text.split())
    room = max(width - _LABEL, 30)
    if len(text) > room:
        keep = room - len(f"… (+{len(text)} chars)")
        text = f"{text[:keep]}… (+{len(text) - keep} chars)"
    out.write(_row(style, "text", text))
    warnings = [w.warning.code for w in resumed.warnings]
    out.write(_row(style, "warnings", ", ".join(warnings) if warnings else "none"))
    return same and outcome is Outcome.COMPLETED
