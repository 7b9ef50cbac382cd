"""Conversation: the request side, format-neutral. Any format's request body to one form and
back, and an assistant :class:`~sse_engine.parts.Turn` appended as its provider needs it.

:class:`Conversation` (``from_body``, ``to_body``, ``append``,
``add_tool_result``) holds :class:`Message` objects of :data:`Content`
(:class:`Text`, :class:`Image`, :class:`Refusal`, :class:`ToolResult`,
:class:`Native`, and the parts' :class:`~sse_engine.parts.ToolCall` and
:class:`~sse_engine.parts.ReasoningBlock`), :class:`Tool` definitions and
:class:`Settings`. It knows no format: each format folder's ``_request.py``
is a :class:`RequestCodec` in ``sse_engine.FORMATS``. See ``docs/conversation.md``.

For a format folder's codec: :class:`RequestCodec`, :class:`Writer` and
:func:`merge` (writing), the field readers of ``_fields`` (``need_dict``,
``opt_str``, ..., each naming the path it failed at) and the tool-input
helpers (``call_arguments``, ``call_input``, ``parse_arguments``, ``dumps``).
"""

from __future__ import annotations

from sse_engine._public import publish as _publish
from sse_engine.conversation._codec import RequestCodec
from sse_engine.conversation._content import (
    Content,
    Image,
    Message,
    Native,
    Refusal,
    Role,
    Text,
    ToolResult,
    ToolResultContent,
)
from sse_engine.conversation._conversation import Conversation
from sse_engine.conversation._errors import InvalidRequest
from sse_engine.conversation._fields import (
    at,
    field,
    kind,
    need_bool,
    need_dict,
    need_int,
    need_list,
    need_number,
    need_str,
    opt_bool,
    opt_dict,
    opt_int,
    opt_number,
    opt_str,
    unread,
)
from sse_engine.conversation._json import call_arguments, call_input, dumps, parse_arguments
from sse_engine.conversation._settings import (
    Reasoning,
    ResponseFormat,
    Settings,
    Tool,
    ToolChoice,
    ToolChoiceMode,
)
from sse_engine.conversation._writer import Rendered, Writer, merge
from sse_engine.parts import ReasoningBlock, ToolCall

__all__ = [
    "Content",
    "Conversation",
    "Image",
    "InvalidRequest",
    "Message",
    "Native",
    "Reasoning",
    "ReasoningBlock",
    "Refusal",
    "Rendered",
    "RequestCodec",
    "ResponseFormat",
    "Role",
    "Settings",
    "Text",
    "Tool",
    "ToolCall",
    "ToolChoice",
    "ToolChoiceMode",
    "ToolResult",
    "ToolResultContent",
    "Writer",
    "at",
    "call_arguments",
    "call_input",
    "dumps",
    "field",
    "kind",
    "merge",
    "need_bool",
    "need_dict",
    "need_int",
    "need_list",
    "need_number",
    "need_str",
    "opt_bool",
    "opt_dict",
    "opt_int",
    "opt_number",
    "opt_str",
    "parse_arguments",
    "unread",
]

_publish(__name__)  # help() and pickles show this module, not the private ones
