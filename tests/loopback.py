"""Clients for the servers the tests start on 127.0.0.1: the SDKs' and httpx's, no CA bundle.

Every client a test makes talks plain HTTP to a loopback server or a mock
transport, or only exists because an SDK object needs one. Yet a client made
with its defaults loads the system's certificate authorities into a new TLS
context: 40-80 ms each (a ``genai.Client`` makes three), and the suite made
about 250 of them, 12 s of its CPU. They share one context here instead, which
loads nothing and verifies nothing: nothing these clients reach speaks TLS.
Each is otherwise the SDK's own default client (``DefaultHttpxClient``: its
timeouts, limits and redirects).
"""

from __future__ import annotations

import ssl
from contextlib import AbstractContextManager
from typing import Any

import anthropic
import httpx
import openai
from google.genai import types as genai_types

#: The one TLS context of every test client: no certificates loaded, none asked for.
TLS = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
TLS.check_hostname = False
TLS.verify_mode = ssl.CERT_NONE


def openai_client(base_url: str, **options: Any) -> openai.OpenAI:
    """``openai.OpenAI`` pointed at ``base_url`` (``api_key`` defaults to a dummy)."""
    options.setdefault("api_key", "sk-test")
    return openai.OpenAI(
        base_url=base_url, http_client=openai.DefaultHttpxClient(verify=TLS), **options
    )


def anthropic_client(base_url: str, **options: Any) -> anthropic.Anthropic:
    """``anthropic.Anthropic`` pointed at ``base_url`` (``api_key`` defaults to a dummy)."""
    options.setdefault("api_key", "sk-ant-test")
    return anthropic.Anthropic(
        base_url=base_url, http_client=anthropic.DefaultHttpxClient(verify=TLS), **options
    )


def genai_options(**options: Any) -> genai_types.HttpOptions:
    """``HttpOptions`` for a ``genai.Client``: its httpx, aiohttp and websocket clients
    all given :data:`TLS` (``verify`` for httpx, ``ssl`` for the other two)."""
    return genai_types.HttpOptions(
        client_args={"verify": TLS}, async_client_args={"verify": TLS, "ssl": TLS}, **options
    )


def post(url: str, **options: Any) -> httpx.Response:
    """``httpx.post`` with :data:`TLS`."""
    return httpx.post(url, verify=TLS, **options)


def stream(method: str, url: str, **options: Any) -> AbstractContextManager[httpx.Response]:
    """``httpx.stream`` with :data:`TLS`."""
    return httpx.stream(method, url, verify=TLS, **options)
