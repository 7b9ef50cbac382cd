"""The documentation site builds with ``mkdocs build --strict``, and its front-page code runs.

The build is skipped when the docs tools are not installed (``pip install -e '.[docs]'``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

import sse_engine
from sse_engine import chat, messages, responses

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
CAPTURES = ROOT / "sse_engine" / "captures"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    for module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
        pytest.importorskip(module, reason="the docs tools are not installed")
    if not (DOCS / "benchmarks.md").exists():
        pytest.skip("docs/benchmarks.md is not written yet (python -m benchmarks.run writes it)")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
         "-d", str(out)],
        capture_output=True, text=True, env=env, cwd=ROOT, check=False, timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return out


def test_the_site_builds_strictly(site: Path) -> None:
    for page in ("index", "parser", "chat", "responses", "messages", "transports", "cli",
                 "encoding", "from-sdks", "api", "benchmarks", "parser_peers"):
        path = site / "index.html" if page == "index" else site / page / "index.html"
        assert path.is_file(), page
    # The runnable scripts are not pages.
    assert not (site / "examples").exists()


def test_the_api_page_documents_every_public_name(site: Path) -> None:
    html = (site / "api" / "index.html").read_text(encoding="utf-8")
    anchors = set(re.findall(r'id="(sse_engine\.[\w.]+)"', html))
    ends = {a.rsplit(".", 1)[1] for a in anchors}
    missing = [name for name in sse_engine.__all__ if name not in ends]
    assert not missing, f"not in docs/api.md: {missing}"
    for module in (chat, responses, messages):
        missing = [n for n in module.__all__ if f"{module.__name__}.{n}" not in anchors]
        assert not missing, f"{module.__name__}: {missing}"
    for name in ("encode_chat_event", "encode_responses_event", "encode_messages_event",
                 "encode_chat_done", "encode_lane_events"):
        assert name in ends


# -- the front page's examples run, against the bundled captures over httpx ------------------------

ROUTES = {
    "/chat/completions": "chat_basic.sse",
    "/responses": "responses_basic.sse",
    "/messages": "messages_basic.sse",
}


def handler(request: httpx.Request) -> httpx.Response:
    name = next(n for suffix, n in ROUTES.items() if request.url.path.endswith(suffix))
    return httpx.Response(
        200, headers={"content-type": "text/event-stream"}, content=(CAPTURES / name).read_bytes()
    )


@contextmanager
def fake_stream(method: str, url: str, **kwargs: Any) -> Iterator[httpx.Response]:
    with httpx.Client(transport=httpx.MockTransport(handler)) as client, client.stream(
        method, url, **kwargs
    ) as response:
        yield response


def python_blocks(page: str) -> list[str]:
    text = (DOCS / page).read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.M | re.S)


@pytest.mark.parametrize(
    ("index", "tool", "ending"),
    [
        (0, ("get_weather", '{"location":"Paris, France","unit":"celsius"}'),
         "Outcome.COMPLETED None"),
        (1, ("get_weather", '{"city":"Paris","units":"celsius"}'), ""),
        (2, ("get_weather", {"location": "Zürich, CH", "unit": "celsius"}), ""),
    ],
)
def test_the_front_page_examples_run(
    index: int,
    tool: tuple[str, Any],
    ending: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    block = python_blocks("index.md")[index]
    assert len(block.strip().splitlines()) <= 15
    monkeypatch.setattr(httpx, "stream", fake_stream)
    calls: list[tuple[str, Any]] = []
    scope: dict[str, Any] = {
        "base": "https://api.example.invalid/v1",
        "request": {"stream": True},
        "headers": {"authorization": "Bearer x"},
        "run_tool": lambda name, arguments: calls.append((name, arguments)),
    }
    exec(compile(block, f"docs/index.md example {index}", "exec"), scope)
    assert calls == [tool]
    out = capsys.readouterr().out
    assert out.strip().endswith(ending)
    assert "weather" in out or "forecast" in out or "check" in out
