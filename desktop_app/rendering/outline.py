"""The outline of a session: one line per prompt, for View ▸ Prompts (a navigator like
claude-code-history-viewer's), found as N / P find them."""

from collections.abc import Iterable
from dataclasses import dataclass

from desktop_app.domain.message import Message, MessageCursor
from desktop_app.domain.parts import FilePart, ImagePart, TextPart
from desktop_app.rendering import formatting

OUTLINE_CHARS = 200
"""A prompt's line is cut here: only its start is ever looked at."""


@dataclass(frozen=True, kw_only=True, slots=True)
class OutlineEntry:
    cursor: MessageCursor
    time_label: str
    text: str


def prompt_line(message: Message) -> str:
    """The prompt's first words on one line, each control character shown as its symbol (an
    escape sequence never reaches the list); what it attached when it has no words."""
    for part in message.parts:
        if isinstance(part, TextPart):
            words = " ".join(part.text[: OUTLINE_CHARS * 4].split())
            if words:
                shown = formatting.terminal_safe(words)
                return shown if len(shown) <= OUTLINE_CHARS else shown[: OUTLINE_CHARS - 1] + "…"
    if any(isinstance(part, ImagePart) for part in message.parts):
        return "(an image)"
    if any(isinstance(part, FilePart) for part in message.parts):
        return "(a file)"
    return "(no text)"


def outline_entries(messages: Iterable[Message], *, hidden: bool) -> list[OutlineEntry]:
    """The prompts among `messages`, in order: those the user saw (every one when `hidden`,
    as agent-only messages are shown)."""
    return [
        OutlineEntry(
            cursor=message.cursor,
            time_label=formatting.utc_time(message.created_at),
            text=prompt_line(message),
        )
        for message in messages
        if message.is_prompt and (hidden or message.visibility.user)
    ]
