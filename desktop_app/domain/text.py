"""The words a person could find in a part: what find-in-transcript and search look through."""

from collections.abc import Iterable, Iterator
from typing import assert_never

from desktop_app.domain.jsontext import dumps
from desktop_app.domain.parts import (
    ActionRequiredPart,
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
    shown_parts,
)


def _json(value: object) -> str:
    return dumps(value)


def part_texts(part: Part) -> Iterator[str]:
    """Visible text of a part, tool results and their items included; binary data excluded."""
    match part:
        case TextPart() | ReasoningPart():
            yield part.text
        case ToolCallPart():
            yield from (x for x in (part.name, part.error) if x)
            if part.arguments is not None:
                yield _json(part.arguments)
        case ToolResultPart():
            if part.error_text:
                yield part.error_text
            for item in part.content:
                yield from part_texts(item)
        case NotificationPart():
            yield part.text
        case ErrorPart():
            yield part.message
        case ActionRequiredPart():
            yield from (x for x in (part.tool_name, part.prompt, part.message) if x)
            if part.arguments is not None:
                yield _json(part.arguments)
        case ResourcePart():
            yield from (x for x in (part.uri, part.text) if x)
        case ResourceLinkPart():
            yield from (x for x in (part.name, part.uri) if x)
        case FilePart():
            yield from (x for x in (part.name, part.url) if x)
        case UnsupportedPart():
            yield part.raw_text
        case ImagePart() | AudioPart() | RedactedReasoningPart():
            return  # no words: binary data, or thinking the provider withheld
        case _:
            assert_never(part)


def contains(parts: Iterable[Part], needle: str) -> bool:
    """Case-insensitive (casefold) substring test over all of a message's text."""
    folded = needle.casefold()
    return any(
        folded in text.casefold() for part in shown_parts(parts) for text in part_texts(part)
    )
