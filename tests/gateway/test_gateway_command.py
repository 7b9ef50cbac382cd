"""``sse-engine gateway`` as a command: its flags, its settings, the missing extra, SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import httpx
import loopback
import pytest
from clients import PROMPT
from upstream import Script, Upstream

from sse_engine import FORMATS
from sse_engine.cli import main
from sse_engine.gateway import GatewayConfig, parse_listen, parse_models


def test_without_aiohttp_the_command_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "aiohttp", None)
    status = main(["gateway", "--upstream", "http://x", "--upstream-format", "chat"])
    assert status == 69
    assert "pip install -e '/path/to/sse_engine[gateway]'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--model", "nope"], "CLIENT=UPSTREAM"),
        (["--upstream-key-env", "SSE_ENGINE_TEST_UNSET_KEY"], "$SSE_ENGINE_TEST_UNSET_KEY"),
        (["--listen", "localhost"], "HOST:PORT"),
        (["--keepalive", "0"], "--keepalive"),
    ],
)
def test_a_flag_the_gateway_cannot_use_is_a_usage_error(
    flags: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    os.environ.pop("SSE_ENGINE_TEST_UNSET_KEY", None)
    argv = ["gateway", "--upstream", "http://127.0.0.1:9", "--upstream-format", "chat", *flags]
    assert main(argv) == 64
    assert said in capsys.readouterr().err


def test_the_upstream_url_is_the_base_and_the_formats_path() -> None:
    def url(base: str, fmt: str, model: str = "m") -> str:
        return GatewayConfig(upstream=base, upstream_format=fmt).upstream_url(model)

    assert url("https://api.anthropic.com", "messages") == "https://api.anthropic.com/v1/messages"
    assert url("https://host/inference/v1/", "chat") == "https://host/inference/v1/chat/completions"
    if FORMATS["gemini"].request is not None:  # its request codec is still to come
        gemini = url("https://g.example", "gemini", "gemini-2.5-flash")
        path = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
        assert gemini == "https://g.example" + path
    with pytest.raises(ValueError, match="--upstream"):
        GatewayConfig(upstream="api.example.com", upstream_format="chat")
    with pytest.raises(ValueError, match="--upstream-format"):
        GatewayConfig(upstream="http://x", upstream_format="smoke-signals")


def test_model_map_and_listen_address() -> None:
    assert parse_models(["gpt-4o=claude-sonnet-4-5", "a=b=c"]) == {
        "gpt-4o": "claude-sonnet-4-5",
        "a": "b=c",
    }
    config = GatewayConfig(upstream="http://x", upstream_format="chat", models={"a": "b"})
    assert (config.upstream_model("a"), config.upstream_model("z")) == ("b", "z")
    assert parse_listen("[::1]:8787") == ("::1", 8787)
    assert parse_listen(":9000") == ("0.0.0.0", 9000)


@pytest.mark.waits
def test_sigterm_stops_accepting_and_lets_a_running_stream_finish(upstream: Upstream) -> None:
    upstream.default = Script(pace=0.04)  # a stream of about 1 s
    command = [sys.executable, "-m", "sse_engine", "gateway", "--upstream", upstream.url]
    command += ["--upstream-format", "messages", "--listen", "127.0.0.1:0", "--grace", "5"]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        assert "listening on http://" in line, line
        url = line.split("listening on ")[1].split()[0]
        body = {"model": "gw", "messages": PROMPT, "stream": True}
        got: list[bytes] = []
        first = threading.Event()

        def read() -> None:
            with loopback.stream("POST", f"{url}/v1/chat/completions", json=body) as response:
                for piece in response.iter_raw():
                    got.append(piece)
                    first.set()

        reader = threading.Thread(target=read)
        reader.start()
        assert first.wait(5)
        process.send_signal(signal.SIGTERM)
        time.sleep(0.2)
        with pytest.raises(httpx.ConnectError):
            loopback.post(f"{url}/v1/chat/completions", json=body, timeout=2)
        reader.join(10)
        assert b"".join(got).endswith(b"data: [DONE]\n\n")
        assert process.wait(10) == 0
        rest = process.stderr.read()
        assert "outcome=completed" in rest
        assert "Traceback" not in rest
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
