"""Reading values out of parsed JSON whose types nobody promised, and JSON lines one at a time:
what every file format's parser needs, written once."""

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from desktop_app.domain.message import Message, Role
from desktop_app.domain.parts import UnsupportedPart
from desktop_app.domain.reading import visible_count

RAW_SHOWN_BYTES = 4_000
"""Of a line that could not be read, this much is shown with the reason."""


def iso_time(value: Any) -> datetime | None:
    """An ISO 8601 string (`Z` or an offset; none means UTC) as a time, else None."""
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def whole(value: Any) -> int | None:
    """An integer, not a bool."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def string_of(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def mapping(value: Any) -> dict[str, Any]:
    """The value when it is an object, else an empty one."""
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True, slots=True)
class Line:
    row: int
    raw: bytes
    value: dict[str, Any] | None
    """The line's object; None when it is not JSON or not an object (`problem` says which)."""
    problem: str = ""


def json_lines(data: bytes, first_row: int = 0) -> Iterator[Line]:
    """Each non-blank line of a JSON-lines file, parsed; a line that does not parse (or parses
    to something other than an object) comes with its problem, and never stops the rest.
    Rows count from `first_row` (the lines of a log read earlier)."""
    for row, raw in enumerate(data.splitlines(), first_row):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):
            yield Line(row, raw, None, "a line that is not JSON")
            continue
        if isinstance(value, dict):
            yield Line(row, raw, value)
        else:
            yield Line(row, raw, None, "a line that is not a JSON object")


def unreadable_line(session_id: str, line: Line, kind: str) -> Message:
    """A line that could not be read, as a message that shows it and says why."""
    part = UnsupportedPart(
        source_type=kind,
        raw_text=line.raw[:RAW_SHOWN_BYTES].decode("utf-8", "replace"),
        reason=line.problem,
    )
    return Message(
        session_id=session_id,
        row_id=line.row,
        message_id=None,
        role=Role.UNKNOWN,
        role_raw="",
        created_at=None,
        created_raw=None,
        parts=(part,),
    )


def is_prompt(message: Message) -> bool:
    """Something a person typed, shown to them (not a tool result, a meta line or a notice)."""
    return message.role is Role.USER and message.visibility.user


def counted(messages: list[Message]) -> int:
    """A session's message count, the one figure its list row, its header and `list --json`
    show: the messages shown to the user (`reading.visible_count`), as goose counts them and
    as Claude Code's resume list counts every message of the transcript — tool calls and
    results included, agent-only context and meta lines not."""
    return visible_count(messages)
