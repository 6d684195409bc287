"""A message → the fields the index stores and searches.

Four searchable columns, weighted when ranking: what was said (`body`), reasoning, tool calls
(names and arguments) and tool output. Binary data never reaches the index; tool output is
capped per message so one 100 MB log cannot dominate the file.
"""

from dataclasses import dataclass
from typing import Any

from desktop_app.domain.message import Message
from desktop_app.domain.parts import (
    ActionRequiredPart,
    ErrorPart,
    ImagePart,
    NotificationPart,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UnsupportedPart,
)
from desktop_app.domain.text import part_texts
from desktop_app.search.tokens import segment_cjk

OUTPUT_CAP = 32_000
"""Characters of tool output indexed per message."""


@dataclass(frozen=True, slots=True)
class IndexDocument:
    row_id: int
    session_id: str
    message_id: str | None
    role: str
    created: int | None
    visible: bool
    has_image: bool
    has_error: bool
    tool_names: str
    """Lower-case tool names, space-separated and space-padded, for `tool:NAME`."""
    body: str
    reasoning: str
    tools: str
    output: str


def clean(text: str) -> str:
    """Lone surrogates (from `\\ud800` escapes in goose's JSON) cannot be stored as UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text


def _role(message: Message) -> str:
    if message.parts and all(isinstance(p, ToolResultPart) for p in message.parts):
        return "tool"
    return message.role.value if message.role.value != "unknown" else message.role_raw


def _has_error(part: Part) -> bool:
    if isinstance(part, ErrorPart):
        return True
    if isinstance(part, ToolResultPart):
        return part.is_error
    return isinstance(part, ToolCallPart) and part.error is not None


def to_document(message: Message) -> IndexDocument:
    body: list[str] = []
    reasoning: list[str] = []
    tools: list[str] = []
    output: list[str] = []
    names: set[str] = set()
    has_image = False
    for part in message.parts:
        if isinstance(part, ReasoningPart):
            reasoning.append(part.text)
        elif isinstance(part, ToolCallPart):
            if part.name:
                names.update(n.lower() for n in (part.name, part.tool, part.extension) if n)
            tools.extend(part_texts(part))
        elif isinstance(part, ToolResultPart):
            output.extend(part_texts(part))
            has_image |= any(isinstance(item, ImagePart) for item in part.content)
        elif isinstance(part, ActionRequiredPart):
            if part.tool_name:
                names.add(part.tool_name.lower())
            tools.extend(part_texts(part))
        elif isinstance(part, TextPart | NotificationPart | ErrorPart | UnsupportedPart):
            body.extend(part_texts(part))
        elif isinstance(part, ImagePart):
            has_image = True
        else:
            body.extend(part_texts(part))
    created = message.created_at
    return IndexDocument(
        row_id=message.row_id,
        session_id=message.session_id,
        message_id=clean(message.message_id) if message.message_id else None,
        role=clean(_role(message)),
        created=int(created.timestamp()) if created else None,
        visible=message.visibility.user,
        has_image=has_image,
        has_error=any(_has_error(p) for p in message.parts),
        tool_names=clean(" " + " ".join(sorted(names)) + " ") if names else "",
        body=clean(segment_cjk("\n".join(body))),
        reasoning=clean(segment_cjk("\n".join(reasoning))),
        tools=clean(segment_cjk("\n".join(tools))),
        output=clean(segment_cjk("\n".join(output)[:OUTPUT_CAP])),
    )


def astuple_document(document: IndexDocument) -> tuple[Any, ...]:
    return (
        document.row_id,
        document.session_id,
        document.message_id,
        document.role,
        document.created,
        document.visible,
        document.has_image,
        document.has_error,
        document.tool_names,
        document.body,
        document.reasoning,
        document.tools,
        document.output,
    )
