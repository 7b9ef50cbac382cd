"""The Responses snapshot as users read it: strings, final texts, what the deltas showed.

``TextBuffer`` is private (``tests/test_public_api.py`` pins that); a part's
``text`` is its final text once one was said, ``streamed`` what its deltas
built; one part stays one object for its item's life.
"""

from __future__ import annotations

from typing import Any

from test_responses_support import capture, frames, message, run, stream_events

from sse_engine.responses import ContentPart, OutputItem, ResponsesLane

WHERE = {"item_id": "m", "output_index": 0, "content_index": 0}
OPENED = {"id": "m", "type": "message", "role": "assistant", "content": []}


def message_events(*middle: dict[str, Any]) -> bytes:
    return frames(
        [
            {"type": "response.output_item.added", "output_index": 0, "item": OPENED},
            {"type": "response.content_part.added", **WHERE,
             "part": {"type": "output_text", "text": "", "annotations": []}},
            {"type": "response.output_text.delta", **WHERE, "delta": "Hel"},
            {"type": "response.output_text.delta", **WHERE, "delta": "lo"},
            *middle,
        ]
    )


def only_part(item: OutputItem | None) -> ContentPart:
    assert item is not None and list(item.parts) == [0]
    return item.parts[0]


def test_a_done_text_that_differs_is_the_text_and_the_deltas_stay_streamed() -> None:
    lane, _ = run(message_events(
        {"type": "response.output_text.done", **WHERE, "text": "Goodbye"}))
    part = only_part(lane.snapshot.item(0))
    assert (part.text, part.streamed) == ("Goodbye", "Hello")
    assert lane.snapshot.output_text == "Goodbye"


def test_the_final_item_finishes_its_parts_in_place() -> None:
    lane = ResponsesLane()
    lane.feed(message_events())
    before = only_part(lane.snapshot.item(0))
    final = {"type": "output_text", "text": "Hello there", "annotations": []}
    events = lane.feed(frames([{"type": "response.output_item.done", "output_index": 0,
                                "item": {**OPENED, "content": [final]}}], start=4))
    assert events
    assert only_part(lane.snapshot.item(0)) is before
    assert (before.text, before.streamed, before.done) == ("Hello there", "Hello", True)


def test_a_final_part_without_its_text_says_nothing_about_the_text() -> None:
    lane, _ = run(message_events(
        {"type": "response.content_part.done", **WHERE,
         "part": {"type": "output_text", "annotations": []}}))
    part = only_part(lane.snapshot.item(0))
    assert part.text == "Hello" and part.done


def test_a_final_item_without_a_part_drops_it() -> None:
    lane, _ = run(message_events(
        {"type": "response.output_item.done", "output_index": 0,
         "item": {**OPENED, "content": []}}))
    item = lane.snapshot.item(0)
    assert item is not None and item.parts == {} and lane.snapshot.output_text == ""


def test_the_terminal_output_settles_an_item_the_stream_left_open() -> None:
    events = stream_events([message("m", "Hello world")])
    deltas = [e for e in events if e["type"] == "response.output_text.delta"]
    kept = [e for e in events if e["type"] not in (
        "response.output_text.done", "response.content_part.done", "response.output_item.done")
        and e is not deltas[-1]]
    lane, _ = run(frames(kept))
    item = lane.snapshot.item(0)
    assert item is not None and item.done
    part = only_part(item)
    assert (part.text, part.streamed) == ("Hello world", "Hello w")
    assert lane.snapshot.output_text == "Hello world"


def test_shell_commands_and_output_read_as_strings() -> None:
    lane, _ = run(capture("responses_kindo_agent.sse"))
    shell = next(item for item in lane.snapshot.items if item.type == "shell_call")
    assert shell.commands == ["kubectl get pods -n api", "kubectl logs deploy/api --tail=20"]
    assert all(type(command) is str for command in shell.commands)
    assert shell.to_api()["action"]["commands"] == shell.commands
    assert shell.shell_output == []


def test_an_open_shell_call_shows_its_commands_so_far() -> None:
    body = capture("responses_kindo_agent.sse")
    cut = body.index(b"response.shell_call_command.done")
    lane = run(body[: body.rindex(b"\n\n", 0, cut) + 2])[0]
    shell = next(item for item in lane.snapshot.items if item.type == "shell_call")
    assert not shell.done and shell.commands == ["kubectl get pods -n api"]
    assert shell.to_api()["action"]["commands"] == ["kubectl get pods -n api"]


def test_shell_output_deltas_are_entries_of_strings() -> None:
    ref = {"item_id": "so", "output_index": 0, "command_index": 0}
    lane, _ = run(frames([
        {"type": "response.output_item.added", "output_index": 0,
         "item": {"id": "so", "type": "shell_call_output", "output": []}},
        {"type": "response.shell_call_output_content.delta", **ref, "delta": {"stdout": "a"}},
        {"type": "response.shell_call_output_content.delta", **ref, "delta": {"stdout": "b"}},
    ]))
    item = lane.snapshot.item(0)
    assert item is not None and item.shell_output == [{"stdout": "ab"}]
    assert item.to_api()["output"] == [{"stdout": "ab"}]
