"""Shared pytest fixtures: the real HTTP test server (see tests/server.py)."""

from server import _stream_server, stream_server

__all__ = ["_stream_server", "stream_server"]
