"""``sse-engine inspect``: what a captured response body says, as one JSON-ready report.

:func:`inspect_body` classifies the input (an event stream, a pre-stream JSON
error body, or something unreadable), picks the lane (auto-detected from the
first events, or given), runs it with :func:`sse_engine.cli._trace.trace` and
gathers the outcome, the assembled text, tool calls, reasoning, usage and the
located warnings. Rendering is :mod:`sse_engine.cli._render`'s job.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

import attrs

from sse_engine._lane import Lane, LaneEvent, StreamEnd
from sse_engine._outcome import Outcome, StreamError
from sse_engine.chat import ChatToolCallDone
from sse_engine.cli._detect import (
    EXIT_STATUS,
    EXIT_UNREADABLE,
    LANE_TITLES,
    LANES,
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
from sse_engine.messages import UnknownEvent
from sse_engine.responses import ResponseOutputItemEvent, ResponsesEvent

__all__ = [
    "EXIT_STATUS",
    "LANES",
    "LANE_TITLES",
    "Unreadable",
    "command",
    "detect_lane",
    "event_record",
    "exit_status",
    "inspect_body",
    "new_lane",
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
    if isinstance(event, ResponsesEvent | UnknownEvent):
        return f"{type(event).__name__}({event.type})"
    return type(event).__name__


def _arguments_problem(text: str | None) -> str | None:
    """Why a tool call's arguments JSON does not parse (None: it parses, or is empty)."""
    if not text:
        return None
    try:
        json.loads(text)
    except ValueError as exc:
        return f"invalid JSON: {exc}"
    return None


def summary(name: str, lane: Lane[Any]) -> dict[str, Any]:
    """What the lane assembled: text, refusal, tool calls, reasoning, usage, stop reason."""
    builders: dict[str, Callable[[Any], dict[str, Any]]] = {
        "chat": _chat_summary,
        "responses": _responses_summary,
        "messages": _messages_summary,
    }
    return builders[name](lane.snapshot)


def _chat_summary(snap: Any) -> dict[str, Any]:
    api = snap.to_api()
    choices = api["choices"]
    texts, refusals, calls, reasoning, reasons = [], [], [], [], []
    for choice, state in zip(choices, (snap.choices[i] for i in sorted(snap.choices)), strict=True):
        message = choice["message"]
        prefix = f"choice {choice['index']}: " if len(choices) > 1 else ""
        if message.get("content"):
            texts.append(prefix + message["content"])
        if message.get("refusal"):
            refusals.append(prefix + message["refusal"])
        thought = message.get("reasoning_content") or message.get("reasoning")
        if isinstance(thought, str) and thought:
            reasoning.append(prefix + thought)
        for call, call_state in zip(message.get("tool_calls", []), state.tool_calls, strict=True):
            function = call["function"]
            calls.append(
                _call(function["name"], call["id"], function["arguments"], call_state.done,
                      choice["index"] if len(choices) > 1 else None)
            )
        legacy = message.get("function_call")
        if legacy is not None:
            done = choice["finish_reason"] is not None
            calls.append(_call(legacy["name"], None, legacy["arguments"], done, None))
        if choice["finish_reason"] is not None:
            reasons.append(prefix + f"finish_reason {choice['finish_reason']}")
    return {
        "text": "\n".join(texts),
        "refusal": "\n".join(refusals) or None,
        "tool_calls": calls,
        "reasoning": "\n".join(reasoning) or None,
        "usage": api["usage"],
        "stop": ", ".join(reasons) or None,
    }


def _call(
    name: Any, ident: Any, arguments: Any, done: bool, choice: int | None
) -> dict[str, Any]:
    record = {"name": name, "id": ident, "arguments": arguments, "complete": done}
    if choice is not None:
        record["choice"] = choice
    problem = _arguments_problem(arguments if isinstance(arguments, str) else None)
    record["arguments_error"] = problem
    return record


_RESPONSES_INPUT_FIELDS = ("arguments", "input", "code")


def _responses_summary(snap: Any) -> dict[str, Any]:
    calls, reasoning, refusals = [], [], []
    for item in snap.items:
        api = item.to_api()
        kind = item.type or "?"
        if kind == "reasoning":
            texts = [p.get("text", "") for p in api.get("summary") or [] if isinstance(p, dict)]
            texts += [p.get("text", "") for p in api.get("content") or [] if isinstance(p, dict)]
            reasoning += [t for t in texts if t]
        elif kind == "message":
            if item.refusal:
                refusals.append(item.refusal)
        elif kind.endswith("_call"):
            field = next((f for f in _RESPONSES_INPUT_FIELDS if f in api), None)
            value = api.get(field) if field else api.get("action")
            text = value if isinstance(value, str) or value is None else json.dumps(value)
            record = {
                "name": api.get("name") or kind,
                "id": api.get("call_id") or api.get("id"),
                "arguments": text,
                "complete": item.done,
                "arguments_error": _arguments_problem(text) if field == "arguments" else None,
            }
            if kind != "function_call" and api.get("name"):
                record["kind"] = kind
            calls.append(record)
    stop = snap.status and f"status {snap.status}"
    if snap.incomplete_reason:
        stop = f"{stop}, incomplete_details.reason {snap.incomplete_reason}"
    return {
        "text": snap.output_text,
        "refusal": "\n".join(refusals) or None,
        "tool_calls": calls,
        "reasoning": "\n\n".join(reasoning) or None,
        "usage": snap.usage,
        "stop": stop,
    }


def _messages_summary(snap: Any) -> dict[str, Any]:
    calls, reasoning = [], []
    for block in snap.content:
        if block.is_tool:
            start = block.start
            calls.append(
                {
                    "name": start.get("name"),
                    "id": start.get("id"),
                    "arguments": block.joined() or json.dumps(block.input),
                    "complete": block.stopped,
                    "arguments_error": block.input_error,
                }
            )
            if block.type != "tool_use":
                calls[-1]["kind"] = block.type
        elif block.type == "thinking" and block.text:
            reasoning.append(block.text)
        elif block.type == "redacted_thinking":
            reasoning.append("[redacted thinking]")
    return {
        "text": snap.text,
        "refusal": None,
        "tool_calls": calls,
        "reasoning": "\n\n".join(reasoning) or None,
        "usage": snap.usage or None,
        "stop": snap.stop_reason and f"stop_reason {snap.stop_reason}",
    }


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
    # Tool-call arguments that are not JSON: the lane passes them on as text; say where.
    for done in run.events:
        event = done.event
        arguments: Any = None
        name: Any = None
        if isinstance(event, ChatToolCallDone):
            arguments, name = event.arguments, event.name
        elif (
            isinstance(event, ResponseOutputItemEvent)
            and event.type.endswith(".done")
            and event.item.get("type") in ("function_call", "mcp_call", "kindo_call")
        ):
            arguments, name = event.item.get("arguments"), event.item.get("name")
        problem = _arguments_problem(arguments if isinstance(arguments, str) else None)
        if problem is None:
            continue
        span = run.span(done.sse_index)
        record = {
            "code": "tool_arguments_invalid",
            "message": f"the arguments of tool call {name!r} are not valid JSON ({problem})",
            "offset": span.end if span else total,
            "source": "inspect",
        }
        _where(record, run, done.sse_index, False)
        records.append(record)
    return records


def inspect_body(
    body: bytes,
    *,
    source: str,
    lane: str = "auto",
    status: int | None = None,
    events: bool = False,
) -> dict[str, Any]:
    """The report on one captured body (JSON-ready). Raises :class:`Unreadable`.

    A capture saved with ``curl -i`` starts with the HTTP status line and
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
    name = what.lane or "chat"
    runner = new_lane(name)
    report: dict[str, Any] = {
        "source": source,
        "bytes": size,
        "input": what.kind,
        "http": head.record() if head else None,
        "lane": what.lane,
        "lane_reason": what.reason,
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
    run = trace(runner, body)
    decoded = [e for e in run.events if not isinstance(e.event, StreamEnd)]
    if run.problem is not None and not decoded and what.kind == "stream":
        raise Unreadable(f"not a {LANE_TITLES[name]} stream: {run.problem}")
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
    report.update(summary(name, runner) if what.kind == "stream" else _empty_summary())
    report["warnings"] = _warnings(run, index, len(body))
    if events:
        listed = []
        for located in run.events:
            record = event_record(located.event)
            span = run.span(located.sse_index)
            record["sse_event"] = located.sse_index if span else None
            record["line"] = span.line if span else None
            listed.append(record)
        report["events"] = listed
    if head is not None:
        _count_from_the_file(report, head)
    return report


def _count_from_the_file(report: dict[str, Any], head: HttpHead) -> None:
    """Lines and byte offsets from the start of the capture, not of the body after the head."""
    records = [*report["warnings"], *report.get("events", [])]
    if report["problem"] is not None:
        records.append(report["problem"])
    for record in records:
        if record.get("line") is not None:
            record["line"] += head.lines
        for key in ("offset", "start"):
            if record.get(key) is not None:
                record[key] += head.size


def _empty_summary() -> dict[str, Any]:
    return {
        "text": "",
        "refusal": None,
        "tool_calls": [],
        "reasoning": None,
        "usage": None,
        "stop": None,
    }


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


