"""Delta frames written once by the encoders, then filled in for each delta.

A relayed stream is mostly deltas of the same block: frames that differ only
in their text (and, for Responses, their sequence number). Encoding each one
whole (``encode_json``: a dict built, walked and serialised, then framed) costs
more than the source lane spends reading the event. So each block's delta
frame is written once, by the target's own encoder, with marks where the
values go; :func:`template` turns it into a ``%``-format bytes template and
:func:`fill` puts each delta's text in, encoded by the same JSON string
encoder ``encode_json`` uses. The bytes are the encoder's own:
``fill(template(lambda text, n: encode(payload(text, n)), k), text, *numbers)
== encode(payload(text, numbers))`` (tests/relay/test_relay_templates.py).

The marks must be found where the writer put them and nowhere else, but the
frame also repeats strings of the source (its id and model, an item's id),
which may hold anything, a mark included. So :func:`template` counts the
marks it finds; a count that is not the writer's means a source string holds
one, and the frame is written again with marks no string of it can hold
(tests/relay/test_relay_template_marks.py).

The template is bytes, filled with the text's UTF-8: one ``%`` makes the
frame's bytes (a ``str`` template would be formatted, then the whole frame
encoded again for every delta).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json.encoder import encode_basestring, encode_basestring_ascii
from typing import Final

__all__ = ["FrameWriter", "fill", "template"]

#: Writes a block's delta frame with ``text`` where the delta's text goes (a payload
#: string) and ``number`` where each of its numbers goes (a payload value, or an
#: ``id:`` line): ``write(text, number)``.
FrameWriter = Callable[[str, str], bytes]

#: What every mark opens with: a mark longer than any run of it in a frame is in no
#: string of the frame.
_OPEN: Final = "\u27e6"
_OPEN_UTF8: Final = _OPEN.encode()
_OPEN_FORMS: Final = (_OPEN_UTF8, json.dumps(_OPEN)[1:-1].encode())  # UTF-8, escaped


class _Marks:
    """A text mark and a number mark, and the forms a frame can hold them in: JSON
    strings in UTF-8 or, for a frame with a lone surrogate, in ASCII escapes (see
    ``json_frame``), and a number's bare form (an ``id:`` line)."""

    def __init__(self, depth: int) -> None:
        self.text = _OPEN * depth + "text\u27e7"
        self.number = _OPEN * depth + "n\u27e7"
        self.text_json = json.dumps(self.text, ensure_ascii=False).encode()
        self.text_ascii = json.dumps(self.text).encode()
        self.number_json = json.dumps(self.number, ensure_ascii=False).encode()
        self.number_ascii = json.dumps(self.number).encode()
        self.number_bare = self.number.encode()

    def holes(self, frame: bytes, numbers: int) -> bytes | None:
        """``frame`` as a template, or None if the marks are not there once each (the
        text) and ``numbers`` times (the numbers): a string of the frame holds one."""
        if frame.count(self.text_json) + frame.count(self.text_ascii) != 1:
            return None
        # The bare form is in the UTF-8 JSON one: the two counts make every number once.
        if frame.count(self.number_bare) + frame.count(self.number_ascii) != numbers:
            return None
        return self.replaced(frame)

    def replaced(self, frame: bytes) -> bytes:
        """``frame`` with ``%`` escaped, and ``%s`` and ``%d`` where the marks are."""
        holes = frame.replace(b"%", b"%%")
        holes = holes.replace(self.text_json, b"%s").replace(self.text_ascii, b"%s")
        holes = holes.replace(self.number_json, b"%d").replace(self.number_ascii, b"%d")
        return holes.replace(self.number_bare, b"%d")


_FIRST: Final = _Marks(1)


def template(write: FrameWriter, numbers: int = 0) -> bytes:
    """The frame ``write`` writes as a ``%`` template, to :func:`fill`.

    ``write(text, number)`` writes the frame with the string ``text`` where the
    delta's text goes, once, and ``number`` where each of its ``numbers``
    numbers goes: the numbers come first, in the order they appear, then the
    text (an ``id:`` line and ``sequence_number`` precede a Responses delta).
    When a string of the frame holds a mark, the frame is written again with
    longer marks. A writer that does not write its marks as said is a
    ``ValueError``.
    """
    frame = write(_FIRST.text, _FIRST.number)
    if frame.count(_OPEN_UTF8) == 1 + numbers:
        # The usual frame: the marks' opening characters, in UTF-8, and no others (no
        # string of the frame holds one, and none is escaped): the marks, as written.
        return _FIRST.replaced(frame)
    holes = _FIRST.holes(frame, numbers)
    if holes is None:
        marks = _Marks(1 + sum(frame.count(form) for form in _OPEN_FORMS))
        holes = marks.holes(write(marks.text, marks.number), numbers)
        if holes is None:
            raise ValueError(
                f"a frame writer must write its text mark once and its number mark {numbers}"
                f" time(s); it wrote {frame[:200]!r}"
            )
    return holes


def fill(template: bytes, text: str, *numbers: int) -> bytes:
    """The frame of ``template`` with ``numbers`` and ``text`` in their places."""
    try:
        value = encode_basestring(text).encode()
    except UnicodeEncodeError:
        # A lone surrogate has no UTF-8 form: JSON's ASCII escapes carry it, as
        # encode_json falls back to them.
        value = encode_basestring_ascii(text).encode()
    if not numbers:  # bytes right of % are the one value: no tuple to build
        return template % value
    return template % (*numbers, value)
