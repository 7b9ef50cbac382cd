"""The ``sse-engine`` command line: the only module besides the transport glue that does I/O.

Commands: ``parse`` (raw SSE events as JSON lines), ``inspect`` (a capture
through its lane: :mod:`sse_engine._cli_inspect`, rendered by
:mod:`sse_engine._cli_render`), ``demo`` (:mod:`sse_engine._cli_demo`) and
``bench`` (:mod:`sse_engine._cli_bench`). See ``docs/cli.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator, Sequence
from importlib import resources
from typing import BinaryIO, NoReturn

from sse_engine._cli_bench import run_bench
from sse_engine._cli_demo import run_demo
from sse_engine._cli_inspect import LANES, Unreadable, inspect_body
from sse_engine._cli_render import Style, render, use_color
from sse_engine._errors import SSEEngineError
from sse_engine._parser import SSEParser
from sse_engine._sse import Comment

__all__ = ["main"]

_READ_SIZE = 64 * 1024

#: Exit statuses (documented in docs/cli.md): inspect also returns 1 (INCOMPLETE)
#: and 2 (FAILED or TRUNCATED).
EXIT_OK = 0
EXIT_UNREADABLE = 3
#: A command line that does not parse (EX_USAGE): kept apart from 1-3, which scripts read.
EXIT_USAGE = 64


def bundled_capture(name: str) -> bytes:
    """The bytes of a capture shipped in ``sse_engine/captures``."""
    return resources.files("sse_engine").joinpath("captures", name).read_bytes()


def _chunks(stream: BinaryIO) -> Iterator[bytes]:
    while chunk := stream.read(_READ_SIZE):
        yield chunk


def _open_input(path: str | None) -> Iterator[bytes]:
    if path is None:
        yield bundled_capture("sample.sse")
    elif path == "-":
        yield from _chunks(sys.stdin.buffer)
    else:
        with open(path, "rb") as stream:
            yield from _chunks(stream)


def _parse(args: argparse.Namespace) -> int:
    parser = SSEParser(args.max_event_size, comments=True)
    out = sys.stdout
    for chunk in _open_input(args.file):
        for item in parser.feed(chunk):
            if isinstance(item, Comment):
                if args.comments:
                    out.write(json.dumps({"comment": item.text}, ensure_ascii=False) + "\n")
            else:
                record = {"event": item.event, "data": item.data, "id": item.id}
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
    discarded = parser.in_event
    parser.close()
    final = {"last_event_id": parser.last_event_id, "retry": parser.retry}
    if discarded:
        final["discarded_unterminated_event"] = True
    out.write(json.dumps(final, ensure_ascii=False) + "\n")
    return EXIT_OK


def _source_name(path: str | None) -> str:
    if path is None:
        return "sample.sse (bundled)"
    return "<stdin>" if path == "-" else path


def _inspect(args: argparse.Namespace) -> int:
    body = b"".join(_open_input(args.file))
    try:
        report = inspect_body(
            body,
            source=_source_name(args.file),
            lane=args.lane,
            status=args.status,
            events=args.events,
        )
    except Unreadable as exc:
        sys.stderr.write(f"sse-engine inspect: {_source_name(args.file)}: {exc}\n")
        return EXIT_UNREADABLE
    if args.json:
        sys.stdout.write(json.dumps(report, ensure_ascii=False, default=str) + "\n")
    else:
        sys.stdout.write(render(report, Style(use_color(sys.stdout, args.color))))
    status: int = report["exit_status"]
    return status


def _demo(args: argparse.Namespace) -> int:
    lanes = list(LANES) if args.lane == "all" else [args.lane]
    style = Style(use_color(sys.stdout, args.color))
    return run_demo(sys.stdout, style, lanes, bundled_capture)


def _bench(args: argparse.Namespace) -> int:
    argv = ["--quick"] if args.quick else []
    argv.append("--write" if args.write else "--no-write")
    if args.only:
        argv += ["--only", args.only]
    return run_bench(sys.stdout, sys.stderr, argv)


def _add_color(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the output: auto (default) = only on a terminal and when NO_COLOR is unset",
    )


class _ArgumentParser(argparse.ArgumentParser):
    """argparse, exiting with EXIT_USAGE (not 2, which ``inspect`` uses for FAILED)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _build_parser() -> argparse.ArgumentParser:
    cli = _ArgumentParser(
        prog="sse-engine",
        description="Parse and inspect Server-Sent Event streams as LLM APIs send them.",
    )
    commands = cli.add_subparsers(dest="command", required=True)
    parse = commands.add_parser(
        "parse",
        help="print the raw SSE events of a capture as JSON lines",
        description="Run a captured response body through SSEParser and print one JSON "
        "line per event (event, data, id), then the final last_event_id and retry.",
    )
    parse.add_argument(
        "file", nargs="?", help="capture to read; '-' for stdin; default: a bundled sample"
    )
    parse.add_argument("--comments", action="store_true", help="also print comment lines")
    parse.add_argument(
        "--max-event-size", type=int, default=None, help="limit one event (characters)"
    )
    parse.set_defaults(handler=_parse)

    inspect = commands.add_parser(
        "inspect",
        help="run a captured response body through its lane and say what it holds",
        description="Run a captured response body (an SSE stream, or a JSON error body sent "
        "instead of one) through the right lane and print the lane, the event counts, the "
        "outcome and error, the assembled text, tool calls, reasoning, usage and every "
        "warning with where it sits. Exit status: 0 completed, 1 incomplete, 2 failed or "
        "truncated, 3 unreadable input.",
    )
    inspect.add_argument(
        "file", nargs="?", help="capture to read; '-' for stdin; default: a bundled sample"
    )
    inspect.add_argument(
        "--lane",
        choices=("auto", *LANES),
        default="auto",
        help="the API's wire format (default: detected from the first events)",
    )
    inspect.add_argument("--json", action="store_true", help="print one JSON object")
    inspect.add_argument("--events", action="store_true", help="also list every typed event")
    inspect.add_argument(
        "--status",
        type=int,
        metavar="HTTP_STATUS",
        help="the HTTP status the body came with: non-2xx reads it as a JSON error body",
    )
    _add_color(inspect)
    inspect.set_defaults(handler=_inspect)

    demo = commands.add_parser(
        "demo",
        help="replay the bundled captures of every lane through inspect (no network)",
        description="Replay bundled captures through inspect: per lane a normal stream, a "
        "truncated one, an in-stream error and a pre-stream JSON error, plus a dropped "
        "Responses stream resumed. Exit status 0 when every capture ends as expected.",
    )
    demo.add_argument(
        "--lane", choices=("all", *LANES), default="all", help="only this lane's captures"
    )
    _add_color(demo)
    demo.set_defaults(handler=_demo)

    bench = commands.add_parser(
        "bench",
        help="run the parser and lane benchmarks (from a checkout of the repository)",
        description="Run benchmarks/run.py (parser, peers when installed, lanes vs the "
        "official SDKs) and print the tables. Needs a checkout: the benchmarks are not "
        "part of the installed package (exit status 3 without them).",
    )
    bench.add_argument("--quick", action="store_true", help="a fast smoke run")
    bench.add_argument(
        "--write", action="store_true", help="also rewrite docs/benchmarks.md (default: print only)"
    )
    bench.add_argument("--only", metavar="NAME", help="only benchmarks whose name contains NAME")
    bench.set_defaults(handler=_bench)
    return cli


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``sse-engine`` and ``python -m sse_engine``; returns the exit status."""
    args = _build_parser().parse_args(argv)
    try:
        status: int = args.handler(args)
    except BrokenPipeError:  # `sse-engine inspect --events x.sse | head`: not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except (OSError, SSEEngineError) as exc:
        sys.stderr.write(f"sse-engine {args.command}: {exc}\n")
        return EXIT_UNREADABLE
    return status
