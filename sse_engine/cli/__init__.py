"""The ``sse-engine`` command line: the only module besides the transport glue that does I/O.

This module builds the argument parser and dispatches; each command lives in
its own module: ``parse`` (``_parse.py``: raw SSE events as JSON lines),
``inspect`` (``_inspect.py``: a capture through its lane, after ``_detect.py``
named the lane; rendered by ``_render.py``), ``demo`` (``_demo.py``) and
``bench`` (``_bench.py``), ``gateway`` (``_gateway.py``: the flags of
``sse_engine.gateway``). Input files and the bundled captures are read by
``_input.py``. See ``docs/cli.md``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from sse_engine import FORMATS, __version__
from sse_engine._errors import SSEEngineError
from sse_engine.cli import _inspect, _parse
from sse_engine.cli._bench import run_bench
from sse_engine.cli._demo import run_demo
from sse_engine.cli._gateway import add_gateway
from sse_engine.cli._input import bundled_capture
from sse_engine.cli._render import Style, terminal_width, use_color

__all__ = ["main"]

#: Exit statuses (documented in docs/cli.md): inspect also returns 1 (INCOMPLETE)
#: and 2 (FAILED or TRUNCATED).
EXIT_OK = 0
EXIT_UNREADABLE = 3
#: A command line that does not parse (EX_USAGE): kept apart from 1-3, which scripts read.
EXIT_USAGE = 64


def _demo_command(args: argparse.Namespace) -> int:
    lanes = list(FORMATS) if args.lane == "all" else [args.lane]
    style = Style(use_color(sys.stdout, args.color))
    return run_demo(sys.stdout, style, lanes, bundled_capture, width=terminal_width())


def _bench_command(args: argparse.Namespace) -> int:
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
    cli.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
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
    parse.set_defaults(handler=_parse.command)

    inspect = commands.add_parser(
        "inspect",
        help="run a captured response body through its lane and say what it holds",
        description="Run a captured response body (an SSE stream, or a JSON error body sent "
        "instead of one) through the right lane and print the lane, the event counts, the "
        "outcome and error, the assembled text, tool calls, reasoning, usage and finish (read "
        "through the parts layer, alike for every lane) and every warning with where it sits. "
        "Exit status: 0 completed, 1 incomplete, 2 failed or truncated, 3 unreadable input.",
    )
    inspect.add_argument(
        "file", nargs="?", help="capture to read; '-' for stdin; default: a bundled sample"
    )
    inspect.add_argument(
        "--lane",
        choices=("auto", *FORMATS),
        default="auto",
        help="the API's wire format (default: detected from the first events)",
    )
    inspect.add_argument("--json", action="store_true", help="print one JSON object")
    inspect.add_argument("--events", action="store_true", help="also list every typed event")
    inspect.add_argument(
        "--parts",
        action="store_true",
        help="also list the parts (the lane-independent vocabulary of sse_engine.parts)",
    )
    inspect.add_argument(
        "--status",
        type=int,
        metavar="HTTP_STATUS",
        help="the HTTP status the body came with: non-2xx reads it as a JSON error body",
    )
    _add_color(inspect)
    inspect.set_defaults(handler=_inspect.command)

    demo = commands.add_parser(
        "demo",
        help="replay the bundled captures of every lane through inspect (no network)",
        description="Replay bundled captures through inspect: per lane a normal stream, a "
        "truncated one, an in-stream error and a pre-stream JSON error, plus a dropped "
        "Responses stream resumed. Exit status 0 when every capture ends as expected.",
    )
    demo.add_argument(
        "--lane", choices=("all", *FORMATS), default="all", help="only this lane's captures"
    )
    _add_color(demo)
    demo.set_defaults(handler=_demo_command)

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
    bench.set_defaults(handler=_bench_command)

    add_gateway(commands)
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
