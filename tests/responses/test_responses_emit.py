"""Parts to Responses (``responses/_emit.py``): what a Responses relay writes, read by the SDK.

Relayed Responses to Responses, the openai SDK's ``ResponseStream`` sees the
source's ids: the response's, each item's and each call's (what a client
sends back). A built-in tool the client runs (a shell, a patch) is written
as a function call named after the tool.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_responses_support import sdk_run

from sse_engine import ResponsesLane
from sse_engine.relay import Relay

# The openai SDK's own models warn while serialising the Kindo capture's custom
# item types (kindo_call): the SDK oracle's noise, not ours; the ids are compared.
pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")

CAPTURES = Path(__file__).resolve().parents[2] / "sse_engine" / "captures"
#: The items a Responses relay writes (server-run tool calls are not relayed).
CLIENT_ITEMS = ("message", "function_call", "custom_tool_call", "reasoning")
#: Built-in tools the client runs: relayed as a function call named after the tool.
BUILT_IN_CALLS = ("shell_call", "local_shell_call", "apply_patch_call")
RESPONSES = ["responses_basic.sse", "responses_kindo_agent.sse", "responses_truncated.sse",
             "responses_reasoning.sse", "responses_refusal.sse", "responses_max_tokens.sse"]


def relayed(data: bytes) -> bytes:
    relay = Relay(ResponsesLane(), to="responses", created=1754000000)
    return relay.feed(data) + relay.close()


def _written(item: Any) -> tuple[Any, ...] | None:
    """What a relay writes for ``item``: its kind, id and call id (None: nothing)."""
    kind = item.type
    if kind in BUILT_IN_CALLS and getattr(item, "environment", None) is None:
        kind = "function_call"
    elif kind not in CLIENT_ITEMS:
        return None
    return kind, item.id, getattr(item, "call_id", None)


def response_items(data: bytes) -> tuple[str | None, list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """What ``ResponseStream`` makes of ``data``: the response id, the ids of the client's
    items as they opened, and as the final response holds them (if it completed)."""
    stream, events = sdk_run(data)
    opened: list[tuple[Any, ...]] = []
    response_id = None
    for event in events:
        if event.type == "response.created":
            response_id = event.response.id
        elif event.type == "response.output_item.added" and (seen := _written(event.item)):
            opened.append(seen)
    final: list[tuple[Any, ...]] = []
    try:
        response = stream.get_final_response()
    except RuntimeError:  # it failed or was cut: no final response
        pass
    else:
        final = [seen for item in response.output if (seen := _written(item))]
    return response_id, opened, final


@pytest.mark.parametrize("name", RESPONSES)
def test_a_responses_relay_keeps_the_response_item_and_call_ids(name: str) -> None:
    data = (CAPTURES / name).read_bytes()
    source = response_items(data)
    assert source[1], "the capture has items to keep"
    assert response_items(relayed(data)) == source


def test_the_captures_hold_message_and_call_items() -> None:
    """The test above sees message items, both kinds of client tool call, a built-in one."""
    kinds = set()
    for name in RESPONSES:
        kinds |= {kind for kind, _, _ in response_items((CAPTURES / name).read_bytes())[1]}
    assert {"message", "function_call", "custom_tool_call"} <= kinds
    kindo = response_items((CAPTURES / "responses_kindo_agent.sse").read_bytes())[1]
    assert ("function_call", "sh_01", "call_sh_01") in kindo  # the shell call, as written
