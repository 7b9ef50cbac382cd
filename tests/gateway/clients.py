"""The SDK clients pointed at a gateway, and what each format's client makes of a turn."""

from __future__ import annotations

from typing import Any

import anthropic
import loopback
import openai
from relay_oracles import Seen, completion_seen, message_seen, response_seen
from server import capture_bytes

from sse_engine import FORMATS, PartStream
from sse_engine.parts import Turn

CLIENTS = ("chat", "responses", "messages")
UPSTREAMS = ("chat", "messages")
PROMPT = [{"role": "user", "content": "What is the weather in Zürich?"}]
_SCHEMA = {"type": "object", "properties": {"location": {"type": "string"}}}
#: The tool of the captures (get_weather), as each client format declares it.
TOOLS: dict[str, list[dict[str, Any]]] = {
    "chat": [
        {
            "type": "function",
            "function": {"name": "get_weather", "description": "Weather", "parameters": _SCHEMA},
        }
    ],
    "responses": [
        {"type": "function", "name": "get_weather", "description": "Weather", "parameters": _SCHEMA}
    ],
    "messages": [{"name": "get_weather", "description": "Weather", "input_schema": _SCHEMA}],
}


def openai_client(url: str) -> openai.OpenAI:
    """The OpenAI SDK's client of the gateway at ``url``: no retries, so a test sees each answer."""
    return loopback.openai_client(f"{url}/v1", api_key="sk-client", max_retries=0, timeout=10.0)


def anthropic_client(url: str) -> anthropic.Anthropic:
    """The Anthropic SDK's client of the gateway at ``url``: no retries, as above."""
    return loopback.anthropic_client(url, api_key="sk-ant-client", max_retries=0, timeout=10.0)


def capture_turn(name: str) -> Turn:
    """The turn a bundled capture holds, read by its own format's lane."""
    stream = PartStream(FORMATS[name.split("_", 1)[0]].lane())
    stream.feed(capture_bytes(name))
    stream.close()
    return stream.turn


def ask(url: str, client: str, *, stream: bool, messages: Any = None, **extra: Any) -> Any:
    """One request through the gateway with ``client``'s SDK; the SDK's final object."""
    messages = PROMPT if messages is None else messages
    if client == "chat":
        chat = openai_client(url).chat.completions
        if not stream:
            return chat.create(model="gw", messages=messages, **extra)
        with chat.stream(model="gw", messages=messages, **extra) as events:
            for _ in events:
                pass
            return events.get_final_completion()
    if client == "responses":
        responses = openai_client(url).responses
        if not stream:
            return responses.create(model="gw", input=messages, **extra)
        with responses.stream(model="gw", input=messages, **extra) as events:
            for _ in events:
                pass
            return events.get_final_response()
    sdk = anthropic_client(url).messages
    if not stream:
        return sdk.create(model="gw", max_tokens=256, messages=messages, **extra)
    with sdk.stream(model="gw", max_tokens=256, messages=messages, **extra) as events:
        return events.get_final_message()


def seen(client: str, final: Any) -> Seen:
    """The SDK's final object in the words every format shares."""
    if client == "chat":
        return completion_seen(final)
    if client == "responses":
        return response_seen(final)
    return message_seen(final)


def tool_loop_turn(client: str, final: Any, prompt: list[dict[str, Any]]) -> tuple[Any, str]:
    """The next request's messages: the prompt, the assistant's turn as the client's SDK
    returned it, and a result for its first tool call; and that call's id."""
    if client == "chat":
        message = final.choices[0].message
        call = message.tool_calls[0]
        assistant = message.model_dump(exclude_none=True)
        result = {"role": "tool", "tool_call_id": call.id, "content": "18 degrees, sunny"}
        return [*prompt, assistant, result], call.id
    if client == "responses":
        items = [item.model_dump(exclude_none=True) for item in final.output]
        call = next(item for item in final.output if item.type == "function_call")
        result = {"type": "function_call_output", "call_id": call.call_id, "output": "18 degrees"}
        return [*prompt, *items, result], call.call_id
    blocks = [block.model_dump(exclude_none=True) for block in final.content]
    use = next(block for block in final.content if block.type == "tool_use")
    answer = {"type": "tool_result", "tool_use_id": use.id, "content": "18 degrees, sunny"}
    return [
        *prompt,
        {"role": "assistant", "content": blocks},
        {"role": "user", "content": [answer]},
    ], use.id
