"""Shared pytest fixtures: the real HTTP test server (see tests/server.py).

Also where compiled bytecode goes. The tests start about a hundred Python
processes (the docs' code blocks, the examples, the CLI, mypy); where the
environment says not to write bytecode (``PYTHONDONTWRITEBYTECODE``), each of
them compiled sse_engine and the tests' imports from source again. Here every
process pytest starts (its pytest-xdist workers too: they are started after
this file is read) keeps its bytecode in one cache outside the repository
(``PYTHONPYCACHEPREFIX``, unless one is set already), so the repository stays
clean and each module is compiled once.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from server import _stream_server, stream_server

__all__ = ["_stream_server", "stream_server"]

if not os.environ.get("PYTHONPYCACHEPREFIX"):
    os.environ["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "sse_engine-pycache")
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
