"""Text rendering of ``inspect`` reports for a terminal: short labelled lines, colour on a TTY.

Colour follows the usual conventions: ``--color auto`` (the default) colours
only when the output is a terminal and ``NO_COLOR`` is unset or empty;
``always`` and ``never`` override both.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any, TextIO

from sse_engine.cli._detect import LANE_TITLES

__all__ = ["Style", "render", "use_color"]

_WIDTH = 100
_LABEL = 11
_FIELD_LIMIT = 60


def use_color(stream: TextIO, choice: str = "auto") -> bool:
    """Whether to colour output written to ``stream`` (``choice``: auto, always, never)."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


_CODES = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}


class Style:
    """ANSI styling that is a no-op when colour is off."""

    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, *styles: str) -> str:
        if not self.color or not styles:
            return text
        codes = ";".join(_CODES[s] for s in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"


_OUTCOME_STYLE = {
    "completed": "green",
    "incomplete": "yellow",
    "failed": "red",
    "truncated": "red",
}


def _clip(text: str, limit: int | None) -> str:
    if limit is None or len(text) <= limit:
        return text
    return f"{text[:limit]}… (+{len(text) - limit} chars)"


def _wrap(items: list[str], width: int, sep: str = ", ") -> list[str]:
    """``items`` joined by ``sep`` into lines of at most ``width`` (a long item stays whole)."""
    lines: list[str] = []
    current = ""
    for item in items:
        candidate = f"{current}{sep}{item}" if current else item
        if current and len(candidate) > width:
            lines.append(current + sep.rstrip())
            current = item
        else:
            current = candidate
    if current:
        lines.append(current)
    return lines


def _flat_usage(usage: Mapping[str, Any], prefix: str = "") -> list[str]:
    """``key=value`` for each count; nested objects only for their non-zero counts."""
    parts: list[str] = []
    for key, value in usage.items():
        if isinstance(value, Mapping):
            parts += [p for p in _flat_usage(value, f"{prefix}{key}.") if not p.endswith("=0")]
        elif value is not None and not (prefix and value == 0):
            parts.append(f"{prefix}{key}={value}")
    return parts


def _field(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = repr(text) if isinstance(value, str) else text
    return _clip(text, _FIELD_LIMIT)


class _Writer:
    def __init__(self, style: Style) -> None:
        self.style = style
        self.lines: list[str] = []

    def row(self, label: str, text: str, *styles: str) -> None:
        pad = " " * _LABEL
        head = self.style(label.ljust(_LABEL - 1), "bold") + " " if label else pad
        for n, line in enumerate(text.split("\n")):
            styled = self.style(line, *styles) if line else line
            self.lines.append((head if n == 0 else pad) + styled)

    def rows(self, label: str, lines: list[str]) -> None:
        """A label on the first of several lines."""
        for n, line in enumerate(lines):
            self.row(label if n == 0 else "", line)


def _where(record: Mapping[str, Any]) -> str:
    if record.get("sse_event") is None:
        return f"end of input, line {record['line']} (byte {record['offset']})"
    return f"SSE event #{record['sse_event']}, line {record['line']} (byte {record['offset']})"


def render(
    report: Mapping[str, Any],
    style: Style,
    *,
    text_limit: int | None = None,
    compact: bool = False,
) -> str:
    """The report as labelled lines.

    ``text_limit`` clips long text and ``compact`` shortens the event counts
    to the three most frequent types (the demo's short form).
    """
    out = _Writer(style)
    size = f"{report['bytes']} bytes"
    if report["input"] == "error_body":
        out.row("source", f"{report['source']} ({size}): a JSON error body, not a stream")
    else:
        out.row("source", f"{report['source']} ({size}, {report['sse_events']} SSE events)")
    lane = report["lane"]
    title = LANE_TITLES[lane] if lane else "Chat Completions or Responses"
    reason = report["lane_reason"]
    out.row("lane", f"{title} ({'as given' if reason.startswith('--') else reason})")
    _outcome(out, report, 70 if compact else None)
    if report["input"] == "stream":
        _counts(out, report["event_counts"], compact)
        _content(out, report, text_limit)
    _warnings(out, report, 70 if compact else None)
    if "events" in report:
        _listing(out, "event list", "typed events", "event", report["events"])
    if "parts" in report:
        _listing(out, "part list", "parts", "part", report["parts"])
    return "\n".join(out.lines) + "\n"


def _counts(out: _Writer, counts: Mapping[str, int], compact: bool) -> None:
    items = [f"{n} {name}" for name, n in counts.items()]
    if compact:
        top = sorted(counts.items(), key=lambda kv: -kv[1])[:3]
        more = ", …" if len(counts) > 3 else ""
        listed = ", ".join(f"{n} {name}" for name, n in top)
        line = f"{sum(counts.values())} typed events: {listed}{more}"
        out.row("events", line if len(line) < _WIDTH - _LABEL else f"{line[:_WIDTH - _LABEL]}…")
        return
    out.rows("events", _wrap(items, _WIDTH - _LABEL))


def _outcome(out: _Writer, report: Mapping[str, Any], limit: int | None) -> None:
    outcome = report["outcome"] or "failed"
    verdict = out.style(outcome.upper(), "bold", _OUTCOME_STYLE[outcome])
    if report["input"] == "error_body":
        status = report["status"]
        told = f"HTTP {status}" if status is not None else (
            f"HTTP status not given: replayed as {report['status_assumed']}; pass --status"
        )
        out.row("outcome", f"{verdict}: the server sent an error instead of a stream ({told})")
    else:
        stop = f" ({report['stop']})" if report.get("stop") else ""
        out.row("outcome", f"{verdict}{stop}  exit status {report['exit_status']}")
    problem = report.get("problem")
    if problem is not None:  # the lane could not read an event: its error says the same
        if problem["sse_event"] is None:
            where = f"line {problem['line']} (byte {problem['offset']})"
        else:
            where = (
                f"SSE event #{problem['sse_event']}, line {problem['line']} "
                f"(bytes {problem['start']}..{problem['offset']})"
            )
        out.row("unreadable", f"{where}: {problem['message']}", "red")
    elif report["error"] is not None:
        out.row("error", describe_error(report["error"], limit), "red")


def _content(out: _Writer, report: Mapping[str, Any], limit: int | None) -> None:
    out.row("text", _clip(report["text"], limit) if report["text"] else "(none)")
    if report.get("refusal"):
        out.row("refusal", _clip(report["refusal"], limit), "yellow")
    for call in report["tool_calls"]:
        name = call["name"] if call.get("kind") is None else f"{call['name']} [{call['kind']}]"
        ident = f" ({call['id']})" if call.get("id") else ""
        arguments = call["arguments"] if call["arguments"] is not None else ""
        line = f"{name}{ident} {_clip(arguments, limit)}"
        if not call["complete"]:
            out.row("tool call", f"{line}  <- incomplete: the stream ended inside it", "yellow")
        elif call.get("arguments_error"):
            out.row("tool call", f"{line}  <- {call['arguments_error']}", "yellow")
        else:
            out.row("tool call", line)
    if report.get("reasoning"):
        out.row("reasoning", _clip(report["reasoning"], limit), "dim")
    usage = report.get("usage")
    if usage:
        out.rows("usage", _wrap(_flat_usage(usage), _WIDTH - _LABEL, " "))


def _warnings(out: _Writer, report: Mapping[str, Any], limit: int | None) -> None:
    warnings = report["warnings"]
    if not warnings:
        if report["input"] == "stream":
            out.row("warnings", "none")
        return
    out.row("warnings", str(len(warnings)), "yellow")
    for warning in warnings:
        code = out.style(warning["code"], "yellow")
        where = out.style(_where(warning), "dim")
        out.lines.append(f"  {code} at {where}: {_clip(warning['message'], limit)}")


def _listing(
    out: _Writer, label: str, what: str, key: str, records: list[Mapping[str, Any]]
) -> None:
    """One line per lane event or part: where it came from, its class, its fields."""
    out.row(label, f"{len(records)} {what} (SSE event #, line, class, fields)")
    for n, record in enumerate(records):
        where = "end" if record["sse_event"] is None else f"#{record['sse_event']}"
        line = "" if record["line"] is None else f"line {record['line']}"
        fields = " ".join(
            f"{k}={_field(v)}" for k, v in record.items() if k not in (key, "sse_event", "line")
        )
        text = f"  {n:>4} {where:>6} {line:>10}  {record[key]} {fields}".rstrip()
        out.lines.append(_clip(text, 160) if len(text) > 160 else text)


def describe_error(error: Mapping[str, Any], limit: int | None = None) -> str:
    """``code: message (retryable, HTTP 429)`` in one line; ``limit`` clips the message."""
    label = error.get("code") or error.get("type")
    message = " ".join(str(error["message"]).split())
    if limit is not None and len(message) > limit:
        message = message[:limit] + "…"
    text = f"{label}: {message}" if label else message
    notes = ["retryable" if error.get("retryable") else "not retryable"]
    if error.get("status") is not None:
        notes.append(f"HTTP {error['status']}")
    return f"{text} ({', '.join(notes)})"
