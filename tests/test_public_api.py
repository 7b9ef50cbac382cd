"""``__all__`` is honest: every name exists, is documented, and nothing public is missing."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import sse_engine
from sse_engine import chat, gemini, messages, responses


def test_every_exported_name_exists_and_has_a_docstring() -> None:
    for name in sse_engine.__all__:
        obj = getattr(sse_engine, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert inspect.getdoc(obj), f"{name} has no docstring"


def test_all_has_no_duplicates() -> None:
    assert len(set(sse_engine.__all__)) == len(sse_engine.__all__)


def test_no_public_name_is_left_out_of_all() -> None:
    public = {
        name
        for name, obj in vars(sse_engine).items()
        if not name.startswith("_") and not inspect.ismodule(obj) and name != "annotations"
    }
    assert public == set(sse_engine.__all__)


def test_lane_modules_export_what_they_define() -> None:
    for module in (chat, messages, responses, gemini):
        for name in module.__all__:
            assert hasattr(module, name), f"{module.__name__}.{name}"
            obj = getattr(module, name)
            if inspect.isclass(obj):
                assert inspect.getdoc(obj), f"{module.__name__}.{name} has no docstring"


def test_lane_classes_share_the_contract() -> None:
    for lane_class in (
        sse_engine.ChatCompletionsLane,
        sse_engine.ResponsesLane,
        sse_engine.MessagesLane,
        sse_engine.GeminiLane,
    ):
        lane = lane_class()
        assert isinstance(lane, sse_engine.Lane)
        assert lane.outcome is None and lane.error is None and lane.warnings == []
        assert isinstance(lane.snapshot.to_api(), dict)
        events = lane.close()
        assert events == [sse_engine.StreamEnd(sse_engine.Outcome.TRUNCATED, lane.error)]
        assert lane.error is not None and lane.error.retryable


#: Every name each public module exported before the lanes moved into folders
#: (issue 10): a later change may add names, never drop one.
_PINNED: dict[str, frozenset[str]] = {
    "sse_engine": frozenset(
        {
            "ChatCompletionSnapshot",
            "ChatCompletionsLane",
            "Comment",
            "Conversation",
            "DEFAULT_IDLE_TIMEOUT",
            "DEFAULT_KEEPALIVE_ONLY_TIMEOUT",
            "DEFAULT_MAX_EVENT_SIZE",
            "DEFAULT_MAX_RECONNECTS",
            "EventTooLarge",
            "GeminiLane",
            "GeminiSnapshot",
            "Image",
            "InvalidRequest",
            "Lane",
            "LaneEvent",
            "LaneWarning",
            "Liveness",
            "LivenessVerdict",
            "Message",
            "MessageSnapshot",
            "MessagesLane",
            "Native",
            "Outcome",
            "ProtocolError",
            "Reasoning",
            "Refusal",
            "Rendered",
            "ResponseFormat",
            "ResponseSnapshot",
            "ResponsesLane",
            "ResumePlan",
            "SSEEngineError",
            "SSEParser",
            "ServerSentEvent",
            "Settings",
            "StreamEnd",
            "StreamError",
            "StreamRestarted",
            "Text",
            "Tool",
            "ToolChoice",
            "ToolResult",
            "UsageError",
            "aiter_events",
            "encode_chat_done",
            "encode_chat_event",
            "encode_comment",
            "encode_event",
            "encode_gemini_event",
            "encode_json",
            "encode_lane_events",
            "encode_messages_event",
            "encode_responses_event",
            "is_retryable",
            "iter_events",
        }
    ),
    "sse_engine.conversation": frozenset(
        {
            "Content",
            "Conversation",
            "Image",
            "InvalidRequest",
            "Message",
            "Native",
            "Reasoning",
            "ReasoningBlock",
            "Refusal",
            "Rendered",
            "RequestCodec",
            "ResponseFormat",
            "Role",
            "Settings",
            "Text",
            "Tool",
            "ToolCall",
            "ToolChoice",
            "ToolChoiceMode",
            "ToolResult",
            "ToolResultContent",
            "Writer",
        }
    ),
    "sse_engine.chat": frozenset(
        {
            "COMPLETE_FINISH_REASONS",
            "ChatChoiceEvent",
            "ChatChoiceSnapshot",
            "ChatChunk",
            "ChatCompletionSnapshot",
            "ChatCompletionsLane",
            "ChatContentDelta",
            "ChatDeltaField",
            "ChatEvent",
            "ChatFinish",
            "ChatFunctionCallDelta",
            "ChatFunctionCallEnd",
            "ChatFunctionCallSnapshot",
            "ChatLogprobs",
            "ChatRefusalDelta",
            "ChatRole",
            "ChatToolCallArgumentsDelta",
            "ChatToolCallEnd",
            "ChatToolCallSnapshot",
            "ChatToolCallStarted",
            "ChatUnknownFrame",
            "ChatUsage",
            "INCOMPLETE_FINISH_REASONS",
        }
    ),
    "sse_engine.responses": frozenset(
        {
            "ContentPart",
            "ITEM_STATUS_TYPES",
            "OutputItem",
            "ResponseAnnotationEvent",
            "ResponseArgumentsDoneEvent",
            "ResponseAudioEvent",
            "ResponseCallDeltaEvent",
            "ResponseCodeDoneEvent",
            "ResponseContentDeltaEvent",
            "ResponseContentPartEvent",
            "ResponseCustomToolInputDoneEvent",
            "ResponseErrorEvent",
            "ResponseItemEvent",
            "ResponseItemStatusEvent",
            "ResponseLifecycleEvent",
            "ResponseOutputItemEvent",
            "ResponsePartialImageEvent",
            "ResponseRefusalDoneEvent",
            "ResponseShellCommandDeltaEvent",
            "ResponseShellCommandEvent",
            "ResponseShellOutputDeltaEvent",
            "ResponseShellOutputDoneEvent",
            "ResponseSnapshot",
            "ResponseSummaryPartEvent",
            "ResponseSummaryTextDeltaEvent",
            "ResponseSummaryTextDoneEvent",
            "ResponseTerminalEvent",
            "ResponseTextDoneEvent",
            "ResponseUnknownEvent",
            "ResponsesEvent",
            "ResponsesLane",
            "ResumePlan",
            "TextBuffer",
        }
    ),
    "sse_engine.messages": frozenset(
        {
            "BlockDelta",
            "BlockStart",
            "BlockStop",
            "CitationDelta",
            "ContentBlock",
            "InputJsonDelta",
            "MessageDelta",
            "MessageError",
            "MessageEvent",
            "MessageSnapshot",
            "MessageStart",
            "MessageStop",
            "MessagesLane",
            "OtherDelta",
            "Ping",
            "SignatureDelta",
            "TextDelta",
            "ThinkingDelta",
            "ToolUseStop",
            "UnknownEvent",
        }
    ),
    "sse_engine.gemini": frozenset(
        {
            "BLOCK_REASONS",
            "COMPLETED_FINISH_REASONS",
            "FAILED_FINISH_REASONS",
            "INCOMPLETE_FINISH_REASONS",
            "CandidateEvent",
            "CandidateField",
            "CandidateFinish",
            "CandidateSnapshot",
            "FunctionCallPart",
            "GeminiChunk",
            "GeminiError",
            "GeminiEvent",
            "GeminiLane",
            "GeminiSnapshot",
            "GeminiUnknownFrame",
            "OtherPart",
            "PromptFeedback",
            "TextPart",
            "ThoughtPart",
            "UsageMetadata",
            "encode_gemini_event",
        }
    ),
}


#: The pinned names a later change removed on purpose, and what to use instead:
#: each one is in CHANGELOG.md (or a branch's ``changes/<branch>.md``, which the
#: integrator folds into it). One name means one thing (issue 19's naming pass).
_REMOVED: dict[str, str] = {
    "sse_engine.encode_chat_done": "encode_chat_event(StreamEnd(Outcome.COMPLETED))",
    "sse_engine.responses.TextBuffer": (
        "the snapshot's strings: ContentPart.text and .streamed, OutputItem.arguments, "
        ".commands and .shell_output"
    ),
    "sse_engine.messages.TextDelta": "sse_engine.messages.TextBlockDelta (the lane event; "
    "sse_engine.TextDelta is the part)",
    "sse_engine.messages.MessageEvent": "sse_engine.messages.MessagesEvent",
    # Events the engine invents say "End" (it ended), as StreamEnd and ToolCallEnd do.
    "sse_engine.chat.ChatToolCallDone": "sse_engine.chat.ChatToolCallEnd",
    "sse_engine.chat.ChatFunctionCallDone": "sse_engine.chat.ChatFunctionCallEnd",
}


def test_public_import_paths_keep_every_pinned_name() -> None:
    for module_name, names in _PINNED.items():
        module = importlib.import_module(module_name)
        kept = {name for name in names if f"{module_name}.{name}" not in _REMOVED}
        missing = sorted(name for name in kept if not hasattr(module, name))
        assert not missing, f"{module_name} lost {missing}"
        assert kept <= set(module.__all__), f"{module_name}.__all__ lost a pinned name"


def test_a_removed_name_is_gone_and_in_the_changelog() -> None:
    root = Path(__file__).resolve().parent.parent
    changelog = "\n".join(
        path.read_text("utf-8")
        for path in [root / "CHANGELOG.md", *sorted((root / "changes").glob("*.md"))]
    )
    for path, instead in _REMOVED.items():
        module_name, _, name = path.rpartition(".")
        module = importlib.import_module(module_name)
        assert not hasattr(module, name), f"{path} is still there (use {instead})"
        assert f"`{name}`" in changelog, f"CHANGELOG.md (or changes/) does not say {path} went"
