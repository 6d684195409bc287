"""`glean-json/1`: the file a glean host writes, as docs/formats/glean-json.md defines it.

glean (a Gleam agent SDK, hex.pm/packages/glean) keeps a conversation as `List(Message)` in
memory and ships no encoder, so Gander defines the file: the message types as snake_case
`type` tags, the Gleam labels as field names, with three conventions of ours set out in that
document. Every type maps: `SystemMessage`, `UserMessage` (`UserText`, `UserFile` with `Base64Data`
or `UrlData` and a media type), `AssistantMessage` (`AssistantText`, `AssistantReasoning` with
its signature, `AssistantRedactedReasoning`, `AssistantToolCall` with arguments as a JSON
string), `ToolResultMessage` (`ToolResultOk`, `ToolResultError`, their text in `content` or
under the Gleam label). A part or message of another type is shown as unsupported. There are
no timestamps; the run's `usage` is the session's. Kind `glean-json`.
"""

import json
from pathlib import Path
from typing import Any

from desktop_app.domain.message import Message, Role, Visibility
from desktop_app.domain.parts import (
    FilePart,
    ImagePart,
    Part,
    ReasoningPart,
    RedactedReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from desktop_app.domain.reading import visible_count
from desktop_app.domain.session import Session
from desktop_app.domain.usage import TokenUsage, count
from desktop_app.sources.common.raw_json import unsupported
from desktop_app.sources.common.titles import title_of
from desktop_app.sources.files.history import FileFormat, ParsedSession, file_time

KIND = "glean-json"
FORMAT_TAG = "glean-json/1"


def _text(block: dict[str, Any], key: str) -> str | None:
    value = block.get(key)
    return value if isinstance(value, str) else None


def _user_part(block: Any) -> Part:
    if not isinstance(block, dict):
        return unsupported(block, "not a user part")
    kind = block.get("type")
    if kind == "user_text" and _text(block, "text") is not None:
        return TextPart(text=block["text"], raw=block)
    if kind == "user_file" and isinstance(block.get("data"), dict):
        data, media = block["data"], _text(block, "media_type")
        inline = _text(data, "value") if data.get("type") == "base64_data" else None
        url = _text(data, "value") if data.get("type") == "url_data" else None
        if media is not None and media.startswith("image/"):
            return ImagePart(mime_type=media, data_b64=inline, url=url, raw=block)
        return FilePart(mime_type=media, data_b64=inline, url=url, raw=block)
    return unsupported(block, f"unknown user part {kind!r}")


def _assistant_part(block: Any) -> Part:
    if not isinstance(block, dict):
        return unsupported(block, "not an assistant part")
    kind = block.get("type")
    if kind == "assistant_text" and _text(block, "text") is not None:
        return TextPart(text=block["text"], raw=block)
    if kind == "assistant_reasoning" and _text(block, "text") is not None:
        return ReasoningPart(text=block["text"], signature=_text(block, "signature"), raw=block)
    if kind == "assistant_redacted_reasoning":
        return RedactedReasoningPart(data=_text(block, "data"), raw=block)
    if kind == "assistant_tool_call":
        arguments_json = _text(block, "arguments_json")
        try:
            arguments = json.loads(arguments_json) if arguments_json is not None else None
        except (ValueError, RecursionError):
            arguments = arguments_json
        return ToolCallPart(
            call_id=_text(block, "tool_call_id"),
            name=_text(block, "tool_name"),
            arguments=arguments,
            arguments_raw=arguments_json,
            raw=block,
        )
    return unsupported(block, f"unknown assistant part {kind!r}")


_RESULT_LABELS = {"tool_result_ok": "output", "tool_result_error": "error_message"}
"""The Gleam label of each result's text: read where a host wrote the labels as fields (the
rule for every other type) instead of our `content`."""


def _result(block: Any) -> Part:
    if not isinstance(block, dict) or block.get("type") not in _RESULT_LABELS:
        return unsupported(block, "not a tool result")
    content = _text(block, "content")
    if content is None:
        content = _text(block, _RESULT_LABELS[block["type"]])
    failed = block["type"] == "tool_result_error"
    return ToolResultPart(
        call_id=_text(block, "tool_call_id"),
        name=_text(block, "tool_name"),
        is_error=failed,
        error_text=content if failed else None,
        content=() if failed or content is None else (TextPart(text=content),),
        raw=block,
    )


def _parts(items: Any, read: Any) -> tuple[Part, ...]:
    if not isinstance(items, list):
        return (unsupported(items, "the content is not a list"),)
    return tuple(read(item) for item in items)


def message_from(raw: Any, session_id: str, index: int) -> Message:
    kind = raw.get("type") if isinstance(raw, dict) else None
    role, visibility = Role.UNKNOWN, Visibility()
    parts: tuple[Part, ...]
    if kind == "system_message" and isinstance(raw.get("content"), str):
        role, visibility = Role.SYSTEM, Visibility(user=False, agent=True)
        parts = (TextPart(text=raw["content"]),)
    elif kind == "user_message":
        role, parts = Role.USER, _parts(raw.get("content"), _user_part)
    elif kind == "assistant_message":
        role, parts = Role.ASSISTANT, _parts(raw.get("content"), _assistant_part)
    elif kind == "tool_result_message":
        role, parts = Role.TOOL, _parts(raw.get("results"), _result)
    else:
        parts = (unsupported(raw, f"unknown message type {kind!r}"),)
    return Message(
        session_id=session_id,
        row_id=index,
        message_id=None,
        role=role,
        role_raw=kind if isinstance(kind, str) else "",
        created_at=None,
        created_raw=None,
        parts=parts,
        visibility=visibility,
        metadata_raw=raw,
    )


def parse(path: Path, data: bytes) -> ParsedSession:
    document = json.loads(data)
    if not isinstance(document, dict) or document.get("format") != FORMAT_TAG:
        raise ValueError(f"the file is not {FORMAT_TAG}")
    entries = document.get("messages")
    session_id = path.stem
    messages = [
        message_from(raw, session_id, index)
        for index, raw in enumerate(entries if isinstance(entries, list) else [])
    ]
    found = document.get("usage")
    usage: dict[str, Any] = found if isinstance(found, dict) else {}
    tokens_in, tokens_out = count(usage.get("input_tokens")), count(usage.get("output_tokens"))
    total = tokens_in + tokens_out if tokens_in is not None and tokens_out is not None else None
    tokens = TokenUsage(input_tokens=tokens_in, output_tokens=tokens_out, total_tokens=total)
    session = Session(
        id=session_id,
        name=title_of(messages, session_id),
        updated_at=file_time(path.stat().st_mtime),
        message_count=visible_count(messages),
        usage=tokens,
        accumulated_usage=tokens,
    )
    return ParsedSession(session=session, messages=messages)


def sniff(head: bytes) -> bool:
    return head.lstrip().startswith(b"{") and f'"{FORMAT_TAG}"'.encode() in head[:4096]


FORMAT = FileFormat(kind=KIND, suffixes=(".json",), sniff=sniff, parse=parse)
