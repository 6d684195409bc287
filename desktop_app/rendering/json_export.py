"""Domain → JSON-ready dicts with the stable keys `list --json` and `show --format json` promise."""

import dataclasses
from datetime import UTC, datetime
from typing import Any

from desktop_app.domain.combined import origin_of
from desktop_app.domain.message import Message, StoredText, plain_sort_value
from desktop_app.domain.parts import Part
from desktop_app.domain.session import Session
from desktop_app.domain.source import Source


def iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def session_to_json(session: Session) -> dict[str, Any]:
    return {
        "id": session.id,
        "name": session.name,
        "session_type": session.session_type,
        "working_dir": session.working_dir,
        "created_at": iso(session.created_at),
        "updated_at": iso(session.updated_at),
        "last_message_at": iso(session.last_message_at),
        "archived": session.archived,
        "archived_at": iso(session.archived_at),
        "message_count": session.message_count,
        "parent_session_id": session.parent_session_id,
        "has_children": session.has_children,
        "user_set_name": session.user_set_name,
        "provider": session.provider,
        "model": session.model,
        "agent": session.agent,
        "status": session.status,
        "usage": session.usage.as_dict(),
        "accumulated_usage": session.accumulated_usage.as_dict(),
        "cost": session.cost,
    }


def _plain(value: Any) -> Any:
    """Dataclasses, tuples and datetimes → JSON-ready values (parts nest inside tool results).

    Lists and dicts are stored JSON as parsed and are already JSON-ready: they are passed on
    as they are, never walked, however deep they nest (`dumps` writes them)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _dataclass_fields(value)
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    if isinstance(value, datetime):
        return iso(value)
    if isinstance(value, StoredText | bytes):
        return plain_sort_value(value)
    return value


def _dataclass_fields(value: Any) -> dict[str, Any]:
    result: dict[str, Any] = {}
    kind = getattr(type(value), "kind", None)
    if isinstance(kind, str):
        result["kind"] = kind
    for field in dataclasses.fields(value):
        result[field.name] = _plain(getattr(value, field.name))
    return result


def part_to_json(part: Part) -> dict[str, Any]:
    return _dataclass_fields(part)


def message_to_json(message: Message) -> dict[str, Any]:
    return {
        "id": message.message_id,
        "row_id": message.row_id,
        "role": message.role.value,
        "role_raw": message.role_raw,
        "created_at": iso(message.created_at),
        "created_raw": plain_sort_value(message.created_raw),
        "visibility": {"user": message.visibility.user, "agent": message.visibility.agent},
        "usage": _plain(message.usage),
        "inference": _plain(message.inference),
        "phase": message.phase,
        "author": _plain(message.author),
        "metadata_problem": message.metadata_problem,
        "metadata": message.metadata_raw,
        "parts": [part_to_json(part) for part in message.parts],
    }


def session_json(source: Source, session: Session) -> dict[str, object]:
    """A session as JSON, with the history it is from; ids are those within that history."""
    info, native, tag = origin_of(source, session.id)
    data = session_to_json(session)
    data["id"] = native
    if tag is not None and session.parent_session_id:
        data["parent_session_id"] = origin_of(source, session.parent_session_id)[1]
    history = {"kind": info.kind, "location": info.location}
    if tag is not None:
        history["tag"] = tag
    data["history"] = history
    return data
