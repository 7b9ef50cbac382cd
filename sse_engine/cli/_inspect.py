"""``sse-engine inspect``: what a captured response body says, as one JSON-ready report.

:func:`inspect_body` classifies the input (an event stream, a pre-stream JSON
error body, or something unreadable), picks the lane (auto-detected from the
first events, or given), runs it with :func:`sse_engine.cli._trace.trace` and
gathers the outcome and the located warnings. What the turn holds (text, tool
calls, reasoning, usage, finish) is read through the parts layer
(:class:`~sse_engine.parts.PartStream`), the same way for every lane.
Rendering is :mod:`sse_engine.cli._render`'s job.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, cast

import attrs

from sse_engine._errors import ProtocolError
from sse_engine._formats import format_of
from sse_engine._lane import Lane, LaneEvent, StreamEnd
from sse_engine._outcome import Outcome, StreamError
from sse_engine.cli._detect import (
    EXIT_STATUS,
    EXIT_UNREADABLE,
    Unreadable,
    classify,
    detect_lane,
    exit_status,
    new_lane,
)
from sse_engine.cli._head import HeadError, HttpHead, split_head
from sse_engine.cli._input import open_input, source_name
from sse_engine.cli._render import Style, render, terminal_width, use_color
from sse_engine.cli._trace import LineIndex, Trace, trace
from sse_engine.parts import Part, PartStream, Turn, Usage

__all__ = [
    "EXIT_STATUS",
    "LocatedPart",
    "Unreadable",
    "command",
    "detect_lane",
    "event_record",
    "exit_status",
    "inspect_body",
    "new_lane",
    "part_record",
    "run_parts",
    "summary",
]


def error_record(error: StreamError | None) -> dict[str, Any] | None:
    if error is None:
        return None
    return {
        "message": error.message,
        "code": error.code,
        "type": error.type,
        "param": error.param,
        "status": error.status,
        "retryable": error.retryable,
        "retry_after": error.retry_after,
        "request_id": error.request_id,
    }


def _json_ready(value: Any) -> Any:
    if isinstance(value, StreamError):
        return error_record(value)
    if isinstance(value, Outcome):
        return value.value
    if attrs.has(type(value)):
        return {f.name: _json_ready(getattr(value, f.name)) for f in attrs.fields(type(value))}
    return value


def event_record(event: LaneEvent) -> dict[str, Any]:
    """One lane event as JSON: its class, then its fields (``raw`` left out)."""
    record: dict[str, Any] = {"event": type(event).__name__}
    fields = _json_ready(event) if attrs.has(type(event)) else {}
    record.update((k, v) for k, v in fields.items() if k != "raw")
    return record


def _label(event: LaneEvent) -> str:
    """What an event is counted as, in every lane: its class, as ``isinstance`` tells them
    apart; a class that stands for several wire types adds the type (every Responses
    class, and an unknown Messages event)."""
    if event.many_types:
        return f"{type(event).__name__}({getattr(event, 'type', '?')})"
    return type(event).__name__


@attrs.frozen
class LocatedPart:
    """A part, and the SSE event it came from (None: the end of the input)."""

    part: Part
    sse_index: int | None


class _Reading:
    """A lane for :func:`trace` that also reads its events as parts, one event at a time.

    Reading them while the lane is fed puts a warning the parts find (a tool
    input that is not JSON) where the lane's own warnings are, located at its
    SSE event; reading them one by one ties each part to the event it came from.
    """

    def __init__(self, stream: PartStream[Lane[Any]]) -> None:
        self.lane = stream.lane
        self.stream = stream
        self.parts: list[tuple[Part, LaneEvent | None]] = []

    @property
    def max_event_size(self) -> int | None:
        return self.lane.max_event_size

    @property
    def warnings(self) -> list[Any]:
        return self.lane.warnings

    def feed(self, data: bytes) -> list[LaneEvent]:
        try:
            events = self.lane.feed(data)
        except ProtocolError as exc:
            self._read(exc.events)
            self._end()
            raise
        self._read(events)
        return events

    def close(self) -> list[LaneEvent]:
        events = self.lane.close()
        self._read(events)
        return events

    def _read(self, events: list[LaneEvent]) -> None:
        for event in events:
            self.parts += [(part, event) for part in self.stream.translate([event])]

    def _end(self) -> None:
        """A stream the lane could not read ends with a Finish all the same."""
        lane = self.lane
        if lane.outcome is not None:
            self.parts += [(part, None) for part in
                           self.stream.translate([StreamEnd(lane.outcome, lane.error)])]


def run_parts(stream: PartStream[Lane[Any]], body: bytes, *, close: bool = True) -> tuple[
        Trace, list[LocatedPart]]:
    """:func:`trace` the stream's lane over ``body``, reading its events as parts as they come."""
    reading = _Reading(stream)
    run = trace(cast(Any, reading), body, close=close)
    where = {id(located.event): located.sse_index for located in run.events}
    parts = [LocatedPart(part, None if event is None else where.get(id(event)))
             for part, event in reading.parts]
    return run, parts


def _usage_record(usage: Usage | None) -> dict[str, int] | None:
    if usage is None:
        return None
    counts = attrs.asdict(usage, filter=lambda field, _: field.name != "raw")
    return {name: value for name, value in counts.items() if value is not None}


def _finish_words(turn: Turn) -> str | None:
    reason, raw = turn.finish_reason, turn.raw_finish_reason
    if reason is None or (raw is None and reason in ("error", "truncated")):
        return None  # the outcome says it
    return reason if raw is None or raw == reason else f"{reason} / {raw}"


def summary(turns: list[Turn]) -> dict[str, Any]:
    """What the turn holds, whichever lane streamed it: text, refusal, tool calls, reasoning,
    usage and finish. With several Chat choices each line says which choice it is."""
    several = len(turns) > 1

    def joined(texts: list[tuple[Turn, str]], sep: str = "\n") -> str:
        return sep.join(f"choice {t.choice}: {text}" if several else text for t, text in texts)

    calls = []
    for turn in turns:
        for call in turn.tool_calls:
            record: dict[str, Any] = {
                "name": call.name,
                "id": call.id or None,
                "kind": call.type,
                "arguments": call.arguments,
                "complete": call.done,
                "arguments_error": call.input_error,
            }
            if call.server:
                record["server"] = True
            if several:
                record["choice"] = turn.choice
            calls.append(record)
    first = turns[0]
    finish = [(t, words) for t in turns if (words := _finish_words(t)) is not None]
    return {
        "text": joined([(t, t.text) for t in turns if t.text or not several]),
        "refusal": joined([(t, t.refusal) for t in turns if t.refusal]) or None,
        "tool_calls": calls,
        "reasoning": joined([(t, t.reasoning) for t in turns if t.reasoning]) or None,
        "usage": _usage_record(first.usage),
        "finish": None if first.finish_reason is None else {
            "reason": first.finish_reason, "raw_reason": first.raw_finish_reason},
        "stop": joined(finish, ", ") or None,
    }


def part_record(located: LocatedPart) -> dict[str, Any]:
    """One part as JSON: its class, then its fields (the call object and raw usage left out)."""
    part = located.part
    record: dict[str, Any] = {"part": type(part).__name__}
    for field in attrs.fields(type(part)):
        if field.name == "call":
            continue
        value = getattr(part, field.name)
        record[field.name] = _usage_record(value) if isinstance(value, Usage) else _json_ready(
            value)
    record["sse_event"] = located.sse_index
    return record


def _where(record: dict[str, Any], run: Trace, sse_index: int | None, at_end: bool) -> None:
    span = None if at_end else run.span(sse_index)
    record["sse_event"] = None if span is None else sse_index
    record["line"] = None if span is None else span.line


def _warnings(run: Trace, index: LineIndex, total: int) -> list[dict[str, Any]]:
    records = []
    for located in run.warnings:
        warning = located.warning
        record: dict[str, Any] = {
            "code": warning.code,
            "message": warning.message,
            "offset": warning.offset,
            "source": "lane",
        }
        _where(record, run, warning.event_index, located.at_end)
        if record["line"] is None:
            record["line"] = index.line_of(min(warning.offset, total) - 1)
        records.append(record)
    return records


def inspect_body(
    body: bytes,
    *,
    source: str,
    lane: str = "auto",
    status: int | None = None,
    events: bool = False,
    parts: bool = False,
) -> dict[str, Any]:
    """The report on one captured body (JSON-ready). Raises :class:`Unreadable`.

    ``events`` adds the list of lane events, ``parts`` the list of parts. A
    capture saved with ``curl -i`` starts with the HTTP status line and
    headers: the lane is started with them (``status``, when given, wins), and
    lines and byte offsets count from the start of the capture, head included.
    """
    size = len(body)
    try:
        head, body = split_head(body)
    except HeadError as exc:
        raise Unreadable(str(exc)) from None
    if head is not None and status is None:
        status = head.status
    what = classify(body, lane, status, head.header("content-type") if head else None)
    runner = new_lane(what.lane)
    report: dict[str, Any] = {
        "source": source,
        "bytes": size,
        "input": what.kind,
        "http": head.record() if head else None,
        "lane": what.lane,
        "lane_reason": what.reason,
        "described": what.described,
    }
    if what.kind == "error_body":
        assert what.status is not None
        runner.start(what.status, head.headers if head else {"content-type": "application/json"})
        report["status"] = None if what.status_assumed else what.status
        report["status_assumed"] = what.status if what.status_assumed else None
    elif head is not None:
        runner.start(status or head.status, head.headers)
    elif status is not None:
        runner.start(status, {"content-type": "text/event-stream"})
    stream = PartStream(runner)
    run, located_parts = run_parts(stream, body)
    decoded = [e for e in run.events if not isinstance(e.event, StreamEnd)]
    if run.problem is not None and not decoded and what.kind == "stream":
        raise Unreadable(f"not a {format_of(runner).title} stream: {run.problem}")
    index = LineIndex(body)
    outcome = runner.outcome
    report["sse_events"] = len(run.spans)
    report["outcome"] = outcome.value if outcome is not None else None
    report["exit_status"] = exit_status(outcome)
    report["error"] = error_record(runner.error)
    if what.status_assumed and report["error"] is not None:
        report["error"]["status"] = None  # not known: the status was only assumed
    if run.problem is not None:
        # The lane fails on the event the last line completed (or on that line).
        span = run.spans[-1] if run.spans else None
        offset = run.problem_offset or len(body)
        report["problem"] = {
            "message": str(run.problem),
            "sse_event": len(run.spans) - 1 if span else None,
            "line": span.line if span else index.line_of(offset - 1),
            "start": span.start if span else None,
            "offset": offset,
        }
    else:
        report["problem"] = None
    counts: dict[str, int] = {}
    for located in run.events:
        label = _label(located.event)
        counts[label] = counts.get(label, 0) + 1
    report["event_counts"] = counts
    report.update(summary(stream.turns))
    report["warnings"] = _warnings(run, index, len(body))
    if events:
        listed = []
        for located in run.events:
            record = event_record(located.event)
            _line(record, run, located.sse_index)
            listed.append(record)
        report["events"] = listed
    if parts:
        listed = []
        for located_part in located_parts:
            record = part_record(located_part)
            _line(record, run, located_part.sse_index)
            listed.append(record)
        report["parts"] = listed
    if head is not None:
        _count_from_the_file(report, head)
    return report


def _line(record: dict[str, Any], run: Trace, sse_index: int | None) -> None:
    span = run.span(sse_index)
    record["sse_event"] = sse_index if span else None
    record["line"] = span.line if span else None


def _count_from_the_file(report: dict[str, Any], head: HttpHead) -> None:
    """Lines and byte offsets from the start of the capture, not of the body after the head."""
    records = [*report["warnings"], *report.get("events", []), *report.get("parts", [])]
    if report["problem"] is not None:
        records.append(report["problem"])
    for record in records:
        if record.get("line") is not None:
            record["line"] += head.lines
        for key in ("offset", "start"):
            if record.get(key) is not None:
                record[key] += head.size


def command(args: argparse.Namespace) -> int:
    """Inspect ``args.file`` and print the report (text or ``--json``)."""
    body = b"".join(open_input(args.file))
    try:
        report = inspect_body(
            body,
            source=source_name(args.file),
            lane=args.lane,
            status=args.status,
            events=args.events,
            parts=args.parts,
        )
    except Unreadable as exc:
        sys.stderr.write(f"sse-engine inspect: {source_name(args.file)}: {exc}\n")
        return EXIT_UNREADABLE
    if args.json:
        sys.stdout.write(json.dumps(report, ensure_ascii=False, default=str) + "\n")
    else:
        style = Style(use_color(sys.stdout, args.color))
        sys.stdout.write(render(report, style, width=terminal_width()))
    status: int = report["exit_status"]
    return status


