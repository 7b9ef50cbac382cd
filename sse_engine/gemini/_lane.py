"""The Gemini state machine: one ``data:`` frame in, typed events out, the verdict.

:class:`GeminiLane` reads each frame of ``models/{model}:streamGenerateContent?alt=sse``
(a whole ``GenerateContentResponse``, or an error frame), walks its candidates
and their parts (text and thought parts on an inline path, function calls and
every other part kept whole), keeps the latest ``usageMetadata``,
``promptFeedback`` and other fields, and decides the outcome when the stream
ends: the API sends no end event of its own, so the verdict waits for the
transport's end (or comes at an error frame). The lane's events are in
``_events.py``, its snapshot in ``_snapshot.py``, its words in ``_wire.py``.
"""

from __future__ import annotations

from typing import Any

from sse_engine._json import describe
from sse_engine._lane import Lane
from sse_engine._outcome import Outcome, StreamError, is_retryable
from sse_engine._sse import ServerSentEvent
from sse_engine.gemini._events import (
    CandidateField,
    CandidateFinish,
    FunctionCallPart,
    GeminiError,
    GeminiEvent,
    GeminiUnknownFrame,
    OtherPart,
    PromptFeedback,
    new_chunk,
    new_text_part,
    new_usage,
)
from sse_engine.gemini._snapshot import CandidateSnapshot, GeminiSnapshot
from sse_engine.gemini._wire import (
    CALL_KEY,
    COMPLETED_FINISH_REASONS,
    FAILED_FINISH_REASONS,
    INCOMPLETE_FINISH_REASONS,
    RESPONSE_KEYS,
    SIGNATURE_KEY,
    THOUGHT_KEY,
    recognize,
    recognize_error,
)

__all__ = ["GeminiLane"]

# The candidate keys read on their own; any other is a CandidateField.
_CANDIDATE_OWN = frozenset({"content", "finishReason"})
# The response keys read on their own; any other is kept as sent.
_RESPONSE_OWN = frozenset({"candidates", "usageMetadata", "promptFeedback"})


class GeminiLane(Lane[GeminiEvent]):
    """The Gemini ``streamGenerateContent`` stream (``?alt=sse``): bytes in, :class:`GeminiEvent`
    objects out.

    ``json_loads`` decodes each frame (inject ``orjson.loads`` for speed);
    ``strict`` turns the ordering anomalies listed in ``docs/gemini.md`` into
    :class:`ProtocolError`; ``max_event_size`` bounds one SSE event.

    The outcome is decided when the transport ends (``close()``): each
    candidate must have had its ``finishReason`` by then, else ``TRUNCATED``.
    An error frame ends the stream ``FAILED`` at once.
    """

    terminal_event_name = "a finishReason for every candidate"
    api_name = "Gemini"

    recognize = staticmethod(recognize)
    recognize_error = staticmethod(recognize_error)

    def _setup(self) -> None:
        self._snap = GeminiSnapshot(self._reports.note_loss)

    @property
    def snapshot(self) -> GeminiSnapshot:
        """The response assembled so far; ``snapshot.to_api()`` is the merged response."""
        return self._snap

    # -- frames ------------------------------------------------------------------------------

    def _on_event(self, sse: ServerSentEvent, out: list[GeminiEvent]) -> None:
        data = sse.data
        if sse.event == "error":
            self._error_event(data, out)
            return
        if data[:1] != "{":  # a chunk never is empty or [DONE]: skip both checks
            if not data or data.isspace():
                self._warn("empty_data", "a data frame with no JSON was ignored")
                return
            if data.strip() == "[DONE]":  # not this API's; OpenAI-style proxies append it
                self._warn("done_sentinel", "a [DONE] frame (not part of this API) was ignored")
                return
        # The base's _decode, inlined for the usual event: it runs only to raise.
        try:
            payload = self._loads(data)
        except (ValueError, TypeError, RecursionError):
            payload = self._decode(sse)  # raises the ProtocolError that says where
        else:
            if self._shape is not None:
                self._note_shape(sse.event, payload)
        if type(payload) is not dict:
            self._warn("unexpected_frame", f"a frame that is not a JSON object: {data[:80]!r}")
            out.append(GeminiUnknownFrame(payload))
            return
        if payload.get("error") is not None:  # a gateway's chunk may say "error": null
            self._failed(StreamError.from_payload(payload), payload, out)
            return
        if payload.keys().isdisjoint(RESPONSE_KEYS):
            out.append(GeminiUnknownFrame(payload))
            return
        if self._text_sink is None:
            out.append(new_chunk(payload))
        # else a PartStream's read, whose translator has no use for the chunk's event
        # any more (GeminiParts.text_sink): none is made.
        snap = self._snap
        candidates = payload.get("candidates")
        if candidates is not None:
            if type(candidates) is list:
                snap.fields.setdefault("candidates", None)  # its place among the fields
                if len(candidates) != 1 or not self._on_plain_candidate(
                    candidates[0], payload, out
                ):
                    for position, candidate in enumerate(candidates):
                        self._on_candidate(candidate, position, payload, out)
            else:
                self._bad_field("candidates", "a list", candidates)
        feedback = payload.get("promptFeedback")
        if feedback is not None:
            if type(feedback) is dict:
                snap.fields["promptFeedback"] = feedback
                reason = feedback.get("blockReason")
                out.append(PromptFeedback(feedback, reason if type(reason) is str else None,
                                          raw=payload))
            else:
                self._bad_field("promptFeedback", "an object", feedback)
        usage = payload.get("usageMetadata")
        if usage is not None:
            if type(usage) is dict:
                snap.fields["usageMetadata"] = usage
                sink = self._text_sink
                if sink is None or out:
                    out.append(new_usage(usage, payload))
                else:  # a PartStream's read, before any event: no event
                    sink("usage", usage, 0)
            else:
                self._bad_field("usageMetadata", "an object", usage)
        fields = snap.fields
        for key, value in payload.items():
            if value is not None and key not in _RESPONSE_OWN:
                fields[key] = value

    def _error_event(self, data: str, out: list[GeminiEvent]) -> None:
        """An ``event: error`` frame (Google sends none, a gateway may): a failure, whatever
        its data."""
        try:
            payload: Any = self.json_loads(data)
        except (ValueError, TypeError, RecursionError):
            payload = data
        if type(payload) is dict:
            error = StreamError.from_payload(payload)
        elif data.strip():
            error = StreamError.from_text(data, raw=data)
        else:
            error = StreamError(message="an error event without data", code="stream_error")
        self._failed(error, payload, out)

    def _failed(self, error: StreamError, raw: Any, out: list[GeminiEvent]) -> None:
        error = self._with_context(error)
        out.append(GeminiError(error, raw))
        self._end(Outcome.FAILED, error, out)

    def _bad_field(self, name: str, expected: str, value: Any) -> None:
        self._warn("bad_field", f"{name} is not {expected} ({describe(value)}); ignored")

    # -- candidates ------------------------------------------------------------------------

    def _on_candidate(
        self, candidate: Any, position: int, raw: dict[str, Any], out: list[GeminiEvent]
    ) -> None:
        if type(candidate) is not dict:
            self._bad_field("candidates[]", "an object", candidate)
            return
        index = candidate.get("index")
        if index is None:
            index = position  # Google sends the index only with the finish
        elif type(index) is not int or index < 0:
            self._bad_field("candidates[].index", "a non-negative integer", index)
            return
        candidates = self._snap.candidates
        state = candidates.get(index)
        if state is None:
            state = candidates[index] = CandidateSnapshot(index, self._snap.lean)
        content = candidate.get("content")
        if content is not None:
            if type(content) is dict:
                self._on_content(state, content, raw, out)
            else:
                self._bad_field("content", "an object", content)
        fields = state.fields
        for key, value in candidate.items():
            if key not in _CANDIDATE_OWN and value is not None:
                fields[key] = value
                if key != "index":
                    out.append(CandidateField(index, key, value, raw=raw))
        reason = candidate.get("finishReason")
        if reason is not None:
            self._on_finish(state, reason, raw, out)

    def _on_plain_candidate(
        self, candidate: Any, raw: dict[str, Any], out: list[GeminiEvent]
    ) -> bool:
        """The common candidate, read without the general walk of :meth:`_on_candidate`.

        The only candidate of its chunk, already seen and not finished, holding
        nothing but ``content`` whose parts are all plain text or thought parts
        (``{"text": ...}``, with at most a boolean ``thought``): what nearly every
        chunk of a stream is. It gives the events and the snapshot the general
        path would; anything else returns False having done nothing
        (tests/gemini/test_gemini_fast_path.py checks both give the same).
        """
        if type(candidate) is not dict or len(candidate) != 1:
            return False
        content = candidate.get("content")
        if type(content) is not dict:
            return False
        state = self._snap.candidates.get(0)
        parts = content.get("parts")
        if state is None or state.finish_reason is not None or type(parts) is not list:
            return False
        for part in parts:
            if type(part) is not dict or type(part.get("text")) is not str or not (
                len(part) == 1 or (len(part) == 2 and type(part.get(THOUGHT_KEY)) is bool)
            ):
                return False
        state._open_content(content)
        add_text = state._add_text
        sink = self._text_sink
        for part in parts:
            text = part["text"]
            thought = part.get(THOUGHT_KEY, False)
            add_text(part, text, thought, None)
            if sink is None or out:
                out.append(new_text_part(thought, 0, text, None, raw))
            else:  # a PartStream's read, before any event: no event
                sink("thought" if thought else "text", text, 0)
        return True

    def _on_content(
        self,
        state: CandidateSnapshot,
        content: dict[str, Any],
        raw: dict[str, Any],
        out: list[GeminiEvent],
    ) -> None:
        state._open_content(content)
        parts = content.get("parts")
        if parts is None:
            return
        if type(parts) is not list:
            self._bad_field("content.parts", "a list", parts)
            return
        index = state.index
        if parts and state.finish_reason is not None:
            self._violation(
                "part_after_finish",
                f"candidate {index} got parts after its finishReason {state.finish_reason!r}",
            )
        for part in parts:
            if type(part) is not dict:
                self._bad_field("content.parts[]", "an object", part)
                continue
            text = part.get("text")
            if type(text) is str and CALL_KEY not in part:
                # The common case, inline: a text or thought part.
                thought = part.get(THOUGHT_KEY, False)
                signature = part.get(SIGNATURE_KEY)
                if thought is not True and thought is not False:
                    self._bad_field("thought", "a boolean", thought)
                    thought = False
                if signature is not None and type(signature) is not str:
                    self._bad_field(SIGNATURE_KEY, "a string", signature)
                    signature = None
                state._add_text(part, text, thought, signature)
                out.append(new_text_part(thought, index, text, signature, raw))
            elif CALL_KEY in part:
                self._on_call(state, part, raw, out)
            else:
                state._add_part(part)
                out.append(OtherPart(index, _kind(part), part, raw=raw))

    def _on_call(
        self,
        state: CandidateSnapshot,
        part: dict[str, Any],
        raw: dict[str, Any],
        out: list[GeminiEvent],
    ) -> None:
        call = part[CALL_KEY]
        state._add_part(part)
        if type(call) is not dict:
            self._bad_field(CALL_KEY, "an object", call)
            out.append(OtherPart(state.index, CALL_KEY, part, raw=raw))
            return
        name = call.get("name")
        if type(name) is not str or not name:
            self._warn(
                "tool_call_without_name",
                f"a function call of candidate {state.index} has no name ({describe(name)})",
            )
            name = ""
        args = call.get("args")
        if type(args) is not dict:
            if args is not None:
                self._bad_field("functionCall.args", "an object", args)
            args = {}
        ident = call.get("id")
        number = len(state.function_calls)
        state.function_calls.append(call)
        out.append(FunctionCallPart(
            state.index, number, ident if type(ident) is str and ident else None, name, args,
            _signature(part), part, raw=raw,
        ))

    def _on_finish(
        self, state: CandidateSnapshot, reason: Any, raw: dict[str, Any], out: list[GeminiEvent]
    ) -> None:
        if type(reason) is not str:
            self._bad_field("finishReason", "a string", reason)
            return
        state.fields["finishReason"] = reason
        old = state.finish_reason
        if old == reason:
            return
        if old is not None:
            self._violation(
                "finish_reason_changed",
                f"candidate {state.index} finishReason {old!r} changed to {reason!r}",
            )
        elif (
            reason not in COMPLETED_FINISH_REASONS
            and reason not in INCOMPLETE_FINISH_REASONS
            and reason not in FAILED_FINISH_REASONS
        ):
            self._warn(
                "unknown_finish_reason",
                f"candidate {state.index} finishReason {reason!r} is not a known one: "
                "counted as a normal end",
            )
        state.finish_reason = reason
        out.append(CandidateFinish(state.index, reason, raw=raw))

    # -- the end ----------------------------------------------------------------------------

    def _on_transport_end(self) -> tuple[Outcome, StreamError | None]:
        snap = self._snap
        candidates = snap.candidates
        if not candidates and snap.block_reason is not None:
            return Outcome.INCOMPLETE, None  # the prompt was refused: no candidate comes
        unfinished = sorted(i for i, c in candidates.items() if c.finish_reason is None)
        if unfinished or not candidates:
            outcome, error = super()._on_transport_end()
            if unfinished:
                error = StreamError(
                    message=f"the transport ended before the finishReason of candidate(s) "
                    f"{unfinished}",
                    code="stream_truncated",
                    retryable=True,
                )
            return outcome, error
        failed = next((c for c in candidates.values() if c.finish_reason in FAILED_FINISH_REASONS),
                      None)
        if failed is not None:
            reason = failed.finish_reason
            return Outcome.FAILED, StreamError(
                message=f"candidate {failed.index} finished with {reason}",
                code=reason,
                retryable=is_retryable(reason),
            )
        if snap.block_reason is not None or any(
            c.finish_reason in INCOMPLETE_FINISH_REASONS for c in candidates.values()
        ):
            return Outcome.INCOMPLETE, None
        if not any(c.has_content for c in candidates.values()):
            self._warn(
                "empty_completion",
                "the stream completed with no text, function call or other part in any "
                "candidate (a provider may finish a failed generation normally)",
            )
        return Outcome.COMPLETED, None


def _signature(part: dict[str, Any]) -> str | None:
    signature = part.get(SIGNATURE_KEY)
    return signature if type(signature) is str else None


def _kind(part: dict[str, Any]) -> str:
    """What a part is: its first key that is not a flag or a signature."""
    for key in part:
        if key != THOUGHT_KEY and key != SIGNATURE_KEY:
            return str(key)
    return ""
