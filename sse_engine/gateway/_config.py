"""What one gateway process is told: its upstream, where it listens, how it maps models.

Built by the command line (``sse-engine gateway``) or by hand for an
embedded gateway; checked once, when it is made, so that a mistake in the
command line is a clear message at start and never a failure per request.
The upstream's format is looked up in ``FORMATS``: its row says the path a
streamed request is POSTed to and the headers that carry its key
(``WireFormat.endpoint``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import final
from urllib.parse import quote, urlsplit

import attrs

from sse_engine._formats import FORMATS, Endpoint, WireFormat

__all__ = ["GatewayConfig", "endpoint_of", "parse_listen", "parse_models", "served_formats"]


def served_formats() -> list[WireFormat]:
    """The formats a gateway can serve and call: those with paths, a request codec and an
    endpoint (a format without its request codec yet is left out, not half served)."""
    return [
        row
        for row in FORMATS.values()
        if row.paths and row.request is not None and row.endpoint is not None
    ]


def endpoint_of(row: WireFormat) -> Endpoint:
    """The row's endpoint (every served format has one: see :func:`served_formats`)."""
    if row.endpoint is None:
        raise ValueError(f"the {row.name} format says nothing of how its API is called")
    return row.endpoint


def _check_format(name: str) -> None:
    names = [row.name for row in served_formats()]
    if name in FORMATS and name not in names:
        raise ValueError(
            f"--upstream-format {name}: the format has no request codec or endpoint yet "
            f"(the gateway can call {', '.join(names)})"
        )
    if name not in names:
        raise ValueError(f"--upstream-format must be one of {', '.join(names)}, not {name!r}")


def _check_url(url: str) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"--upstream must be an http:// or https:// URL, not {url!r}")
    if parts.query or parts.fragment:
        raise ValueError(f"--upstream is a base URL: no query or fragment ({url!r})")


def _check_seconds(name: str, value: float) -> None:
    if not (value > 0 and math.isfinite(value)):
        raise ValueError(f"{name} must be a positive number of seconds, not {value!r}")


@final
@attrs.frozen
class GatewayConfig:
    """One gateway's settings (the flags of ``sse-engine gateway``).

    - ``upstream``: the upstream API's base URL (``https://api.anthropic.com``);
      the format's path is appended (a base that already ends with the path's
      first segment, as ``https://host/v1``, does not get it twice).
    - ``upstream_format``: the upstream's wire format, a name in ``FORMATS``.
    - ``host``, ``port``: where to listen (port 0: any free port).
    - ``upstream_key``: the upstream's API key (None: requests carry none).
    - ``models``: client model name -> upstream model name; a name not in it
      goes upstream as the client wrote it.
    - ``keepalive``: seconds of upstream silence before a streaming client
      gets a keepalive comment (the 200 goes out early then, if it had not).
    - ``grace``: seconds running streams get to finish after SIGTERM.
    - ``connect_timeout``: seconds to connect to the upstream.
    """

    upstream: str = attrs.field()
    upstream_format: str = attrs.field()
    host: str = "127.0.0.1"
    port: int = 8787
    upstream_key: str | None = attrs.field(default=None, repr=False)
    models: Mapping[str, str] = attrs.field(factory=dict)
    keepalive: float = 15.0
    grace: float = 30.0
    connect_timeout: float = 10.0

    def __attrs_post_init__(self) -> None:
        _check_url(self.upstream)
        _check_format(self.upstream_format)
        for name in ("keepalive", "grace", "connect_timeout"):
            _check_seconds(f"--{name.replace('_', '-')}", getattr(self, name))
        if not 0 <= self.port <= 65535:
            raise ValueError(f"the port must be 0..65535, not {self.port}")

    @property
    def upstream_row(self) -> WireFormat:
        """The upstream's ``FORMATS`` row."""
        return FORMATS[self.upstream_format]

    def upstream_model(self, client_model: str | None) -> str | None:
        """The model to ask the upstream for, given the one the client named."""
        if client_model is None:
            return None
        return self.models.get(client_model, client_model)

    def upstream_url(self, model: str | None) -> str:
        """Where a streamed request for ``model`` goes: the base URL and the format's path."""
        endpoint = endpoint_of(self.upstream_row)
        path = self.upstream_row.paths[0]
        if "{model}" in path:
            path = path.replace("{model}", quote(model or "", safe=""))
        base = self.upstream.rstrip("/")
        first = "/" + path.lstrip("/").split("/", 1)[0]
        if urlsplit(base).path.endswith(first):
            path = path[len(first) :]
        return f"{base}{path}{endpoint.stream_query}"

    def upstream_headers(self) -> dict[str, str]:
        """The headers of every upstream request: JSON in, an event stream wanted, the key."""
        endpoint = endpoint_of(self.upstream_row)
        headers = {"content-type": "application/json", "accept": "text/event-stream"}
        headers.update(endpoint.headers(self.upstream_key))
        return headers


def parse_models(pairs: Sequence[str]) -> dict[str, str]:
    """``--model CLIENT=UPSTREAM`` flags as a mapping; raises ``ValueError`` naming a bad one."""
    models: dict[str, str] = {}
    for pair in pairs:
        client, sep, upstream = pair.partition("=")
        if not sep or not client or not upstream:
            raise ValueError(f"--model takes CLIENT=UPSTREAM, not {pair!r}")
        models[client] = upstream
    return models


def parse_listen(value: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:8787`` for IPv6, ``:8787`` for every interface's IPv4)."""
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"--listen takes HOST:PORT, not {value!r}")
    host = host.removeprefix("[").removesuffix("]") or "0.0.0.0"
    return host, int(port)
