"""The message statements, `text()` with named parameters (see `statements.py`): positions,
ranges, lookups by id, the search index's bulk read and find-in-session.

Messages are in goose's order: raw `created_timestamp`, then row id. Only Gander's constants and
the column names the schema probe found among `MESSAGE_COLUMNS` are written into the text.
"""

from collections.abc import Sequence
from typing import Any

from sqlalchemy import TextClause

from desktop_app.domain.message import MessageCursor, StoredText
from desktop_app.sources.goose.contents import CONTENT_ROWID, INLINE_BYTES
from desktop_app.sources.goose.rows import CONTENT_UTF8, CREATED_TEXT
from desktop_app.sources.goose.schema import GooseSchema
from desktop_app.sources.goose.statements import sql

MESSAGE_COLUMNS = (
    "id",
    "message_id",
    "session_id",
    "role",
    "created_timestamp",
    "metadata_json",
)
"""Read as they are; `content_json` is read as its bytes (`CONTENT_UTF8`)."""

_AS_BYTES = "CAST(created_timestamp AS BLOB)"
_IN_ORDER = "ORDER BY created_timestamp, id"


def _columns(schema: GooseSchema) -> str:
    """The message columns the file has, plus `created_text` (see `CREATED_TEXT`) and the
    content's UTF-8 (see `CONTENT_UTF8`)."""
    names = [name for name in MESSAGE_COLUMNS if schema.message_has(name)]
    text = f"CASE WHEN typeof(created_timestamp) = 'text' THEN {_AS_BYTES} END AS {CREATED_TEXT}"
    if not schema.utf8:  # its text as text (the driver gives it as UTF-8), with its row
        content = f"CASE WHEN typeof(content_json) = 'text' THEN content_json END AS {CONTENT_UTF8}"
        return ", ".join([*names, text, content])
    if schema.message_rowid is None:
        content = (
            "CASE WHEN typeof(content_json) = 'text' THEN CAST(content_json AS BLOB) END "
            f"AS {CONTENT_UTF8}"
        )
        return ", ".join([*names, text, content])
    large = f"typeof(content_json) = 'text' AND length(CAST(content_json AS BLOB)) > {INLINE_BYTES}"
    content = (
        f"CASE WHEN typeof(content_json) = 'text' AND NOT ({large}) "
        f"THEN CAST(content_json AS BLOB) END AS {CONTENT_UTF8}"
    )
    apart = f"CASE WHEN {large} THEN {schema.message_rowid} END AS {CONTENT_ROWID}"
    return ", ".join([*names, text, content, apart])


def _beyond(cursor: MessageCursor, *, after: bool, name: str) -> tuple[str, dict[str, Any]]:
    """Rows after (or before) `cursor` in `ORDER BY created_timestamp, id`, whatever the
    stored types.

    SQLite sorts NULL first, then numbers, then text (BINARY: byte order), then blobs. Numbers
    and blobs are compared as row values with bound values of their own type (no affinity
    conversion applies, and the (session_id, created_timestamp, id) index serves the range);
    text is compared as bytes, so a TEXT value that looks numeric is never converted on the way.
    Every condition here is true or false for every row (never NULL), so no row is lost to
    SQL's three-valued logic. The parameters are `:<name>_created` and `:<name>_id`."""
    value, row_id = cursor.created_raw, cursor.row_id
    op = ">" if after else "<"
    created, at_id = f":{name}_created", f":{name}_id"
    if value is None:
        if after:
            return f"(created_timestamp IS NOT NULL OR id > {at_id})", {f"{name}_id": row_id}
        return f"(created_timestamp IS NULL AND id < {at_id})", {f"{name}_id": row_id}
    if isinstance(value, StoredText):
        other_types = "('blob')" if after else "('null', 'integer', 'real')"
        return (
            f"(typeof(created_timestamp) IN {other_types} OR (typeof(created_timestamp) = 'text' "
            f"AND ({_AS_BYTES} {op} {created} OR ({_AS_BYTES} = {created} AND id {op} {at_id}))))",
            {f"{name}_created": value.data, f"{name}_id": row_id},
        )
    null_side = "created_timestamp IS NOT NULL AND" if after else "created_timestamp IS NULL OR"
    return (
        f"({null_side} (created_timestamp, id) {op} ({created}, {at_id}))",
        {f"{name}_created": value, f"{name}_id": row_id},
    )


def message_range(
    schema: GooseSchema, session_id: str, first: MessageCursor, last: MessageCursor
) -> TextClause:
    """Every message from `first` to `last`, both included."""
    start = MessageCursor(first.created_raw, first.row_id - 1)
    end = MessageCursor(last.created_raw, last.row_id + 1)
    after, after_params = _beyond(start, after=True, name="first")
    before, before_params = _beyond(end, after=False, name="last")
    return sql(
        f"SELECT {_columns(schema)} FROM messages WHERE session_id = :session_id "
        f"AND {after} AND {before} {_IN_ORDER}",
        session_id=session_id,
        **after_params,
        **before_params,
    )


def cursors(session_id: str) -> TextClause:
    """All positions as two comma-separated strings: one row to transfer instead of one per
    message (a 50,000-message session: 6 ms instead of 16–35 ms, from the covering index).
    The third column counts timestamps that are not integers (group_concat would skip a NULL
    and flatten a REAL or a text): when there are any, the positions are read row by row
    instead (`typed_cursors`), keeping each value exactly. The fourth counts the rows."""
    return sql(
        "SELECT group_concat(created_timestamp), group_concat(id), "
        "sum(CASE WHEN typeof(created_timestamp) != 'integer' THEN 1 ELSE 0 END), count(*) "
        "FROM (SELECT created_timestamp, id FROM messages WHERE session_id = :session_id "
        f"{_IN_ORDER})",
        session_id=session_id,
    )


def typed_cursors(session_id: str) -> TextClause:
    """Positions one row each, text timestamps as their bytes."""
    return sql(
        f"SELECT created_timestamp, CASE WHEN typeof(created_timestamp) = 'text' THEN "
        f"{_AS_BYTES} END AS {CREATED_TEXT}, id FROM messages WHERE session_id = :session_id "
        + _IN_ORDER,
        session_id=session_id,
    )


def with_ids(schema: GooseSchema, session_id: str | None, row_ids: Sequence[int]) -> TextClause:
    """The messages with these row ids (of one session, when it is given)."""
    where = "id IN :row_ids"
    params: dict[str, Any] = {"row_ids": list(row_ids)}
    if session_id is not None:
        where = f"session_id = :session_id AND {where}"
        params["session_id"] = session_id
    return sql(f"SELECT {_columns(schema)} FROM messages WHERE {where} {_IN_ORDER}", **params)


def of_sessions(schema: GooseSchema, session_ids: Sequence[str]) -> TextClause:
    """Every message of these sessions, in the order of the (session_id, created_timestamp,
    id) index."""
    return sql(
        f"SELECT {_columns(schema)} FROM messages WHERE session_id IN :session_ids "
        "ORDER BY session_id, created_timestamp, id",
        session_ids=list(session_ids),
    )


def candidates(schema: GooseSchema, session_id: str, needle: str | None) -> TextClause:
    """A session's messages whose JSON holds `needle` (ASCII case folded by SQLite), and every
    one with reasoning; all of them when `needle` is None."""
    where, params = "session_id = :session_id", {"session_id": session_id}
    if needle is not None:
        where += (
            " AND (instr(lower(content_json), :needle) > 0 OR instr(content_json, :reasoning) > 0)"
        )
        params.update(needle=needle.lower(), reasoning='"thinking"')
    return sql(f"SELECT {_columns(schema)} FROM messages WHERE {where} {_IN_ORDER}", **params)
