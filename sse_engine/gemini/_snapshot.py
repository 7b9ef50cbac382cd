"""The Gemini lane's snapshot: the response the chunks add up to, and its merged form.

Each chunk is a whole ``GenerateContentResponse`` holding the new parts of
each candidate. The snapshot merges them as the API's non-streamed response
has them: adjacent text parts joined into one, adjacent thought parts into
one (never a thought with text), a ``thoughtSignature`` kept on the part it
came with, function calls and every other part kept whole in their place,
candidates by ``index``, and for every other field (``usageMetadata``,
``promptFeedback``, ``modelVersion``, a candidate's ``finishReason`` or
``safetyRatings``, ...) the latest value sent. Text is kept as a list of
pieces and joined only when read, so a long stream costs linear time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sse_engine._json import plain_json
from sse_engine._tally import Tally, said
from sse_engine.gemini._wire import SIGNATURE_KEY, TEXT_PART_KEYS

__all__ = ["CandidateSnapshot", "GeminiSnapshot"]


class _TextRun:
    """Adjacent text (or thought) parts joined: the first part as sent, the text's pieces."""

    __slots__ = ("first", "joinable", "pieces", "signature", "thought")

    def __init__(
        self, first: dict[str, Any], text: str, thought: bool, signature: str | None, lean: bool
    ) -> None:
        self.first = first
        self.thought = thought
        self.signature = signature
        pieces: list[str] = Tally() if lean else []
        if text:
            pieces.append(text)
        self.pieces = pieces
        #: Only plain text parts join (a part with a field of its own stays apart).
        self.joinable = first.keys() <= TEXT_PART_KEYS

    def joined(self) -> str:
        pieces = self.pieces
        if len(pieces) > 1:
            pieces[:] = ["".join(pieces)]
        return pieces[0] if pieces else ""

    def to_api(self) -> dict[str, Any]:
        part = dict(self.first)
        part["text"] = self.joined()
        if self.signature is not None:
            part[SIGNATURE_KEY] = self.signature
        return part


class CandidateSnapshot:
    """One candidate as assembled so far.

    ``index`` is its ``index`` (its position in the chunk when the API left it
    out). ``finish_reason`` is None until its ``finishReason`` came.
    ``function_calls`` lists its calls (the ``functionCall`` objects) in order;
    ``text`` and ``thoughts`` join its text and thought parts. ``fields`` holds
    its other fields as last sent (``finishReason``, ``index``, ``safetyRatings``,
    ...), in the order they first came.
    """

    __slots__ = (
        "_content", "_parts", "fields", "finish_reason", "function_calls", "index", "lean",
    )

    def __init__(self, index: int, lean: bool = False) -> None:
        self.index = index
        #: The streamed text and thoughts are counted, not kept (see ``Lane.make_lean``).
        self.lean = lean
        self.finish_reason: str | None = None
        self.fields: dict[str, Any] = {}
        self.function_calls: list[dict[str, Any]] = []
        # The content's own fields (``role``), None until a content object came.
        self._content: dict[str, Any] | None = None
        self._parts: list[_TextRun | dict[str, Any]] = []

    # -- what the lane adds ----------------------------------------------------------------

    def _open_content(self, content: dict[str, Any]) -> None:
        """A content object came: its fields other than ``parts`` replace the earlier ones."""
        own = self._content
        if own is None:
            own = self._content = {}
        for key, value in content.items():
            if key != "parts":
                own[key] = value

    def _add_text(
        self, part: dict[str, Any], text: str, thought: bool, signature: str | None
    ) -> None:
        """A text or thought part: it extends the last part of its kind, or starts one."""
        parts = self._parts
        last = parts[-1] if parts else None
        if (
            type(last) is _TextRun
            and last.thought is thought
            and last.joinable
            and part.keys() <= TEXT_PART_KEYS
            and (signature is None or last.signature is None or last.signature == signature)
        ):
            if text:
                pieces = last.pieces
                if type(pieces) is Tally:  # a lean lane's: Tally.append, inline (per chunk)
                    pieces.length += len(text)
                else:
                    pieces.append(text)
            if signature is not None:
                last.signature = signature
            return
        parts.append(_TextRun(part, text, thought, signature, self.lean))

    def _add_part(self, part: dict[str, Any]) -> None:
        """A part of another kind (a function call, an image, ...): kept whole in its place."""
        self._parts.append(part)

    # -- reading ---------------------------------------------------------------------------

    def _texts(self, thought: bool) -> str:
        return "".join(
            p.joined() for p in self._parts if type(p) is _TextRun and p.thought is thought
        )

    @property
    def text(self) -> str:
        """The candidate's answer text so far (its thought parts are not in it)."""
        return self._texts(False)

    @property
    def thoughts(self) -> str:
        """The candidate's thought text so far."""
        return self._texts(True)

    @property
    def has_content(self) -> bool:
        """Whether the candidate holds anything but empty text (for the sanity warning)."""
        return any(type(p) is not _TextRun or said(p.pieces) for p in self._parts)

    def to_api(self) -> dict[str, Any]:
        """The candidate as the merged response has it (before the plain JSON copy)."""
        out: dict[str, Any] = {}
        if self._content is not None or self._parts:
            parts = [p.to_api() if type(p) is _TextRun else p for p in self._parts]
            out["content"] = {"parts": parts, **(self._content or {})}
        out.update(self.fields)
        return out


class GeminiSnapshot:
    """The response being streamed: ``to_api()`` gives the merged ``GenerateContentResponse``.

    ``candidates`` maps each candidate's ``index`` to its
    :class:`CandidateSnapshot`; ``fields`` holds the response's other fields
    as last sent (``usageMetadata``, ``promptFeedback``, ``modelVersion``,
    ``responseId``, ...), in the order they first came. ``lean``: the
    snapshot keeps no streamed text (see ``Lane.make_lean``).
    """

    def __init__(self, on_loss: Callable[[str], None] | None = None) -> None:
        #: Told what ``to_api()`` had to replace to stay plain JSON (the lane warns).
        self._on_loss = on_loss
        self.lean = False
        self.candidates: dict[int, CandidateSnapshot] = {}
        self.fields: dict[str, Any] = {}

    def _text_field(self, key: str) -> str | None:
        value = self.fields.get(key)
        return value if type(value) is str else None

    @property
    def response_id(self) -> str | None:
        """The ``responseId`` (None until a string one arrived)."""
        return self._text_field("responseId")

    @property
    def model_version(self) -> str | None:
        """The ``modelVersion``: the model that answers (None until a string one arrived)."""
        return self._text_field("modelVersion")

    @property
    def usage(self) -> dict[str, Any] | None:
        """The latest ``usageMetadata`` (None until one arrived)."""
        usage = self.fields.get("usageMetadata")
        return usage if type(usage) is dict else None

    @property
    def block_reason(self) -> str | None:
        """The ``promptFeedback.blockReason``: why the prompt was refused, if it was."""
        feedback = self.fields.get("promptFeedback")
        reason = feedback.get("blockReason") if type(feedback) is dict else None
        return reason if type(reason) is str else None

    @property
    def text(self) -> str:
        """The first candidate's answer text: what the model said."""
        if not self.candidates:
            return ""
        return self.candidates[min(self.candidates)].text

    def to_api(self) -> dict[str, Any]:
        """The merged ``GenerateContentResponse``: what the API returns without streaming.

        Candidates in ``index`` order, each with its parts merged (see the module
        docstring); every other field as last sent. A fresh plain JSON copy on
        every call: NaN, Infinity and nesting deeper than 256 levels become null
        (a ``not_plain_json`` warning).
        """
        out = dict(self.fields)
        if "candidates" in out:
            out["candidates"] = [self.candidates[i].to_api() for i in sorted(self.candidates)]
        return plain_json(out, self._on_loss)  # type: ignore[no-any-return]
