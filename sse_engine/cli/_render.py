"""Text rendering of ``inspect`` reports for a terminal: short labelled lines, colour on a TTY.

Colour follows the usual conventions: ``--color auto`` (the default) colours
only when the output is a terminal and ``NO_COLOR`` is unset or empty;
``always`` and ``never`` override both. Lists (event counts, usage) wrap at
the terminal's width; the demo's compact form also fits each line of answer
text to it, but wraps error and warning text instead of clipping it.
"""

from __future__ import annotations

import json
import os
import shutil
import textwrap
from collections.abc import Mapping
from typing import Any, TextIO

from sse_engine._formats import FORMATS

__all__ = ["Style", "render", "terminal_width", "use_color"]

#: The width when the output is not a terminal (a file, a pipe) and COLUMNS is unset.
DEFAULT_WIDTH = 100
_MIN_WIDTH = 40
#: The least of a clipped value the compact form shows, even past the width.
_MIN_FIT = 30
_LABEL = 11
_FIELD_LIMIT = 60


def terminal_width() -> int:
    """The columns of the terminal (``COLUMNS`` wins); DEFAULT_WIDTH when there is none."""
    return max(shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns, _MIN_WIDTH)


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
    """``text``, or its first characters and how many were left out, in at most ``limit``."""
    if limit is None or len(text) <= limit:
        return text
    note = f"… (+{len(text) - limit} chars)"
    keep = max(limit - len(note), 1)
    return f"{text[:keep]}… (+{len(text) - keep} chars)"


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
    def __init__(self, style: Style, width: int, compact: bool) -> None:
        self.style = style
        self.width = width
        self.compact = compact
        self.lines: list[str] = []

    @property
    def room(self) -> int:
        """The columns right of the labels."""
        return self.width - _LABEL

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

    def fitted(self, text: str, reserve: int = 0) -> str:
        """In the compact form, ``text`` on one line of what is left of the width."""
        if not self.compact:
            return text
        return _clip(" ".join(text.split()), max(self.room - reserve, _MIN_FIT))

    def wrapped(self, text: str) -> str:
        """In the compact form, ``text`` wrapped to the width (never clipped)."""
        if not self.compact:
            return text
        return "\n".join(textwrap.wrap(text, self.room, break_on_hyphens=False)) or text


def _where(record: Mapping[str, Any]) -> str:
    if record.get("sse_event") is None:
        return f"end of input, line {record['line']} (byte {record['offset']})"
    return f"SSE event #{record['sse_event']}, line {record['line']} (byte {record['offset']})"


def render(
    report: Mapping[str, Any],
    style: Style,
    *,
    width: int = DEFAULT_WIDTH,
    compact: bool = False,
) -> str:
    """The report as labelled lines, lists wrapped at ``width`` columns.

    ``compact`` is the demo's short form: no exit status (the demo has its
    own), the event counts as a total and the three most frequent classes,
    the answer text, tool arguments and reasoning clipped to one line each,
    and error and warning text wrapped, never clipped.
    """
    out = _Writer(style, max(width, _MIN_WIDTH), compact)
    size = f"{report['bytes']} bytes"
    if report["input"] == "error_body":
        out.row("source", out.wrapped(f"{report['source']} ({size}): {report['described']}"))
    else:
        out.row("source", f"{report['source']} ({size}, {report['sse_events']} SSE events)")
    http = report.get("http")
    if http is not None:
        out.row("response", out.wrapped(describe_response(http)))
    lane = report["lane"]
    title = FORMATS[lane].title if lane else "not named"
    reason = report["lane_reason"]
    out.row("lane", f"{title} ({'as given' if reason.startswith('--') else reason})")
    _outcome(out, report)
    if report["input"] == "stream":
        _counts(out, report["event_counts"])
        _content(out, report)
    _warnings(out, report)
    if "events" in report:
        _listing(out, "event list", "typed events", "event", report["events"])
    if "parts" in report:
        _listing(out, "part list", "parts", "part", report["parts"])
    return "\n".join(out.lines) + "\n"


def describe_response(http: Mapping[str, Any]) -> str:
    """The captured status line and content type: ``HTTP/1.1 429 Too Many Requests, ...``."""
    parts = (http["version"], http["status"], http["reason"])
    status = " ".join(str(part) for part in parts if part)
    content_type = next(
        (value for name, value in http["headers"] if name.lower() == "content-type"), None
    )
    kind = f"content-type {content_type}" if content_type else "no content-type"
    return f"{status}, {kind} (the capture's status line and {len(http['headers'])} headers)"


def _counts(out: _Writer, counts: Mapping[str, int]) -> None:
    items = [f"{n} {name}" for name, n in counts.items()]
    if out.compact:
        # The three most frequent classes (a label is ``Class`` or ``Class(wire type)``).
        classes: dict[str, int] = {}
        for label, n in counts.items():
            classes[label.split("(")[0]] = classes.get(label.split("(")[0], 0) + n
        top = sorted(classes.items(), key=lambda kv: -kv[1])[:3]
        items = [f"{n} {name}" for name, n in top] + (["…"] if len(classes) > 3 else [])
        items[0] = f"{sum(counts.values())} typed events: {items[0]}"
    out.rows("events", _wrap(items, out.room))


def _outcome(out: _Writer, report: Mapping[str, Any]) -> None:
    outcome = report["outcome"] or "failed"
    verdict = out.style(outcome.upper(), "bold", _OUTCOME_STYLE[outcome])
    if report["input"] == "error_body":
        status = report["status"]
        told = f"HTTP {status}" if status is not None else (
            f"HTTP status not given: replayed as {report['status_assumed']}; pass --status"
        )
        text = f"the server sent an error instead of a stream ({told})"
        # Styles go on whole lines: wrap the plain text, then colour the verdict.
        plain = out.wrapped(f"{outcome.upper()}: {text}")
        out.row("outcome", verdict + plain[len(outcome):])
    else:
        stop = f" ({report['stop']})" if report.get("stop") else ""
        status = "" if out.compact else f"  exit status {report['exit_status']}"
        out.row("outcome", f"{verdict}{stop}{status}")
    problem = report.get("problem")
    if problem is not None:  # the lane could not read an event: its error says the same
        if problem["sse_event"] is None:
            where = f"line {problem['line']} (byte {problem['offset']})"
        else:
            where = (
                f"SSE event #{problem['sse_event']}, line {problem['line']} "
                f"(bytes {problem['start']}..{problem['offset']})"
            )
        out.row("unreadable", out.wrapped(f"{where}: {problem['message']}"), "red")
    elif report["error"] is not None:
        out.row("error", out.wrapped(describe_error(report["error"])), "red")


def _content(out: _Writer, report: Mapping[str, Any]) -> None:
    out.row("text", out.fitted(report["text"]) if report["text"] else "(none)")
    if report.get("refusal"):
        out.row("refusal", out.fitted(report["refusal"]), "yellow")
    for call in report["tool_calls"]:
        name = call["name"] if call.get("kind") is None else f"{call['name']} [{call['kind']}]"
        ident = f" ({call['id']})" if call.get("id") else ""
        arguments = call["arguments"] if call["arguments"] is not None else ""
        if not call["complete"]:
            note = "  <- incomplete: the stream ended inside it"
        elif call.get("arguments_error"):
            note = f"  <- {call['arguments_error']}"
        else:
            note = ""
        head = f"{name}{ident} "
        line = head + out.fitted(arguments, reserve=len(head) + len(note)) + note
        out.row("tool call", line, *(("yellow",) if note else ()))
    if report.get("reasoning"):
        out.row("reasoning", out.fitted(report["reasoning"]), "dim")
    usage = report.get("usage")
    if usage:
        out.rows("usage", _wrap(_flat_usage(usage), out.room, " "))


def _warnings(out: _Writer, report: Mapping[str, Any]) -> None:
    warnings = report["warnings"]
    if not warnings:
        if report["input"] == "stream":
            out.row("warnings", "none")
        return
    out.row("warnings", str(len(warnings)), "yellow")
    for warning in warnings:
        code, where = warning["code"], _where(warning)
        head = f"  {code} at {where}: "
        styled = f"  {out.style(code, 'yellow')} at {out.style(where, 'dim')}: "
        if not out.compact:
            out.lines.append(styled + warning["message"])
            continue
        # Wrap the plain line (its head as indent), then put the styled head back.
        lines = textwrap.wrap(
            warning["message"], out.width, initial_indent=" " * len(head),
            subsequent_indent="    ", break_on_hyphens=False,
        ) or [" " * len(head)]
        lines[0] = styled + lines[0][len(head):]
        out.lines += lines


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
        out.lines.append(_clip(text, 160))


def describe_error(error: Mapping[str, Any]) -> str:
    """``code: message (retryable, HTTP 429, retry after 20 s, request req_1)`` in one line."""
    label = error.get("code") or error.get("type")
    message = " ".join(str(error["message"]).split())
    text = f"{label}: {message}" if label else message
    notes = ["retryable" if error.get("retryable") else "not retryable"]
    if error.get("status") is not None:
        notes.append(f"HTTP {error['status']}")
    if error.get("retry_after") is not None:
        notes.append(f"retry after {error['retry_after']:g} s")
    if error.get("request_id"):
        notes.append(f"request {error['request_id']}")
    return f"{text} ({', '.join(notes)})"
