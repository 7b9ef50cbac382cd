"""The ``sse-engine`` command line: the only module besides the transport glue that does I/O."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from importlib import resources
from typing import BinaryIO

from sse_engine._errors import SSEEngineError
from sse_engine._parser import SSEParser
from sse_engine._sse import Comment

__all__ = ["main"]

_READ_SIZE = 64 * 1024

#: Exit statuses (documented in docs/cli.md).
EXIT_OK = 0
EXIT_UNREADABLE = 3


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


def _build_parser() -> argparse.ArgumentParser:
    cli = argparse.ArgumentParser(
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
    return cli


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``sse-engine`` and ``python -m sse_engine``; returns the exit status."""
    args = _build_parser().parse_args(argv)
    try:
        status: int = args.handler(args)
    except (OSError, SSEEngineError) as exc:
        sys.stderr.write(f"sse-engine {args.command}: {exc}\n")
        return EXIT_UNREADABLE
    return status
