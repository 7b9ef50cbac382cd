"""Where parts are made: each one is appended to the output and folded into its turn at once.

The formats' translators (``<format>/_parts.py``) say *what* happened by calling a
:class:`PartBuilder` method (``text``, ``call_start``, ``finish``, ...); the builder
makes the part and applies it to the :class:`Turn`, so a turn is always exactly the
sum of the parts that were returned, whichever lane they came from (but for a final
text that contradicts the deltas shown: ``replace_text``). The rules that hold for
every lane live here too: the blocks of reasoning and the blank line between
reasoning pieces, the final parse of a tool call's input, and the finish reason of a
stream that failed or was cut.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, TypeVar, cast

from sse_engine._outcome import Outcome, StreamError
from sse_engine._tally import Tally
from sse_engine.parts._makers import (
    make_call_delta,
    make_finish,
    make_refusal,
    make_usage_update,
    new,
    set_call,
    set_call_choice,
    set_call_id,
    set_call_index,
    set_call_text,
    set_choice,
    set_reasoning_choice,
    set_reasoning_text,
    set_separator,
    set_text,
)
from sse_engine.parts._parts import (
    Citation,
    FinishReason,
    MessageItemStart,
    Part,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    RefusalDelta,
    Restart,
    ServerToolResult,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from sse_engine.parts._turn import UNSET, JSONText, ReasoningBlock, ToolCall, Turn, joined
from sse_engine.parts._usage import CountsReader, PendingUsage, UsageCounts, counts_of

__all__ = ["PartBuilder"]

#: A verdict that overrides whatever the model said: the stream itself went wrong.
_VERDICT_REASONS: Final[dict[Outcome, FinishReason]] = {
    Outcome.FAILED: "error", Outcome.TRUNCATED: "truncated"
}
_REASONING_SEPARATOR: Final = "\n\n"
#: The piece a choice is in once its block of reasoning ended: what comes next is a new piece.
_ENDED: Final = object()

P = TypeVar("P", TextDelta, ReasoningDelta, RefusalDelta)
#: Writes a text, reasoning or refusal delta itself (kind, text, choice) and says True, or
#: says False and the part is made (see :meth:`PartStream.write_text_with`).
TextWriter = Callable[[str, str, int], bool]
#: Takes a usage report made before any part of the batch, instead of a ``UsageUpdate``
#: part (see :meth:`PartStream.write_text_with`).
UsageTaker = Callable[[Usage | PendingUsage], None]


class _OpenBlock:
    """The block of reasoning a choice is in: its index to be, the provider's id, its text."""

    __slots__ = ("id", "index", "pieces")

    def __init__(self, index: int, id: str | None, lean: bool) -> None:
        self.index = index
        self.id = id
        self.pieces: list[str] = Tally() if lean else []


class PartBuilder:
    """Makes the parts of one stream and keeps the turns they add up to.

    ``out`` is the list the current ``feed()`` returns; ``turns`` the turn of
    each Chat choice (just ``{0: ...}`` for the other lanes). ``loads`` parses
    a complete tool input, ``warn`` records a warning on the stream. ``lean``
    turns keep no text (see :class:`Turn`), nor do the blocks of reasoning
    they end (``ReasoningBlock.text`` is ``""``).
    """

    def __init__(
        self,
        loads: Callable[[str], Any],
        warn: Callable[[str, str], None],
        partial_strings: bool = False,
        format: str | None = None,
        lean: bool = False,
    ) -> None:
        self.loads = loads
        self.warn = warn
        self.partial_strings = partial_strings
        self.format = format
        self.lean = lean
        self.out: list[Part] = []
        #: A relay's writer of text deltas (see :meth:`PartStream.write_text_with`), or None.
        self.direct: TextWriter | None = None
        #: A relay's taker of usage reports (see :meth:`PartStream.write_text_with`), or None.
        self.take_usage: UsageTaker | None = None
        self.turns: dict[int, Turn] = {0: Turn(format=format, lean=lean)}
        #: The lowest choice index seen: its turn is the one a Finish part speaks for.
        self._first = 0
        self.finished = False
        self._id: str | None = None
        self._model: str | None = None
        # The reasoning piece each turn is in (see ``reasoning``), and its open block.
        self._pieces: dict[int, object] = {}
        self._blocks: dict[int, _OpenBlock] = {}

    def batch(self) -> list[Part]:
        """Start a new batch of parts (a read's, a ``translate()``'s): the list the
        builder appends to from now on. (``PartStream._begin_read`` does the same inline,
        once per read: change both.)"""
        out: list[Part] = []
        self.out = out
        return out

    def turn(self, choice: int) -> Turn:
        """The turn of ``choice``, made on first use."""
        turn = self.turns.get(choice)
        if turn is None:
            turn = self.turns[choice] = Turn(
                self._id, self._model, choice=choice, format=self.format, lean=self.lean
            )
            turn._usage = self.turns[self._first]._usage
            if choice < self._first:
                self._first = choice
        return turn

    def identify(self, id: str | None, model: str | None) -> None:
        """The response's id and model (shared by every choice), once known."""
        if id is not None and self._id is None:
            self._id = id
            for turn in self.turns.values():
                turn.id = id
        if model is not None and self._model is None:
            self._model = model
            for turn in self.turns.values():
                turn.model = model

    # -- content ----------------------------------------------------------------------

    # A part never carries empty text: a lane may pass an empty delta on. The three
    # take the same arguments, so a translator can pick one from a table.

    def text(self, text: str, choice: int = 0, piece: object = None) -> None:
        if text:
            direct = self.direct
            # Written straight through only with no part before it in this batch (a relay's
            # taker keeps a usage report there: usage_counts): the bytes keep their order.
            if direct is None or self.out or not direct(
                "text", text, choice
            ):
                # make_text's three lines, inline: a call is a sixth of a delta's part cost.
                part = new(TextDelta)
                set_text(part, text)
                set_choice(part, choice)
                self.out.append(part)
            try:
                turn = self.turns[choice]
            except KeyError:
                turn = self.turn(choice)
            pieces = turn._text
            if type(pieces) is Tally:  # a lean turn's (a gateway's): Tally.append, inline
                pieces.length += len(text)
            else:
                pieces.append(text)

    def refusal(self, text: str, choice: int = 0, piece: object = None) -> None:
        if text:
            direct = self.direct
            if direct is None or self.out or not direct(
                "refusal", text, choice
            ):
                self.out.append(make_refusal(text, choice))
            self.turn(choice)._refusal.append(text)

    def replace_text(self, kind: str, text: str, choice: int = 0) -> None:
        """The turn's ``text`` or ``refusal`` (``kind``) is now ``text``: no part says so.

        For a final text the provider sent that contradicts the deltas already
        shown (the parts stay what was shown): the translator calling it
        records why in a warning (``text_replaced``).
        """
        turn = self.turn(choice)
        pieces = turn._refusal if kind == "refusal" else turn._text
        if type(pieces) is Tally:  # a lean turn: it counts the text, keeps none
            pieces.length = len(text)
            return
        pieces[:] = [text] if text else []

    def reasoning(self, text: str, choice: int = 0, piece: object = None) -> None:
        """Reasoning grew; ``piece`` names the summary part, item or block it belongs to.

        A new piece after earlier reasoning starts with a blank line (a
        ``separator`` delta), so that separate summaries and thinking blocks
        do not run into each other. Reasoning outside a block opens one.
        """
        if not text:
            return
        try:
            turn = self.turns[choice]
        except KeyError:
            turn = self.turn(choice)
        block = self._blocks.get(choice)
        if block is None:
            block = self.reasoning_start(choice)
        pieces = self._pieces
        if pieces.get(choice, piece) != piece and turn.length("reasoning"):
            self.out.append(ReasoningDelta(_REASONING_SEPARATOR, choice, separator=True))
            turn._reasoning.append(_REASONING_SEPARATOR)
            if block.pieces:  # between two pieces of one block: part of its text
                block.pieces.append(_REASONING_SEPARATOR)
        pieces[choice] = piece
        direct = self.direct
        if direct is None or self.out or not direct(
            "reasoning", text, choice
        ):
            part = new(ReasoningDelta)  # make_reasoning inline (see ``text``)
            set_reasoning_text(part, text)
            set_reasoning_choice(part, choice)
            set_separator(part, False)
            self.out.append(part)
        turn._reasoning.append(text)
        block.pieces.append(text)

    def message_item_start(self, id: str | None, choice: int = 0) -> None:
        """An assistant message item opened (``id``: the provider's)."""
        self.out.append(MessageItemStart(id, choice))
        turn = self.turn(choice)
        if turn.message_id is None:
            turn.message_id = id

    def reasoning_start(self, choice: int = 0, id: str | None = None) -> _OpenBlock:
        """A block of reasoning opened (``id``: the provider's); the one open already, if any."""
        block = self._blocks.get(choice)
        if block is None:
            index = len(self.turn(choice).reasoning_blocks)
            block = self._blocks[choice] = _OpenBlock(index, id, self.lean)
            self.out.append(ReasoningStart(index, choice, id))
        return block

    def in_reasoning(self, choice: int) -> bool:
        """Whether a block of reasoning is open in ``choice``."""
        return choice in self._blocks

    @property
    def reasoning_open(self) -> bool:
        """Whether a block of reasoning is open in any choice."""
        return bool(self._blocks)

    def reasoning_end(
        self,
        choice: int = 0,
        *,
        signature: str | None = None,
        redacted: str | None = None,
        encrypted_content: str | None = None,
        id: str | None = None,
        raw: Any = None,
    ) -> None:
        """The open block of reasoning ended (one opens first if none is), with its replay data.

        The data is the provider's, as sent: see :class:`ReasoningBlock`.
        """
        block = self._blocks.get(choice)
        if block is None:
            block = self.reasoning_start(choice, id)
        del self._blocks[choice]
        ended = ReasoningBlock(
            joined(block.pieces), signature, redacted, encrypted_content,
            block.id if id is None else id, raw,
        )
        self.turn(choice).reasoning_blocks.append(ended)
        self._pieces[choice] = _ENDED
        self.out.append(ReasoningEnd(ended, block.index, choice))

    # -- tool calls -----------------------------------------------------------------------

    def call_start(
        self,
        id: str,
        name: str,
        type: str,
        choice: int = 0,
        *,
        server: bool = False,
        plain: bool = False,
        item_id: str | None = None,
        raw: Any = None,
    ) -> tuple[ToolCall, int]:
        """A tool call opened: the call the later parts of it go to, and its index.

        ``plain``: its input is plain text, not JSON. ``server``: the server
        runs it (see :attr:`ToolCall.server`). ``item_id``: the provider's id
        for the item holding it (see :attr:`ToolCallStart.item_id`). ``raw``:
        the provider's own object for the call (see :attr:`ToolCall.raw`).
        """
        call = ToolCall.streaming(
            id, name, type, server=server, plain=plain, partial_strings=self.partial_strings,
            item_id=item_id,
        )
        call.raw = raw
        calls = self.turn(choice).tool_calls
        index = len(calls)
        self.out.append(ToolCallStart(id, name, index, choice, call=call, item_id=item_id))
        calls.append(call)
        return call, index

    def call_delta(self, call: ToolCall, text: str, index: int, choice: int = 0) -> None:
        """``text`` more of the call's input (``index``: its place in ``turn.tool_calls``)."""
        call._pieces.append(text)
        # make_call_delta inline (see ``text``): the commonest part of a tool-call stream.
        part = new(ToolCallDelta)
        set_call_id(part, call.id)
        set_call_text(part, text)
        set_call_index(part, index)
        set_call_choice(part, choice)
        set_call(part, call)
        self.out.append(part)

    def call_whole(self, call: ToolCall, value: Any, index: int, choice: int = 0) -> None:
        """The call's whole input came at once, already parsed: ``value`` (a Gemini
        call's ``args``). The parts are those of one fragment holding its JSON text and
        the end (as ``call_delta`` then ``call_end`` with that text and value), but the
        text is written only if someone reads it (see :class:`JSONText`)."""
        # A str to every reader: the property over each slot writes it on first read.
        text = cast(str, JSONText(value))
        call._pieces.append(text)
        self.out.append(make_call_delta(call.id, text, index, choice, call))
        call.finish(text, value, None)
        self.out.append(ToolCallEnd(call.id, call.name, text, value, index, choice, call=call))

    def call_end(
        self,
        call: ToolCall,
        index: int,
        choice: int = 0,
        arguments: str | None = None,
        input: Any = UNSET,
        input_error: str | None = None,
    ) -> None:
        """The call is complete: ``arguments`` is its final text (None: what streamed).

        ``input`` is its value when the lane parsed it already; otherwise the
        text is parsed here (JSON; a plain-text call's input is its text; an
        empty JSON input is ``{}``, as the Messages API has a call without
        parameters). Text that is not JSON leaves ``input`` None, sets
        ``input_error`` and records a ``tool_input_invalid`` warning.
        """
        if call.done:
            return
        if arguments is None:
            arguments = call.arguments
        elif arguments != call.arguments:
            if arguments.startswith(call.arguments):
                # The final text says more than the fragments did: stream the rest.
                self.call_delta(call, arguments[len(call.arguments) :], index, choice)
            else:
                self.warn(
                    "tool_input_replaced",
                    f"tool call {index} ({call.name!r}): the final input differs from the "
                    "streamed fragments; the final one is kept",
                )
        if input is UNSET:
            input, input_error = self._parse(call, arguments, index)
        call.finish(arguments, input, input_error)
        self.out.append(
            ToolCallEnd(call.id, call.name, arguments, input, index, choice, input_error, call=call)
        )

    def _parse(self, call: ToolCall, arguments: str, index: int) -> tuple[Any, str | None]:
        if call._plain:
            return arguments, None
        if not arguments.strip():
            return {}, None
        value = call.final_from_reader() if arguments == call.arguments else UNSET
        if value is not UNSET:
            return value, None
        try:
            return self.loads(arguments), None
        except (ValueError, TypeError, RecursionError) as exc:
            cut = arguments if len(arguments) <= 200 else f"{arguments[:100]}...{arguments[-100:]}"
            error = f"the tool input is not valid JSON ({exc}): {cut!r}"
            self.warn("tool_input_invalid", f"tool call {index} ({call.name!r}): {error}")
            return None, error

    def server_result(self, call: ToolCall, index: int, result: Any, choice: int = 0) -> None:
        """The server's result for a call it ran (``index``: its place in the turn)."""
        call.result = result
        self.out.append(ServerToolResult(call.id, result, index, choice))

    def citation(
        self,
        type: str,
        raw: Any,
        *,
        url: str | None = None,
        title: str | None = None,
        cited_text: str | None = None,
        choice: int = 0,
    ) -> None:
        """The answer cites a source (the provider's citation object ``raw``, read)."""
        part = Citation(type, url, title, cited_text, choice, raw)
        self.turn(choice).citations.append(part)
        self.out.append(part)

    # -- usage, the end, a restart -------------------------------------------------------

    def usage(self, usage: Usage) -> None:
        """Usage is known or changed (an unchanged report makes no part). The turns and
        the part hold its counts, read as an equal Usage (see :meth:`usage_counts`)."""
        self.usage_counts(cast(UsageCounts, counts_of(usage)), usage.raw)

    def usage_counts(self, counts: UsageCounts | CountsReader, raw: Any) -> None:
        """Usage is known or changed, as its counts (or the format's reader of them) and
        wire object, for a format that reports usage in every chunk (Gemini): the part
        and the turns hold both; the Usage (``new_usage(*counts, raw)``) is made when read.
        A relay's taker (``PartStream.write_text_with``) keeps only the latest report
        before any part of the batch: it gets each one, its counts not read (a reader
        reads them when the usage is, once). Otherwise a report after a part is a part,
        and equal counts are an unchanged report."""
        turns = self.turns
        take = self.take_usage
        made = take is None or self.out  # a part: its counts read and compared now
        if made:
            if type(counts) is not tuple:  # (isinstance() and cast() are calls, per chunk)
                counts = counts(raw)  # type: ignore[operator]
            held = turns[self._first]._usage  # counts_of(held) inline: once per chunk
            if counts == (
                held[0] if type(held) is tuple and type(held[0]) is tuple else counts_of(held)
            ):
                return
        pending = (counts, raw)
        for turn in turns.values():
            turn._usage = pending
        if made:
            self.out.append(make_usage_update(pending))
        else:
            take(pending)  # type: ignore[misc]  # the target writes it at its end

    def finish(
        self,
        outcome: Outcome,
        error: StreamError | None,
        raw_reasons: Mapping[int, str | None],
        reasons: Mapping[str, FinishReason],
    ) -> None:
        """The stream's verdict: every turn's finish fields, and the one Finish part.

        ``raw_reasons`` is each choice's own finish reason, ``reasons`` the
        lane's table from those to the unified ones. A failed or truncated
        stream finishes as ``error`` / ``truncated`` whatever the model said;
        a turn that stopped normally holding tool calls for the client to run
        finishes as ``tool_calls`` (providers that do not say so themselves:
        Gemini, Responses).
        """
        verdict = _VERDICT_REASONS.get(outcome)
        for choice, turn in self.turns.items():
            raw = raw_reasons.get(choice)
            reason: FinishReason = verdict or (
                reasons.get(raw, "other") if raw is not None else "other"
            )
            if reason == "stop" and any(not c.server for c in turn.tool_calls):
                reason = "tool_calls"
            turn.finish_reason = reason
            turn.raw_finish_reason = raw
            turn.outcome = outcome
            turn.error = error
        first = self.turns[self._first]
        assert first.finish_reason is not None
        self.out.append(
            make_finish(first.finish_reason, outcome, error, first.raw_finish_reason)
        )
        self.finished = True

    def restart(self, reason: str) -> None:
        """The stream replays from the start: a Restart part, and the turns begin again."""
        self.out.append(Restart(reason))
        self.turns = {0: Turn(format=self.format, lean=self.lean)}
        self._first = 0
        self._pieces = {}
        self._blocks = {}
        self._id = self._model = None
        self.finished = False
