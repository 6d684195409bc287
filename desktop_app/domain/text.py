"""The words a person could find in a part: what find-in-transcript and search look through."""

from collections.abc import Iterable, Iterator

from desktop_app.domain.jsontext import dumps
from desktop_app.domain.parts import (
    ActionRequiredPart,
    ErrorPart,
    FilePart,
    NotificationPart,
    Part,
    ReasoningPart,
    ResourceLinkPart,
    ResourcePart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UnsupportedPart,
)


def _json(value: object) -> str:
    return dumps(value)


def part_texts(part: Part) -> Iterator[str]:
    """Visible text of a part, tool results and their items included; binary data excluded."""
    if isinstance(part, TextPart | ReasoningPart):
        yield part.text
    elif isinstance(part, ToolCallPart):
        yield from (x for x in (part.name, part.error) if x)
        if part.arguments is not None:
            yield _json(part.arguments)
    elif isinstance(part, ToolResultPart):
        if part.error_text:
            yield part.error_text
        for item in part.content:
            yield from part_texts(item)
    elif isinstance(part, NotificationPart | ErrorPart):
        yield part.message if isinstance(part, ErrorPart) else part.text
    elif isinstance(part, ActionRequiredPart):
        yield from (x for x in (part.tool_name, part.prompt, part.message) if x)
        if part.arguments is not None:
            yield _json(part.arguments)
    elif isinstance(part, ResourcePart):
        yield from (x for x in (part.uri, part.text) if x)
    elif isinstance(part, ResourceLinkPart | FilePart):
        yield from (x for x in (part.name, getattr(part, "uri", None)) if x)
    elif isinstance(part, UnsupportedPart):
        yield part.raw_text


def contains(parts: Iterable[Part], needle: str) -> bool:
    """Case-insensitive (casefold) substring test over all of a message's text."""
    folded = needle.casefold()
    return any(folded in text.casefold() for part in parts for text in part_texts(part))
