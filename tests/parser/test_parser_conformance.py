"""SSEParser against the WHATWG HTML "event stream interpretation" algorithm.

A table of named cases: the bytes of a stream, the events it must dispatch as
``(event, data, id)`` tuples, and the parser's final ``last_event_id``, ``retry``
and ``in_event``. Cases marked "WPT" restate the web-platform-tests
``eventsource/format-*`` tests (and their ``resources/*`` stream generators); the
rest exercise one rule of the spec each. Every case runs fed whole, fed one byte
per ``feed()``, and split in two at every byte offset: all three must agree.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pytest
from hypothesis_budget import deep

from sse_engine import (
    DEFAULT_MAX_EVENT_SIZE,
    Comment,
    EventTooLarge,
    ServerSentEvent,
    SSEEngineError,
    SSEParser,
    UsageError,
)

Ev = tuple[str, str, str]


@dataclass(frozen=True)
class Case:
    name: str
    stream: bytes
    events: list[Ev]
    last_event_id: str = ""
    retry: int | None = None
    in_event: bool = False  # an unterminated event is pending at the end


def msg(data: str, id: str = "") -> Ev:
    return ("message", data, id)


_LONG = "x" * 2048

CASES: list[Case] = [
    # --- UTF-8 byte order mark: one, at stream start only -----------------------
    Case("bom_stripped", b"\xef\xbb\xbfdata: 1\n\n", [msg("1")]),
    # WPT format-bom: a BOM after the start is part of the line, so the field
    # name is "\ufeffdata" (unknown) and event 2 is never dispatched.
    Case(
        "wpt_bom_later_is_not_stripped",
        b"\xef\xbb\xbfdata:1\n\n\xef\xbb\xbfdata:2\n\ndata:3\n\n\n",
        [msg("1"), msg("3")],
    ),
    # WPT format-bom-2: only one BOM is stripped; the second spoils line 1.
    Case(
        "wpt_double_bom",
        b"\xef\xbb\xbf\xef\xbb\xbfdata:1\n\ndata:2\n\ndata:3\n\n\n",
        [msg("2"), msg("3")],
    ),
    Case(
        "bom_after_leading_blank_line_is_kept",
        b"\n\xef\xbb\xbfdata: x\n\ndata: y\n\n",
        [msg("y")],
    ),
    Case("bom_inside_value_is_data", b"data: \xef\xbb\xbfx\n\n", [msg("\ufeffx")]),
    Case("bom_is_not_a_space", b"data:\xef\xbb\xbf\n\n", [msg("\ufeff")]),
    Case("bom_alone", b"\xef\xbb\xbf", []),
    Case("bom_then_id_only", b"\xef\xbb\xbfid: 7\n\n", [], last_event_id="7"),
    # Two bytes of a BOM are not a BOM: they decode to one U+FFFD, which then
    # is part of the field name.
    Case("truncated_bom_is_replacement", b"\xef\xbbdata: x\n\ndata: y\n\n", [msg("y")]),
    Case("bom_then_crlf_blank", b"\xef\xbb\xbf\r\ndata: z\r\n\r\n", [msg("z")]),
    # --- line terminators: CRLF, LF, lone CR ------------------------------------
    Case("lf", b"data: a\ndata: b\n\n", [msg("a\nb")]),
    Case("crlf", b"data: a\r\ndata: b\r\n\r\n", [msg("a\nb")]),
    Case("lone_cr", b"data: a\rdata: b\r\r", [msg("a\nb")]),
    Case("mixed_terminators", b"data: a\r\ndata: b\rdata: c\n\r\n", [msg("a\nb\nc")]),
    Case("cr_cr_is_two_lines", b"data: a\r\rdata: b\n\n", [msg("a"), msg("b")]),
    Case("lf_cr_is_two_lines", b"data: a\n\rdata: b\n\n", [msg("a"), msg("b")]),
    Case("cr_crlf_is_two_lines", b"data: a\r\r\ndata: b\r\n\r\n", [msg("a"), msg("b")]),
    Case("crlf_crlf", b"data: a\r\n\r\ndata: b\r\n\r\n", [msg("a"), msg("b")]),
    Case("crlf_lf", b"data: a\r\n\ndata: b\n\r\n", [msg("a"), msg("b")]),
    # WPT format-newlines ("newline fest"): message.py appends one "\n".
    Case("wpt_newline_fest", b"data:test\r\ndata\ndata:test\r\n\r\n", [msg("test\n\ntest")]),
    Case("cr_at_end_of_stream_ends_line", b"data: a\r\r", [msg("a")]),
    Case("lf_cr_at_end_of_stream", b"data: a\n\r", [msg("a")]),
    Case("many_blank_lines", b"\n\n\r\n\r\r\n\n", []),
    Case(
        "odd_blank_runs_between_events",
        b"data: a\n\n\ndata: b\n\n\n\n\ndata: c\r\r\r",
        [msg("a"), msg("b"), msg("c")],
    ),
    # Only CR and LF end lines: LS, PS, VT, FF and NEL stay in the data.
    Case(
        "unicode_separators_are_data",
        b"data: a\xe2\x80\xa8b\xe2\x80\xa9c\x0bd\x0ce\xc2\x85f\x1cg\n\n",
        [msg("a\u2028b\u2029c\x0bd\x0ce\x85f\x1cg")],
    ),
    Case("nel_does_not_end_field_name", b"data\xc2\x85: x\n\ndata: y\n\n", [msg("y")]),
    # --- UTF-8 decoding, U+FFFD for invalid bytes --------------------------------
    Case("wpt_utf8", b"data:ok\xe2\x80\xa6\n\n", [msg("ok\u2026")]),
    Case("utf8_four_byte", b"data: \xf0\x9f\x98\x80\n\n", [msg("\U0001f600")]),
    Case("utf8_mixed_widths", "data: aé€😀\n\n".encode(), [msg("aé€😀")]),
    Case("invalid_byte", b"data: a\xffb\n\n", [msg("a\ufffdb")]),
    Case("never_latin1", b"data: \xe9t\xe9\n\n", [msg("\ufffdt\ufffd")]),
    Case("truncated_3byte_before_lf", b"data: a\xe2\x82\n\n", [msg("a\ufffd")]),
    Case("truncated_4byte_before_lf", b"data: \xf0\x9f\x98\n\n", [msg("\ufffd")]),
    Case("truncated_before_ascii", b"data: \xe2\x82x\n\n", [msg("\ufffdx")]),
    Case("truncated_before_cr", b"data: \xe2\r\n\r\n", [msg("\ufffd")]),
    Case("lone_continuation_bytes", b"data: \x80\xbf\n\n", [msg("\ufffd\ufffd")]),
    Case("overlong_encoding", b"data: \xc0\xaf\n\n", [msg("\ufffd\ufffd")]),
    Case("encoded_surrogate", b"data: \xed\xa0\x80\n\n", [msg("\ufffd" * 3)]),
    Case("above_max_code_point", b"data: \xf4\x90\x80\x80\n\n", [msg("\ufffd" * 4)]),
    Case("invalid_byte_in_field_name", b"dat\xffa: x\n\ndata: y\n\n", [msg("y")]),
    Case("invalid_byte_in_id", b"id: \xff\n\n", [], last_event_id="\ufffd"),
    Case(
        "incomplete_sequence_at_end_is_pending",
        b"data: x\n\n\xe2\x82",
        [msg("x")],
        in_event=True,
    ),
    # WPT format-null-character: NUL is ordinary data.
    Case("wpt_null_in_data", b"data:\x00\n\n", [msg("\x00")]),
    # --- comments ----------------------------------------------------------------
    # WPT format-comments ("comment fest"), message.py newline=none appends "\n".
    Case(
        "wpt_comment_fest",
        b"data:1\r:\x00\n:\r\ndata:2\n:"
        + _LONG.encode()
        + b"\rdata:3\n:data:fail\r:"
        + _LONG.encode()
        + b"\ndata:4\n\n",
        [msg("1\n2\n3\n4")],
    ),
    Case("comment_only_block", b": hello\n\n", []),
    Case("bare_colon_comment", b":\n\n", []),
    Case("comment_with_field_syntax", b":data: x\n\n", []),
    Case("space_then_colon_is_not_comment", b" : x\ndata: y\n\n", [msg("y")]),
    # --- field / value split -------------------------------------------------------
    # WPT format-field-parsing ("field parsing"), newline=none appends "\n".
    Case(
        "wpt_field_parsing",
        b"data:\x00\ndata:  2\rData:1\ndata\x00:2\ndata:1\r\x00data:4\nda-ta:3\r"
        b"data_5\ndata:3\rdata:\r\n data:32\ndata:4\n\n",
        [msg("\x00\n 2\n1\n3\n\n4")],
    ),
    Case("split_on_first_colon", b"data: a:b: c\n\n", [msg("a:b: c")]),
    Case("no_space_after_colon", b"data:x\n\n", [msg("x")]),
    Case("only_one_space_stripped", b"data:  x\n\n", [msg(" x")]),
    Case("three_spaces", b"data:   x\n\n", [msg("  x")]),
    # WPT format-leading-space: a tab is not stripped; "data: " is empty data.
    Case("wpt_leading_space", b"data:\ttest\rdata: \ndata:test\n\n\n", [msg("\ttest\n\ntest")]),
    Case("trailing_whitespace_kept", b"data: x \t\n\n", [msg("x \t")]),
    Case("space_in_field_name", b"data : x\n\n", []),
    Case("leading_space_in_field_name", b" data: x\n\n", []),
    # WPT format-field-unknown ("unknown fields and parsing fun").
    Case(
        "wpt_unknown_fields",
        b"data:test\n data\ndata\nfoobar:xxx\njustsometext\n:thisisacommentyay\ndata:test\n\n\n",
        [msg("test\n\ntest")],
    ),
    Case("unknown_field_only", b"foo: bar\n\n", []),
    Case(
        "field_names_case_sensitive",
        b"Data: x\nDATA: y\nEvent: e\nID: 1\nRetry: 5\n\n",
        [],
    ),
    # --- data ----------------------------------------------------------------------
    Case("data_without_colon_is_empty_event", b"data\n\n", [msg("")]),
    Case("data_colon_empty", b"data:\n\n", [msg("")]),
    Case("data_colon_space_empty", b"data: \n\n", [msg("")]),
    # WPT format-field-data.
    Case(
        "wpt_field_data",
        b"data:\n\ndata\ndata\n\ndata:test\n\n\n",
        [msg(""), msg("\n"), msg("test")],
    ),
    # WPT event-data.html (resources/message2.py).
    Case(
        "wpt_event_data",
        b"data:msg\ndata:msg\n\ndata\n\ndata:end\n\n",
        [msg("msg\nmsg"), msg(""), msg("end")],
    ),
    Case("only_one_trailing_lf_removed", b"data: a\ndata:\n\n", [msg("a\n")]),
    Case("data_lf_in_value_impossible", b"data: a\ndata: b\ndata: c\n\n", [msg("a\nb\nc")]),
    Case("data_then_event_in_same_block", b"data: x\nevent: late\n\n", [("late", "x", "")]),
    # --- event ---------------------------------------------------------------------
    # WPT format-field-event.
    Case(
        "wpt_field_event",
        b"event:test\ndata:x\n\ndata:x\n\n\n",
        [("test", "x", ""), msg("x")],
    ),
    # WPT format-field-event-empty.
    Case("wpt_field_event_empty", b"event: \ndata:data\n\n\n", [msg("data")]),
    Case("event_without_colon", b"event\ndata: x\n\n", [msg("x")]),
    Case("event_last_wins", b"event: a\nevent: b\ndata: x\n\n", [("b", "x", "")]),
    Case("event_value_keeps_colons", b"event: a:b\ndata: x\n\n", [("a:b", "x", "")]),
    Case("event_value_one_space_stripped", b"event:  sp \ndata: x\n\n", [(" sp ", "x", "")]),
    Case("event_named_message", b"event: message\ndata: x\n\n", [msg("x")]),
    # The event type is reset by a blank line even when nothing is dispatched.
    Case("event_reset_without_data", b"event: a\n\ndata: x\n\n", [msg("x")]),
    Case("event_only_block", b"event: ping\n\n", []),
    Case(
        "fast_shapes_then_slow",
        b"event: e\ndata: d\n\ndata: f\n\nevent: g\ndata:h\n\nevent: i\ndata: j\ndata: k\n\n",
        [("e", "d", ""), msg("f"), ("g", "h", ""), ("i", "j\nk", "")],
    ),
    # --- id ------------------------------------------------------------------------
    # WPT format-field-id (resources/last-event-id.py, first connection).
    Case(
        "wpt_field_id",
        "id: …\nretry: 200\ndata: hello\n\n".encode(),
        [msg("hello", "…")],
        last_event_id="…",
        retry=200,
    ),
    # WPT format-field-id-3 (resources/last-event-id2.py), three variants.
    Case(
        "wpt_id_persists",
        b"id: 1\ndata: 1\n\ndata:2\n\n",
        [msg("1", "1"), msg("2", "1")],
        last_event_id="1",
    ),
    Case(
        "wpt_id_changes_and_persists",
        b"id: 1\ndata: 1\n\nid: 2\ndata:2\n\ndata:3\n\n",
        [msg("1", "1"), msg("2", "2"), msg("3", "2")],
        last_event_id="2",
    ),
    Case(
        "wpt_id_resets",
        b"id: 1\ndata: 1\n\nid:\ndata:2\n\ndata:3\n\n",
        [msg("1", "1"), msg("2"), msg("3")],
    ),
    Case(
        "id_without_colon_resets", b"id: 1\ndata: a\n\nid\ndata: b\n\n", [msg("a", "1"), msg("b")]
    ),
    # WPT format-field-id-null: an id containing NUL is ignored.
    Case("wpt_id_null", b"id: \x00\x00\ndata: hello\n\n", [msg("hello")]),
    Case(
        "id_with_nul_keeps_previous",
        b"id: 1\n\nid: a\x00b\ndata: x\n\n",
        [msg("x", "1")],
        last_event_id="1",
    ),
    Case("id_nul_after_id_in_block", b"id: 1\nid: \x00\ndata: x\n\n", [msg("x", "1")], "1"),
    Case("id_last_wins", b"id: 1\nid: 2\ndata: x\n\n", [msg("x", "2")], last_event_id="2"),
    Case("id_after_data_in_block", b"data: x\nid: 3\n\n", [msg("x", "3")], last_event_id="3"),
    Case("id_keeps_spaces", b"id:  x \ndata: d\n\n", [msg("d", " x ")], last_event_id=" x "),
    Case("id_committed_without_dispatch", b"id: 5\n\n", [], last_event_id="5"),
    Case(
        "id_committed_by_comment_only_block",
        b"id: 5\n: keepalive\n\n",
        [],
        last_event_id="5",
    ),
    Case(
        "id_committed_then_used",
        b"id: 5\n\ndata: x\n\n",
        [msg("x", "5")],
        last_event_id="5",
    ),
    Case(
        "id_not_committed_by_unterminated_event",
        b"id: 1\ndata: a\n\nid: 9\ndata: b\n",
        [msg("a", "1")],
        last_event_id="1",
        in_event=True,
    ),
    # WPT format-data-before-final-empty-line (newline=none appends "\n").
    Case(
        "wpt_data_before_final_empty_line",
        b"retry:1000\ndata:test1\n\nid:test\ndata:test2\n",
        [msg("test1")],
        retry=1000,
        in_event=True,
    ),
    Case(
        "id_then_fast_paths_carry_it",
        b"id: 7\ndata: a\n\ndata: b\n\nevent: e\ndata: c\n\n",
        [msg("a", "7"), msg("b", "7"), ("e", "c", "7")],
        last_event_id="7",
    ),
    # --- retry ---------------------------------------------------------------------
    Case("retry", b"retry: 1000\n\n", [], retry=1000),
    Case("retry_zero", b"retry: 0\n\n", [], retry=0),
    # WPT format-field-retry: decimal, leading zeros do not mean octal.
    Case("wpt_retry_leading_zero", b"retry:02000\ndata:x\n\n", [msg("x")], retry=2000),
    # WPT format-field-retry-bogus: "1000x" is ignored, 2000 stays.
    Case("wpt_retry_bogus", b"retry:2000\nretry:1000x\ndata:x\n\n", [msg("x")], retry=2000),
    Case("retry_letter_suffix", b"retry: 1a\n\n", []),
    # "Consists of only ASCII digits": browsers and this parser ignore the empty value.
    Case("retry_empty", b"retry:\n\n", []),
    Case("retry_no_colon", b"retry\n\n", []),
    Case("retry_space_only", b"retry: \n\n", []),
    Case("retry_second_space_not_stripped", b"retry:  5\n\n", []),
    Case("retry_trailing_space", b"retry: 5 \n\n", []),
    Case("retry_negative", b"retry: -5\n\n", []),
    Case("retry_plus", b"retry: +5\n\n", []),
    Case("retry_decimal_point", b"retry: 5.0\n\n", []),
    Case("retry_underscore", b"retry: 1_000\n\n", []),
    Case("retry_arabic_indic_digits", "retry: \u0661\u0662\n\n".encode(), []),
    Case("retry_fullwidth_digits", "retry: \uff15\n\n".encode(), []),
    Case("retry_superscript", "retry: \u00b2\n\n".encode(), []),
    Case("retry_invalid_keeps_previous", b"retry: 1\n\nretry: x\n\n", [], retry=1),
    Case("retry_last_valid_wins", b"retry: 1\nretry: 2\n\nretry: 3\n\n", [], retry=3),
    Case("retry_big", b"retry: " + b"9" * 30 + b"\n\n", [], retry=10**30 - 1),
    Case(
        "retry_many_leading_zeros",
        b"retry: " + b"0" * 5000 + b"7\n\n",
        [],
        retry=7,
    ),
    # Beyond Python's int/str digit limit: must not raise (ignored, like a
    # browser ignores a value it cannot represent).
    Case("retry_too_many_digits", b"retry: 3\n\nretry: " + b"9" * 5000 + b"\n\n", [], retry=3),
    Case(
        "retry_just_under_digit_limit", b"retry: " + b"9" * 4300 + b"\n\n", [], retry=10**4300 - 1
    ),
    # retry applies when its line is processed, not at dispatch.
    Case("retry_in_unterminated_event", b"retry: 7\ndata: x\n", [], retry=7, in_event=True),
    Case("retry_unterminated_line_not_applied", b"retry: 7", [], in_event=True),
    # --- blocks without data dispatch nothing --------------------------------------
    Case(
        "no_data_block",
        b"id: 1\nevent: x\nretry: 5\n: c\nfoo: bar\n\n\n\n",
        [],
        last_event_id="1",
        retry=5,
    ),
    # --- end of stream: an unterminated event is discarded --------------------------
    Case("unterminated_line", b"data: x", [], in_event=True),
    Case("unterminated_event", b"data: x\n", [], in_event=True),
    Case("unterminated_after_event", b"data: a\n\ndata: b\n", [msg("a")], in_event=True),
    Case("unterminated_cr", b"data: a\r", [], in_event=True),
    Case("comment_then_close", b": c\n", [], in_event=True),
    Case("empty_stream", b"", []),
]

# Guard against copy-paste slips: names are unique.
assert len({c.name for c in CASES}) == len(CASES)


def _run(
    chunks: Iterable[bytes], *, comments: bool = False
) -> tuple[list[object], str, int | None, bool]:
    parser: SSEParser[ServerSentEvent] | SSEParser[ServerSentEvent | Comment]
    if comments:
        parser = SSEParser(max_event_size=None, comments=True)
    else:
        parser = SSEParser(max_event_size=None)
    items: list[object] = []
    for chunk in chunks:
        items.extend(parser.feed(chunk))
    last_event_id, retry, in_event = parser.last_event_id, parser.retry, parser.in_event
    # close() gives back only the comment lines of an unterminated block.
    items.extend(parser.close())
    return items, last_event_id, retry, in_event


def _expected(case: Case) -> tuple[list[object], str, int | None, bool]:
    return (
        [ServerSentEvent(*e) for e in case.events],
        case.last_event_id,
        case.retry,
        case.in_event,
    )


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_whole(case: Case) -> None:
    assert _run([case.stream]) == _expected(case)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_byte_by_byte(case: Case) -> None:
    stream = case.stream
    assert _run(stream[i : i + 1] for i in range(len(stream))) == _expected(case)


def two_way_cuts(stream: bytes) -> list[int]:
    """Where to split ``stream`` in two: everywhere, but in a long run of one byte
    (the thousands of digits of the `retry` cases) the everyday run takes every 97th
    cut and all cuts near a change of byte; the deep run (CI's) takes them all."""
    if deep() or len(stream) <= 512:
        return list(range(len(stream) + 1))
    near_change = {
        cut for at in range(1, len(stream)) if stream[at] != stream[at - 1]
        for cut in range(at - 8, at + 9)
    }
    return sorted({*range(0, len(stream) + 1, 97), *range(len(stream) - 8, len(stream) + 1),
                   *(cut for cut in near_change if 0 <= cut <= len(stream))})


def test_the_everyday_cuts_keep_every_cut_near_a_change_of_byte() -> None:
    stream = b"retry: " + b"9" * 1000 + b"\n\n"
    cuts = two_way_cuts(stream)
    assert set(range(16)) <= set(cuts)
    assert set(range(len(stream) - 10, len(stream) + 1)) <= set(cuts)
    assert two_way_cuts(b"x" * 512) == list(range(513))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_two_way_split(case: Case) -> None:
    stream = case.stream
    expected = _expected(case)
    for cut in two_way_cuts(stream):
        got = _run([stream[:cut], stream[cut:]])
        assert got == expected, f"split at byte {cut}"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_comments_do_not_change_events(case: Case) -> None:
    """With comments=True the events (Comment items removed) are the same."""
    items, last_id, retry, in_event = _run([case.stream], comments=True)
    events = [i for i in items if not isinstance(i, Comment)]
    assert (events, last_id, retry, in_event) == _expected(case)


# --- explicit chunk-boundary cases -------------------------------------------------


def _feed_all(parser: SSEParser, *chunks: bytes) -> list[object]:  # type: ignore[type-arg]
    out: list[object] = []
    for chunk in chunks:
        out.extend(parser.feed(chunk))
    return out


def test_bom_split_across_three_chunks() -> None:
    p = SSEParser()
    assert p.feed(b"\xef") == []
    assert p.feed(b"\xbb") == []
    assert p.feed(b"\xbfdata: 1\n\n") == [ServerSentEvent("message", "1", "")]


def test_second_bom_split_across_chunks_is_kept() -> None:
    p = SSEParser()
    got = _feed_all(p, b"\xef\xbb\xbf\xef", b"\xbb", b"\xbfdata: 1\n\ndata: 2\n\n")
    assert got == [ServerSentEvent("message", "2", "")]


def test_cr_at_chunk_end_then_lf_is_one_terminator() -> None:
    p = SSEParser()
    assert p.feed(b"data: a\r") == []
    # If this LF were a second terminator, "a" would be dispatched on its own.
    assert p.feed(b"\ndata: b\r\n\r\n") == [ServerSentEvent("message", "a\nb", "")]


def test_cr_then_lf_survives_an_empty_feed() -> None:
    p = SSEParser()
    got = _feed_all(p, b"data: a\r", b"", b"\n", b"data: b\r", b"", b"\n", b"\r\n")
    assert got == [ServerSentEvent("message", "a\nb", "")]


def test_cr_then_cr_across_chunks_is_a_blank_line() -> None:
    p = SSEParser()
    assert _feed_all(p, b"data: a\r", b"\r") == [ServerSentEvent("message", "a", "")]


def test_multibyte_split_at_every_byte() -> None:
    p = SSEParser()
    got = _feed_all(p, b"data: \xf0", b"\x9f", b"\x98", b"\x80", b"\n", b"\n")
    assert got == [ServerSentEvent("message", "\U0001f600", "")]


def test_truncated_sequence_split_before_invalid_continuation() -> None:
    p = SSEParser()
    got = _feed_all(p, b"data: \xe2\x82", b"x\n\n")
    assert got == [ServerSentEvent("message", "\ufffdx", "")]


# --- comments=True -------------------------------------------------------------------


COMMENT_STREAM = (
    b": first\ndata: a\n:second\n:  two spaces\n\n:\n"
    b":\xe2\x80\xa6 unicode\r: \xff\r\n:data: no\n\ndata: b\n\n"
)
COMMENT_ITEMS: list[object] = [
    Comment("first"),
    Comment("second"),
    Comment(" two spaces"),
    ServerSentEvent("message", "a", ""),
    Comment(""),
    Comment("\u2026 unicode"),
    Comment("\ufffd"),
    Comment("data: no"),
    ServerSentEvent("message", "b", ""),
]


def test_comments_reported_in_stream_order() -> None:
    items, *_ = _run([COMMENT_STREAM], comments=True)
    assert items == COMMENT_ITEMS


def test_comments_chunk_invariant() -> None:
    s = COMMENT_STREAM
    assert _run((s[i : i + 1] for i in range(len(s))), comments=True)[0] == COMMENT_ITEMS
    for cut in range(len(s) + 1):
        assert _run([s[:cut], s[cut:]], comments=True)[0] == COMMENT_ITEMS, cut


def test_comments_off_by_default() -> None:
    items, *_ = _run([COMMENT_STREAM])
    assert items == [i for i in COMMENT_ITEMS if isinstance(i, ServerSentEvent)]
    assert all(type(i) is ServerSentEvent for i in items)


def test_comment_text_strips_exactly_one_space() -> None:
    p = SSEParser(comments=True)
    assert p.feed(b":   three\n") == [Comment("  three")]
    assert p.feed(b":\tTab\n") == [Comment("\tTab")]


# --- API behaviour ---------------------------------------------------------------------


def test_feed_after_close_is_usage_error() -> None:
    p = SSEParser()
    p.feed(b"data: x\n\n")
    assert p.close() == []
    with pytest.raises(UsageError):
        p.feed(b"data: y\n\n")
    with pytest.raises(UsageError):
        p.feed(b"")
    assert issubclass(UsageError, SSEEngineError)
    assert issubclass(UsageError, RuntimeError)
    assert not issubclass(UsageError, EventTooLarge)


def test_close_returns_empty_and_is_idempotent() -> None:
    p = SSEParser()
    p.feed(b"id: 1\ndata: pending")
    assert p.in_event
    assert p.close() == []
    assert p.close() == []
    assert p.last_event_id == ""


def test_close_returns_the_comments_of_an_unterminated_block() -> None:
    p = SSEParser(comments=True)
    assert p.feed(b"data: a\n: first\n:second\ndata: b") == []
    assert p.close() == [Comment("first"), Comment("second")]


def test_leading_comment_lines_are_reported_as_each_line_ends() -> None:
    # Bare keepalive lines with no blank line after them must not wait for
    # the next event.
    p = SSEParser(comments=True)
    assert p.feed(b": keepalive\n") == [Comment("keepalive")]
    assert p.feed(b": keep") == []
    assert p.feed(b"alive\n: x\nda") == [Comment("keepalive"), Comment("x")]
    assert p.feed(b"ta: 1\n\n") == [ServerSentEvent("message", "1", "")]


def test_close_discards_event_terminated_only_by_close() -> None:
    p = SSEParser()
    assert p.feed(b"data: a\n\ndata: b\n") == [ServerSentEvent("message", "a", "")]
    assert p.close() == []


@pytest.mark.parametrize(
    "wrap",
    [bytes, bytearray, memoryview, lambda b: memoryview(bytearray(b))],
    ids=["bytes", "bytearray", "memoryview", "memoryview_of_bytearray"],
)
def test_buffer_types(wrap: object) -> None:
    stream = "\ufeffid: 1\r\ndata: é😀\r\n\r\n: c\ndata: x\n\n".encode()
    expected = [ServerSentEvent("message", "é😀", "1"), ServerSentEvent("message", "x", "1")]
    for chunks in ([stream], [stream[i : i + 1] for i in range(len(stream))]):
        p = SSEParser()
        got: list[object] = []
        for c in chunks:
            got.extend(p.feed(wrap(c)))  # type: ignore[operator]
        assert got == expected
        assert p.bytes_fed == len(stream)
        assert p.last_event_id == "1"


def test_memoryview_slice_and_reused_buffer() -> None:
    buf = bytearray(b"XXdata: \xe2\x80\xa6\n\nYY")
    p = SSEParser()
    assert p.feed(memoryview(buf)[2:10]) == []  # ends inside the multi-byte character
    # The caller reuses its buffer: the parser must have copied what it kept.
    buf[:] = b"\x00" * len(buf)
    assert p.feed(b"\xa6\n\n") == [ServerSentEvent("message", "\u2026", "")]


def test_in_event_transitions() -> None:
    p = SSEParser()
    assert not p.in_event
    p.feed(b"da")
    assert p.in_event  # an unfinished line
    p.feed(b"ta: x\n")
    assert p.in_event  # complete lines, no blank line yet
    p.feed(b"\n")
    assert not p.in_event
    p.feed(b"\xe2")
    assert p.in_event  # undecoded bytes of a character
    p.feed(b"\x80\xa6: y\r")
    assert p.in_event
    p.feed(b"\r")
    assert not p.in_event
    p.feed(b"id: 3\n\n")
    assert not p.in_event
    assert p.last_event_id == "3"


def test_bytes_fed_counts_raw_bytes() -> None:
    p = SSEParser()
    assert p.bytes_fed == 0
    p.feed(b"\xef\xbb\xbf")
    assert p.bytes_fed == 3  # the stripped BOM counts
    p.feed(b"data: \xe2\x82")
    assert p.bytes_fed == 11  # undecoded bytes count when fed
    p.feed(memoryview(b"\xac\n\n"))
    assert p.bytes_fed == 14
    p.feed(b"")
    assert p.bytes_fed == 14


def test_max_event_size_validation() -> None:
    for bad in (0, -1):
        with pytest.raises(ValueError):
            SSEParser(max_event_size=bad)
    SSEParser(max_event_size=1)
    SSEParser(max_event_size=None)
    assert DEFAULT_MAX_EVENT_SIZE == 16 * 1024 * 1024


def test_event_id_is_last_event_id_at_dispatch() -> None:
    p = SSEParser()
    first = p.feed(b"id: a\ndata: 1\n\n")
    assert first[0].id == p.last_event_id == "a"
    second = p.feed(b"data: 2\nid: b\n\n")
    assert second[0].id == p.last_event_id == "b"


def test_events_are_frozen() -> None:
    ev = SSEParser().feed(b"data: x\n\n")[0]
    with pytest.raises(AttributeError):
        ev.data = "y"  # type: ignore[misc]
