"""Builders of Responses streams and the openai SDK oracle, shared by tests/test_responses*.py.

:func:`stream_events` turns a final response (its output items) into the event
sequence the API streams for it; :func:`frames` serialises events as the wire
has them; :func:`sdk_run` runs the official SDK's streaming path on the same
bytes, offline.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import httpx

from sse_engine import LaneEvent
from sse_engine.responses import ResponsesLane

CAPTURES = Path(__file__).resolve().parents[2] / "sse_engine" / "captures"

RESP_ID = "resp_68a1f0c2d4e84c3b9f1e2a7d6c5b4a39"
CREATED_AT = 1754000000


def capture(name: str) -> bytes:
    return (CAPTURES / name).read_bytes()


def response_obj(status: str, output: list[Any] | None = None, **fields: Any) -> dict[str, Any]:
    """A response object as the API sends it (``output`` omitted when None)."""
    obj: dict[str, Any] = {
        "id": RESP_ID,
        "object": "response",
        "created_at": CREATED_AT,
        "status": status,
        "background": False,
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "max_output_tokens": None,
        "model": "gpt-4.1-2025-04-14",
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "reasoning": {"effort": None, "summary": None},
        "store": True,
        "temperature": 1.0,
        "text": {"format": {"type": "text"}},
        "tool_choice": "auto",
        "tools": [],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": None,
        "user": None,
        "metadata": {},
    }
    if output is not None:
        obj["output"] = output
    obj.update(fields)
    return obj


def usage(input_tokens: int = 812, output_tokens: int = 96, reasoning: int = 0) -> dict[str, Any]:
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": reasoning},
        "total_tokens": input_tokens + output_tokens,
    }


# -- final output items ------------------------------------------------------------------


def message(ident: str, *texts: str, refusal: str | None = None) -> dict[str, Any]:
    content: list[dict[str, Any]] = [
        {"type": "output_text", "annotations": [], "logprobs": [], "text": t} for t in texts
    ]
    if refusal is not None:
        content.append({"type": "refusal", "refusal": refusal})
    return {
        "id": ident,
        "type": "message",
        "status": "completed",
        "content": content,
        "role": "assistant",
    }


def function_call(ident: str, name: str, arguments: str, call_id: str) -> dict[str, Any]:
    return {
        "id": ident,
        "type": "function_call",
        "status": "completed",
        "arguments": arguments,
        "call_id": call_id,
        "name": name,
    }


def reasoning(ident: str, *summaries: str) -> dict[str, Any]:
    return {
        "id": ident,
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": s} for s in summaries],
    }


def tool_item(kind: str, ident: str, **fields: Any) -> dict[str, Any]:
    return {"id": ident, "type": kind, **fields}


# -- the events that stream an item ---------------------------------------------------------


def pieces(text: str, size: int = 7) -> list[str]:
    """Split ``text`` the way a tokenizer streams it (never an empty delta)."""
    return [text[i : i + size] for i in range(0, len(text), size)] or []


def _opening(item: dict[str, Any]) -> dict[str, Any]:
    """The item as ``output_item.added`` announces it: in progress, nothing streamed yet."""
    kind = item["type"]
    opened = {k: v for k, v in item.items()}
    if "status" in opened:
        opened["status"] = "in_progress"
    if kind == "message":
        opened["content"] = []
    elif kind == "reasoning":
        opened["summary"] = []
    elif kind in ("function_call", "mcp_call", "kindo_call"):
        opened["arguments"] = ""
    elif kind == "custom_tool_call":
        opened["input"] = ""
    elif kind == "shell_call":
        opened["action"] = {**item["action"], "commands": []}
    return opened


def item_events(index: int, item: dict[str, Any], *, deltas: bool = True) -> list[dict[str, Any]]:
    """The events that stream one output item (without ``sequence_number``)."""
    kind = item["type"]
    ident = item.get("id")
    ref = {"item_id": ident, "output_index": index}
    out: list[dict[str, Any]] = []
    if not deltas:
        return [{"type": "response.output_item.done", "output_index": index, "item": item}]
    out.append(
        {"type": "response.output_item.added", "output_index": index, "item": _opening(item)}
    )
    if kind == "message":
        for ci, part in enumerate(item["content"]):
            pref = {**ref, "content_index": ci}
            if part["type"] == "output_text":
                empty = {**part, "text": "", "annotations": []}
                out.append({"type": "response.content_part.added", **pref, "part": empty})
                for piece in pieces(part["text"]):
                    out.append(
                        {
                            "type": "response.output_text.delta",
                            **pref,
                            "delta": piece,
                            "logprobs": [],
                        }
                    )
                for ai, annotation in enumerate(part["annotations"]):
                    out.append(
                        {
                            "type": "response.output_text.annotation.added",
                            **pref,
                            "annotation_index": ai,
                            "annotation": annotation,
                        }
                    )
                out.append(
                    {
                        "type": "response.output_text.done",
                        **pref,
                        "text": part["text"],
                        "logprobs": [],
                    }
                )
            else:
                empty = {**part, "refusal": ""}
                out.append({"type": "response.content_part.added", **pref, "part": empty})
                for piece in pieces(part["refusal"]):
                    out.append({"type": "response.refusal.delta", **pref, "delta": piece})
                out.append({"type": "response.refusal.done", **pref, "refusal": part["refusal"]})
            out.append({"type": "response.content_part.done", **pref, "part": part})
    elif kind == "reasoning":
        for si, part in enumerate(item["summary"]):
            sref = {**ref, "summary_index": si}
            out.append(
                {
                    "type": "response.reasoning_summary_part.added",
                    **sref,
                    "part": {"type": "summary_text", "text": ""},
                }
            )
            for piece in pieces(part["text"]):
                out.append(
                    {"type": "response.reasoning_summary_text.delta", **sref, "delta": piece}
                )
            out.append(
                {"type": "response.reasoning_summary_text.done", **sref, "text": part["text"]}
            )
            out.append({"type": "response.reasoning_summary_part.done", **sref, "part": part})
    elif kind in ("function_call", "mcp_call", "kindo_call"):
        name = {
            "function_call": "function_call_arguments",
            "mcp_call": "mcp_call_arguments",
            "kindo_call": "kindo_call_arguments",
        }[kind]
        if kind == "mcp_call":
            out.append({"type": "response.mcp_call.in_progress", **ref})
        for piece in pieces(item["arguments"]):
            out.append({"type": f"response.{name}.delta", **ref, "delta": piece})
        out.append({"type": f"response.{name}.done", **ref, "arguments": item["arguments"]})
        if kind == "mcp_call":
            out.append({"type": "response.mcp_call.completed", **ref})
    elif kind == "custom_tool_call":
        out.append({"type": "response.custom_tool_call_input.delta", **ref, "delta": item["input"]})
        out.append({"type": "response.custom_tool_call_input.done", **ref, "input": item["input"]})
    elif kind == "web_search_call":
        for status in ("in_progress", "searching", "completed"):
            out.append({"type": f"response.web_search_call.{status}", **ref})
    elif kind == "shell_call":
        for ci, command in enumerate(item["action"]["commands"]):
            cref = {"output_index": index, "command_index": ci}
            out.append({"type": "response.shell_call_command.added", **cref, "command": ""})
            for piece in pieces(command):
                out.append({"type": "response.shell_call_command.delta", **cref, "delta": piece})
            out.append({"type": "response.shell_call_command.done", **cref, "command": command})
    out.append({"type": "response.output_item.done", "output_index": index, "item": item})
    return out


def stream_events(
    output: list[dict[str, Any]],
    *,
    terminal: str = "response.completed",
    final: dict[str, Any] | None = None,
    omit_output: bool = False,
    deltas: bool = True,
) -> list[dict[str, Any]]:
    """The whole event sequence of a response whose output is ``output``.

    ``final`` is the terminal response object (by default a completed one with
    ``output`` and usage); ``omit_output`` drops ``output`` from it.
    """
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": response_obj("in_progress", [])},
        {"type": "response.in_progress", "response": response_obj("in_progress", [])},
    ]
    for index, item in enumerate(output):
        events += item_events(index, item, deltas=deltas)
    if final is None:
        status = {
            "response.completed": "completed",
            "response.incomplete": "incomplete",
            "response.failed": "failed",
        }[terminal]
        final = response_obj(status, output, usage=usage())
    if omit_output:
        final = {k: v for k, v in final.items() if k != "output"}
    events.append({"type": terminal, "response": final})
    return events


def frames(
    events: Iterable[dict[str, Any]], *, start: int = 0, ids: bool = False, numbered: bool = True
) -> bytes:
    """Serialise events as the API does: ``event:`` + ``data:`` (+ ``id:``), numbered from
    ``start`` (``numbered=False``: no ``sequence_number``, as in some gateways' examples)."""
    out: list[str] = []
    seq = start
    for event in events:
        payload = {"type": event["type"], **event}
        if numbered and "sequence_number" not in payload:
            payload["sequence_number"] = seq
        head = f"id: {payload['sequence_number']}\n" if ids and numbered else ""
        data = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
        out.append(f"{head}event: {event['type']}\ndata: {data}\n\n")
        seq += 1
    return "".join(out).encode()


def event_spans(body: bytes) -> list[tuple[int, int]]:
    """The byte span of each event of ``body`` (which uses ``\\n\\n`` between events)."""
    spans, start = [], 0
    while True:
        end = body.find(b"\n\n", start)
        if end < 0:
            return spans
        spans.append((start, end + 2))
        start = end + 2


# -- running the lane -------------------------------------------------------------------------


def run(
    body: bytes, chunks: Iterable[int] | None = None, **options: Any
) -> tuple[ResponsesLane, list[LaneEvent]]:
    """Feed ``body`` (whole, or cut at the ``chunks`` sizes) and close."""
    lane = ResponsesLane(**options)
    events: list[LaneEvent] = []
    for piece in split(body, chunks):
        events += lane.feed(piece)
    events += lane.close()
    return lane, events


def split(body: bytes, sizes: Iterable[int] | None) -> Iterator[bytes]:
    if sizes is None:
        yield body
        return
    pos = 0
    for size in sizes:
        if pos >= len(body):
            return
        yield body[pos : pos + size]
        pos += size
    if pos < len(body):
        yield body[pos:]


# -- the SDK oracle ---------------------------------------------------------------------------


def sdk_run(body: bytes) -> tuple[Any, list[Any]]:
    """The openai SDK's streaming path on ``body``: ``(ResponseStream, events)``, offline.

    ``openai.Stream`` over an in-memory response, wrapped in the SDK's
    ``ResponseStream`` (what ``client.responses.stream()`` returns); no
    request is ever sent.
    """
    from loopback import openai_client
    from openai import Stream
    from openai._types import omit
    from openai.lib.streaming.responses import ResponseStream
    from openai.types.responses import ResponseStreamEvent

    response = httpx.Response(
        200,
        headers={"content-type": "text/event-stream"},
        content=body,
        request=httpx.Request("POST", "https://example.invalid/v1/responses"),
    )
    client = openai_client("https://example.invalid/v1")
    raw = Stream(cast_to=ResponseStreamEvent, response=response, client=client)  # type: ignore[arg-type]
    stream = ResponseStream(raw_stream=raw, text_format=omit, input_tools=omit, starting_after=None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unknown item types warn on serialisation
        events = list(stream)
    return stream, events


def sdk_dump(model: Any) -> dict[str, Any]:
    """The SDK's object as JSON, minus the fields only its parsing helpers add."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dumped: dict[str, Any] = model.model_dump(mode="json", exclude_unset=True)
    return strip_sdk_additions(dumped)


def strip_sdk_additions(value: Any) -> Any:
    """Drop ``parsed`` (output_text) and ``parsed_arguments`` (function_call): the SDK's own
    structured-output helpers add them; they are not in the API's object."""
    if isinstance(value, dict):
        return {
            k: strip_sdk_additions(v)
            for k, v in value.items()
            if k not in ("parsed", "parsed_arguments")
        }
    if isinstance(value, list):
        return [strip_sdk_additions(v) for v in value]
    return value


def sdk_final(body: bytes) -> dict[str, Any]:
    """``get_final_response()`` of the SDK, as JSON."""
    stream, _ = sdk_run(body)
    return sdk_dump(stream.get_final_response())


def sdk_terminal_response(body: bytes) -> dict[str, Any]:
    """The response object of the SDK's last lifecycle event (failed / incomplete streams,
    where ``get_final_response()`` raises)."""
    _, events = sdk_run(body)
    return sdk_dump(events[-1].response)
