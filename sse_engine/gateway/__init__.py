"""The gateway: every API format served in front of one upstream of any format.

``sse-engine gateway`` (the ``[gateway]`` extra, which adds aiohttp) serves
the ``paths`` of each format in ``sse_engine.FORMATS``: each request is read
as a :class:`~sse_engine.conversation.Conversation`, sent upstream in the
upstream's format, and its stream relayed back in the client's format by
:class:`~sse_engine.relay.Relay`. See ``docs/gateway.md``.

This package is an edge (like the command line): it does I/O, imports
aiohttp, and is never imported by ``sse_engine`` itself. :func:`make_app`
embeds it in an aiohttp program; :func:`serve` runs it.
"""

from __future__ import annotations

from sse_engine._public import publish as _publish
from sse_engine.gateway._app import make_app, make_runner, serve
from sse_engine.gateway._config import GatewayConfig, parse_listen, parse_models
from sse_engine.gateway._exchange import DROPPED_HEADER

__all__ = [
    "DROPPED_HEADER",
    "GatewayConfig",
    "make_app",
    "make_runner",
    "parse_listen",
    "parse_models",
    "serve",
]

_publish(__name__)  # help() and pickles show this module, not the private ones
