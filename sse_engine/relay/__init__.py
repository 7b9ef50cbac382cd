"""Relay: serve any wire format as any other, for gateways.

A :class:`Relay` reads one lane's stream (through
:class:`~sse_engine.parts.PartStream`) and writes the bytes another API
would send for the same turn: a Messages upstream served to a Chat
Completions client, a Chat upstream as Responses, and every other pairing.
See ``docs/gateways.md``.

For a format's folder (``sse_engine/<format>/_emit.py``, the ``emitter`` of
its row in ``FORMATS``): :class:`Emitter`, the base of its parts-to-bytes
writer, which is handed one :class:`Block` at a time; :func:`failure_of`
reads a bad ending; :func:`template` and :func:`fill` write a block's delta
frames from one template (a :data:`FrameWriter` writes it once, with marks).
"""

from __future__ import annotations

from sse_engine._public import publish as _publish
from sse_engine.relay._blocks import Block
from sse_engine.relay._emitter import Emitter, ErrorResponse, failure_of
from sse_engine.relay._relay import Relay
from sse_engine.relay._template import FrameWriter, fill, template

__all__ = [
    "Block",
    "Emitter",
    "ErrorResponse",
    "FrameWriter",
    "Relay",
    "failure_of",
    "fill",
    "template",
]

_publish(__name__)  # help() and pickles show this module, not the private ones
