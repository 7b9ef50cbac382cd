"""Gemini's cited sources as parts (issue 20 item 12).

``groundingMetadata.groundingChunks`` (Google Search grounding, retrieval)
and ``citationMetadata.citationSources`` (recitation sources) are
``Citation`` parts, each source once per candidate although the chunks that
carry the metadata may repeat what earlier ones said. ``Turn.citations`` has
the sources google-genai reads in the stream's last chunk.
"""

from __future__ import annotations

from typing import Any

from gemini_cases import payload, text
from google.genai import types as genai_types
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from relay_oracles import genai_chunks
from wire_turns import read

from sse_engine.gemini import encode_gemini_event
from sse_engine.parts import Citation

WEB_A = {"web": {"uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/a",
                 "title": "wikipedia.org"}}
WEB_B = {"web": {"uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/b",
                 "title": "britannica.com"}}
DOC = {"retrievedContext": {"uri": "gs://bucket/doc.pdf", "title": "doc.pdf", "text": "Paris"}}
RECITED = {"startIndex": 0, "endIndex": 24, "uri": "https://example.org/poem",
           "license": "mit"}


def _grounding(*chunks: dict[str, Any]) -> dict[str, Any]:
    return {
        "webSearchQueries": ["capital of france"],
        "groundingChunks": list(chunks),
        "groundingSupports": [{"segment": {"startIndex": 0, "endIndex": 24,
                                           "text": "Paris is the capital."},
                               "groundingChunkIndices": list(range(len(chunks)))}],
    }


def _chunk(part: str, finish: str | None = None, **candidate: Any) -> bytes:
    data = payload(text(part), finish=finish)
    data["candidates"][0].update(candidate)
    return encode_gemini_event(data)


def grounded() -> bytes:
    """Grounding metadata in two chunks, the second repeating the first's sources and adding
    one; recitation sources in the last."""
    return (
        _chunk("Paris is ")
        + _chunk("the capital.", groundingMetadata=_grounding(WEB_A, WEB_B))
        + _chunk("", "STOP", groundingMetadata=_grounding(WEB_A, WEB_B, DOC),
                 citationMetadata={"citationSources": [RECITED]})
    )


def test_grounding_chunks_and_recitation_sources_are_citations_once_each() -> None:
    parts, stream = read("gemini", grounded())
    citations = [p for p in parts if isinstance(p, Citation)]
    assert citations == stream.turn.citations == [
        Citation("web", WEB_A["web"]["uri"], "wikipedia.org"),
        Citation("web", WEB_B["web"]["uri"], "britannica.com"),
        Citation("retrievedContext", "gs://bucket/doc.pdf", "doc.pdf"),
        Citation("citationSource", "https://example.org/poem"),
    ]
    assert [c.raw for c in citations] == [WEB_A, WEB_B, DOC, RECITED]


def test_the_citations_are_the_sources_google_genai_reads_in_the_last_chunk() -> None:
    body = grounded()
    chunks, error = genai_chunks(body)
    assert error is None
    last = chunks[-1].candidates[0]
    sdk_grounding = [c.model_dump(mode="json", by_alias=True, exclude_none=True)
                     for c in last.grounding_metadata.grounding_chunks]
    sdk_recited = [c.uri for c in last.citation_metadata.citations]
    _, stream = read("gemini", body)
    ours = stream.turn.citations
    assert [c.raw for c in ours if c.type != "citationSource"] == sdk_grounding
    assert [c.url for c in ours if c.type == "citationSource"] == sdk_recited
    genai_types.GroundingMetadata.model_validate(_grounding(WEB_A, WEB_B, DOC))


def test_each_candidate_cites_its_own_sources() -> None:
    data = payload(text("A"), finish="STOP", index=0)
    other = {**data["candidates"][0], "index": 1, "groundingMetadata": _grounding(WEB_B)}
    data["candidates"][0]["groundingMetadata"] = _grounding(WEB_A, WEB_B)
    data["candidates"].append(other)
    _, stream = read("gemini", encode_gemini_event(data))
    assert [c.raw for c in stream.turns[0].citations] == [WEB_A, WEB_B]
    assert [(c.raw, c.choice) for c in stream.turns[1].citations] == [(WEB_B, 1)]


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_split_gives_the_same_citations(data: st.DataObject) -> None:
    body = grounded()
    whole, whole_stream = read("gemini", body)
    cuts = data.draw(st.lists(st.integers(0, len(body)), max_size=10))
    parts, stream = read("gemini", body, cuts)
    assert parts == whole
    assert stream.turn.citations == whole_stream.turn.citations
