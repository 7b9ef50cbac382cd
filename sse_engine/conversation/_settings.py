"""What a request asks of the model besides the messages: its tools and its settings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeAlias, final

import attrs

__all__ = [
    "Reasoning",
    "ResponseFormat",
    "Settings",
    "Tool",
    "ToolChoice",
    "ToolChoiceMode",
]


@final
@attrs.frozen
class Tool:
    """A tool the model may call, defined by the client.

    ``input_schema`` is the JSON schema of its input (None: the format's
    "no parameters"), ``strict`` asks the provider to hold the model to it
    (None: not said). ``custom`` marks an OpenAI custom tool, whose input is
    plain text rather than JSON: its input ``format`` (``{"type": "text"}``,
    or ``{"type": "grammar", "definition": ..., "syntax": ...}``; ``{}`` when
    not given), None for a function tool. ``format`` and ``extra``: the wire format the definition
    was read in and its fields no neutral one holds (``cache_control``,
    ``defer_loading``, ...), as for a :class:`~sse_engine.conversation.Message`.
    A tool the provider defines itself (web search, code execution, MCP,
    computer use) is a :class:`~sse_engine.conversation.Native` in
    ``Conversation.tools``.
    """

    name: str
    description: str | None = None
    input_schema: Mapping[str, Any] | None = attrs.field(default=None, hash=False)
    strict: bool | None = None
    custom: Mapping[str, Any] | None = attrs.field(default=None, kw_only=True, hash=False)
    format: str | None = attrs.field(default=None, kw_only=True)
    extra: Mapping[str, Any] = attrs.field(factory=dict, kw_only=True, hash=False)


ToolChoiceMode: TypeAlias = Literal["auto", "none", "required", "tool"]


@final
@attrs.frozen
class ToolChoice:
    """Whether the model must call a tool: ``auto`` (it decides), ``none``, ``required``
    (some tool: Anthropic's ``any``), or ``tool``: the one named ``name``."""

    mode: ToolChoiceMode
    name: str | None = None


@final
@attrs.frozen
class Reasoning:
    """How much the model should think: an ``effort`` word (``low``, ``medium``, ``high``,
    ...) and/or a token ``budget_tokens`` (Anthropic's thinking budget)."""

    effort: str | None = None
    budget_tokens: int | None = None


@final
@attrs.frozen
class ResponseFormat:
    """The answer must be JSON: matching ``schema`` (a JSON schema), or any JSON object
    when ``schema`` is None. ``name``, ``description`` and ``strict`` are OpenAI's."""

    schema: Mapping[str, Any] | None = attrs.field(default=None, hash=False)
    name: str | None = None
    description: str | None = None
    strict: bool | None = None


@final
@attrs.define(kw_only=True)
class Settings:
    """The request's settings; None means "not said" (the API's default).

    ``max_tokens`` is the cap on output tokens, reasoning included (Chat
    ``max_completion_tokens`` or ``max_tokens``, Responses
    ``max_output_tokens``, Messages ``max_tokens``). ``stop`` is a string or
    a list of them. ``parallel_tool_calls`` False is Anthropic's
    ``disable_parallel_tool_use``. ``user`` is the end user's id (Anthropic's
    ``metadata.user_id``); ``metadata`` the OpenAI formats' string pairs.

    ``extra`` holds, by format name, the body's settings no neutral field
    holds (``{"chat": {"n": 2, "logprobs": True}}``): a body of that format
    gets them back, any other names them in ``dropped``. ``spelling``, by
    format name, says which of a format's keys a body used for a neutral
    field that format spells two ways (Chat's ``max_tokens`` and
    ``max_completion_tokens``); it carries no content, and other formats
    ignore it.
    """

    max_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    stop: str | list[str] | None = None
    tool_choice: ToolChoice | None = None
    parallel_tool_calls: bool | None = None
    reasoning: Reasoning | None = None
    response_format: ResponseFormat | None = None
    user: str | None = None
    metadata: dict[str, str] | None = None
    extra: dict[str, dict[str, Any]] = attrs.field(factory=dict)
    spelling: dict[str, dict[str, str]] = attrs.field(factory=dict)
