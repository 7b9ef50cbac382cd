"""Relay: serve any lane as any other lane, for gateways.

A :class:`Relay` reads one lane's stream (through
:class:`~sse_engine.parts.PartStream`) and writes the bytes another API
would send for the same turn: a Messages upstream served to a Chat
Completions client, a Chat upstream as Responses, and every other pairing.
See ``docs/gateways.md``.
"""

from __future__ import annotations

from sse_engine._public import publish as _publish
from sse_engine.relay._relay import Relay, Target

__all__ = ["Relay", "Target"]

_publish(__name__)  # help() and pickles show this module, not the private ones
