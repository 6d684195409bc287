"""Database rows → domain objects. Pure functions; bad values degrade, they never raise.

The content mapper (`goose_json.content`, and with it every tool action's dataclass, 10 ms to
import) is imported for the first message read: listing sessions (`gander list`) never needs it."""

import functools
import json
from collections.abc import Callable, Mapping
from typing import Any

from desktop_app.domain.json_steps import decode_in_steps
from desktop_app.domain.message import Message, Role, SortValue, StoredText
from desktop_app.domain.parts import Part
from desktop_app.domain.session import Session
from desktop_app.domain.usage import LedgerEntry, TokenUsage, amount, count
from desktop_app.sources.common.goose_json.metadata import parse_metadata
from desktop_app.sources.common.goose_json.timestamps import from_epoch, parse_stored_time

CREATED_TEXT = "created_text"
"""A TEXT `created_timestamp` read back as its bytes, so a cursor can carry it exactly."""
CONTENT_UTF8 = "content_utf8"
"""A TEXT `content_json` read back as its UTF-8 bytes and decoded here, a piece at a time
(`decode_in_steps`): the driver's decoding of a 20 MB value held the interpreter lock — and so
the window — for 15–40 ms. (In a file that keeps its text in UTF-16, the text itself.) A
`content_json` of another type reads as None."""

_ROLES = {"user": Role.USER, "assistant": Role.ASSISTANT}


def _json_object(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        parsed = json.loads(value)
    except (ValueError, RecursionError):
        return None
    return parsed if isinstance(parsed, dict) else None


_int = count
_float = amount


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


_TOKEN_FIELDS = (
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
)
_COLUMNS = {prefix: [prefix + name for name in _TOKEN_FIELDS] for prefix in ("", "accumulated_")}
_NO_USAGE = TokenUsage()


def _usage(row: Mapping[str, Any], prefix: str) -> TokenUsage:
    values = [row.get(column) for column in _COLUMNS[prefix]]
    if not any(value is not None for value in values):
        return _NO_USAGE  # most rows of a large history: nothing to convert
    return TokenUsage(**{name: _int(v) for name, v in zip(_TOKEN_FIELDS, values, strict=True)})


def display_name(name: Any, description: Any) -> str:
    """goose's `from_row`: an empty `name` falls back to `description`."""
    if isinstance(name, str) and name:
        return name
    return description if isinstance(description, str) else ""


def session_from_row(row: Mapping[str, Any], message_count: int | None = None) -> Session:
    model_config = _json_object(row.get("model_config_json"))
    recipe = _json_object(row.get("recipe_json"))
    extension_data = row.get("extension_data")
    parsed_extensions = _json_object(extension_data)
    session_type = _text(row.get("session_type")) or "user"
    archived_at = parse_stored_time(row.get("archived_at")) if row.get("is_archived") else None
    context_limit = _int((model_config or {}).get("context_limit"))
    return Session(
        id=str(row["id"]),
        name=display_name(row.get("name"), row.get("description")),
        stored_name=_text(row.get("name")),
        description=_text(row.get("description")),
        user_set_name=bool(row.get("user_set_name")),
        session_type=session_type,
        working_dir=_text(row.get("working_dir")),
        created_at=parse_stored_time(row.get("created_at")),
        updated_at=parse_stored_time(row.get("updated_at")),
        last_message_at=from_epoch(_number(row.get("last_message_ts"))),
        archived_at=archived_at,
        message_count=message_count,
        parent_session_id=_text(row.get("parent_session_id")),
        has_children=bool(row.get("has_children")),
        provider=_text(row.get("provider_name")),
        model=_text((model_config or {}).get("model_name")),
        context_limit=context_limit,
        usage=_usage(row, ""),
        accumulated_usage=_usage(row, "accumulated_"),
        cost=_float(row.get("accumulated_cost")),
        goose_mode=_text(row.get("goose_mode")),
        schedule_id=_text(row.get("schedule_id")),
        project_id=_text(row.get("project_id")),
        recipe_title=_text((recipe or {}).get("title")),
        extension_data=parsed_extensions if parsed_extensions is not None else extension_data,
        model_config=model_config,
        raw_timestamps={
            key: None if row.get(key) is None else str(row.get(key))
            for key in ("created_at", "updated_at", "archived_at")
        },
        list_key=row.get("sort_ts"),
    )


def _number(value: Any) -> int | float | None:
    """An int as it is, a float only when finite (a time, a position)."""
    return count(value) if isinstance(value, int) else amount(value)


def stored_created(row: Mapping[str, Any]) -> SortValue:
    """`created_timestamp` exactly as stored: a number, text (as its bytes), a blob or NULL."""
    as_text = row.get(CREATED_TEXT)
    if as_text is not None:
        return StoredText(bytes(as_text))
    value = row.get("created_timestamp")
    if isinstance(value, str):
        return StoredText(value.encode("utf-8", "surrogateescape"))
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value  # exactly as stored, infinities included: it is a position, not a figure
    return None


@functools.cache
def _content_parser() -> Callable[[str | None], tuple[Part, ...]]:
    from desktop_app.sources.common.goose_json.content import parse_content  # noqa: PLC0415

    return parse_content


def _content_text(content: Any) -> str | None:
    """`CONTENT_UTF8` as text: UTF-8 bytes decoded (as the driver decodes text), or the text
    of a file that keeps it in UTF-16."""
    if isinstance(content, bytes):
        return decode_in_steps(content, "replace")
    return content if isinstance(content, str) else None


def message_from_row(row: Mapping[str, Any]) -> Message:
    role_raw = str(row.get("role"))
    metadata = parse_metadata(_text(row.get("metadata_json")))
    created_raw = stored_created(row)
    content = row.get(CONTENT_UTF8)
    return Message(
        session_id=str(row["session_id"]),
        row_id=int(row["id"]),
        message_id=_text(row.get("message_id")),
        role=_ROLES.get(role_raw, Role.UNKNOWN),
        role_raw=role_raw,
        created_at=from_epoch(_number(created_raw)),
        created_raw=created_raw,
        parts=_content_parser()(_content_text(content)),
        **metadata.message_fields(),
    )


def ledger_from_row(row: Mapping[str, Any]) -> LedgerEntry:
    return LedgerEntry(
        row_id=int(row["id"]),
        session_id=str(row["session_id"]),
        created_at=from_epoch(_int(row.get("created_timestamp"))),
        model=_text(row.get("model")),
        tokens=_usage(row, ""),
        cost=_float(row.get("cost")),
        cost_source=_text(row.get("cost_source")),
        is_compaction=bool(row.get("is_compaction")),
    )
