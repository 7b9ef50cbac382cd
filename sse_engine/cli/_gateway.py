"""``sse-engine gateway``: the command line of the gateway (``sse_engine.gateway``).

Its flags, the check that aiohttp (the ``[gateway]`` extra) is installed,
the upstream key read from the environment, logging to stderr, then
:func:`sse_engine.gateway.serve` until SIGTERM. The gateway package is
imported only here, once the command runs: the rest of the command line
works without aiohttp.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import logging
import os
import sys
from typing import Any

from sse_engine import FORMATS

__all__ = ["EXIT_UNAVAILABLE", "add_gateway", "command"]

#: aiohttp is missing (EX_UNAVAILABLE).
EXIT_UNAVAILABLE = 69
#: A flag the gateway cannot use (EX_USAGE, as the command line's own parser exits).
_EXIT_USAGE = 64


def add_gateway(commands: argparse._SubParsersAction[Any]) -> None:
    """Add the ``gateway`` command to the command line's subcommands."""
    gateway = commands.add_parser(
        "gateway",
        help="serve every API format in front of one upstream (needs sse_engine[gateway])",
        description="Serve every API format's paths (Chat Completions, Responses, Messages, "
        "...) in front of one upstream API of any format: each request translated to the "
        "upstream's format, each stream relayed back in the client's. See docs/gateway.md.",
    )
    gateway.add_argument("--upstream", required=True, metavar="URL", help="the upstream's base URL")
    gateway.add_argument(
        "--upstream-format",
        required=True,
        choices=tuple(FORMATS),
        help="the upstream API's wire format",
    )
    gateway.add_argument(
        "--listen", default="127.0.0.1:8787", metavar="HOST:PORT", help="default 127.0.0.1:8787"
    )
    gateway.add_argument(
        "--upstream-key-env",
        metavar="NAME",
        help="the environment variable holding the upstream's API key (default: send none)",
    )
    gateway.add_argument(
        "--model",
        action="append",
        default=[],
        metavar="CLIENT=UPSTREAM",
        help="ask the upstream for UPSTREAM when a client names CLIENT (repeatable)",
    )
    gateway.add_argument(
        "--keepalive",
        type=float,
        default=15.0,
        metavar="SECONDS",
        help="a keepalive comment after this long without upstream bytes (default 15)",
    )
    gateway.add_argument(
        "--grace",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="after SIGTERM, how long running streams may take to finish (default 30)",
    )
    gateway.set_defaults(handler=command)


def command(args: argparse.Namespace) -> int:
    """Run the gateway until SIGTERM; the exit status."""
    if importlib.util.find_spec("aiohttp") is None:
        sys.stderr.write(
            "sse-engine gateway: aiohttp is not installed; the gateway needs the [gateway] "
            "extra: python -m pip install -e '/path/to/sse_engine[gateway]'\n"
        )
        return EXIT_UNAVAILABLE
    from sse_engine.gateway import GatewayConfig, parse_listen, parse_models, serve

    key = None
    try:
        if args.upstream_key_env:
            key = os.environ.get(args.upstream_key_env)
            if key is None:
                raise ValueError(f"--upstream-key-env: ${args.upstream_key_env} is not set")
        host, port = parse_listen(args.listen)
        config = GatewayConfig(
            upstream=args.upstream,
            upstream_format=args.upstream_format,
            host=host,
            port=port,
            upstream_key=key,
            models=parse_models(args.model),
            keepalive=args.keepalive,
            grace=args.grace,
        )
    except ValueError as exc:
        sys.stderr.write(f"sse-engine gateway: {exc}\n")
        return _EXIT_USAGE
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    asyncio.run(serve(config))
    return 0
