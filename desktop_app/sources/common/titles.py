"""A session's name from its first words, for formats that store no title.

toolnexus and glean keep no name for a conversation; both are listed by the first line of the
first user text, as a chat app names an untitled conversation, cut to fit a list row."""

from desktop_app.domain.message import Message, Role
from desktop_app.domain.parts import TextPart

TITLE_CHARS = 80


def title_of(messages: list[Message], fallback: str) -> str:
    """The first line of the first user message with text, at most `TITLE_CHARS` characters
    (an ellipsis ends a cut line); `fallback` when no user message has any."""
    for message in messages:
        if message.role is Role.USER:
            text = " ".join(p.text for p in message.parts if isinstance(p, TextPart)).strip()
            if text:
                line = text.splitlines()[0].strip()
                return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"
    return fallback
