"""``sse_engine.detect``: a response's wire format from its first bytes, as ``inspect`` names it."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from sse_engine import FORMATS, Detection, detect

CAPTURES = Path(__file__).resolve().parent.parent / "sse_engine" / "captures"
STREAMS = sorted(p for p in CAPTURES.glob("*.sse") if p.name != "sample.sse")


def test_every_bundled_stream_names_its_own_format() -> None:
    for path in STREAMS:
        found = detect(path.read_bytes())
        assert found is not None, path.name
        assert path.name.startswith(found.format.name + "_"), (path.name, found)
        assert found.format is FORMATS[found.format.name] and found.reason


def test_an_error_body_is_named_by_its_own_shape_or_not_at_all() -> None:
    anthropic = (CAPTURES / "messages_prestream_529.json").read_bytes()
    found = detect(anthropic, status=529, headers={"content-type": "application/json"})
    assert found == Detection(FORMATS["messages"], "an Anthropic-shaped JSON error body")
    # The OpenAI envelope is several APIs' own: it names none.
    openai = (CAPTURES / "chat_prestream_429.json").read_bytes()
    assert detect(openai, status=429) is None
    # A 200 that is not an event stream is read as an error body too.
    assert detect(anthropic, headers={"content-type": "application/json"}) == found


def test_nothing_that_tells_yet_is_none() -> None:
    assert detect(b"") is None
    assert detect(b": keepalive\n\n: still thinking\n\n") is None
    assert detect(b'data: {"id": 1}\n\n') is None


@settings(max_examples=80, deadline=None)
@given(name=st.sampled_from([p.name for p in STREAMS]), cut=st.integers(0, 1 << 16))
def test_once_a_prefix_tells_every_longer_one_says_the_same(name: str, cut: int) -> None:
    body = (CAPTURES / name).read_bytes()
    whole = detect(body)
    early = detect(body[: cut % (len(body) + 1)])
    # The format, not the reason: a prefix may be told by an earlier frame (the
    # error frame before the [DONE] that names the whole capture).
    assert early is None or (whole is not None and early.format == whole.format)


@settings(max_examples=examples(24, thorough=150), deadline=None)
@given(data=st.binary(max_size=400), status=st.sampled_from([200, 400, 503]))
def test_any_bytes_give_an_answer_never_an_exception(data: bytes, status: int) -> None:
    found = detect(b"data: " + data + b"\n\n" + data, status=status)
    assert found is None or isinstance(found, Detection)
    deep = b"data: " + b"[" * 100_000 + b"\n\n"
    assert detect(deep) is None and detect(b"[" * 100_000, status=status) is None
