"""Messages citations and server tool results as parts (issue 20 item 12).

A text block's citations (those it starts with, then each ``citations_delta``)
are ``Citation`` parts, in order, and ``Turn.citations`` holds what the
anthropic SDK's final message holds in its text blocks' ``citations``. A
server tool's result block (``web_search_tool_result``,
``web_fetch_tool_result``, ``code_execution_tool_result``, ``mcp_tool_result``)
is the ``ServerToolResult`` of the ``server_tool_use`` / ``mcp_tool_use`` call
it answers, and that call's ``result`` is the block the SDK has.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from test_messages import (
    MESSAGE_STOP,
    block_start,
    block_stop,
    capture,
    delta,
    message_delta,
    message_start,
)
from test_messages_sdk import sdk_message
from wire_turns import read

from sse_engine import FORMATS, Outcome
from sse_engine.messages import MessagesLane
from sse_engine.parts import (
    Citation,
    Finish,
    Part,
    PartStream,
    ServerToolResult,
    TextDelta,
    ToolCallEnd,
    ToolCallStart,
)
from sse_engine.relay import Relay


def _sdk_citations(message: dict[str, Any]) -> list[Any]:
    return [c for block in message["content"] if block["type"] == "text"
            for c in block.get("citations") or ()]


def _sdk_results(message: dict[str, Any]) -> dict[str, Any]:
    return {block["tool_use_id"]: block for block in message["content"]
            if block["type"].endswith("_tool_result")}


def test_the_web_search_capture_cites_and_answers_its_call_as_the_sdk_reads_it() -> None:
    body = capture("messages_web_search.sse")
    parts, stream = read("messages", body)
    sdk = sdk_message(body)
    citations = [p for p in parts if isinstance(p, Citation)]
    assert citations == [Citation(
        "web_search_result_location", "https://en.wikipedia.org/wiki/Claude_Shannon",
        "Claude Shannon - Wikipedia",
        "Claude Shannon was born on April 30, 1916, in Petoskey, Michigan")]
    assert [c.raw for c in stream.turn.citations] == _sdk_citations(sdk)
    (result,) = [p for p in parts if isinstance(p, ServerToolResult)]
    call = stream.turn.tool_calls[0]
    assert call.server and result.id == call.id and result.index == 0
    assert result.result == call.result == _sdk_results(sdk)[call.id]
    # The result comes after its call ended, and before the text that cites it.
    kinds = [type(p) for p in parts]
    assert kinds.index(ToolCallEnd) < kinds.index(ServerToolResult) < kinds.index(Citation)


CHAR = {"type": "char_location", "cited_text": "a fact", "document_index": 0,
        "document_title": "Notes", "start_char_index": 0, "end_char_index": 6}
PAGE = {"type": "page_location", "cited_text": "p. 2", "document_index": 1,
        "document_title": None, "start_page_number": 2, "end_page_number": 3}
SEARCH = {"type": "search_result_location", "cited_text": "hit", "search_result_index": 0,
          "source": "https://example.org/kb", "title": "KB", "start_block_index": 0,
          "end_block_index": 1}


def _server_call(index: int, ident: str, name: str, kind: str = "server_tool_use",
                 **extra: Any) -> bytes:
    block = {"type": kind, "id": ident, "name": name, "input": {}, **extra}
    return (block_start(index, block)
            + delta(index, type="input_json_delta", partial_json='{"q": 1}')
            + block_stop(index))


def _result(index: int, kind: str, ident: str, content: Any, **extra: Any) -> bytes:
    return block_start(index, {"type": kind, "tool_use_id": ident, "content": content,
                               **extra}) + block_stop(index)


def every_kind() -> bytes:
    """A text block complete in message_start with a citation, the server tools' result
    blocks (one answering no call), and a text block that starts with a citation and gets
    two more by citations_delta."""
    opening = {"type": "text", "text": "Known: ", "citations": [CHAR]}
    body = message_start(content=[opening])
    body += _server_call(1, "srvtoolu_f", "web_fetch")
    body += _result(2, "web_fetch_tool_result", "srvtoolu_f", {
        "type": "web_fetch_result", "url": "https://example.org/a", "retrieved_at": None,
        "content": {"type": "document", "source": {"type": "text", "media_type": "text/plain",
                                                   "data": "A page."}}})
    body += _server_call(3, "srvtoolu_c", "code_execution")
    body += _result(4, "code_execution_tool_result", "srvtoolu_c", {
        "type": "code_execution_result", "stdout": "2\n", "stderr": "", "return_code": 0,
        "content": []})
    body += _server_call(5, "mcptoolu_m", "lookup", "mcp_tool_use", server_name="kb")
    body += _result(6, "mcp_tool_result", "mcptoolu_m",
                    [{"type": "text", "text": "found"}], is_error=False)
    body += _result(7, "web_search_tool_result", "srvtoolu_nobody", [])
    body += block_start(8, {"type": "text", "text": "", "citations": [PAGE]})
    body += delta(8, type="text_delta", text="So it is.")
    body += delta(8, type="citations_delta", citation=SEARCH)
    body += delta(8, type="citations_delta", citation={**CHAR, "cited_text": "again"})
    return body + block_stop(8) + message_delta() + MESSAGE_STOP


def test_every_citation_and_server_result_is_a_part_as_the_beta_sdk_reads_them() -> None:
    body = every_kind()
    parts, stream = read("messages", body)
    sdk = sdk_message(body, beta=True)
    citations = [p for p in parts if isinstance(p, Citation)]
    assert [c.raw for c in citations] == _sdk_citations(sdk) == [
        CHAR, PAGE, SEARCH, {**CHAR, "cited_text": "again"}]
    assert stream.turn.citations == citations
    assert citations[0] == Citation("char_location", None, "Notes", "a fact")
    assert citations[1] == Citation("page_location", None, None, "p. 2")
    assert citations[2] == Citation("search_result_location", None, "KB", "hit")
    results = [p for p in parts if isinstance(p, ServerToolResult)]
    sdk_results = _sdk_results(sdk)
    assert [r.id for r in results] == ["srvtoolu_f", "srvtoolu_c", "mcptoolu_m"]
    for result in results:
        call = stream.turn.tool_calls[result.index]
        assert call.server and call.id == result.id
        assert result.result == call.result == sdk_results[call.id]


def test_a_result_for_a_call_the_client_runs_is_no_server_result() -> None:
    # Only the server's own calls have results in the stream; a block naming another id
    # (here a client tool_use's) is not its result.
    body = message_start() + block_start(0, {"type": "tool_use", "id": "toolu_1", "name": "f",
                                             "input": {}})
    body += block_stop(0) + _result(1, "web_search_tool_result", "toolu_1", [])
    body += message_delta("tool_use") + MESSAGE_STOP
    parts, stream = read("messages", body)
    assert not [p for p in parts if isinstance(p, ServerToolResult)]
    assert stream.turn.tool_calls[0].result is None


def _significant(parts: list[Part]) -> list[Part]:
    return [p for p in parts if isinstance(p, Citation | ServerToolResult)]


@settings(max_examples=examples(12, thorough=60), suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_split_gives_the_same_citations_and_results(data: st.DataObject) -> None:
    body = data.draw(st.sampled_from([every_kind(), capture("messages_web_search.sse")]))
    whole, whole_stream = read("messages", body)
    cuts = data.draw(st.lists(st.integers(0, len(body)), max_size=10))
    parts, stream = read("messages", body, cuts)
    assert parts == whole and _significant(parts)
    assert [c.raw for c in _significant(parts) if isinstance(c, Citation)] == [
        c.raw for c in whole_stream.turn.citations]
    assert [c.result for c in stream.turn.tool_calls] == [
        c.result for c in whole_stream.turn.tool_calls]


# -- relayed ----------------------------------------------------------------------------------


def _relayed(body: bytes, to: str, cuts: list[int] = []) -> bytes:  # noqa: B006
    relay = Relay(MessagesLane(), to=to, created=1754000000)
    bounds = [0, *sorted(c for c in cuts if 0 < c < len(body)), len(body)]
    out = b"".join(relay.feed(body[a:b]) for a, b in itertools.pairwise(bounds))
    return out + relay.close()


def test_a_messages_relay_writes_the_citations_of_the_requests_documents() -> None:
    # The anthropic SDK reads the relayed text blocks with the source's document and
    # search-result citations; the server tools' blocks are not relayed, so neither is a
    # citation of a web search.
    ours = sdk_message(_relayed(every_kind(), "messages"), beta=True)
    assert _sdk_citations(ours) == [CHAR, PAGE, SEARCH, {**CHAR, "cited_text": "again"}]
    assert [b["type"] for b in ours["content"]] == ["text"]
    assert ours["content"][0]["text"] == "Known: So it is."
    web = sdk_message(_relayed(capture("messages_web_search.sse"), "messages"))
    assert _sdk_citations(web) == [] and [b["type"] for b in web["content"]] == ["text"]


@settings(max_examples=examples(10, thorough=30), suppress_health_check=[HealthCheck.too_slow])
@given(cuts=st.lists(st.integers(0, 4000), max_size=8))
def test_the_relayed_citations_do_not_depend_on_the_reads(cuts: list[int]) -> None:
    body = every_kind()
    assert _relayed(body, "messages", cuts) == _relayed(body, "messages")


@pytest.mark.parametrize("target", ["chat", "responses", "gemini"])
def test_another_target_writes_no_citation(target: str) -> None:
    # An Anthropic citation is no other provider's object: the text alone goes.
    out = _relayed(every_kind(), target)
    assert b"char_location" not in out and b"a fact" not in out


def test_a_citation_of_text_behind_an_open_tool_call_waits_for_its_block() -> None:
    # Parts need not be sequential (a Chat source's tool call stays open while text
    # streams): the text's block opens after the call's, and its citation goes with it.
    emitter = FORMATS["messages"].emitter(model="m", id="msg_1", created=0)
    source = PartStream(MessagesLane())
    cite = Citation("char_location", None, "Notes", "a fact", raw=CHAR)
    parts: list[Part] = [
        ToolCallStart("toolu_1", "f", 0), TextDelta("cited"), cite,
        ToolCallEnd("toolu_1", "f", "{}", {}, 0),
        Finish("tool_calls", Outcome.COMPLETED),
    ]
    ours = sdk_message(emitter.emit(parts, source))
    assert [b["type"] for b in ours["content"]] == ["tool_use", "text"]
    assert ours["content"][1]["citations"] == [CHAR]
