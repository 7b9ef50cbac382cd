"""``sse-engine parse``: the raw SSE events of a capture, one JSON line each."""

from __future__ import annotations

import argparse
import json
import sys

from sse_engine._parser import SSEParser
from sse_engine._sse import Comment
from sse_engine.cli._input import open_input

__all__ = ["command"]


def command(args: argparse.Namespace) -> int:
    """Print every event of ``args.file`` as JSON, then the final ID and retry."""
    parser = SSEParser(args.max_event_size, comments=True)
    out = sys.stdout
    for chunk in open_input(args.file):
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
    return 0


