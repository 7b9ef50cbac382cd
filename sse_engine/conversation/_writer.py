"""What every format's request writer shares: its own fields kept, everyone else's named.

A format's writer (``sse_engine/<format>/_request.py``) turns a
:class:`~sse_engine.conversation.Conversation` into its body and holds a
:class:`Writer`, which says whether a piece belongs to the target format
and writes down, by path, everything the target cannot carry: the
``dropped`` of the result. Format-neutral: it never names a format.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, final

import attrs

__all__ = ["Rendered", "Writer", "merge"]


@final
@attrs.frozen
class Rendered:
    """A conversation as one format's request body.

    ``body`` is the JSON-ready dict to send; ``dropped`` names, by path in
    the conversation (``messages[3].content[0]``, ``tools[2]``,
    ``settings.stop``, ``settings.extra.chat.logprobs``), each thing the
    format could not carry, in the order met: nothing is lost silently.
    """

    body: dict[str, Any] = attrs.field(hash=False)
    dropped: tuple[str, ...] = ()


class Writer:
    """The target format's name and what it could not carry, for one body being written."""

    __slots__ = ("dropped", "format", "lost_calls")

    def __init__(self, format: str) -> None:
        self.format = format
        self.dropped: list[str] = []
        #: The ids of tool calls that could not be carried: their results go with them
        #: (an API rejects a result that answers no call).
        self.lost_calls: set[str] = set()

    def drop(self, path: str) -> None:
        """``path`` could not be carried."""
        self.dropped.append(path)

    def drop_call(self, call_id: str, path: str) -> None:
        """The tool call ``call_id`` at ``path`` could not be carried (nor can its result)."""
        self.lost_calls.add(call_id)
        self.dropped.append(path)

    def answers_lost_call(self, call_id: str, path: str) -> bool:
        """Whether a result for ``call_id`` answers a call that was not carried (then named)."""
        if call_id in self.lost_calls:
            self.dropped.append(path)
            return True
        return False

    def extra(self, owner: str | None, extra: Mapping[str, Any], path: str) -> Mapping[str, Any]:
        """``extra`` when its ``owner`` format is the target; else none, each field named."""
        if not extra or owner == self.format:
            return extra
        self.dropped.extend(f"{path}.{key}" for key in extra)
        return {}

    def settings_extra(self, extra: Mapping[str, Mapping[str, Any]]) -> Mapping[str, Any]:
        """The target's own extra settings; those of every other format are named."""
        own: Mapping[str, Any] = {}
        for name, fields in extra.items():
            if name == self.format:
                own = fields
            else:
                self.dropped.extend(f"settings.extra.{name}.{key}" for key in fields)
        return own

    def rendered(self, body: dict[str, Any]) -> Rendered:
        return Rendered(body, tuple(self.dropped))


def merge(body: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """``body`` with ``extra``'s fields added: an object both have is merged one level
    deep (the neutral ``reasoning.effort`` beside a body's own ``reasoning.summary``),
    otherwise ``extra``'s value wins (a field the neutral form only approximates)."""
    for key, value in extra.items():
        mine = body.get(key)
        if isinstance(mine, dict) and isinstance(value, Mapping):
            body[key] = {**mine, **value}
        else:
            body[key] = value
    return body
