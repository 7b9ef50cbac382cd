"""Conversation: the format-neutral request, read from any format's body and written as any.

It holds no format knowledge: :meth:`Conversation.from_body` and
:meth:`Conversation.to_body` ask the format's request codec in
``sse_engine.FORMATS`` (each format folder's ``_request.py``), and
:meth:`Conversation.append` keeps a turn in neutral form, with the format it
came from, so that each codec writes it back as its provider needs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from sse_engine.conversation._content import (
    Content,
    Message,
    Native,
    Refusal,
    Text,
    ToolResult,
    ToolResultContent,
)
from sse_engine.conversation._errors import InvalidRequest, request_codec
from sse_engine.conversation._fields import kind
from sse_engine.conversation._settings import Settings, Tool
from sse_engine.conversation._writer import Rendered
from sse_engine.parts import ToolCall, Turn

__all__ = ["Conversation"]


@attrs.define
class Conversation:
    """A request to a model, in no format's shape: read from one, written as any.

    - ``system``: the request's own system prompt (Responses
      ``instructions``, Anthropic's ``system``: a string, or a list of
      :class:`~sse_engine.conversation.Text` blocks); Chat Completions has no
      such field and writes it as a leading ``system`` message. Instructions
      given as messages are messages (role ``system`` or ``developer``).
    - ``messages``: the :class:`~sse_engine.conversation.Message` list, in order.
    - ``tools``: :class:`~sse_engine.conversation.Tool` definitions, and the
      provider's own tools as :class:`~sse_engine.conversation.Native`.
    - ``settings``: :class:`~sse_engine.conversation.Settings`.
    - ``format``: the wire format the conversation was read from (None for
      one made by hand): the owner of the ``extra`` fields of ``system``'s
      blocks, as ``Message.format`` is of a message's.

    See ``docs/conversation.md``.
    """

    messages: list[Message] = attrs.field(factory=list)
    system: str | list[Text] | None = attrs.field(default=None, kw_only=True)
    tools: list[Tool | Native] = attrs.field(factory=list, kw_only=True)
    settings: Settings = attrs.field(factory=Settings, kw_only=True)
    format: str | None = attrs.field(default=None, kw_only=True)

    @classmethod
    def from_body(cls, format: str, body: Mapping[str, Any]) -> Conversation:
        """The conversation of a request body of ``format`` (``"chat"``, ``"responses"``, ...).

        ``body`` is the JSON object as received (``model`` and ``stream`` are
        the request's, not the conversation's: give them to :meth:`to_body`).
        Raises :class:`~sse_engine.conversation.InvalidRequest`, naming the
        path, for a body that is not one of that format; ``ValueError`` for a
        format without a request codec.
        """
        codec = request_codec(format)
        if not isinstance(body, Mapping):
            raise InvalidRequest("", f"expected a JSON object, got {kind(body)}")
        conversation: Conversation = codec.read(body)
        return conversation

    def to_body(self, format: str, *, model: str | None, stream: bool = True) -> Rendered:
        """The conversation as a request body of ``format``, for ``model`` (None: the body
        names no model, where the format allows that, as Responses with a stored prompt does).

        The result's ``body`` is what to send; its ``dropped`` names, by
        path, whatever that format cannot carry (another provider's
        reasoning, a hosted tool it lacks, a setting it has no field for).
        """
        rendered: Rendered = request_codec(format).write(self, model, stream)
        return rendered

    def append(self, turn: Turn) -> Message:
        """Add the assistant's ``turn`` (a :class:`~sse_engine.parts.Turn`), as its provider
        needs it back; return the new message.

        The message holds the turn's finished blocks of reasoning first (each
        with its signature or encrypted content), then its text, its refusal,
        and its finished tool calls, and says the turn's ``format`` and
        message id: written to that format, the reasoning goes back as its
        provider requires (Anthropic ``thinking`` blocks before ``tool_use``,
        Responses ``reasoning`` items with ``id`` and ``encrypted_content``);
        written to another, it is named in ``dropped``. Calls cut off before
        they finished (``call.done`` False) are left out: their input is not whole.
        """
        content: list[Content] = list(turn.reasoning_blocks)
        if turn.text:
            content.append(Text(turn.text))
        if turn.refusal:
            content.append(Refusal(turn.refusal))
        content.extend(call for call in turn.tool_calls if call.done)
        message = Message(
            "assistant", content, format=turn.format, id=turn.message_id, plain=True
        )
        self.messages.append(message)
        return message

    def add_tool_result(
        self, call_id: str, output: str | list[ToolResultContent], *, is_error: bool = False
    ) -> ToolResult:
        """Answer the tool call ``call_id`` with ``output`` (text, or a list of pieces).

        Results of one turn's calls go together in one user message, as
        Anthropic requires; each format writes them its own way (Chat ``tool``
        messages, Responses ``function_call_output`` items). Raises
        ``ValueError`` when no assistant message has a call ``call_id``.
        """
        if not any(
            isinstance(piece, ToolCall) and piece.id == call_id
            for message in reversed(self.messages)
            if message.role == "assistant"
            for piece in message.content
        ):
            raise ValueError(f"no assistant message has a tool call {call_id!r}")
        result = ToolResult(call_id, output, is_error)
        last = self.messages[-1]
        if last.role == "user" and last.content and all(
            isinstance(piece, ToolResult) for piece in last.content
        ):
            last.content.append(result)
        else:
            self.messages.append(Message("user", [result]))
        return result
