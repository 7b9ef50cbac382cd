"""What a conversation is made of: messages and their content, format-neutral.

A :class:`Message` is a role and a list of content: :class:`Text`,
:class:`Image`, :class:`Refusal`, a tool call (:class:`~sse_engine.parts.ToolCall`,
the parts' own class), a block of reasoning (:class:`~sse_engine.parts.ReasoningBlock`,
the parts' own), a :class:`ToolResult`, or :class:`Native`: an object only
one wire format has (an Anthropic document, a Responses ``web_search_call``
item, ...), kept as that format wrote it.

What no neutral field holds is kept, never thrown away: a piece's ``extra``
has the fields its format gave it beyond the neutral ones (Anthropic's
``cache_control``, a Chat message's ``name``), in the format named by the
message's ``format``. A body of that same format gets them back; a body of
another format names them in ``Rendered.dropped``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeAlias, final

import attrs

from sse_engine.parts import ReasoningBlock, ToolCall

__all__ = [
    "Content",
    "Image",
    "Message",
    "Native",
    "Refusal",
    "Role",
    "Text",
    "ToolResult",
    "ToolResultContent",
]

#: Who says a message: ``system`` and ``developer`` are instructions given as
#: messages (Chat Completions and Responses have both; a request's own
#: system prompt is :attr:`Conversation.system <sse_engine.conversation.Conversation.system>`).
Role: TypeAlias = Literal["system", "developer", "user", "assistant"]

# Mapping and list fields take no part in hashing (a dict is unhashable); they
# still take part in equality.
def _extra() -> Any:
    return attrs.field(factory=dict, kw_only=True, hash=False)


@final
@attrs.frozen
class Text:
    """Text in a message, a system prompt or a tool result."""

    text: str
    extra: Mapping[str, Any] = _extra()


@final
@attrs.frozen
class Image:
    """An image: by ``url`` (an ``https:`` URL, or a ``data:`` URL not in the base64 form
    below), or inline as base64 ``data`` with its ``media_type`` (``image/png``).

    ``detail`` is OpenAI's resolution hint (``low``, ``high``, ``auto``), None
    when not given. A ``data:<media type>;base64,<data>`` URL is read as
    ``data`` and ``media_type``, so it crosses to Anthropic's base64 source.
    """

    url: str | None = None
    data: str | None = None
    media_type: str | None = None
    detail: str | None = None
    extra: Mapping[str, Any] = _extra()

    def __attrs_post_init__(self) -> None:
        if (self.url is None) == (self.data is None):
            raise ValueError("an Image has a url or data, not both and not neither")
        if self.data is not None and not self.media_type:
            raise ValueError("an Image given as data needs its media_type")

    @classmethod
    def from_url(
        cls, url: str, *, detail: str | None = None, extra: Mapping[str, Any] | None = None
    ) -> Image:
        """The image at ``url``; a base64 ``data:`` URL becomes inline ``data``."""
        extra = {} if extra is None else extra
        inline = _split_data_url(url)
        if inline is None:
            return cls(url=url, detail=detail, extra=extra)
        return cls(data=inline[1], media_type=inline[0], detail=detail, extra=extra)

    @property
    def data_url(self) -> str:
        """The image as a URL: ``url``, or ``data`` as a base64 ``data:`` URL."""
        if self.url is not None:
            return self.url
        return f"data:{self.media_type};base64,{self.data}"


def _split_data_url(url: str) -> tuple[str, str] | None:
    """``(media_type, data)`` of a ``data:<type>/<subtype>;base64,<data>`` URL, else None.

    Only that exact form: one written back from the two parts is the same text.
    """
    if not url.startswith("data:"):
        return None
    comma = url.find(";base64,", 5)
    media_type = url[5:comma]
    if comma < 0 or media_type.count("/") != 1 or any(c in media_type for c in ";,=: "):
        return None
    return media_type, url[comma + 8 :]


@final
@attrs.frozen
class Refusal:
    """The assistant's refusal text (Chat's ``refusal``, a Responses refusal part)."""

    text: str
    extra: Mapping[str, Any] = _extra()


@final
@attrs.frozen
class Native:
    """An object of one wire format that no neutral class holds, kept exactly as it came.

    ``value`` is the object (an Anthropic ``document`` block, a Responses
    ``item_reference``, a Chat ``input_audio`` part, a hosted tool's
    definition, ...), ``format`` the wire format it is of. A body of that
    format gets it back in its place; any other names it in ``dropped``.
    """

    format: str
    value: Any = attrs.field(hash=False)


#: What a tool result holds: text, images, and what only its format has.
ToolResultContent: TypeAlias = Text | Image | Native


@final
@attrs.frozen
class ToolResult:
    """The output of the tool call ``call_id``, sent back to the model.

    ``content`` is plain text (a ``str``), or a list of :class:`Text`,
    :class:`Image` and :class:`Native` pieces. ``is_error``: the tool failed
    (Anthropic says so on the wire; the OpenAI formats have no place for it
    and name it in ``dropped``).
    """

    call_id: str
    content: str | list[ToolResultContent] = attrs.field(hash=False)
    is_error: bool = False
    extra: Mapping[str, Any] = _extra()


#: Any piece of a message.
Content: TypeAlias = Text | Image | Refusal | ToolCall | ReasoningBlock | ToolResult | Native


@final
@attrs.define
class Message:
    """One message: a role and its content, in order.

    Tool calls are in the assistant's message that made them; tool results
    in the user message that answers them (as Anthropic has them; a Chat
    ``tool`` message, a Responses ``function_call_output`` item is one).

    - ``format``: the wire format the message was read in (a body's, or the
      turn's for :meth:`Conversation.append
      <sse_engine.conversation.Conversation.append>`), None for one made by
      hand. Its ``extra`` fields, its :class:`Native` pieces and the opaque
      data of its reasoning blocks (signatures, encrypted content) belong to
      that format: only a body of it gets them back.
    - ``id``: the provider's id for the message (a Responses ``message``
      item's), None where it has none.
    - ``plain``: the format wrote the content as one plain string rather
      than a list of parts; a body that can write it so again does.
    - ``extra``: the message's fields no neutral one holds (a Chat ``name``).
    """

    role: Role
    content: list[Content] = attrs.field(factory=list)
    format: str | None = attrs.field(default=None, kw_only=True)
    id: str | None = attrs.field(default=None, kw_only=True)
    plain: bool = attrs.field(default=False, kw_only=True)
    extra: dict[str, Any] = attrs.field(factory=dict, kw_only=True)
