"""Delta templates write exactly the bytes the encoders write for the same payload."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from sse_engine import SSEParser, encode_json
from sse_engine.gemini import encode_gemini_event
from sse_engine.messages import encode_messages_event
from sse_engine.relay import fill, template
from sse_engine.responses import encode_responses_event

#: Any text a delta can hold: quotes, backslashes, line breaks, %, non-ASCII, lone surrogates.
TEXTS = st.text(
    st.one_of(
        st.characters(),
        st.sampled_from(['"', "\\", "\n", "\r", "%", "\u2028", "\x00", "\ud800"]),
    ),
    max_size=40,
)


def chat_payload(text: str, other: str) -> dict[str, object]:
    return {
        "id": f"c%d{other}",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": other or "m%",
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}],
    }


def responses_payload(text: str, number: object, other: str) -> dict[str, object]:
    return {
        "type": "response.output_text.delta",
        "sequence_number": number,
        "item_id": f"msg_%s{other}",
        "output_index": 0,
        "content_index": 0,
        "delta": text,
        "logprobs": [],
    }


def messages_payload(text: str) -> dict[str, object]:
    delta = {"type": "text_delta", "text": text}
    return {"type": "content_block_delta", "index": 2, "delta": delta}


def gemini_payload(text: str, other: str) -> dict[str, object]:
    return {"candidates": [{"content": {"parts": [{"text": text, "thought": True}],
                                        "role": "model"}, "index": 0}],
            "modelVersion": other or "m%", "responseId": f"r%d{other}"}


#: Strings a frame repeats from its source (an id, a model): anything, the marks included.
OTHERS = st.one_of(
    st.just(""),
    st.lists(
        st.sampled_from(["\u27e6text\u27e7", "\u27e6n\u27e7", "\u27e6", "\u27e7", '"', "%d",
                         "\ud800", "\\u27e6n\\u27e7", "x"]),
        min_size=1, max_size=6,
    ).map("".join),
    TEXTS,
)


def has_surrogate(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return True
    return False


@settings(max_examples=examples(20, thorough=400), deadline=None)
@given(text=TEXTS, number=st.integers(0, 10**9), other=OTHERS)
def test_a_filled_template_is_the_encoders_frame(text: str, number: int, other: str) -> None:
    """Whatever the text, and whatever the frame's other strings hold (the marks too)."""
    cases = [
        (
            template(lambda t, n: encode_json(chat_payload(t, other))),
            (),
            encode_json(chat_payload(text, other)),
        ),
        (
            template(lambda t, n: encode_responses_event(responses_payload(t, n, other), id=n), 2),
            (number, number),
            encode_responses_event(responses_payload(text, number, other), id=str(number)),
        ),
        (
            template(lambda t, n: encode_messages_event(messages_payload(t))),
            (),
            encode_messages_event(messages_payload(text)),
        ),
        (
            template(lambda t, n: encode_gemini_event(gemini_payload(t, other))),
            (),
            encode_gemini_event(gemini_payload(text, other)),
        ),
    ]
    for shape, numbers, expected in cases:
        got = fill(shape, text, *numbers)
        if not has_surrogate(text + other):
            assert got == expected
        # Either way the frame parses back to the same event and payload.
        (ours,) = SSEParser().feed(got)
        (theirs,) = SSEParser().feed(expected)
        assert (ours.event, ours.id) == (theirs.event, theirs.id)
        assert json.loads(ours.data) == json.loads(theirs.data)


def test_a_writer_that_does_not_write_its_marks_is_refused() -> None:
    with pytest.raises(ValueError, match="text mark once"):
        template(lambda t, n: encode_json({"text": "no mark"}))
    with pytest.raises(ValueError, match="number mark 2"):
        template(lambda t, n: encode_json({"text": t, "n": n}), 2)
