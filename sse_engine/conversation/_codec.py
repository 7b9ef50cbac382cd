"""RequestCodec: what a wire format gives its ``FORMATS`` row so that Conversation can use it.

A format folder's ``_request.py`` provides the three functions and its
``__init__`` puts ``RequestCodec(read=..., write=..., error_body=...)`` in
its row's ``request``: that is all it takes for ``Conversation.from_body``
and ``to_body`` to serve the format.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, final

import attrs

from sse_engine._outcome import StreamError
from sse_engine.conversation._conversation import Conversation
from sse_engine.conversation._writer import Rendered

__all__ = ["RequestCodec"]


@final
@attrs.frozen
class RequestCodec:
    """One wire format's request bodies to and from :class:`Conversation`.

    - ``read(body)``: a body (a JSON object) as a conversation; raises only
      :class:`~sse_engine.conversation.InvalidRequest`, naming the path.
      Every message, tool and content piece it makes says the format
      (``Message.format``, ``Tool.format``, ``Native.format``); what no
      neutral field holds goes to their ``extra`` and ``settings.extra[name]``.
    - ``write(conversation, model, stream)``: the body, and by path what the
      format could not carry (:class:`Rendered`); a body read by ``read``
      comes back equal (``docs/conversation.md`` says what "equal" sets aside).
    - ``error_body(error)``: the format's error envelope for a failure (the
      400 body of an :class:`~sse_engine.conversation.InvalidRequest`).
    """

    read: Callable[[Mapping[str, Any]], Conversation]
    write: Callable[[Conversation, str | None, bool], Rendered]
    error_body: Callable[[StreamError], dict[str, Any]]
