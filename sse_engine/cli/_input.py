"""Where a command's bytes come from: a file, stdin, or a capture bundled with the package."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from importlib import resources
from typing import BinaryIO

__all__ = ["bundled_capture", "open_input", "read_input", "source_name"]

_READ_SIZE = 64 * 1024
#: What ``inspect`` and ``parse`` read when no file is given.
DEFAULT_SAMPLE = "sample.sse"


def bundled_capture(name: str) -> bytes:
    """The bytes of a capture shipped in ``sse_engine/captures``."""
    return resources.files("sse_engine").joinpath("captures", name).read_bytes()


def _chunks(stream: BinaryIO) -> Iterator[bytes]:
    while chunk := stream.read(_READ_SIZE):
        yield chunk


def open_input(path: str | None) -> Iterator[bytes]:
    if path is None:
        yield bundled_capture(DEFAULT_SAMPLE)
    elif path == "-":
        yield from _chunks(sys.stdin.buffer)
    else:
        with open(path, "rb") as stream:
            yield from _chunks(stream)


def source_name(path: str | None) -> str:
    if path is None:
        return f"{DEFAULT_SAMPLE} (bundled)"
    return "<stdin>" if path == "-" else path




def read_input(path: str | None) -> bytes:
    """The whole body of ``path`` (``-``: stdin; None: the bundled sample)."""
    return b"".join(open_input(path))
