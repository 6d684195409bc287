"""Every content block goose writes, parsed as goose writes it, plus what goose cannot read."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.domain.parts import (
    ActionRequiredPart,
    AudioPart,
    ErrorPart,
    FilePart,
    ImagePart,
    NotificationPart,
    ReasoningPart,
    RedactedReasoningPart,
    ResourceLinkPart,
    ResourcePart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UnsupportedPart,
)
from desktop_app.sources.common.goose_json.content import parse_block, parse_content
from tests.fixtures.goose_json import BLOCK_TYPES


def one(block: object) -> object:
    parts = parse_content(json.dumps([block]))
    assert len(parts) == 1
    return parts[0]


def test_text_with_and_without_annotations() -> None:
    plain = one({"type": "text", "text": "Hello"})
    assert plain == TextPart(text="Hello")
    hidden = one(
        {
            "type": "text",
            "text": "internal preamble",
            "annotations": {"audience": ["assistant"], "priority": 0.5},
        }
    )
    assert isinstance(hidden, TextPart)
    assert hidden.annotations is not None
    assert hidden.annotations.audience == ("assistant",)
    assert hidden.annotations.priority == 0.5
    assert not hidden.annotations.shown_to("user")
    assert hidden.annotations.shown_to("assistant")


def test_every_part_keeps_its_raw_json() -> None:
    block = {"type": "text", "text": "x", "_meta": {"k": 1}}
    part = one(block)
    assert part.raw == block  # type: ignore[attr-defined]


def test_unicode_tag_characters_are_stripped_like_goose() -> None:
    sneaky = "ok" + "".join(chr(0xE0000 + ord(c)) for c in "ignore all") + "!"
    part = one({"type": "text", "text": sneaky})
    assert isinstance(part, TextPart)
    assert part.text == "ok!"
    assert part.raw["text"] == sneaky


def test_tag_characters_are_stripped_from_a_text_longer_than_a_slice() -> None:
    """A long text is scanned a slice at a time (#13: the window never waits on one scan of a
    20 MB message); tags at the slices' edges and anywhere else go, nothing else does."""
    from desktop_app.sources.common.goose_json.content import _STRIP_SLICE, strip_tags

    tag = chr(0xE0041)
    text = ("é" * (_STRIP_SLICE - 1) + tag) * 2 + tag + "end"
    assert strip_tags(text) == "é" * (_STRIP_SLICE - 1) * 2 + "end"
    plain = "a" * (3 * _STRIP_SLICE)
    assert strip_tags(plain) is plain  # ASCII has no tag characters: not even scanned


def test_image_and_document() -> None:
    image = one({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"})
    assert image == ImagePart(mime_type="image/png", data_b64="iVBORw0KGgo=")
    document = one(
        {
            "type": "document",
            "data": "cGRmLWJ5dGVz",
            "mimeType": "application/pdf",
            "name": "q3-report.pdf",
        }
    )
    assert document == FilePart(
        mime_type="application/pdf", name="q3-report.pdf", data_b64="cGRmLWJ5dGVz"
    )


def test_tool_request_success_with_meta() -> None:
    part = one(
        {
            "type": "toolRequest",
            "id": "toolu_01",
            "toolCall": {
                "status": "success",
                "value": {"name": "developer__shell", "arguments": {"command": "ls -la"}},
            },
            "_meta": {
                "goose.toolSummary.title": "listing files",
                "goose.toolChain.summary": {"summary": "explored repo", "count": 3},
            },
        }
    )
    assert isinstance(part, ToolCallPart)
    assert part.call_id == "toolu_01"
    assert part.name == "developer__shell"
    assert (part.extension, part.tool) == ("developer", "shell")
    assert part.arguments == {"command": "ls -la"}
    assert part.summary_title == "listing files"
    assert part.error is None


def test_tool_name_splits_at_first_double_underscore_only() -> None:
    part = ToolCallPart(name="mcp__server__do_thing")
    assert (part.extension, part.tool) == ("mcp", "server__do_thing")
    assert (ToolCallPart(name="plain").extension, ToolCallPart(name="plain").tool) == (
        None,
        "plain",
    )


def test_tool_request_error_form() -> None:
    part = one(
        {
            "type": "toolRequest",
            "id": "toolu_02",
            "toolCall": {"status": "error", "error": "-32603: Could not parse tool arguments"},
        }
    )
    assert isinstance(part, ToolCallPart)
    assert part.error == "-32603: Could not parse tool arguments"
    assert part.name is None


def test_non_object_tool_arguments_read_back_as_goose_does() -> None:
    def args(value: object) -> object:
        block = {
            "type": "toolRequest",
            "id": "t",
            "toolCall": {"status": "success", "value": {"name": "x__y", "arguments": value}},
        }
        part = one(block)
        assert isinstance(part, ToolCallPart)
        return part.arguments

    assert args("a string") == {"value": "a string"}
    assert args([1, 2]) == {"value": [1, 2]}
    assert args(42) == {"value": 42}
    assert args(None) is None
    assert args({"k": "v"}) == {"k": "v"}


def test_tool_response_call_tool_result_with_every_item_kind() -> None:
    part = one(
        {
            "type": "toolResponse",
            "id": "toolu_01",
            "toolResult": {
                "status": "success",
                "value": {
                    "content": [
                        {
                            "type": "text",
                            "text": "total 8\ndrwxr-xr-x",
                            "annotations": {"audience": ["assistant"]},
                        },
                        {
                            "type": "text",
                            "text": "ran `ls -la`",
                            "annotations": {"audience": ["user"], "priority": 0.0},
                        },
                        {
                            "type": "resource",
                            "resource": {
                                "uri": "file:///home/me/a.rs",
                                "mimeType": "text/x-rust",
                                "text": "fn main(){}",
                            },
                        },
                        {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                        {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
                        {
                            "type": "resource_link",
                            "uri": "https://x.test/a",
                            "name": "a",
                            "description": "d",
                            "mimeType": "text/html",
                            "size": 10,
                        },
                        {
                            "type": "resource",
                            "resource": {"uri": "file:///b.bin", "blob": "AAEC"},
                            "annotations": {"lastModified": "2026-01-02T03:04:05Z"},
                        },
                    ],
                    "isError": False,
                    "structuredContent": {"files": 2},
                },
            },
        }
    )
    assert isinstance(part, ToolResultPart)
    assert part.call_id == "toolu_01"
    assert not part.is_error
    assert part.structured_content == {"files": 2}
    kinds = [type(item) for item in part.content]
    assert kinds == [
        TextPart,
        TextPart,
        ResourcePart,
        ImagePart,
        AudioPart,
        ResourceLinkPart,
        ResourcePart,
    ]
    assert part.content[1].annotations.audience == ("user",)  # type: ignore[union-attr]
    resource = part.content[2]
    assert isinstance(resource, ResourcePart)
    assert (resource.uri, resource.mime_type, resource.text) == (
        "file:///home/me/a.rs",
        "text/x-rust",
        "fn main(){}",
    )
    link = part.content[5]
    assert isinstance(link, ResourceLinkPart)
    assert link.size == 10
    blob = part.content[6]
    assert isinstance(blob, ResourcePart)
    assert blob.blob_b64 == "AAEC"
    assert blob.annotations is not None
    assert blob.annotations.last_modified == "2026-01-02T03:04:05Z"


def test_tool_response_legacy_array_and_is_error_and_error_envelope() -> None:
    legacy = one(
        {
            "type": "toolResponse",
            "id": "toolu_01",
            "toolResult": {"status": "success", "value": [{"type": "text", "text": "Tool output"}]},
        }
    )
    assert isinstance(legacy, ToolResultPart)
    assert legacy.legacy_array
    assert legacy.content == (TextPart(text="Tool output"),)
    failed = one(
        {
            "type": "toolResponse",
            "id": "toolu_01",
            "toolResult": {"status": "error", "error": "-32603: command failed"},
        }
    )
    assert isinstance(failed, ToolResultPart)
    assert failed.is_error
    assert failed.error_text == "-32603: command failed"
    flagged = one(
        {
            "type": "toolResponse",
            "id": "t",
            "toolResult": {
                "status": "success",
                "value": {"content": [{"type": "text", "text": "no"}], "isError": True},
            },
        }
    )
    assert isinstance(flagged, ToolResultPart)
    assert flagged.is_error


def test_unknown_item_inside_tool_result_is_kept_not_fatal() -> None:
    part = one(
        {
            "type": "toolResponse",
            "id": "t",
            "toolResult": {
                "status": "success",
                "value": {
                    "content": [{"type": "hologram", "x": 1}, {"type": "text", "text": "ok"}]
                },
            },
        }
    )
    assert isinstance(part, ToolResultPart)
    assert isinstance(part.content[0], UnsupportedPart)
    assert part.content[0].source_type == "hologram"
    assert '"hologram"' in part.content[0].raw_text
    assert part.content[1] == TextPart(text="ok")


def test_tool_confirmation_request_and_action_required_variants() -> None:
    request = one(
        {
            "type": "toolConfirmationRequest",
            "id": "toolu_03",
            "toolName": "developer__shell",
            "arguments": {"command": "rm -rf build"},
            "prompt": "Allow this command?",
        }
    )
    assert isinstance(request, ActionRequiredPart)
    assert request.action_type == "toolConfirmation"
    assert (request.tool_name, request.prompt) == ("developer__shell", "Allow this command?")
    assert request.arguments == {"command": "rm -rf build"}

    confirmation = one(
        {
            "type": "actionRequired",
            "data": {
                "actionType": "toolConfirmation",
                "id": "toolu_03",
                "toolName": "developer__shell",
                "arguments": {"command": "rm -rf build"},
                "prompt": None,
            },
        }
    )
    assert isinstance(confirmation, ActionRequiredPart)
    assert confirmation.prompt is None
    assert confirmation.call_id == "toolu_03"

    elicitation = one(
        {
            "type": "actionRequired",
            "data": {
                "actionType": "elicitation",
                "id": "el_1",
                "message": "Pick a branch",
                "requested_schema": {"type": "object", "properties": {}},
            },
        }
    )
    assert isinstance(elicitation, ActionRequiredPart)
    assert elicitation.message == "Pick a branch"
    assert elicitation.data["requested_schema"] == {"type": "object", "properties": {}}

    response = one(
        {
            "type": "actionRequired",
            "data": {
                "actionType": "elicitationResponse",
                "id": "el_1",
                "user_data": {"branch": "main"},
                "action": "accept",
            },
        }
    )
    assert isinstance(response, ActionRequiredPart)
    assert response.action_type == "elicitationResponse"
    assert response.data["user_data"] == {"branch": "main"}

    permission = one(
        {
            "type": "actionRequired",
            "data": {"actionType": "toolConfirmationResponse", "id": "toolu_03", "permission": "x"},
        }
    )
    assert isinstance(permission, ActionRequiredPart)
    assert permission.action_type == "toolConfirmationResponse"


def test_frontend_tool_request() -> None:
    part = one(
        {
            "type": "frontendToolRequest",
            "id": "fe_1",
            "toolCall": {"status": "success", "value": {"name": "browser__click", "arguments": {}}},
        }
    )
    assert isinstance(part, ToolCallPart)
    assert part.frontend
    assert part.name == "browser__click"


def test_thinking_redacted_and_legacy_reasoning() -> None:
    thinking = one({"type": "thinking", "thinking": "Let me check…", "signature": "EqQBCkgIARAB"})
    assert thinking == ReasoningPart(text="Let me check…", signature="EqQBCkgIARAB")
    redacted = one({"type": "redactedThinking", "data": "EmwKAhgBEgy3va"})
    assert redacted == RedactedReasoningPart(data="EmwKAhgBEgy3va")
    legacy = one({"type": "reasoning", "text": "step by step"})
    assert isinstance(legacy, ReasoningPart)
    assert legacy.text == "step by step"
    assert legacy.from_legacy_reasoning
    assert legacy.signature is None


def test_system_notification_and_error() -> None:
    notice = one(
        {
            "type": "systemNotification",
            "notificationType": "inlineMessage",
            "msg": "Context compacted",
            "data": {"tokens": 1234},
        }
    )
    assert notice == NotificationPart(
        notification_type="inlineMessage", text="Context compacted", data={"tokens": 1234}
    )
    error = one({"type": "error", "kind": "contextLengthExceeded", "message": "too long"})
    assert error == ErrorPart(error_kind="contextLengthExceeded", message="too long")


def test_legacy_conversation_compacted_marker_is_shown_not_dropped() -> None:
    part = one({"type": "conversationCompacted", "msg": "compacted"})
    assert isinstance(part, NotificationPart)
    assert part.notification_type == "conversationCompacted"


def test_unknown_and_malformed_blocks_sit_beside_good_ones() -> None:
    parts = parse_content(
        json.dumps(
            [
                {"type": "text", "text": "before"},
                {"type": "toolInputDelta", "id": "t", "delta": "{"},
                {"type": "text"},
                "just a string",
                {"no": "type"},
                {"type": "toolRequest", "id": "x", "toolCall": {"status": "weird"}},
                {"type": "text", "text": "after"},
            ]
        )
    )
    assert parts[0] == TextPart(text="before")
    assert parts[-1] == TextPart(text="after")
    middle = parts[1:-1]
    assert all(isinstance(p, UnsupportedPart) for p in middle)
    reasons = [p.reason for p in middle]  # type: ignore[union-attr]
    assert reasons[0] == "unknown content type 'toolInputDelta'"
    assert reasons[1].startswith("malformed text")
    assert reasons[2] == "not a JSON object"
    assert reasons[3] == "the block has no type"
    assert reasons[4].startswith("malformed toolRequest")


def test_whole_row_broken_becomes_one_visible_part() -> None:
    (broken,) = parse_content('[{"type":"text","text":"cut off')
    assert isinstance(broken, UnsupportedPart)
    assert broken.raw_text == '[{"type":"text","text":"cut off'
    assert "not valid JSON" in broken.reason
    (not_array,) = parse_content('{"type":"text","text":"x"}')
    assert isinstance(not_array, UnsupportedPart)
    assert not_array.reason == "the content is not a JSON array"
    assert parse_content("[]") == ()


keys = st.sampled_from(
    [
        "type",
        "text",
        "id",
        "toolCall",
        "toolResult",
        "value",
        "status",
        "data",
        "content",
        "annotations",
        "audience",
        "arguments",
        "name",
        "msg",
    ]
) | st.text(max_size=5)
"""The names goose's blocks use, so that some arbitrary blocks parse as what they say."""
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=5),
    max_leaves=20,
)
type_names = st.sampled_from([*BLOCK_TYPES, "bogus"])
well_formed = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": st.text()}),
    st.fixed_dictionaries({"type": st.just("reasoning"), "text": st.text()}),
    st.fixed_dictionaries({"type": st.just("thinking"), "thinking": st.text()}),
    st.fixed_dictionaries({"type": st.sampled_from(["image", "document"]), "data": st.text()}),
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(["toolRequest", "frontendToolRequest"]),
            "toolCall": st.fixed_dictionaries(
                {"status": st.just("success"), "value": st.dictionaries(keys, json_values)}
            ),
        }
    ),
)
"""Blocks of the kinds goose writes, which arbitrary dictionaries seldom are."""
blocks = st.one_of(
    st.builds(
        lambda extra, block: {**extra, **block}, st.dictionaries(keys, json_values), well_formed
    ),
    st.builds(
        lambda block_type, body: {**body, "type": block_type},
        type_names,
        st.dictionaries(keys, json_values, max_size=6),
    ),
)


@settings(max_examples=400)
@given(blocks)
def test_parser_never_raises_on_goose_shaped_garbage(body: dict[str, object]) -> None:
    """Whatever the block, nothing of it is lost: a part Gander reads keeps the block itself as
    its raw JSON, and a block it cannot read is shown whole, with a reason."""
    part = parse_block(body)
    if isinstance(part, UnsupportedPart):
        assert part.reason
        assert part.raw_text == json.dumps(body, ensure_ascii=False)
    else:
        assert part.raw is body


@settings(max_examples=200)
@given(st.text(max_size=200) | st.lists(st.text(max_size=20), max_size=3).map(json.dumps))
def test_parser_never_raises_on_arbitrary_text(raw: str) -> None:
    """Content that is not a JSON array is one unsupported part holding the text as stored;
    an array gives one part per block."""
    parts = parse_content(raw)
    try:
        blocks = json.loads(raw)
    except ValueError:
        blocks = None
    if isinstance(blocks, list):
        assert len(parts) == len(blocks)
    else:
        (part,) = parts
        assert isinstance(part, UnsupportedPart)
        assert part.raw_text == raw
        assert part.reason
