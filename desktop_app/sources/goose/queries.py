"""The SQL Gander runs against goose's file, built from the probed schema.

Listing follows goose's `list_sessions_matching` ordering exactly — last message time normalised to
seconds over all messages, else `updated_at`, ties by id descending — but finds each session's last
message with two index probes instead of grouping every message, and counts user-visible messages
only for the sessions on the page (goose also counts in a second query when it pages).
"""

from collections.abc import Sequence
from pathlib import PurePath
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Integer,
    LargeBinary,
    Select,
    and_,
    case,
    cast,
    exists,
    false,
    func,
    literal,
    or_,
    select,
    true,
    tuple_,
    union_all,
)
from sqlalchemy.sql.expression import Subquery

from desktop_app.domain.message import MessageCursor, StoredText
from desktop_app.domain.source import ArchivedFilter, SessionCursor, SessionQuery
from desktop_app.sources.goose.schema import GooseSchema
from desktop_app.sources.goose.timestamps import MILLISECOND_THRESHOLD

AnySelect = Select[*tuple[Any, ...]]

NO_SORT_TIME = -(1 << 62)
"""Sort value of a session with neither messages nor a readable `updated_at`: listed last."""

SESSION_COLUMNS = (
    "id",
    "name",
    "description",
    "user_set_name",
    "session_type",
    "working_dir",
    "created_at",
    "updated_at",
    "extension_data",
    "total_tokens",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "accumulated_total_tokens",
    "accumulated_input_tokens",
    "accumulated_output_tokens",
    "accumulated_cache_read_tokens",
    "accumulated_cache_write_tokens",
    "accumulated_cost",
    "schedule_id",
    "recipe_json",
    "provider_name",
    "model_config_json",
    "goose_mode",
    "archived_at",
    "project_id",
    "parent_session_id",
)

MESSAGE_COLUMNS = (
    "id",
    "message_id",
    "session_id",
    "role",
    "content_json",
    "created_timestamp",
    "metadata_json",
)

CREATED_TEXT = "created_text"
"""A TEXT `created_timestamp` read back as its bytes, so a cursor can carry it exactly."""


def overflow_free_sum(column: ColumnElement[Any]) -> ColumnElement[Any]:
    """SUM that cannot fail: SQLite's SUM raises "integer overflow" past 2^63 (a hostile or
    broken file can hold such values), TOTAL never does; NULL when nothing was summed, as SUM."""
    return case((func.count(column) == 0, None), else_=func.total(column))


def archived_expr(schema: GooseSchema) -> ColumnElement[bool]:
    """True when goose would decode `archived_at` (an unreadable value reads as not archived)."""
    if not schema.session_has("archived_at"):
        return false()
    column = schema.sessions.c.archived_at
    return case(
        (column.is_(None), false()),
        (func.typeof(column).in_(("integer", "real")), true()),
        (
            and_(
                column.op("GLOB")(
                    "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9][T ][0-9][0-9]:[0-9][0-9]*"
                ),
                func.julianday(column).is_not(None),
            ),
            true(),
        ),
        else_=false(),
    )


def last_message_expr(schema: GooseSchema, session_id: ColumnElement[Any]) -> ColumnElement[Any]:
    """MAX(normalised created_timestamp) of a session: one index probe for millisecond values,
    one for second values, each evaluated once (an aggregate over their UNION ignores NULL)."""
    in_ms = schema.messages.alias("m_ms")
    in_s = schema.messages.alias("m_s")
    ms_max = (
        select((func.max(in_ms.c.created_timestamp) // 1000).label("v"))
        .where(in_ms.c.session_id == session_id, in_ms.c.created_timestamp > MILLISECOND_THRESHOLD)
        .correlate_except(in_ms)
    )
    s_max = (
        select(func.max(in_s.c.created_timestamp).label("v"))
        .where(in_s.c.session_id == session_id, in_s.c.created_timestamp <= MILLISECOND_THRESHOLD)
        .correlate_except(in_s)
    )
    both = union_all(ms_max, s_max).subquery("probes")
    return select(func.max(both.c.v)).scalar_subquery()


def visible_expr(schema: GooseSchema) -> ColumnElement[bool]:
    """goose's `user_visible_message_sql`, tolerant of metadata that is not JSON.

    goose serialises `MessageMetadata` with serde, `userVisible` first and no spaces, so the
    first 20 characters settle almost every row without parsing JSON; anything else (older or
    hand-written metadata) goes through `json_extract` exactly as goose's SQL does.
    """
    if not schema.message_has("metadata_json"):
        return true()
    column = schema.messages.c.metadata_json
    head = func.substr(column, 1, 20)
    return case(
        (column.is_(None), true()),
        (
            and_(
                func.substr(head, 1, 19) == '{"userVisible":true',
                func.substr(head, 20, 1).in_((",", "}")),
            ),
            true(),
        ),
        (
            and_(
                head == '{"userVisible":false',
                func.substr(column, 21, 1).in_((",", "}")),
                func.json_valid(column) == 1,
            ),
            false(),
        ),
        (
            func.json_valid(column) == 1,
            func.coalesce(func.json_extract(column, "$.userVisible"), 1) != 0,
        ),
        else_=true(),
    )


def _filters(schema: GooseSchema, query: SessionQuery) -> list[ColumnElement[bool]]:
    s = schema.sessions.c
    conditions: list[ColumnElement[bool]] = []
    if query.session_types is not None:
        if "session_type" in s:
            conditions.append(s.session_type.in_(query.session_types))
        elif "user" not in query.session_types:
            conditions.append(false())
    if query.archived is ArchivedFilter.EXCLUDE:
        conditions.append(archived_expr(schema) == false())
    elif query.archived is ArchivedFilter.ONLY:
        conditions.append(archived_expr(schema) == true())
    if query.working_dir is not None:
        conditions.append(folder_condition(s.working_dir, query.working_dir))
    if query.text is not None:
        name: ColumnElement[Any] = s.name if "name" in s else s.description
        if "name" in s and "description" in s:
            name = func.coalesce(func.nullif(s.name, ""), s.description)
        conditions.append(func.instr(func.lower(name), query.text.lower()) > 0)
    if query.parent_session_id is not None:
        if "parent_session_id" in s:
            conditions.append(s.parent_session_id == query.parent_session_id)
        else:
            conditions.append(false())
    if not query.with_empty:
        m = schema.messages.c
        conditions.append(exists().where(m.session_id == s.id))
    return conditions


def folder_condition(column: ColumnElement[Any], folder: str) -> ColumnElement[bool]:
    """`folder_matches` in SQL: an absolute folder and everything below it, else a part of
    the path (ASCII case ignored)."""
    if PurePath(folder).is_absolute():
        base = folder.rstrip("/\\") or folder
        prefix = base.rstrip("/\\") + "/"
        return or_(column == base, func.substr(column, 1, len(prefix)) == prefix)
    return func.instr(func.lower(column), folder.lower()) > 0


def session_select(schema: GooseSchema) -> AnySelect:
    """Every known session column the file has, plus the derived sort and flag columns."""
    s = schema.sessions
    updated_seconds = cast(func.strftime("%s", s.c.updated_at), Integer)
    columns: list[ColumnElement[Any]] = [s.c[name] for name in SESSION_COLUMNS if name in s.c]
    columns.append(
        func.coalesce(last_message_expr(schema, s.c.id), updated_seconds, NO_SORT_TIME).label(
            "sort_ts"
        )
    )
    columns.append(archived_expr(schema).label("is_archived"))
    if "parent_session_id" in s.c:
        child = s.alias("child")
        columns.append(
            select(child.c.id)
            .where(child.c.parent_session_id == s.c.id)
            .exists()
            .label("has_children")
        )
    return select(*columns)


def _with_last_message(schema: GooseSchema, rows: Subquery) -> AnySelect:
    """The last-message time, computed only for the rows that are returned."""
    return select(rows, last_message_expr(schema, rows.c.id).label("last_message_ts"))


def list_page(
    schema: GooseSchema, query: SessionQuery, after: SessionCursor | None, limit: int
) -> AnySelect:
    """One keyset page, plus one extra row that tells whether another page follows."""
    inner: Subquery = session_select(schema).where(*_filters(schema, query)).subquery("listed")
    page = select(inner)
    if query.active_after is not None:
        page = page.where(inner.c.sort_ts >= int(query.active_after.timestamp()))
    if query.active_before is not None:
        page = page.where(inner.c.sort_ts < int(query.active_before.timestamp()))
    if after is not None:
        page = page.where(
            or_(
                inner.c.sort_ts < after.sort_at,
                and_(inner.c.sort_ts == after.sort_at, inner.c.id < after.session_id),
            )
        )
    chosen = page.order_by(inner.c.sort_ts.desc(), inner.c.id.desc()).limit(limit + 1)
    ordered = chosen.subquery("page")
    return _with_last_message(schema, ordered).order_by(
        ordered.c.sort_ts.desc(), ordered.c.id.desc()
    )


def session_count(schema: GooseSchema, query: SessionQuery) -> AnySelect:
    """How many sessions `list_page` pages through; the sort time is computed only when the
    query has an activity range."""
    if query.active_after is None and query.active_before is None:
        return select(func.count()).select_from(schema.sessions).where(*_filters(schema, query))
    inner: Subquery = session_select(schema).where(*_filters(schema, query)).subquery("listed")
    counted = select(func.count()).select_from(inner)
    if query.active_after is not None:
        counted = counted.where(inner.c.sort_ts >= int(query.active_after.timestamp()))
    if query.active_before is not None:
        counted = counted.where(inner.c.sort_ts < int(query.active_before.timestamp()))
    return counted


def one_session(schema: GooseSchema, session_id: str) -> AnySelect:
    found = session_select(schema).where(schema.sessions.c.id == session_id).subquery("one")
    return _with_last_message(schema, found)


def top_by_cost(schema: GooseSchema, limit: int) -> AnySelect:
    """The costliest sessions of any type (sub-agents cost money too), archived included."""
    s = schema.sessions
    found = (
        session_select(schema)
        .where(s.c.accumulated_cost.is_not(None))
        .order_by(s.c.accumulated_cost.desc(), s.c.id)
        .limit(limit)
        .subquery("costly")
    )
    return _with_last_message(schema, found).order_by(found.c.accumulated_cost.desc(), found.c.id)


def every_visible_count(schema: GooseSchema) -> AnySelect:
    """Each session's user-visible message count, all sessions in one pass over messages."""
    m = schema.messages
    return select(m.c.session_id, func.sum(case((visible_expr(schema), 1), else_=0))).group_by(
        m.c.session_id
    )


def visible_counts(schema: GooseSchema, session_ids: Sequence[str]) -> AnySelect:
    m = schema.messages
    return (
        select(m.c.session_id, func.sum(case((visible_expr(schema), 1), else_=0)))
        .where(m.c.session_id.in_(session_ids))
        .group_by(m.c.session_id)
    )


def message_columns(schema: GooseSchema) -> list[ColumnElement[Any]]:
    """The message columns the file has, plus `created_text` (see `CREATED_TEXT`)."""
    m = schema.messages
    columns: list[ColumnElement[Any]] = [m.c[name] for name in MESSAGE_COLUMNS if name in m.c]
    created = m.c.created_timestamp
    columns.append(
        case((func.typeof(created) == "text", cast(created, LargeBinary))).label(CREATED_TEXT)
    )
    return columns


def _after(schema: GooseSchema, cursor: MessageCursor) -> ColumnElement[bool]:
    """Rows after `cursor` in `ORDER BY created_timestamp, id`, whatever the stored types.

    SQLite sorts NULL first, then numbers, then text (BINARY: byte order), then blobs. Numbers
    and blobs are compared as row values with bound values of their own type (no affinity
    conversion applies, and the (session_id, created_timestamp, id) index serves the range);
    text is compared as bytes, so a TEXT value that looks numeric is never converted on the way.
    Every condition here is true or false for every row (never NULL), so no row is lost to
    SQL's three-valued logic."""
    m = schema.messages.c
    created, row_id, value = m.created_timestamp, m.id, cursor.created_raw
    if value is None:
        return or_(created.is_not(None), row_id > cursor.row_id)
    if isinstance(value, StoredText):
        as_bytes, data = cast(created, LargeBinary), literal(value.data, LargeBinary)
        return or_(
            func.typeof(created) == "blob",
            and_(
                func.typeof(created) == "text",
                or_(as_bytes > data, and_(as_bytes == data, row_id > cursor.row_id)),
            ),
        )
    return and_(created.is_not(None), tuple_(created, row_id) > _bound(cursor))


def _before(schema: GooseSchema, cursor: MessageCursor) -> ColumnElement[bool]:
    """Rows before `cursor` (see `_after`)."""
    m = schema.messages.c
    created, row_id, value = m.created_timestamp, m.id, cursor.created_raw
    if value is None:
        return and_(created.is_(None), row_id < cursor.row_id)
    if isinstance(value, StoredText):
        as_bytes, data = cast(created, LargeBinary), literal(value.data, LargeBinary)
        return or_(
            func.typeof(created).in_(("null", "integer", "real")),
            and_(
                func.typeof(created) == "text",
                or_(as_bytes < data, and_(as_bytes == data, row_id < cursor.row_id)),
            ),
        )
    return or_(created.is_(None), tuple_(created, row_id) < _bound(cursor))


def _bound(cursor: MessageCursor) -> ColumnElement[Any]:
    value = cursor.created_raw
    bound = literal(value, LargeBinary) if isinstance(value, bytes) else literal(value)
    return tuple_(bound, literal(cursor.row_id))


def message_page(
    schema: GooseSchema,
    session_id: str,
    *,
    before: MessageCursor | None,
    after: MessageCursor | None,
    from_end: bool,
    limit: int,
) -> AnySelect:
    """Messages in goose's order (raw `created_timestamp`, then row id), from either end."""
    m = schema.messages
    statement = select(*message_columns(schema)).where(m.c.session_id == session_id)
    if after is not None:
        statement = statement.where(_after(schema, after))
    if before is not None:
        statement = statement.where(_before(schema, before))
    descending = before is not None or (after is None and from_end)
    if descending:
        statement = statement.order_by(m.c.created_timestamp.desc(), m.c.id.desc())
    else:
        statement = statement.order_by(m.c.created_timestamp, m.c.id)
    return statement.limit(limit + 1)


def messages_exist(
    schema: GooseSchema,
    session_id: str,
    *,
    before: MessageCursor | None = None,
    after: MessageCursor | None = None,
) -> AnySelect:
    m = schema.messages
    condition = m.c.session_id == session_id
    if before is not None:
        condition = and_(condition, _before(schema, before))
    if after is not None:
        condition = and_(condition, _after(schema, after))
    return select(select(m.c.id).where(condition).exists())


def message_range(
    schema: GooseSchema, session_id: str, first: MessageCursor, last: MessageCursor
) -> AnySelect:
    """Every message from `first` to `last`, both included."""
    m = schema.messages
    return (
        select(*message_columns(schema))
        .where(
            m.c.session_id == session_id,
            _after(schema, MessageCursor(first.created_raw, first.row_id - 1)),
            _before(schema, MessageCursor(last.created_raw, last.row_id + 1)),
        )
        .order_by(m.c.created_timestamp, m.c.id)
    )


def _positions(schema: GooseSchema, session_id: str) -> AnySelect:
    m = schema.messages
    ordered = select(m.c.created_timestamp, m.c.id).where(m.c.session_id == session_id)
    return ordered.order_by(m.c.created_timestamp, m.c.id)


def cursors(schema: GooseSchema, session_id: str) -> AnySelect:
    """All positions as two comma-separated strings: one row to transfer instead of one per
    message (a 50,000-message session: 6 ms instead of 16–35 ms, from the covering index).
    The third column counts timestamps that are not integers (group_concat would skip a NULL
    and flatten a REAL or a text): when there are any, the positions are read row by row
    instead (`typed_cursors`), keeping each value exactly. The fourth counts the rows."""
    rows = _positions(schema, session_id).subquery("ordered")
    return select(
        func.group_concat(rows.c.created_timestamp),
        func.group_concat(rows.c.id),
        func.sum(case((func.typeof(rows.c.created_timestamp) != "integer", 1), else_=0)),
        func.count(),
    )


def typed_cursors(schema: GooseSchema, session_id: str) -> AnySelect:
    """Positions one row each, text timestamps as their bytes."""
    rows = _positions(schema, session_id).subquery("ordered")
    created = rows.c.created_timestamp
    return select(
        created,
        case((func.typeof(created) == "text", cast(created, LargeBinary))).label(CREATED_TEXT),
        rows.c.id,
    ).order_by(created, rows.c.id)


# ---- change feed ----------------------------------------------------------------------------


def change_figures(schema: GooseSchema) -> AnySelect:
    """Highest message id, message and session counts, latest `updated_at` (each one index
    lookup or an index-only count), and the first session's id and creation time, which tell
    this file from another put in its place."""
    m, s = schema.messages, schema.sessions
    first = select(s.c.id, s.c.created_at).order_by(s.c.id).limit(1).subquery("first")
    return select(
        select(func.max(m.c.id)).scalar_subquery(),
        select(func.count()).select_from(m).scalar_subquery(),
        select(func.count()).select_from(s).scalar_subquery(),
        select(func.max(s.c.updated_at)).scalar_subquery(),
        select(
            func.coalesce(first.c.id, "") + "@" + func.coalesce(first.c.created_at, "")
        ).scalar_subquery(),
    )


def counts(schema: GooseSchema) -> AnySelect:
    m, s = schema.messages, schema.sessions
    return select(
        select(func.count()).select_from(m).scalar_subquery(),
        select(func.count()).select_from(s).scalar_subquery(),
    )


def sessions_with_new_messages(schema: GooseSchema, above: int) -> AnySelect:
    m = schema.messages
    return select(m.c.session_id, func.count()).where(m.c.id > above).group_by(m.c.session_id)


def updated_since(schema: GooseSchema, updated_at: str) -> AnySelect:
    """Sessions whose row goose rewrote since (rename, archive, usage): `updated_at` is text
    in one format per file, so text order is time order."""
    s = schema.sessions
    return select(s.c.id).where(s.c.updated_at >= updated_at)


def session_states(schema: GooseSchema, session_ids: list[str] | None) -> AnySelect:
    """Session rows (no message-derived figures) with each one's highest message id and
    message count, which with `updated_at` make its revision."""
    s, m = schema.sessions, schema.messages
    figures = (
        select(
            m.c.session_id.label("sid"),
            func.max(m.c.id).label("top_message"),
            func.count().label("message_total"),
        )
        .group_by(m.c.session_id)
        .subquery("figures")
    )
    columns = [s.c[name] for name in SESSION_COLUMNS if name in s.c]
    statement = select(
        *columns,
        archived_expr(schema).label("is_archived"),
        func.coalesce(figures.c.top_message, 0).label("top_message"),
        func.coalesce(figures.c.message_total, 0).label("message_total"),
    ).select_from(s.outerjoin(figures, figures.c.sid == s.c.id))
    if session_ids is not None:
        statement = statement.where(s.c.id.in_(session_ids))
    return statement
