"""The documentation site builds with ``mkdocs build --strict``.

The build is skipped when the docs tools are not installed (``pip install -e '.[docs]'``).
A run whose inputs (pages, package, config, tool versions) are those of the last
strict build that passed reads that build (``.pytest_cache/sse_engine/site``).
The pages' code blocks are type-checked and run by tests/test_docs_snippets.py.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from once import OncePerRun, early

import sse_engine
from sse_engine import chat, gemini, messages, responses

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


# One build for the run's tests, whichever pytest-xdist workers they run on, started
# when the run starts (tests/once.py).
@pytest.fixture(scope="session")
def site(once_per_run: OncePerRun) -> Path:
    return Path(once_per_run.get("docs-site"))


#: Strict builds kept between runs (git ignores .pytest_cache), each named by the digest
#: of everything the build reads (_inputs_digest): a run whose inputs are those of a
#: kept build reads that build instead of making the same site again (8 CPU-seconds).
BUILDS = ROOT / ".pytest_cache" / "sse_engine" / "site"
#: The distributions whose versions a build depends on, beside the files.
_TOOLS = ("mkdocs", "mkdocs-material", "mkdocstrings", "mkdocstrings-python", "griffe",
          "griffelib", "markdown", "pymdown-extensions", "pygments")


def _inputs_digest() -> str:
    """A digest of the pages, the package the API page documents, mkdocs.yml, the hook,
    Python's version and the docs tools' versions."""
    digest = hashlib.sha256(sys.version.encode())
    for name in _TOOLS:
        try:
            digest.update(f"{name}=={metadata.version(name)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{name} absent".encode())
    files = [ROOT / "mkdocs.yml", *DOCS.rglob("*"), *(ROOT / "sse_engine").rglob("*.py")]
    for path in sorted(f for f in files if f.is_file() and "__pycache__" not in f.parts):
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:32]


def _build(tmp_path_factory: pytest.TempPathFactory) -> str:
    for module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
        pytest.importorskip(module, reason="the docs tools are not installed")
    if not (DOCS / "benchmarks.md").exists():
        pytest.skip("docs/benchmarks.md is not written yet (python -m benchmarks.run writes it)")
    kept = BUILDS / _inputs_digest()
    if (kept / "index.html").is_file():
        return str(kept)
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
         "-d", str(out)],
        capture_output=True, text=True, env=env, cwd=ROOT, check=False, timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    # Only a strict build that passed is kept, and only the newest.
    shutil.rmtree(BUILDS, ignore_errors=True)
    BUILDS.mkdir(parents=True)
    shutil.copytree(out, kept)
    return str(out)


early(__file__, "docs-site", _build, fixture="site")


def test_the_site_builds_strictly(site: Path) -> None:
    for page in ("index", "parser", "chat", "responses", "messages", "gemini", "transports", "cli",
                 "encoding", "from-sdks", "api", "benchmarks", "parser_peers", "conversation"):
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
    for module in (chat, responses, messages, gemini):
        missing = [n for n in module.__all__ if f"{module.__name__}.{n}" not in anchors]
        assert not missing, f"{module.__name__}: {missing}"
    for name in ("encode_chat_event", "encode_responses_event", "encode_messages_event",
                 "encode_gemini_event", "encode_lane_events"):
        assert name in ends
