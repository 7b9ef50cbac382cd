"""The probe ``ab_revisions.py`` runs in each checkout's own process: best times as JSON.

It imports ``sse_engine`` from ``PYTHONPATH`` (the checkout under test), so it uses only
names every revision has.
"""

import json
import sys
import time
from collections.abc import Callable
from typing import Any

import sse_engine as se

DELTAS, FRAGMENTS = 2000, 400
WORDS = ["lorem ", "ipsum ", "dolor ", "sit ", "amet, ", "consectetur "]
ARGS = json.dumps({"city": "Paris", "notes": "x" * 4000})
PIECES = [
    ARGS[i : i + max(1, len(ARGS) // FRAGMENTS)]
    for i in range(0, len(ARGS), max(1, len(ARGS) // FRAGMENTS))
]


def sse(data: Any, event: str | None = None) -> str:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n"


def chat() -> str:
    base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    out = [sse({**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]})]
    for i in range(DELTAS):
        out.append(sse({**base, "choices": [{"index": 0, "delta": {"content": WORDS[i % 6]}}]}))
    call = {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": "w", "arguments": ""},
    }
    out.append(sse({**base, "choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}))
    for p in PIECES:
        d = {"tool_calls": [{"index": 0, "function": {"arguments": p}}]}
        out.append(sse({**base, "choices": [{"index": 0, "delta": d}]}))
    out.append(sse({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}))
    out.append("data: [DONE]\n\n")
    return "".join(out)


def responses() -> str:
    n = iter(range(10**9))

    def ev(kind: str, **f: Any) -> str:
        return sse({"type": kind, "sequence_number": next(n), **f}, kind)

    resp = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "model": "m",
        "status": "in_progress",
        "output": [],
    }
    out = [ev("response.created", response=resp)]
    msg = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "status": "in_progress",
        "content": [],
    }
    out.append(ev("response.output_item.added", output_index=0, item=msg))
    part = {"type": "output_text", "text": "", "annotations": []}
    out.append(
        ev(
            "response.content_part.added",
            item_id="msg_1",
            output_index=0,
            content_index=0,
            part=part,
        )
    )
    text = "".join(WORDS[i % 6] for i in range(DELTAS))
    for i in range(DELTAS):
        out.append(
            ev(
                "response.output_text.delta",
                item_id="msg_1",
                output_index=0,
                content_index=0,
                delta=WORDS[i % 6],
            )
        )
    out.append(
        ev("response.output_text.done", item_id="msg_1", output_index=0, content_index=0, text=text)
    )
    done_part = {**part, "text": text}
    out.append(
        ev(
            "response.content_part.done",
            item_id="msg_1",
            output_index=0,
            content_index=0,
            part=done_part,
        )
    )
    done_msg = {**msg, "status": "completed", "content": [done_part]}
    out.append(ev("response.output_item.done", output_index=0, item=done_msg))
    fc = {
        "id": "fc_1",
        "type": "function_call",
        "call_id": "call_1",
        "name": "w",
        "arguments": "",
        "status": "in_progress",
    }
    out.append(ev("response.output_item.added", output_index=1, item=fc))
    for p in PIECES:
        out.append(
            ev("response.function_call_arguments.delta", item_id="fc_1", output_index=1, delta=p)
        )
    out.append(
        ev("response.function_call_arguments.done", item_id="fc_1", output_index=1, arguments=ARGS)
    )
    done_fc = {**fc, "arguments": ARGS, "status": "completed"}
    out.append(ev("response.output_item.done", output_index=1, item=done_fc))
    usage = {
        "input_tokens": 5,
        "output_tokens": 7,
        "total_tokens": 12,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens_details": {"reasoning_tokens": 0},
    }
    final = {**resp, "status": "completed", "output": [done_msg, done_fc], "usage": usage}
    out.append(ev("response.completed", response=final))
    return "".join(out)


def messages() -> str:
    msg: dict[str, Any] = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 1},
    }
    out = [sse({"type": "message_start", "message": msg}, "message_start")]
    out.append(
        sse(
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            "content_block_start",
        )
    )
    for i in range(DELTAS):
        out.append(
            sse(
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": WORDS[i % 6]},
                },
                "content_block_delta",
            )
        )
    out.append(sse({"type": "content_block_stop", "index": 0}, "content_block_stop"))
    block = {"type": "tool_use", "id": "toolu_1", "name": "w", "input": {}}
    out.append(
        sse(
            {"type": "content_block_start", "index": 1, "content_block": block},
            "content_block_start",
        )
    )
    for p in PIECES:
        out.append(
            sse(
                {
                    "type": "content_block_delta",
                    "index": 1,
                    "delta": {"type": "input_json_delta", "partial_json": p},
                },
                "content_block_delta",
            )
        )
    out.append(sse({"type": "content_block_stop", "index": 1}, "content_block_stop"))
    out.append(
        sse(
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                "usage": {"output_tokens": 9},
            },
            "message_delta",
        )
    )
    out.append(sse({"type": "message_stop"}, "message_stop"))
    return "".join(out)


LANES: dict[str, type[Any]] = {
    "chat": se.ChatCompletionsLane, "responses": se.ResponsesLane, "messages": se.MessagesLane,
}
STREAMS: dict[str, Callable[[], str]] = {"chat": chat, "responses": responses, "messages": messages}
READ = 64 * 1024


def reads(data: bytes) -> list[bytes]:
    return [data[i : i + READ] for i in range(0, len(data), READ)]


def lane_only(fmt: str, chunks: list[bytes]) -> None:
    lane = LANES[fmt]()
    lane.start(200, {"content-type": "text/event-stream"})
    for c in chunks:
        lane.feed(c)
    lane.close()
    assert str(lane.outcome).lower().endswith("completed"), lane.outcome


def parts(fmt: str, chunks: list[bytes]) -> None:
    ps = se.PartStream(LANES[fmt]())
    ps.start(200, {"content-type": "text/event-stream"})
    for c in chunks:
        ps.feed(c)
    ps.close()


def relay(fmt: str, to: str, chunks: list[bytes]) -> None:
    lane = LANES[fmt]()
    r = se.Relay(lane, to=to)
    r.start(200, {"content-type": "text/event-stream"})
    for c in chunks:
        r.feed(c)
    r.close()


def best(fn: Callable[..., None], *args: Any) -> float:
    times = []
    for _ in range(int(sys.argv[1])):
        t = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t)
    return min(times)


result: dict[str, float] = {}
for fmt in LANES:
    chunks = reads(STREAMS[fmt]().encode())
    result[f"{fmt} lane"] = best(lane_only, fmt, chunks)
    result[f"{fmt} parts"] = best(parts, fmt, chunks)
    for to in LANES:
        result[f"{fmt} relay to {to}"] = best(relay, fmt, to, chunks)
print(json.dumps(result))
