"""Delta frames written once by the encoders, then filled in for each delta.

A relayed stream is mostly deltas of the same block: frames that differ only
in their text (and, for Responses, their sequence number). Encoding each one
whole (``encode_json``: a dict built, walked and serialised, then framed) costs
more than the source lane spends reading the event. So each block's delta
frame is written once, by the target's own encoder, with :data:`TEXT` (and
:data:`NUMBER`) where the values go; :func:`template` turns it into a
``%``-format bytes template and :func:`fill` puts each delta's text in, encoded
by the same JSON string encoder ``encode_json`` uses. The bytes are the
encoder's own: ``fill(template(encode(payload with TEXT)), text) ==
encode(payload with text)`` (tests/relay/test_relay_templates.py).

The template is bytes, filled with the text's UTF-8: one ``%`` makes the
frame's bytes (a ``str`` template would be formatted, then the whole frame
encoded again for every delta).
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring, encode_basestring_ascii
from typing import Final

__all__ = ["NUMBER", "TEXT", "fill", "template"]

#: Where a delta's text goes in a payload (characters JSON and SSE leave alone).
TEXT: Final = "\u27e6text\u27e7"
#: Where a sequence number goes: a payload value, and an ``id:`` line.
NUMBER: Final = "\u27e6n\u27e7"

_TEXT_JSON: Final = json.dumps(TEXT, ensure_ascii=False).encode()
_NUMBER_JSON: Final = json.dumps(NUMBER, ensure_ascii=False).encode()
_NUMBER: Final = NUMBER.encode()


def template(frame: bytes) -> bytes:
    """``frame``, written with :data:`TEXT` and :data:`NUMBER` in it, as a ``%`` template.

    The numbers come first, in the order they appear, then the text (an
    ``id:`` line and ``sequence_number`` precede a Responses delta).
    """
    holes = frame.replace(b"%", b"%%").replace(_TEXT_JSON, b"%s")
    return holes.replace(_NUMBER_JSON, b"%d").replace(_NUMBER, b"%d")


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
