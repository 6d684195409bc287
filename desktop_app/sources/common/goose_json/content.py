"""goose `content_json` → parts.

goose fails a whole session when one block has an unknown type; we turn anything we cannot read into
an `UnsupportedPart` holding its raw JSON and keep going, one block at a time. Like goose we read
legacy `reasoning` as thinking and strip Unicode tag characters (an invisible prompt-injection
channel) from text; the untouched block stays in `raw`.
"""

import re
from collections.abc import Callable, Mapping
from typing import Any

from desktop_app.domain.jsontext import loads
from desktop_app.domain.parts import (
    ActionRequiredPart,
    Annotations,
    AudioPart,
    ErrorPart,
    FilePart,
    ImagePart,
    NotificationPart,
    Part,
    ReasoningPart,
    RedactedReasoningPart,
    ResourceLinkPart,
    ResourcePart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UnsupportedPart,
)
from desktop_app.sources.common.goose_json import tools
from desktop_app.sources.common.raw_json import dump

_TAG_CHARACTERS = re.compile("[\U000e0000-\U000e007f]")


class _Malformed(Exception):
    """A block whose required fields are missing or of the wrong type."""


_STRIP_SLICE = 1_000_000


def strip_tags(text: str) -> str:
    """goose's `sanitize_unicode_tags`: Unicode tag characters (U+E0000–U+E007F, invisible, a
    known way to smuggle instructions) removed. ASCII text has none; other text is scanned a
    megabyte at a time, so a 20 MB message never holds the interpreter lock (and the window)
    for a whole 120 ms scan."""
    if text.isascii():
        return text
    if len(text) <= _STRIP_SLICE:
        return _TAG_CHARACTERS.sub("", text)
    return "".join(
        _TAG_CHARACTERS.sub("", text[start : start + _STRIP_SLICE])
        for start in range(0, len(text), _STRIP_SLICE)
    )


def parse_content(content_json: str | None) -> tuple[Part, ...]:
    """All parts of one message, in order. Never raises."""
    if content_json is None:
        return (
            UnsupportedPart(source_type=None, raw_text="", reason="the message has no content"),
        )
    try:
        blocks = loads(content_json)
    except (ValueError, RecursionError) as error:
        reason = f"the content is not valid JSON ({error})"
        return (UnsupportedPart(source_type=None, raw_text=content_json, reason=reason),)
    return parse_blocks(blocks, content_json)


def parse_blocks(blocks: Any, raw_text: str | None = None) -> tuple[Part, ...]:
    """Already parsed content (a goose export or legacy file); never raises."""
    if not isinstance(blocks, list):
        text = raw_text if raw_text is not None else dump(blocks)
        return (
            UnsupportedPart(
                source_type=None, raw_text=text, reason="the content is not a JSON array"
            ),
        )
    return tuple(parse_block(block) for block in blocks)


def parse_block(block: Any) -> Part:
    """One content block; unknown or malformed blocks come back as `UnsupportedPart`."""
    if not isinstance(block, dict):
        return UnsupportedPart(source_type=None, raw_text=dump(block), reason="not a JSON object")
    block_type = block.get("type")
    parser = _BLOCK_PARSERS.get(block_type) if isinstance(block_type, str) else None
    if parser is None:
        label = block_type if isinstance(block_type, str) else None
        reason = f"unknown content type {block_type!r}" if label else "the block has no type"
        return UnsupportedPart(source_type=label, raw_text=dump(block), reason=reason)
    try:
        return parser(block)
    except (_Malformed, TypeError, ValueError, AttributeError, RecursionError) as error:
        return UnsupportedPart(
            source_type=block_type, raw_text=dump(block), reason=f"malformed {block_type}: {error}"
        )


def _require_str(block: Mapping[str, Any], key: str) -> str:
    value = block.get(key)
    if not isinstance(value, str):
        raise _Malformed(f"'{key}' is missing or not a string")
    return value


def _opt_str(block: Mapping[str, Any], key: str) -> str | None:
    value = block.get(key)
    return value if isinstance(value, str) else None


def _opt_int(block: Mapping[str, Any], key: str) -> int | None:
    value = block.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _opt_mapping(block: Mapping[str, Any], key: str) -> dict[str, Any] | None:
    value = block.get(key)
    return value if isinstance(value, dict) else None


def parse_annotations(block: Mapping[str, Any]) -> Annotations | None:
    raw = block.get("annotations")
    if not isinstance(raw, dict):
        return None
    audience = raw.get("audience")
    priority = raw.get("priority")
    return Annotations(
        audience=tuple(a for a in audience if isinstance(a, str))
        if isinstance(audience, list)
        else None,
        priority=float(priority)
        if isinstance(priority, int | float) and not isinstance(priority, bool)
        else None,
        last_modified=_opt_str(raw, "lastModified") or _opt_str(raw, "timestamp"),
    )


def _text(block: dict[str, Any]) -> Part:
    return TextPart(
        text=strip_tags(_require_str(block, "text")),
        annotations=parse_annotations(block),
        raw=block,
    )


def _image(block: dict[str, Any]) -> Part:
    return ImagePart(
        mime_type=_opt_str(block, "mimeType"),
        data_b64=_require_str(block, "data"),
        annotations=parse_annotations(block),
        raw=block,
    )


def _audio(block: dict[str, Any]) -> Part:
    return AudioPart(
        mime_type=_opt_str(block, "mimeType"),
        data_b64=_require_str(block, "data"),
        annotations=parse_annotations(block),
        raw=block,
    )


def _document(block: dict[str, Any]) -> Part:
    return FilePart(
        mime_type=_opt_str(block, "mimeType"),
        name=_opt_str(block, "name"),
        data_b64=_require_str(block, "data"),
        raw=block,
    )


def _resource(block: dict[str, Any]) -> Part:
    resource = _opt_mapping(block, "resource")
    if resource is None:
        raise _Malformed("'resource' is missing or not an object")
    text = _opt_str(resource, "text")
    return ResourcePart(
        uri=_opt_str(resource, "uri"),
        mime_type=_opt_str(resource, "mimeType"),
        text=strip_tags(text) if text is not None else None,
        blob_b64=_opt_str(resource, "blob"),
        annotations=parse_annotations(block),
        raw=block,
    )


def _resource_link(block: dict[str, Any]) -> Part:
    return ResourceLinkPart(
        uri=_opt_str(block, "uri"),
        name=_opt_str(block, "name"),
        description=_opt_str(block, "description"),
        mime_type=_opt_str(block, "mimeType"),
        size=_opt_int(block, "size"),
        annotations=parse_annotations(block),
        raw=block,
    )


def _tool_arguments(value: Any) -> Any:
    """goose reads non-object arguments back as `{"value": x}` and `null` as absent."""
    if value is None or isinstance(value, dict):
        return value
    return {"value": value}


def _tool_call(block: dict[str, Any], *, frontend: bool) -> Part:
    call = _opt_mapping(block, "toolCall")
    if call is None:
        raise _Malformed("'toolCall' is missing or not an object")
    meta = _opt_mapping(block, "_meta") or _opt_mapping(block, "toolMeta")
    call_id = _opt_str(block, "id")
    status = call.get("status")
    if status == "error":
        return ToolCallPart(
            call_id=call_id,
            error=str(call.get("error", "")),
            frontend=frontend,
            meta=meta,
            raw=block,
        )
    value = _opt_mapping(call, "value")
    if status != "success" or value is None:
        raise _Malformed("'toolCall' is neither a success with a value nor an error")
    name = _opt_str(value, "name")
    arguments = _tool_arguments(value.get("arguments"))
    return ToolCallPart(
        call_id=call_id,
        name=name,
        arguments=arguments,
        frontend=frontend,
        meta=meta,
        raw=block,
        action=tools.action(name, arguments),
    )


def _result_item(item: Any) -> Part:
    """An MCP content item inside a tool result: the item parsers, plus MCP-only kinds."""
    if isinstance(item, dict) and item.get("type") in _RESULT_ITEM_PARSERS:
        try:
            return _RESULT_ITEM_PARSERS[item["type"]](item)
        except (_Malformed, TypeError, ValueError) as error:
            return UnsupportedPart(
                source_type=item["type"],
                raw_text=dump(item),
                reason=f"malformed {item['type']}: {error}",
            )
    label = (
        item.get("type") if isinstance(item, dict) and isinstance(item.get("type"), str) else None
    )
    reason = f"unknown tool result item {label!r}" if label else "not an MCP content item"
    return UnsupportedPart(source_type=label, raw_text=dump(item), reason=reason)


def _tool_response(block: dict[str, Any]) -> Part:
    result = _opt_mapping(block, "toolResult")
    if result is None:
        raise _Malformed("'toolResult' is missing or not an object")
    call_id = _opt_str(block, "id")
    status = result.get("status")
    if status == "error":
        return ToolResultPart(
            call_id=call_id, is_error=True, error_text=str(result.get("error", "")), raw=block
        )
    if status != "success":
        raise _Malformed("'toolResult' is neither a success nor an error")
    value = result.get("value")
    if isinstance(value, list):
        return ToolResultPart(
            call_id=call_id,
            content=tuple(_result_item(item) for item in value),
            legacy_array=True,
            raw=block,
        )
    if not isinstance(value, dict):
        raise _Malformed("the result value is neither a CallToolResult nor a list")
    items = value.get("content")
    if items is None:
        items = []
    if not isinstance(items, list):
        raise _Malformed("the result's 'content' is not a list")
    return ToolResultPart(
        call_id=call_id,
        is_error=value.get("isError") is True,
        content=tuple(_result_item(item) for item in items),
        structured_content=value.get("structuredContent"),
        raw=block,
        opens_session=_sub_agent(value),
    )


def _sub_agent(value: dict[str, Any]) -> str | None:
    """The sub-agent session a result names, so its card links to the child's transcript:
    goose's summon extension (`platform_extensions/summon.rs`) puts the child's id in the
    `_meta.subagent_session_id` of every `delegate` result, and of a `load` that waits on a
    background one; it is the id of the session it made (`parent_session_id` this one)."""
    meta = value.get("_meta")
    child = meta.get("subagent_session_id") if isinstance(meta, dict) else None
    return child if isinstance(child, str) and child else None


def _tool_confirmation_request(block: dict[str, Any]) -> Part:
    return ActionRequiredPart(
        action_type="toolConfirmation",
        call_id=_opt_str(block, "id"),
        tool_name=_opt_str(block, "toolName"),
        arguments=block.get("arguments"),
        prompt=_opt_str(block, "prompt"),
        raw=block,
    )


def _action_required(block: dict[str, Any]) -> Part:
    data = _opt_mapping(block, "data")
    if data is None:
        raise _Malformed("'data' is missing or not an object")
    action_type = _require_str(data, "actionType")
    return ActionRequiredPart(
        action_type=action_type,
        call_id=_opt_str(data, "id"),
        tool_name=_opt_str(data, "toolName"),
        arguments=data.get("arguments"),
        prompt=_opt_str(data, "prompt"),
        message=_opt_str(data, "message"),
        data=data,
        raw=block,
    )


def _thinking(block: dict[str, Any]) -> Part:
    return ReasoningPart(
        text=strip_tags(_require_str(block, "thinking")),
        signature=_opt_str(block, "signature") or None,
        raw=block,
    )


def _legacy_reasoning(block: dict[str, Any]) -> Part:
    return ReasoningPart(
        text=strip_tags(_require_str(block, "text")), from_legacy_reasoning=True, raw=block
    )


def _redacted_thinking(block: dict[str, Any]) -> Part:
    return RedactedReasoningPart(data=_opt_str(block, "data"), raw=block)


def _system_notification(block: dict[str, Any]) -> Part:
    return NotificationPart(
        notification_type=_require_str(block, "notificationType"),
        text=strip_tags(_require_str(block, "msg")),
        data=block.get("data"),
        raw=block,
    )


def _error(block: dict[str, Any]) -> Part:
    return ErrorPart(
        error_kind=_opt_str(block, "kind") or "other",
        message=strip_tags(_require_str(block, "message")),
        raw=block,
    )


def _legacy_context_length_exceeded(block: dict[str, Any]) -> Part:
    return ErrorPart(
        error_kind="contextLengthExceeded", message=_opt_str(block, "msg") or "", raw=block
    )


def _legacy_notice(block: dict[str, Any]) -> Part:
    """Older goose markers that current goose drops on read; we show that they were there."""
    text = _opt_str(block, "msg") or {
        "conversationCompacted": "Conversation compacted",
        "summarizationRequested": "Summarization requested",
    }.get(block["type"], block["type"])
    return NotificationPart(notification_type=block["type"], text=text, raw=block)


_RESULT_ITEM_PARSERS: dict[str, Callable[[dict[str, Any]], Part]] = {
    "text": _text,
    "image": _image,
    "audio": _audio,
    "resource": _resource,
    "resource_link": _resource_link,
}

_BLOCK_PARSERS: dict[str, Callable[[dict[str, Any]], Part]] = {
    "text": _text,
    "image": _image,
    "document": _document,
    "toolRequest": lambda block: _tool_call(block, frontend=False),
    "frontendToolRequest": lambda block: _tool_call(block, frontend=True),
    "toolResponse": _tool_response,
    "toolConfirmationRequest": _tool_confirmation_request,
    "actionRequired": _action_required,
    "thinking": _thinking,
    "reasoning": _legacy_reasoning,
    "redactedThinking": _redacted_thinking,
    "systemNotification": _system_notification,
    "error": _error,
    "contextLengthExceeded": _legacy_context_length_exceeded,
    "conversationCompacted": _legacy_notice,
    "summarizationRequested": _legacy_notice,
}
