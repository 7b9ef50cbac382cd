"""Delta templates write exactly the bytes the encoders write for the same payload."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from sse_engine import SSEParser, encode_json
from sse_engine.gemini import encode_gemini_event
from sse_engine.messages import encode_messages_event
from sse_engine.relay import NUMBER, TEXT, fill, template
from sse_engine.responses import encode_responses_event

#: Any text a delta can hold: quotes, backslashes, line breaks, %, non-ASCII, lone surrogates.
TEXTS = st.text(
    st.one_of(
        st.characters(),
        st.sampled_from(['"', "\\", "\n", "\r", "%", "\u2028", "\x00", "\ud800"]),
    ),
    max_size=40,
)


def chat_payload(text: str) -> dict[str, object]:
    return {
        "id": "c%d",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m%",
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}],
    }


def responses_payload(text: str, number: object) -> dict[str, object]:
    return {
        "type": "response.output_text.delta",
        "sequence_number": number,
        "item_id": "msg_%s",
        "output_index": 0,
        "content_index": 0,
        "delta": text,
        "logprobs": [],
    }


@settings(max_examples=examples(14, thorough=300), deadline=None)
@given(text=TEXTS, number=st.integers(0, 10**9))
def test_a_filled_template_is_the_encoders_frame(text: str, number: int) -> None:
    try:
        text.encode()
    except UnicodeEncodeError:
        surrogate = True
    else:
        surrogate = False
    cases = [
        (template(encode_json(chat_payload(TEXT))), (), encode_json(chat_payload(text))),
        (
            template(encode_responses_event(responses_payload(TEXT, NUMBER), id=NUMBER)),
            (number, number),
            encode_responses_event(responses_payload(text, number), id=str(number)),
        ),
        (
            template(
                encode_messages_event(
                    {
                        "type": "content_block_delta",
                        "index": 2,
                        "delta": {"type": "text_delta", "text": TEXT},
                    }
                )
            ),
            (),
            encode_messages_event(
                {
                    "type": "content_block_delta",
                    "index": 2,
                    "delta": {"type": "text_delta", "text": text},
                }
            ),
        ),
    ]
    gemini = {"candidates": [{"content": {"parts": [{"text": TEXT, "thought": True}],
                                          "role": "model"}, "index": 0}],
              "modelVersion": "m%", "responseId": "r%d"}
    filled = json.loads(json.dumps(gemini).replace(json.dumps(TEXT), json.dumps(text)))
    cases.append((template(encode_gemini_event(gemini)), (), encode_gemini_event(filled)))
    for shape, numbers, expected in cases:
        got = fill(shape, text, *numbers)
        if not surrogate:
            assert got == expected
        # Either way the frame parses back to the same event and payload.
        (ours,) = SSEParser().feed(got)
        (theirs,) = SSEParser().feed(expected)
        assert (ours.event, ours.id) == (theirs.event, theirs.id)
        assert json.loads(ours.data) == json.loads(theirs.data)
