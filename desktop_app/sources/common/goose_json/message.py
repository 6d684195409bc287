"""goose's `Message` as JSON (an export's `conversation`, a legacy `.jsonl` line) → a message.

The same content and metadata parsers as the database reader, so a block reads the same
wherever goose kept it. Files keep messages in order without row ids: a message's position is
its index in the file, and `created` becomes its time.
"""

from typing import Any

from desktop_app.domain.message import Message, Role
from desktop_app.domain.parts import UnsupportedPart
from desktop_app.sources.common.goose_json.content import parse_blocks
from desktop_app.sources.common.goose_json.metadata import metadata_from
from desktop_app.sources.common.goose_json.timestamps import from_epoch
from desktop_app.sources.common.raw_json import dump

_ROLES = {"user": Role.USER, "assistant": Role.ASSISTANT}


def message_from_json(raw: Any, session_id: str, index: int) -> Message:
    """One message; anything that is not a message object is shown as unsupported."""
    if not isinstance(raw, dict):
        return unreadable(session_id, index, dump(raw), "the line is not a message object")
    role_raw = raw.get("role")
    created = raw.get("created")
    metadata = metadata_from(raw.get("metadata"))
    return Message(
        session_id=session_id,
        row_id=index,
        message_id=raw.get("id") if isinstance(raw.get("id"), str) else None,
        role=_ROLES.get(role_raw, Role.UNKNOWN) if isinstance(role_raw, str) else Role.UNKNOWN,
        role_raw=role_raw if isinstance(role_raw, str) else str(role_raw),
        created_at=from_epoch(created)
        if isinstance(created, int | float) and not isinstance(created, bool)
        else None,
        created_raw=None,
        parts=parse_blocks(raw.get("content")),
        **metadata.message_fields(),
    )


def unreadable(session_id: str, index: int, text: str, reason: str) -> Message:
    """A line or entry that could not be read, kept in its place with the reason."""
    return Message(
        session_id=session_id,
        row_id=index,
        message_id=None,
        role=Role.UNKNOWN,
        role_raw="",
        created_at=None,
        created_raw=None,
        parts=(UnsupportedPart(source_type=None, raw_text=text, reason=reason),),
    )
