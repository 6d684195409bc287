"""goose's sessions before `sessions.db`: `<data_dir>/sessions/<id>.jsonl` (storage.rs, the
pre-SQLite store). Line 1 is the session's metadata — `working_dir`, `description`,
`schedule_id`, `message_count` and the token totals — unless it does not parse as metadata, when
it is a message like every later line. goose's own import silently drops lines that do not
parse (legacy.rs); here each becomes an unsupported message with its reason, in its place. The
id is the file stem, `YYYYMMDD_HHMMSS` in local time when goose made it. Kind `goose-legacy`.
"""

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from desktop_app.domain.message import Message
from desktop_app.domain.reading import visible_count
from desktop_app.domain.session import Session
from desktop_app.domain.usage import TokenUsage, count
from desktop_app.sources.common.goose_json.message import message_from_json, unreadable
from desktop_app.sources.files.history import FileFormat, ParsedSession, file_time

KIND = "goose-legacy"
METADATA_KEYS = {
    "working_dir",
    "description",
    "schedule_id",
    "message_count",
    "total_tokens",
    "input_tokens",
    "output_tokens",
}


def _is_metadata(value: Any) -> bool:
    return isinstance(value, dict) and "role" not in value and bool(METADATA_KEYS & value.keys())


def _created(stem: str) -> datetime | None:
    try:
        return datetime.strptime(stem, "%Y%m%d_%H%M%S").astimezone()
    except ValueError:
        return None


def parse(path: Path, data: bytes) -> ParsedSession:
    session_id = path.stem
    lines = data.decode("utf-8", "replace").splitlines()
    metadata: dict[str, Any] = {}
    messages: list[Message] = []
    for number, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError) as error:
            reason = f"line {number + 1} is not valid JSON ({error})"
            messages.append(unreadable(session_id, number, line, reason))
            continue
        if number == 0 and _is_metadata(value):
            metadata = value
            continue
        messages.append(message_from_json(value, session_id, number))
    modified = path.stat().st_mtime
    times = [m.created_at for m in messages if m.created_at is not None]
    description = metadata.get("description")
    session = Session(
        id=session_id,
        name=description if isinstance(description, str) and description else session_id,
        description=description if isinstance(description, str) else None,
        working_dir=metadata.get("working_dir")
        if isinstance(metadata.get("working_dir"), str)
        else None,
        created_at=_created(session_id),
        updated_at=file_time(modified),
        last_message_at=max(times) if times else None,
        message_count=visible_count(messages),
        schedule_id=metadata.get("schedule_id")
        if isinstance(metadata.get("schedule_id"), str)
        else None,
        usage=TokenUsage(
            input_tokens=count(metadata.get("input_tokens")),
            output_tokens=count(metadata.get("output_tokens")),
            total_tokens=count(metadata.get("total_tokens")),
        ),
        accumulated_usage=TokenUsage(
            input_tokens=count(metadata.get("accumulated_input_tokens")),
            output_tokens=count(metadata.get("accumulated_output_tokens")),
            total_tokens=count(metadata.get("accumulated_total_tokens")),
        ),
    )
    return ParsedSession(session=session, messages=messages)


def sniff(head: bytes) -> bool:
    """The first line is goose's session metadata or a goose message."""
    first = head.split(b"\n", 1)[0]
    try:
        value = json.loads(first)
    except (ValueError, RecursionError):
        return False
    if _is_metadata(value):
        return True
    return isinstance(value, dict) and "role" in value and isinstance(value.get("content"), list)


FORMAT = FileFormat(kind=KIND, suffixes=(".jsonl",), sniff=sniff, parse=parse)
