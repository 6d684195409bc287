"""toolnexus conversation files: what a host's `ConversationStore.save(id, messages)` writes.

toolnexus (github.com/muthuishere/toolnexus) keeps a conversation as the provider's own wire
messages and ships only an in-memory store; its documentation's file stores — `JsonFileStore`
(Python), `FileConversationStore` (C#), and a Go host's `encoding/json` — write one JSON array per
conversation as `<id>.json` (site/src/content/docs/api/*/client/store.mdx). The client appends
the provider's messages as they are (python/src/toolnexus/client.py), in one of two dialects,
told apart per file:

- **OpenAI chat**: `system`/`user`/`assistant`/`tool` messages, `tool_calls[].function` with
  arguments as a JSON string, `tool_call_id` on results, content as a string or parts (`text`,
  `image_url` with data URLs or links), DeepSeek-style `reasoning_content`, `refusal`;
- **Anthropic messages**: content blocks `text`, `image`, `document`, `tool_use`,
  `tool_result` (with `is_error`, sent in a `user` message), `thinking`, `redacted_thinking`.

In both, attachments are toolnexus' own parts (`{"type": "image", "mimeType", "data", "name"}`,
content.py), mapped to the provider's blocks only on the wire, and a tool that returned media
adds them as `parts` beside the result's `content`. An OpenAI `tool` message stores no error
flag, so no outcome is claimed for it. Tool results are shown as the tool's, never as the user
speaking: a `user` message holding `tool_result` blocks becomes a tool message (and a user
message for anything else in it). Thinking signatures are withheld, as for Claude Code.
toolnexus' compaction (agents/compaction.py) leaves `[Summary of earlier conversation]` system
messages: shown as notices. The leading system prompt is what only the agent saw. There are no
timestamps: times are "unknown", the list is ordered by file time. Kind `toolnexus`.
"""

import json
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from desktop_app.domain.message import Message, Role, Visibility
from desktop_app.domain.parts import (
    UNRECORDED,
    AudioPart,
    FilePart,
    ImagePart,
    NotificationPart,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from desktop_app.domain.reading import visible_count
from desktop_app.domain.session import Session
from desktop_app.sources.common.anthropic import anthropic_part, content_parts
from desktop_app.sources.common.raw_json import unsupported
from desktop_app.sources.common.titles import title_of
from desktop_app.sources.files.history import FileFormat, ParsedSession, file_time

KIND = "toolnexus"
SUMMARY_PREFIX = "[Summary of earlier conversation]"
REMINDER_PREFIX = "Before continuing:"
_ROLES = {"user": Role.USER, "assistant": Role.ASSISTANT, "system": Role.SYSTEM}
_ANTHROPIC_BLOCKS = {"tool_use", "tool_result", "thinking", "redacted_thinking"}


def dialect(messages: list[Any]) -> str:
    """`openai` or `anthropic`, from the first message only one of them has: OpenAI's tool
    calls or `tool` messages; Anthropic's tool use and results or thinking blocks (so a reply
    with thinking and no tools is Anthropic's). A transcript of plain text and toolnexus' own
    parts reads the same either way (`openai`)."""
    for message in messages:
        if not isinstance(message, dict):
            continue
        if "tool_calls" in message or message.get("role") == "tool":
            return "openai"
        content = message.get("content")
        if isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") in _ANTHROPIC_BLOCKS for b in content
        ):
            return "anthropic"
    return "openai"


def _data_url_image(url: str, raw: Any) -> ImagePart:
    """`data:image/png;base64,…` inline, anything else a link never fetched by itself."""
    if url.startswith("data:") and ";base64," in url:
        header, _, data = url.partition(",")
        return ImagePart(mime_type=header[5:].split(";", 1)[0] or None, data_b64=data, raw=raw)
    return ImagePart(url=url, raw=raw)


def _canonical_part(block: Any) -> Part | None:
    """toolnexus' own part, `{"type": "image"|"file"|"audio", "mimeType", "data"|"url",
    "name"}` (content.py `to_dict`): what the client stores for an attachment in either dialect
    and in a tool result's `parts`, mapped to the provider's blocks only when it sends them.
    `None` for anything else (a provider block)."""
    if not isinstance(block, dict) or not isinstance(block.get("mimeType"), str):
        return None
    mime = block["mimeType"]
    data = block.get("data") if isinstance(block.get("data"), str) else None
    url = block.get("url") if isinstance(block.get("url"), str) else None
    match block.get("type"):
        case "image":
            return ImagePart(mime_type=mime, data_b64=data, url=url, raw=block)
        case "file":
            name = block.get("name") if isinstance(block.get("name"), str) else None
            return FilePart(mime_type=mime, name=name, data_b64=data, url=url, raw=block)
        case "audio":
            return AudioPart(mime_type=mime, data_b64=data, raw=block)
        case _:
            return None


def _result_extras(raw: dict[str, Any], part: Callable[[Any], Part]) -> tuple[Part, ...]:
    """The `parts` toolnexus keeps beside a tool result's `content` when the tool returned
    media (client.py `_tool_message`, `_tool_result_block`): shown after the text."""
    extras = raw.get("parts")
    if extras is None:
        return ()
    if not isinstance(extras, list):
        return (unsupported(extras, "a tool result's parts are not a list"),)
    return tuple(part(item) for item in extras)


def _arguments(text: Any) -> tuple[Any, str | None]:
    """OpenAI sends arguments as a JSON string: parsed when it parses, else kept as text."""
    if not isinstance(text, str):
        return text, None
    try:
        return json.loads(text), text
    except (ValueError, RecursionError):
        return text, text


# ---- OpenAI chat ----------------------------------------------------------------------------


def _openai_part(block: Any) -> Part:
    if not isinstance(block, dict):
        return unsupported(block, "not a content part")
    canonical = _canonical_part(block)
    if canonical is not None:
        return canonical
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        return TextPart(text=block["text"], raw=block)
    if kind == "image_url":
        image = block.get("image_url")
        url = image.get("url") if isinstance(image, dict) else image
        if isinstance(url, str):
            return _data_url_image(url, block)
    if kind == "input_audio" and isinstance(block.get("input_audio"), dict):
        audio = block["input_audio"]
        return AudioPart(
            mime_type=f"audio/{audio.get('format', '')}", data_b64=audio.get("data"), raw=block
        )
    if kind == "file" and isinstance(block.get("file"), dict):
        attached = block["file"]
        return FilePart(
            name=attached.get("filename"), data_b64=attached.get("file_data"), raw=block
        )
    if kind == "refusal" and isinstance(block.get("refusal"), str):
        return NotificationPart(notification_type="refusal", text=block["refusal"], raw=block)
    return unsupported(block, f"unknown content part {kind!r}")


def _openai_messages(raw: Any, index: int, session_id: str) -> Iterator[Message]:
    role = raw.get("role")
    if role in ("tool", "function"):
        result = ToolResultPart(
            call_id=raw.get("tool_call_id") if isinstance(raw.get("tool_call_id"), str) else None,
            name=raw.get("name") if isinstance(raw.get("name"), str) else None,
            status=UNRECORDED,
            content=tuple(content_parts(raw.get("content"), _openai_part))
            + _result_extras(raw, _openai_part),
            raw=raw,
        )
        yield _message(session_id, index * 2, Role.TOOL, str(role), (result,))
        return
    parts: list[Part] = []
    reasoning = raw.get("reasoning_content") or raw.get("reasoning")
    if isinstance(reasoning, str) and reasoning:
        parts.append(ReasoningPart(text=reasoning, raw=reasoning))
    parts.extend(content_parts(raw.get("content"), _openai_part))
    if isinstance(raw.get("refusal"), str) and raw["refusal"]:
        parts.append(NotificationPart(notification_type="refusal", text=raw["refusal"]))
    for call in raw.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            parts.append(unsupported(call, "a tool call without a function"))
            continue
        arguments, text = _arguments(function.get("arguments"))
        parts.append(
            ToolCallPart(
                call_id=call.get("id") if isinstance(call.get("id"), str) else None,
                name=function.get("name") if isinstance(function.get("name"), str) else None,
                arguments=arguments,
                arguments_raw=text,
                raw=call,
            )
        )
    yield _spoken(session_id, index * 2, role, parts, first=index == 0)


# ---- Anthropic messages ---------------------------------------------------------------------


def _withheld(block: Any) -> Any:
    """A thinking block with its signature withheld: the provider's opaque token, never shown,
    and kept out of the JSON export as it is for Claude Code."""
    if isinstance(block, dict) and isinstance(block.get("signature"), str):
        withheld = f"[withheld by Gander: {len(block['signature']):,} characters]"
        return {**block, "signature": withheld}
    return block


def _anthropic_block(block: Any) -> Part:
    """A content block of a toolnexus Anthropic transcript: toolnexus' own parts, then the
    provider's blocks; a `tool_result` with the media of its `parts` after its content."""
    canonical = _canonical_part(block)
    if canonical is not None:
        return canonical
    part = anthropic_part(_withheld(block))
    if isinstance(part, ToolResultPart):
        return replace(part, content=part.content + _result_extras(block, _anthropic_block))
    if isinstance(part, ReasoningPart):
        return replace(part, signature=None)
    return part


def _anthropic_messages(raw: Any, index: int, session_id: str) -> Iterator[Message]:
    parts = content_parts(raw.get("content"), _anthropic_block)
    results: list[Part] = [p for p in parts if isinstance(p, ToolResultPart)]
    others: list[Part] = [p for p in parts if not isinstance(p, ToolResultPart)]
    if results:
        yield _message(session_id, index * 2, Role.TOOL, str(raw.get("role")), tuple(results))
    if others or not results:
        yield _spoken(session_id, index * 2 + 1, raw.get("role"), others, first=False)


# ---- both -----------------------------------------------------------------------------------


def _message(
    session_id: str,
    row: int,
    role: Role,
    role_raw: str,
    parts: tuple[Part, ...],
    *,
    visibility: Visibility | None = None,
) -> Message:
    return Message(
        session_id=session_id,
        row_id=row,
        message_id=None,
        role=role,
        role_raw=role_raw,
        created_at=None,
        created_raw=None,
        parts=parts,
        visibility=visibility or Visibility(),
    )


def _spoken(session_id: str, row: int, role: Any, parts: list[Part], *, first: bool) -> Message:
    """A system, user or assistant message; compaction notes and the system prompt marked."""
    role_raw = role if isinstance(role, str) else str(role)
    if role_raw in ("system", "developer"):
        text = "".join(p.text for p in parts if isinstance(p, TextPart))
        if text.startswith((SUMMARY_PREFIX, REMINDER_PREFIX)):
            kind = "compaction" if text.startswith(SUMMARY_PREFIX) else "reminder"
            notice = NotificationPart(notification_type=kind, text=text)
            return _message(session_id, row, Role.SYSTEM, role_raw, (notice,))
        # The system prompt went to the model, not to the person.
        hidden = Visibility(user=False, agent=True) if first or role_raw == "system" else None
        return _message(session_id, row, Role.SYSTEM, role_raw, tuple(parts), visibility=hidden)
    return _message(session_id, row, _ROLES.get(role_raw, Role.UNKNOWN), role_raw, tuple(parts))


def messages_of(entries: list[Any], session_id: str) -> list[Message]:
    read = _openai_messages if dialect(entries) == "openai" else _anthropic_messages
    messages: list[Message] = []
    for index, raw in enumerate(entries):
        if not isinstance(raw, dict):
            messages.append(
                _message(
                    session_id, index * 2, Role.UNKNOWN, "", (unsupported(raw, "not a message"),)
                )
            )
            continue
        messages.extend(read(raw, index, session_id))
    return messages


def parse(path: Path, data: bytes) -> ParsedSession:
    entries = json.loads(data)
    if not isinstance(entries, list):
        raise ValueError("the file is not a JSON array of messages")
    session_id = path.stem
    messages = messages_of(entries, session_id)
    session = Session(
        id=session_id,
        name=title_of(messages, session_id),
        updated_at=file_time(path.stat().st_mtime),
        message_count=visible_count(messages),
    )
    return ParsedSession(session=session, messages=messages)


def sniff(head: bytes) -> bool:
    """A JSON array whose first element is a message with a `role`."""
    text = head.lstrip()
    return text.startswith(b"[") and (
        text[1:].lstrip().startswith(b"]") or b'"role"' in text[:4096]
    )


FORMAT = FileFormat(kind=KIND, suffixes=(".json",), sniff=sniff, parse=parse)
