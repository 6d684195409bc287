"""Reading values out of parsed JSON whose types nobody promised, and JSON lines one at a time:
what every file format's parser (and everruns' events, from a file or a server) needs, written
once. Every value read from a file or a server goes through these: a value of another type, out
of range or not finite is absent (None, empty), so one odd value costs that field, never the
message, the session or the folder."""

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, BinaryIO

from desktop_app.domain.jsontext import loads
from desktop_app.domain.message import Message, Role
from desktop_app.domain.parts import UnsupportedPart
from desktop_app.domain.reading import visible_count
from desktop_app.domain.usage import count

RAW_SHOWN_BYTES = 4_000
"""Of a line that could not be read, this much is shown with the reason."""

EARLIEST = datetime.min.replace(tzinfo=UTC) + timedelta(days=1)
LATEST = datetime.max.replace(tzinfo=UTC) - timedelta(days=1)
"""The times Gander keeps: a day inside what `datetime` holds, so the time in UTC, in the local
zone (any offset is under a day) and as epoch seconds read back (`file_time`) all exist. A time
outside — `9999-12-31T23:59:59-12:00` is past the end in UTC — is an unknown time."""


def usable_time(value: datetime | None) -> datetime | None:
    """The time, when every zone can show it (`EARLIEST`…`LATEST`); else None."""
    if value is None:
        return None
    aware = value if value.tzinfo else value.replace(tzinfo=UTC)
    return aware if EARLIEST <= aware <= LATEST else None


def iso_time(value: Any) -> datetime | None:
    """An ISO 8601 string (`Z` or an offset; none means UTC) as a time, else None (also for a
    time no zone can show: `usable_time`)."""
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return usable_time(parsed)


def epoch_ms_time(value: Any) -> datetime | None:
    """Milliseconds since 1970 (a number, not a bool) as a time, else None (also out of range)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    try:
        return usable_time(datetime.fromtimestamp(value / 1000, tz=UTC))
    except (OverflowError, OSError, ValueError):
        return None


def whole(value: Any) -> int | None:
    """An integer, not a bool, that 64 bits hold (`usage.count`): a larger one is no count,
    sequence or size anything wrote, and is absent rather than shown as hundreds of digits."""
    return count(value)


def string_of(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def mapping(value: Any) -> dict[str, Any]:
    """The value when it is an object, else an empty one."""
    return value if isinstance(value, dict) else {}


def listed(value: Any) -> list[Any]:
    """The value when it is an array, else an empty one (a `summary: 7` lists nothing)."""
    return value if isinstance(value, list) else []


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
    return parsed_lines(data.splitlines(), first_row)


def parsed_lines(lines: list[bytes], first_row: int = 0) -> Iterator[Line]:
    """`json_lines` of lines already split (`bytes.splitlines`)."""
    for row, raw in enumerate(lines, first_row):
        if not raw.strip():
            continue
        try:
            value = loads(raw)
        except (ValueError, RecursionError):
            yield Line(row, raw, None, "a line that is not JSON")
            continue
        if isinstance(value, dict):
            yield Line(row, raw, value)
        else:
            yield Line(row, raw, None, "a line that is not a JSON object")


PLACED_BLOCK = 8_000_000
"""`placed_lines` reads this much at a time."""
LONGEST_LINE = 64_000_000
"""`placed_lines` holds a line this long at most: a longer one is a line that could not be
read, its first bytes kept to be shown (a 2 GB document cut short is one such line)."""


def placed_lines(handle: BinaryIO, size: int) -> Iterator[tuple[Line, int]]:
    """`json_lines` of a file too large to hold, from its start to at most `size` bytes, a
    block of whole lines at a time: each line with the offset of its bytes (`Line.raw`) in
    the file. A line longer than a block is gathered whole, its pieces joined once; one longer
    than `LONGEST_LINE` is passed over, its first bytes kept."""
    handle.seek(0)
    left, offset, row = size, 0, 0
    pending: list[bytes] = []
    held = 0
    while True:
        data = handle.read(min(PLACED_BLOCK, left)) if left > 0 else b""
        left -= len(data)
        ended = not data or left <= 0
        if held > LONGEST_LINE:  # the rest of a line too long to hold, up to its end
            end = data.find(b"\n") + 1 or len(data)
            held += end
            if end == len(data) and not ended and not data.endswith(b"\n"):
                continue
            problem = f"a line of {held:,} bytes, too long to read"
            yield Line(row, pending[0], None, problem), offset
            offset, row, pending, held = offset + held, row + 1, [], 0
            data = data[end:]
        cut = len(data) if ended else data.rfind(b"\n") + 1
        if not cut and not ended:
            pending.append(data)  # no line ends in this block
            held += len(data)
            if held > LONGEST_LINE:
                pending = [b"".join(pending)[:RAW_SHOWN_BYTES]]
            continue
        block = b"".join([*pending, data[:cut]])
        pending = [data[cut:]]
        held = len(pending[0])
        for piece in block.splitlines(keepends=True):
            ending = 2 if piece.endswith(b"\r\n") else 1 if piece.endswith((b"\n", b"\r")) else 0
            for line in parsed_lines([piece[: len(piece) - ending]], row):
                yield line, offset
            offset += len(piece)
            row += 1
        if ended:
            return


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


def counted(messages: Sequence[Message]) -> int:
    """A session's message count, the one figure its list row, its header and `list --json`
    show: the messages shown to the user (`reading.visible_count`), as goose counts them and
    as Claude Code's resume list counts every message of the transcript — tool calls and
    results included, agent-only context and meta lines not."""
    return visible_count(messages)
