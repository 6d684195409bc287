"""The session list, its counts and the change feed, composed with SQLAlchemy Core: `select()`
with the session filter as `where()` clauses and the correlated subqueries correlated
explicitly; the hand-tuned probes (the last message time, the archived and visible flags) are
SQL text of Gander's constants, used as they are (`literal_column`, no value in them).

Listing follows goose's `list_sessions_matching` ordering exactly — last message time normalised to
seconds over all messages, else `updated_at`, ties by id descending — but finds each session's last
message with one index probe (three in a rare session) instead of grouping every message, and
derives counts and flags only for the sessions on the page (goose also counts in a second query
when it pages).

Only Gander's own constants and the column names the schema probe found among `SESSION_COLUMNS`
are written into the SQL; every value from the user or the file is a bound parameter.
"""

from collections.abc import Sequence
from pathlib import PurePath
from typing import Any

from sqlalchemy import (
    ColumnElement,
    FromClause,
    Integer,
    Select,
    Subquery,
    TextClause,
    and_,
    bindparam,
    cast,
    false,
    func,
    literal_column,
    or_,
    select,
)
from sqlalchemy.sql.selectable import NamedFromClause

from desktop_app.domain.source import ArchivedFilter, SessionCursor, SessionQuery
from desktop_app.sources.common.goose_json.timestamps import MILLISECOND_THRESHOLD
from desktop_app.sources.goose.schema import GooseSchema
from desktop_app.sources.goose.statements import sql
from desktop_app.sources.goose.tables import SESSION_COLUMNS, messages, sessions

NO_SORT_TIME = -(1 << 62)
"""Sort value of a session with neither messages nor a readable `updated_at`: listed last."""


_ISO_START = "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9][T ][0-9][0-9]:[0-9][0-9]*"


def archived_sql(schema: GooseSchema, table: str) -> str:
    """1 when goose would decode `archived_at` (an unreadable value reads as not archived)."""
    if not schema.session_has("archived_at"):
        return "0"
    column = f"{table}.archived_at"
    return (
        f"(CASE WHEN {column} IS NULL THEN 0 "
        f"WHEN typeof({column}) IN ('integer', 'real') THEN 1 "
        f"WHEN {column} GLOB '{_ISO_START}' AND julianday({column}) IS NOT NULL THEN 1 "
        "ELSE 0 END)"
    )


def visible_sql(schema: GooseSchema, table: str) -> str:
    """goose's `user_visible_message_sql`, tolerant of metadata that is not JSON.

    goose serialises `MessageMetadata` with serde, `userVisible` first and no spaces, so the
    first 20 characters settle almost every row without parsing JSON; anything else (older or
    hand-written metadata) goes through `json_extract` exactly as goose's SQL does.
    """
    if not schema.message_has("metadata_json"):
        return "1"
    column = f"{table}.metadata_json"
    return (
        f"(CASE WHEN {column} IS NULL THEN 1 "
        f"""WHEN substr({column}, 1, 19) = '{{"userVisible":true' """
        f"AND substr({column}, 20, 1) IN (',', '}}') THEN 1 "
        f"""WHEN substr({column}, 1, 20) = '{{"userVisible":false' """
        f"AND substr({column}, 21, 1) IN (',', '}}') AND json_valid({column}) = 1 THEN 0 "
        f"WHEN json_valid({column}) = 1 "
        f"THEN coalesce(json_extract({column}, '$.userVisible'), 1) != 0 "
        "ELSE 1 END)"
    )


NORMALISED_TIME = (
    f"CASE WHEN created_timestamp > {MILLISECOND_THRESHOLD} THEN created_timestamp / 1000 "
    "ELSE created_timestamp END"
)
"""goose's `normalized_message_timestamp_sql`: milliseconds to seconds, per message."""


def last_message_sql(session_id: str) -> str:
    """goose's MAX(normalised created_timestamp) of a session, found with index probes instead
    of reading every message. One probe settles almost every session: when its largest stored
    value is a number at or below the threshold, every value is (numbers sort before text and
    blobs, milliseconds lie above the threshold), so it is the answer as stored. Otherwise three
    probes: the largest number above the threshold (in milliseconds), the largest at or below
    it (seconds), and — only in a damaged file — any text or blob value, normalised one by one
    as goose does; each is one range of the (session_id, created_timestamp) index."""
    probe = "FROM messages AS m WHERE m.session_id = " + session_id
    largest = f"SELECT m.created_timestamp {probe} ORDER BY m.created_timestamp DESC LIMIT 1"
    return (
        f"(SELECT CASE WHEN raw.v <= {MILLISECOND_THRESHOLD} THEN raw.v ELSE "
        "(SELECT max(probes.v) FROM ("
        f"SELECT max(m.created_timestamp) / 1000 AS v {probe} "
        f"AND m.created_timestamp > {MILLISECOND_THRESHOLD} AND m.created_timestamp < '' "
        f"UNION ALL SELECT max(m.created_timestamp) AS v {probe} "
        f"AND m.created_timestamp <= {MILLISECOND_THRESHOLD} "
        f"UNION ALL SELECT max(m.created_timestamp / 1000) AS v {probe} "
        f"AND m.created_timestamp >= '') AS probes) END FROM (SELECT ({largest}) AS v) AS raw)"
    )


def _filters(schema: GooseSchema, query: SessionQuery) -> list[ColumnElement[bool]]:
    """The `WHERE` clauses on `sessions` for `query`."""
    conditions: list[ColumnElement[bool]] = []
    if query.session_types is not None:
        if schema.session_has("session_type"):
            types = list(query.session_types)
            conditions.append(sessions.c.session_type.in_(types) if types else false())
        elif "user" not in query.session_types:
            conditions.append(false())
    if query.archived is not ArchivedFilter.INCLUDE:
        wanted = 1 if query.archived is ArchivedFilter.ONLY else 0
        flag: ColumnElement[Any] = literal_column(archived_sql(schema, "sessions"))
        conditions.append(flag == bindparam("archived", wanted))
    if query.working_dir is not None:
        conditions.append(folder_condition(sessions.c.working_dir, query.working_dir))
    if query.text is not None:
        has_name, has_description = schema.session_has("name"), schema.session_has("description")
        name: ColumnElement[Any] = sessions.c.name if has_name else sessions.c.description
        if has_name and has_description:
            name = func.coalesce(func.nullif(sessions.c.name, ""), sessions.c.description)
        conditions.append(func.instr(func.lower(name), query.text.lower()) > 0)
    if query.parent_session_id is not None:
        if schema.session_has("parent_session_id"):
            conditions.append(sessions.c.parent_session_id == query.parent_session_id)
        else:
            conditions.append(false())
    if not query.with_empty:
        conditions.append(
            select(literal_column("1"))
            .select_from(messages)
            .where(messages.c.session_id == sessions.c.id)
            .correlate(sessions)
            .exists()
        )
    return conditions


def folder_condition(column: ColumnElement[Any], folder: str) -> ColumnElement[bool]:
    """`folder_matches` in SQL: an absolute folder and everything below it, else a part of
    the path (ASCII case ignored)."""
    if PurePath(folder).is_absolute():
        base = folder.rstrip("/\\") or folder
        prefix = base.rstrip("/\\") + "/"
        return or_(column == base, func.substr(column, 1, len(prefix)) == prefix)
    return func.instr(func.lower(column), folder.lower()) > 0


def _present(schema: GooseSchema, source: FromClause) -> list[ColumnElement[Any]]:
    """The known session columns the file has, of `sessions` or of a subquery over it."""
    return [source.c[name] for name in SESSION_COLUMNS if schema.session_has(name)]


def _sort_time(table: str) -> ColumnElement[Any]:
    """goose's sort time of a session: its last message's, else `updated_at`, else last."""
    return literal_column(
        f"coalesce({last_message_sql(f'{table}.id')}, "
        f"CAST(strftime('%s', {table}.updated_at) AS INTEGER), {NO_SORT_TIME})"
    )


def _session_select(schema: GooseSchema) -> Select[Any]:
    """Every known session column the file has, plus the sort time: what a sort or a filter
    needs for every session; the rest is derived in `_with_derived` for the rows kept."""
    return select(*_present(schema, sessions), _sort_time("sessions").label("sort_ts"))


def _derived(schema: GooseSchema, source: NamedFromClause) -> list[ColumnElement[Any]]:
    """The archived flag and, when the file has sub-sessions, whether a session of `source`
    has children (a subquery correlated to `source` explicitly)."""
    columns: list[ColumnElement[Any]] = [
        literal_column(archived_sql(schema, source.name)).label("is_archived")
    ]
    if schema.session_has("parent_session_id"):
        child = sessions.alias("child")
        has_children = (
            select(literal_column("1"))
            .select_from(child)
            .where(child.c.parent_session_id == source.c.id)
            .correlate(source)
            .exists()
        )
        columns.append(has_children.label("has_children"))
    return columns


def _with_derived(schema: GooseSchema, inner: Subquery) -> Select[Any]:
    """The last-message time and the flags, computed only for the rows `inner` returns (a page
    of twenty, not the twenty thousand it was sorted from)."""
    last: ColumnElement[Any] = literal_column(last_message_sql(f"{inner.name}.id")).label(
        "last_message_ts"
    )
    return select(*inner.c, *_derived(schema, inner), last)


def _active_range(query: SessionQuery, sort_ts: ColumnElement[Any]) -> list[ColumnElement[bool]]:
    """Conditions on the listed rows' sort time."""
    conditions = []
    if query.active_after is not None:
        conditions.append(sort_ts >= int(query.active_after.timestamp()))
    if query.active_before is not None:
        conditions.append(sort_ts < int(query.active_before.timestamp()))
    return conditions


def list_page(
    schema: GooseSchema, query: SessionQuery, after: SessionCursor | None, limit: int
) -> Select[Any]:
    """One keyset page, plus one extra row that tells whether another page follows."""
    # Only each session's row id and sort keys go through the sort of every session; the
    # page's columns are read for the rows kept (sorting 20,000 whole rows, their JSON
    # columns too, took twice as long).
    listed = (
        select(
            sessions.c.rowid.label("row_id"),
            sessions.c.id.label("id"),
            _sort_time("sessions").label("sort_ts"),
        )
        .where(*_filters(schema, query))
        .subquery("listed")
    )
    outer = _active_range(query, listed.c.sort_ts)
    if after is not None:
        after_sort: ColumnElement[Any] = bindparam("after_sort", after.sort_at)
        outer.append(
            or_(
                listed.c.sort_ts < after_sort,
                and_(listed.c.sort_ts == after_sort, listed.c.id < after.session_id),
            )
        )
    chosen = (
        select(listed)
        .where(*outer)
        .order_by(listed.c.sort_ts.desc(), listed.c.id.desc())
        .limit(limit + 1)
        .subquery("chosen")
    )
    page = (
        select(*_present(schema, sessions), chosen.c.sort_ts)
        .select_from(chosen.join(sessions, sessions.c.rowid == chosen.c.row_id))
        .subquery("page")
    )
    return _with_derived(schema, page).order_by(page.c.sort_ts.desc(), page.c.id.desc())


def whole_list(schema: GooseSchema, query: SessionQuery) -> Select[Any]:
    """Every session `list_page` would page through, in its order, in one pass over the
    messages, as goose's own `list_sessions_matching` does: each session's visible count
    (`visible_count`) and last message time from one GROUP BY, not two probes per session and
    a sort of everything per page."""
    figures = (
        select(
            messages.c.session_id.label("sid"),
            func.sum(literal_column(visible_sql(schema, "messages"))).label("visible_count"),
            func.max(literal_column(NORMALISED_TIME)).label("last_message_ts"),
        )
        .group_by(messages.c.session_id)
        .subquery("figures")
    )
    updated = cast(func.strftime("%s", sessions.c.updated_at), Integer)
    listed = (
        select(
            *_present(schema, sessions),
            figures.c.last_message_ts,
            func.coalesce(figures.c.last_message_ts, updated, NO_SORT_TIME).label("sort_ts"),
            func.coalesce(figures.c.visible_count, 0).label("visible_count"),
            *_derived(schema, sessions),
        )
        .select_from(sessions.outerjoin(figures, figures.c.sid == sessions.c.id))
        .where(*_filters(schema, query))
        .subquery("listed")
    )
    return (
        select(listed)
        .where(*_active_range(query, listed.c.sort_ts))
        .order_by(listed.c.sort_ts.desc(), listed.c.id.desc())
    )


def session_count(schema: GooseSchema, query: SessionQuery) -> Select[Any]:
    """How many sessions `list_page` pages through; the sort time is computed only when the
    query has an activity range."""
    conditions = _filters(schema, query)
    if query.active_after is None and query.active_before is None:
        return select(func.count()).select_from(sessions).where(*conditions)
    listed = _session_select(schema).where(*conditions).subquery("listed")
    return select(func.count()).select_from(listed).where(*_active_range(query, listed.c.sort_ts))


def one_session(schema: GooseSchema, session_id: str) -> Select[Any]:
    found = _session_select(schema).where(sessions.c.id == session_id).subquery("one")
    return _with_derived(schema, found).order_by(found.c.id)


def top_by_cost(schema: GooseSchema, limit: int) -> Select[Any]:
    """The costliest sessions of any type (sub-agents cost money too), archived included."""
    cost = sessions.c.accumulated_cost
    found = (
        _session_select(schema)
        .where(cost.is_not(None))
        .order_by(cost.desc(), sessions.c.id)
        .limit(limit)
        .subquery("costly")
    )
    return _with_derived(schema, found).order_by(found.c.accumulated_cost.desc(), found.c.id)


def visible_counts(schema: GooseSchema, session_ids: Sequence[str]) -> Select[Any]:
    return (
        select(messages.c.session_id, func.sum(literal_column(visible_sql(schema, "messages"))))
        .where(messages.c.session_id.in_(list(session_ids)))
        .group_by(messages.c.session_id)
    )


def working_dirs() -> Select[Any]:
    """Each folder once, the most recently updated first."""
    return (
        select(sessions.c.working_dir)
        .where(sessions.c.working_dir.is_not(None))
        .group_by(sessions.c.working_dir)
        .order_by(func.max(sessions.c.updated_at).desc())
    )


def session_types() -> Select[Any]:
    return select(sessions.c.session_type).distinct()


# ---- change feed ----------------------------------------------------------------------------


def change_figures() -> TextClause:
    """Highest message id, message and session counts, latest `updated_at` (each one index
    lookup or an index-only count), and the first session's id and creation time, which tell
    this file from another put in its place."""
    return sql(
        "SELECT (SELECT max(id) FROM messages), (SELECT count(*) FROM messages), "
        "(SELECT count(*) FROM sessions), (SELECT max(updated_at) FROM sessions), "
        "(SELECT coalesce(first.id, '') || '@' || coalesce(first.created_at, '') "
        "FROM (SELECT id, created_at FROM sessions ORDER BY id LIMIT 1) AS first)"
    )


def counts() -> Select[Any]:
    return select(
        select(func.count()).select_from(messages).scalar_subquery(),
        select(func.count()).select_from(sessions).scalar_subquery(),
    )


def sessions_with_new_messages(above: int) -> Select[Any]:
    return (
        select(messages.c.session_id, func.count())
        .where(messages.c.id > above)
        .group_by(messages.c.session_id)
    )


def updated_since(updated_at: str) -> Select[Any]:
    """Sessions whose row goose rewrote since (rename, archive, usage): `updated_at` is text
    in one format per file, so text order is time order."""
    return select(sessions.c.id).where(sessions.c.updated_at >= updated_at)


def session_states(schema: GooseSchema, session_ids: Sequence[str] | None) -> Select[Any]:
    """Session rows (no message-derived figures) with each one's highest message id and
    message count, which with `updated_at` make its revision."""
    figures = (
        select(
            messages.c.session_id.label("sid"),
            func.max(messages.c.id).label("top_message"),
            func.count().label("message_total"),
        )
        .group_by(messages.c.session_id)
        .subquery("figures")
    )
    statement = select(
        *_present(schema, sessions),
        literal_column(archived_sql(schema, "sessions")).label("is_archived"),
        func.coalesce(figures.c.top_message, 0).label("top_message"),
        func.coalesce(figures.c.message_total, 0).label("message_total"),
    ).select_from(sessions.outerjoin(figures, figures.c.sid == sessions.c.id))
    if session_ids is None:
        return statement
    return statement.where(sessions.c.id.in_(list(session_ids)))
