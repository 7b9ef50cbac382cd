"""A capture saved with ``curl -i``: the HTTP status line and headers before the body.

``curl -i`` (or ``--include``) writes the response head, then a blank line,
then the body: ``HTTP/1.1 429 Too Many Requests``, ``content-type: ...``, ...
Lines end with CRLF as on the wire (LF when the capture was edited). A head
can come more than once: ``100 Continue`` or a proxy's ``200 Connection
established`` before the real response; the last one describes the body.
``inspect`` hands the last head's status and headers to the lane's
``start()``, as a client would.
"""

from __future__ import annotations

import re

import attrs

__all__ = ["HeadError", "HttpHead", "split_head"]

# The status line: version, three-digit status, optional reason ("HTTP/2 200" has none).
_STATUS_LINE = re.compile(rb"HTTP/(\d(?:\.\d)?) +(\d{3})(?: +([^\r\n]*))?\r?\n")
_END_OF_HEAD = re.compile(rb"\r?\n\r?\n")


class HeadError(ValueError):
    """An HTTP head that does not end (a capture of the headers alone, or cut inside them)."""


@attrs.frozen
class HttpHead:
    """The status line and headers of the response whose body follows them."""

    version: str
    status: int
    reason: str
    headers: list[tuple[str, str]]
    #: Bytes and lines of every head in the capture, blank lines included:
    #: where the body starts in the file.
    size: int
    lines: int

    def header(self, name: str) -> str | None:
        """The first value of header ``name`` (any case), or None."""
        wanted = name.lower()
        return next((value for key, value in self.headers if key.lower() == wanted), None)

    def record(self) -> dict[str, object]:
        """The head as JSON for ``inspect --json``."""
        return {
            "version": f"HTTP/{self.version}",
            "status": self.status,
            "reason": self.reason,
            "headers": [list(pair) for pair in self.headers],
        }


def _header_pairs(block: bytes) -> list[tuple[str, str]]:
    pairs = []
    for line in block.splitlines():
        name, colon, value = line.decode("latin-1").partition(":")
        if colon and name.strip():
            pairs.append((name.strip(), value.strip()))
    return pairs


def split_head(capture: bytes) -> tuple[HttpHead | None, bytes]:
    """The capture's last HTTP head and its body; (None, capture) when it has no head.

    Raises :class:`HeadError` when a head never ends with its blank line.
    """
    head: HttpHead | None = None
    offset = 0
    while status := _STATUS_LINE.match(capture, offset):
        end = _END_OF_HEAD.search(capture, status.end() - 1)
        if end is None:
            raise HeadError(
                f"an HTTP response head ({status.group().decode('latin-1').strip()}) with no "
                "blank line after it: the capture holds the headers but no body"
            )
        block = capture[status.end() : end.start()]
        offset = end.end()
        head = HttpHead(
            version=status[1].decode("ascii"),
            status=int(status[2]),
            reason=(status[3] or b"").decode("latin-1").strip(),
            headers=_header_pairs(block),
            size=offset,
            lines=capture[:offset].count(b"\n"),
        )
    return head, capture[offset:]
