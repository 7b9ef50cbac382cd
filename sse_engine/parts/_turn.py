"""The assistant turn the parts add up to: :class:`Turn`, its :class:`ToolCall` and
:class:`ReasoningBlock` objects.

Text grows as a list of pieces joined only when read (``self.text += piece``
on an attribute would copy the whole text on every delta: quadratic for a
long answer). A tool call's input is read lazily: its fragments are handed
to a :class:`~sse_engine.parts.PartialJSON` only when ``input`` is read, so a
program that never looks at the partial input never pays for it, and one
that reads it after every fragment pays O(1) amortised per read (each
character is parsed once either way).
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from itertools import islice
from typing import Any, Final, Literal, final

import attrs

from sse_engine._outcome import Outcome, StreamError
from sse_engine._tally import Tally
from sse_engine.partial_json import JSONStreamError, PartialJSON
from sse_engine.parts._usage import FinishReason, PendingUsage, Usage, read_pending

__all__ = ["UNSET", "JSONText", "ReasoningBlock", "ToolCall", "Turn", "joined"]

class _Unset(enum.Enum):
    """"Not known yet" (``None`` is a valid tool input): one member, which stays itself
    through ``copy.deepcopy`` and pickle, so a copied turn's unfinished call is unfinished."""

    UNSET = "UNSET"


UNSET: Final[Any] = _Unset.UNSET


@final
class JSONText:
    """A parsed JSON value's compact text, written the first time it is read.

    A call whose input comes whole and parsed (a Gemini ``functionCall``'s
    ``args`` object) has no text on the wire: its parts and its
    :class:`ToolCall` hold one of these where the text goes, and the text is
    written (``json.dumps``, compact, UTF-8 kept: what the parts said before)
    only when ``ToolCallDelta.text``, ``ToolCallEnd.arguments`` or
    ``ToolCall.arguments`` is read. Writing a large input costs about what the
    lane paid to read it: a program that never reads the text never pays it.
    The holders turn it into the ``str`` on first read; nothing public returns it.
    """

    __slots__ = ("_text", "value")

    def __init__(self, value: Any) -> None:
        self.value = value
        self._text: str | None = None

    def __str__(self) -> str:
        text = self._text
        if text is None:
            text = self._text = json.dumps(self.value, ensure_ascii=False, separators=(",", ":"))
        return text

    def __repr__(self) -> str:
        return repr(str(self))


def text_of(value: Any) -> str:
    """``value`` as the text it stands for (a :class:`JSONText` written, a ``str`` itself)."""
    return value if type(value) is str else str(value)


def joined(pieces: list[str]) -> str:
    """The pieces as one string, collapsed in place so the next read is free."""
    if len(pieces) > 1:
        pieces[:] = ["".join(pieces)]
    return pieces[0] if pieces else ""


class _ByValue:
    """Equality by the value of what ``_key()`` lists; unhashable, as the object changes."""

    __slots__ = ()

    def _key(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]


@final
class ToolCall(_ByValue):
    """One tool call of a :class:`Turn`, as it streams and once it is complete.

    ``arguments`` is the input text received so far. ``input`` is the value
    read from it so far: while the call streams, the partial value (as
    ``jiter``'s ``partial_mode``: open objects and arrays are there from their
    first character, a string or literal once it is complete; see
    :class:`~sse_engine.parts.PartialJSON`), updated in place; once ``done``,
    the final value. A plain-text input (a Responses ``custom_tool_call``) is
    its text. Input that is not valid JSON leaves ``input`` None once done,
    with ``input_error`` saying why.

    ``type`` is the lane's own kind of call (``function``, ``function_call``,
    ``custom_tool_call``, ``mcp_call``, ``kindo_call``, ``tool_use``,
    ``server_tool_use``, ...). ``server`` is True for calls the server runs
    itself (hosted MCP and Kindo calls, Anthropic server tools): their result
    comes from the server, the client has nothing to run.

    ``item_id`` is the provider's id for the output item holding the call (a
    Responses ``function_call`` item's ``id``, beside its ``call_id``), None
    where the call is no item of its own. ``extra`` holds the call's fields
    a request body of its format gave that the call has no place for (an
    Anthropic ``cache_control``, a Responses item's ``status``): see
    :class:`~sse_engine.conversation.Message`. Neither takes part in equality:
    they are the provider's bookkeeping, not what the call says.

    ``raw`` is the provider's own object for the call, where it carries what
    the provider needs back with it (a Gemini ``functionCall`` part, with its
    ``thoughtSignature``), else None. Not part of equality.
    """

    __slots__ = (
        "_broken",
        "_fed",
        "_final",
        "_partial_strings",
        "_pieces",
        "_plain",
        "_reader",
        "done",
        "extra",
        "id",
        "input_error",
        "item_id",
        "name",
        "raw",
        "result",
        "server",
        "type",
    )

    def __init__(
        self,
        id: str,
        name: str,
        arguments: str = "",
        input: Any = None,
        *,
        done: bool = False,
        type: str = "function",
        server: bool = False,
        input_error: str | None = None,
        plain: bool = False,
        item_id: str | None = None,
        extra: Mapping[str, Any] | None = None,
        raw: Any = None,
    ) -> None:
        self.id = id
        self.name = name
        self.type = type
        self.server = server
        self.done = done
        self.input_error = input_error
        self.item_id = item_id
        self.extra: Mapping[str, Any] = {} if extra is None else extra
        self.raw = raw
        #: For a call the server runs: its result, as the provider sent it (see
        #: :class:`~sse_engine.parts.ServerToolResult`); None until then, and for
        #: a call the client runs.
        self.result: Any = None
        self._pieces: list[str] = [arguments] if arguments else []
        self._final: Any = input
        self._plain = plain
        self._partial_strings = False
        self._reader: PartialJSON | None = None
        self._fed = 0
        self._broken = False

    @classmethod
    def streaming(
        cls,
        id: str,
        name: str,
        type: str,
        *,
        server: bool,
        plain: bool,
        partial_strings: bool,
        item_id: str | None = None,
    ) -> ToolCall:
        """A call whose input is about to stream (what the parts layer builds)."""
        call = cls(id, name, type=type, server=server, plain=plain, item_id=item_id)
        call._final = UNSET
        call._partial_strings = partial_strings
        return call

    # -- reading -----------------------------------------------------------------------

    @property
    def plain(self) -> bool:
        """Whether the input is plain text, not JSON (a Responses ``custom_tool_call``)."""
        return self._plain

    @property
    def arguments(self) -> str:
        """The input text received so far (complete once ``done``)."""
        pieces = self._pieces
        first: Any = pieces[0] if pieces else None
        if type(first) is JSONText:  # a whole input, not written yet
            pieces[0] = str(first)
        reader = self._reader
        if len(pieces) > 1 and reader is not None:
            self._catch_up(reader)  # the reader counts pieces: it reads them before they merge
            pieces[:] = ["".join(pieces)]
            self._fed = 1
        return joined(pieces)

    @property
    def input(self) -> Any:
        """The input read so far (the final value once ``done``); see the class docstring."""
        final = self._final
        if final is not UNSET:
            return final
        if self._plain:
            return self.arguments
        reader = self._reader
        if reader is None:
            reader = self._reader = PartialJSON(partial_strings=self._partial_strings)
        if self._fed < len(self._pieces):
            self._catch_up(reader)
        return reader.value

    def _catch_up(self, reader: PartialJSON) -> None:
        """Hand the fragments the reader has not seen to it, in one piece."""
        pieces = self._pieces
        fed = self._fed
        self._fed = len(pieces)
        if self._broken:
            return
        rest = len(pieces) - fed
        text = text_of(pieces[fed]) if rest == 1 else "".join(islice(pieces, fed, None))
        try:
            reader.feed(text)
        except JSONStreamError:
            # Not JSON after all: the value read so far stays; the end of the call
            # says why (input_error) and the stream records a warning.
            self._broken = True

    def final_from_reader(self) -> Any:
        """The complete value if the partial reader has read all of the input, else UNSET."""
        reader = self._reader
        if reader is None or self._broken:
            return UNSET
        if self._fed < len(self._pieces):
            self._catch_up(reader)
        return reader.value if not self._broken and reader.done else UNSET

    # -- what the parts layer does ---------------------------------------------------

    def finish(self, arguments: str, input: Any, input_error: str | None) -> None:
        """The input is complete: ``arguments`` is authoritative, ``input`` its value."""
        pieces = self._pieces
        if len(pieces) != 1 or pieces[0] != arguments:
            pieces[:] = [arguments] if arguments else []
        self._final = input
        self.input_error = input_error
        self.done = True
        self._reader = None  # the partial reader's memory goes with it

    # -- comparing ---------------------------------------------------------------------

    def _key(self) -> tuple[Any, ...]:
        return (
            self.id, self.name, self.arguments, self.input, self.done, self.type, self.server,
            self.input_error, self.result,
        )

    def __repr__(self) -> str:
        state = "done" if self.done else "streaming"
        return (
            f"ToolCall(id={self.id!r}, name={self.name!r}, arguments={self.arguments!r}, "
            f"input={self.input!r}, type={self.type!r}, {state})"
        )


@final
@attrs.frozen
class ReasoningBlock:
    """One finished block of reasoning, with what its provider needs to have it back.

    ``text`` is the block's reasoning as the turn shows it (a Responses
    item's summary parts joined by a blank line). The other fields are the
    provider's opaque replay data, to send back unchanged on the next request
    *to the same provider*; each is None where the provider sent none:

    - ``signature``: an Anthropic ``thinking`` block's signature (send the
      block back as ``{"type": "thinking", "thinking": text, "signature": ...}``);
    - ``redacted``: an Anthropic ``redacted_thinking`` block's ``data`` (its
      ``text`` is empty);
    - ``encrypted_content`` and ``id``: an OpenAI Responses ``reasoning``
      item's (send back ``{"type": "reasoning", "id": ..., "summary": [...],
      "encrypted_content": ...}``).

    ``raw`` is the provider's own object for the block, as it ended (the
    Messages block, the Responses item, the OpenRouter ``reasoning_details``
    entries of a Chat block): what a client of that provider sends back. Not
    part of equality.

    A signature or encrypted content is valid only for the provider that
    made it: another provider rejects it, and nothing here ever makes one up.
    """

    text: str = ""
    signature: str | None = None
    redacted: str | None = None
    encrypted_content: str | None = None
    id: str | None = None
    raw: Any = attrs.field(default=None, eq=False, repr=False)


@final
class Turn(_ByValue):
    """The assistant turn so far, in the same shape for every lane.

    ``text``, ``reasoning`` and ``refusal`` are the concatenated deltas (a
    Responses final ``text`` or ``refusal`` that contradicts them is the
    turn's instead: a ``text_replaced`` warning); ``tool_calls`` the calls in
    the order they started; ``reasoning_blocks`` the finished blocks of
    reasoning, in order, each with the provider's data for sending it back (a
    block still streaming is not there yet). ``usage`` is the latest usage
    reported. ``finish_reason`` (unified), ``raw_finish_reason``
    (the lane's own), ``outcome`` and ``error`` are None until the
    :class:`~sse_engine.parts.Finish` part. ``choice`` is the Chat choice
    index this turn is (0 but for ``n > 1``). ``citations`` are the sources
    the answer cites (:class:`~sse_engine.parts.Citation` parts), and a call
    the server ran carries its result (:attr:`ToolCall.result`).

    ``format`` is the name of the wire format the turn was read from
    (``"messages"``, ...; ``sse_engine.FORMATS``), None for a turn made by
    hand: whose opaque reasoning data (signatures, encrypted content) this
    is, which only that format takes back. ``message_id`` is the provider's
    id for the turn's message (a Responses ``message`` item's, the first one
    when there are several), None elsewhere. Neither takes part in equality.

    A ``lean`` turn (``PartStream(lane, lean=True)``) keeps none of its text,
    reasoning or refusal: each was passed on as a part and is not kept, so
    the turn's size does not grow with the stream's; ``text``, ``reasoning``
    and ``refusal`` read ``""``, and :meth:`length` still counts them.
    """

    __slots__ = (
        "_reasoning",
        "_refusal",
        "_text",
        "_usage",
        "choice",
        "citations",
        "error",
        "finish_reason",
        "format",
        "id",
        "message_id",
        "model",
        "outcome",
        "raw_finish_reason",
        "reasoning_blocks",
        "tool_calls",
    )

    def __init__(
        self,
        id: str | None = None,
        model: str | None = None,
        text: str = "",
        reasoning: str = "",
        refusal: str = "",
        tool_calls: list[ToolCall] | None = None,
        usage: Usage | None = None,
        finish_reason: FinishReason | None = None,
        outcome: Outcome | None = None,
        error: StreamError | None = None,
        *,
        choice: int = 0,
        raw_finish_reason: str | None = None,
        reasoning_blocks: list[ReasoningBlock] | None = None,
        format: str | None = None,
        message_id: str | None = None,
        lean: bool = False,
    ) -> None:
        self.id = id
        self.format = format
        self.message_id = message_id
        self.model = model
        self._text: list[str] = Tally() if lean else [text] if text else []
        self._reasoning: list[str] = Tally() if lean else [reasoning] if reasoning else []
        self._refusal: list[str] = Tally() if lean else [refusal] if refusal else []
        self.tool_calls: list[ToolCall] = [] if tool_calls is None else tool_calls
        self.reasoning_blocks: list[ReasoningBlock] = (
            [] if reasoning_blocks is None else reasoning_blocks
        )
        #: The sources the answer cites, in the order they came (``Citation`` parts).
        self.citations: list[Any] = []
        self._usage: Usage | PendingUsage | None = usage
        self.finish_reason = finish_reason
        self.raw_finish_reason = raw_finish_reason
        self.outcome = outcome
        self.error = error
        self.choice = choice

    @property
    def usage(self) -> Usage | None:
        """The latest usage reported (None before any)."""
        self._usage = usage = read_pending(self._usage)  # a pending one is made now, once
        return usage

    @usage.setter
    def usage(self, usage: Usage | None) -> None:
        self._usage = usage

    @property
    def text(self) -> str:
        """The answer text so far."""
        return joined(self._text)

    @property
    def reasoning(self) -> str:
        """The reasoning so far (pieces separated by a blank line)."""
        return joined(self._reasoning)

    @property
    def refusal(self) -> str:
        """The refusal text so far."""
        return joined(self._refusal)

    @property
    def lean(self) -> bool:
        """Whether the turn keeps no text, reasoning or refusal (see the class docstring)."""
        return type(self._text) is Tally

    def length(self, kind: Literal["text", "reasoning", "refusal"]) -> int:
        """How many characters of its ``text``, ``reasoning`` or ``refusal`` the turn had,
        kept or (a lean turn) not."""
        pieces = self._text if kind == "text" else (
            self._reasoning if kind == "reasoning" else self._refusal
        )
        return pieces.length if type(pieces) is Tally else len(joined(pieces))

    def _key(self) -> tuple[Any, ...]:
        return (
            self.id, self.model, self.text, self.reasoning, self.refusal, self.tool_calls,
            self.usage, self.finish_reason, self.raw_finish_reason, self.outcome, self.error,
            self.choice, self.reasoning_blocks, self.citations,
        )

    def __repr__(self) -> str:
        fields = (
            "id", "model", "text", "reasoning", "refusal", "tool_calls", "usage",
            "finish_reason", "raw_finish_reason", "outcome", "error", "choice",
            "reasoning_blocks", "citations",
        )
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in fields)
        return f"Turn({inner})"
