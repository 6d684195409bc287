"""The session list, its counts and the change feed: `text()` with named parameters for the
hand-tuned listing, `select()` for the plain statements (see `statements.py`).

Listing follows goose's `list_sessions_matching` ordering exactly — last message time normalised to
seconds over all messages, else `updated_at`, ties by id descending — but finds each session's last
message with one index probe (three in a rare session) instead of grouping every message, and
derives counts and flags only for the sessions on the page (goose also counts in a second query
when it pages).

Only Gander's own constants and the column names the schema probe found among `SESSION_COLUMNS`
are written into the text; every value from the user or the file is a bound parameter, named
after what it is (`:after_sort`, `:folder`), so no parameter depends on the order of the
fragments it is written in.
"""

from collections.abc import Sequence
from pathlib import PurePath
from typing import Any

from sqlalchemy import Select, TextClause, func, select

from desktop_app.domain.source import ArchivedFilter, SessionCursor, SessionQuery
from desktop_app.sources.common.goose_json.timestamps import MILLISECOND_THRESHOLD
from desktop_app.sources.goose.schema import GooseSchema
from desktop_app.sources.goose.statements import sql
from desktop_app.sources.goose.tables import messages, sessions

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
        f"""WHEN substr({column}, 1, 19) = '{{"userVisible"\\:true' """
        f"AND substr({column}, 20, 1) IN (',', '}}') THEN 1 "
        f"""WHEN substr({column}, 1, 20) = '{{"userVisible"\\:false' """
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


def _filters(schema: GooseSchema, query: SessionQuery) -> tuple[list[str], dict[str, Any]]:
    """The `WHERE` conditions on `sessions` for `query`, and their named parameters."""
    conditions: list[str] = []
    params: dict[str, Any] = {}
    if query.session_types is not None:
        if schema.session_has("session_type"):
            if query.session_types:
                conditions.append("sessions.session_type IN :session_types")
                params["session_types"] = list(query.session_types)
            else:
                conditions.append("0")
        elif "user" not in query.session_types:
            conditions.append("0")
    if query.archived is ArchivedFilter.EXCLUDE:
        conditions.append(f"{archived_sql(schema, 'sessions')} = 0")
    elif query.archived is ArchivedFilter.ONLY:
        conditions.append(f"{archived_sql(schema, 'sessions')} = 1")
    if query.working_dir is not None:
        condition, values = folder_condition("sessions.working_dir", query.working_dir)
        conditions.append(condition)
        params.update(values)
    if query.text is not None:
        has_name, has_description = schema.session_has("name"), schema.session_has("description")
        name = "sessions.name" if has_name else "sessions.description"
        if has_name and has_description:
            name = "coalesce(nullif(sessions.name, ''), sessions.description)"
        conditions.append(f"instr(lower({name}), :name_text) > 0")
        params["name_text"] = query.text.lower()
    if query.parent_session_id is not None:
        if schema.session_has("parent_session_id"):
            conditions.append("sessions.parent_session_id = :parent_session_id")
            params["parent_session_id"] = query.parent_session_id
        else:
            conditions.append("0")
    if not query.with_empty:
        conditions.append("EXISTS (SELECT 1 FROM messages WHERE messages.session_id = sessions.id)")
    return conditions, params


def _where(conditions: Sequence[str]) -> str:
    return f" WHERE {' AND '.join(conditions)}" if conditions else ""


def folder_condition(column: str, folder: str) -> tuple[str, dict[str, Any]]:
    """`folder_matches` in SQL: an absolute folder and everything below it, else a part of
    the path (ASCII case ignored)."""
    if PurePath(folder).is_absolute():
        base = folder.rstrip("/\\") or folder
        prefix = base.rstrip("/\\") + "/"
        return (
            f"({column} = :folder OR substr({column}, 1, :folder_prefix_length) = :folder_prefix)",
            {"folder": base, "folder_prefix_length": len(prefix), "folder_prefix": prefix},
        )
    return f"instr(lower({column}), :folder) > 0", {"folder": folder.lower()}


def _columns_of(schema: GooseSchema, table: str) -> list[str]:
    return [f"{table}.{name} AS {name}" for name in SESSION_COLUMNS if schema.session_has(name)]


def _session_select(schema: GooseSchema) -> str:
    """Every known session column the file has, plus the sort time: what a sort or a filter
    needs for every session; the rest is derived in `_with_derived` for the rows kept."""
    sort_ts = f"{_sort_time('sessions')} AS sort_ts"
    return f"SELECT {', '.join([*_columns_of(schema, 'sessions'), sort_ts])} FROM sessions"


def _sort_time(table: str) -> str:
    """goose's sort time of a session: its last message's, else `updated_at`, else last."""
    return (
        f"coalesce({last_message_sql(f'{table}.id')}, "
        f"CAST(strftime('%s', {table}.updated_at) AS INTEGER), {NO_SORT_TIME})"
    )


def _sort_keys_select() -> str:
    """What a page's sort needs of every session: its row, id and sort time."""
    return (
        f"SELECT sessions.rowid AS row_id, sessions.id AS id, {_sort_time('sessions')} AS sort_ts "
        "FROM sessions"
    )


def _derived(schema: GooseSchema, alias: str) -> list[str]:
    """The archived flag and, when the file has sub-sessions, whether `alias` has children."""
    columns = [f"{archived_sql(schema, alias)} AS is_archived"]
    if schema.session_has("parent_session_id"):
        columns.append(
            "EXISTS (SELECT 1 FROM sessions AS child "
            f"WHERE child.parent_session_id = {alias}.id) AS has_children"
        )
    return columns


def _with_derived(schema: GooseSchema, inner: str, alias: str, order: str) -> str:
    """The last-message time and the flags, computed only for the rows `inner` returns (a page
    of twenty, not the twenty thousand it was sorted from)."""
    columns = [f"{alias}.*", *_derived(schema, alias)]
    columns.append(f"{last_message_sql(f'{alias}.id')} AS last_message_ts")
    return f"SELECT {', '.join(columns)} FROM ({inner}) AS {alias} ORDER BY {order}"


def _active_range(query: SessionQuery, params: dict[str, Any]) -> list[str]:
    """Conditions on the listed rows' sort time; their parameters are added to `params`."""
    conditions = []
    if query.active_after is not None:
        conditions.append("listed.sort_ts >= :active_after")
        params["active_after"] = int(query.active_after.timestamp())
    if query.active_before is not None:
        conditions.append("listed.sort_ts < :active_before")
        params["active_before"] = int(query.active_before.timestamp())
    return conditions


def list_page(
    schema: GooseSchema, query: SessionQuery, after: SessionCursor | None, limit: int
) -> TextClause:
    """One keyset page, plus one extra row that tells whether another page follows."""
    conditions, params = _filters(schema, query)
    outer = _active_range(query, params)
    if after is not None:
        outer.append(
            "(listed.sort_ts < :after_sort "
            "OR (listed.sort_ts = :after_sort AND listed.id < :after_id))"
        )
        params.update(after_sort=after.sort_at, after_id=after.session_id)
    # Only each session's row id and sort keys go through the sort of every session; the
    # page's columns are read for the rows kept (sorting 20,000 whole rows, their JSON
    # columns too, took twice as long).
    listed = f"{_sort_keys_select()}{_where(conditions)}"
    chosen = (
        f"SELECT * FROM ({listed}) AS listed{_where(outer)} "
        "ORDER BY listed.sort_ts DESC, listed.id DESC LIMIT :rows"
    )
    params["rows"] = limit + 1
    columns = ", ".join([*_columns_of(schema, "sessions"), "chosen.sort_ts AS sort_ts"])
    rows = (
        f"SELECT {columns} FROM ({chosen}) AS chosen "
        "JOIN sessions ON sessions.rowid = chosen.row_id"
    )
    order = "page.sort_ts DESC, page.id DESC"
    return sql(_with_derived(schema, rows, "page", order), **params)


def whole_list(schema: GooseSchema, query: SessionQuery) -> TextClause:
    """Every session `list_page` would page through, in its order, in one pass over the
    messages, as goose's own `list_sessions_matching` does: each session's visible count
    (`visible_count`) and last message time from one GROUP BY, not two probes per session and
    a sort of everything per page."""
    conditions, params = _filters(schema, query)
    outer = _active_range(query, params)
    figures = (
        f"SELECT session_id AS sid, sum({visible_sql(schema, 'messages')}) AS visible_count, "
        f"max({NORMALISED_TIME}) AS last_message_ts FROM messages GROUP BY session_id"
    )
    columns = [
        *_columns_of(schema, "sessions"),
        "figures.last_message_ts AS last_message_ts",
        "coalesce(figures.last_message_ts, CAST(strftime('%s', sessions.updated_at) AS INTEGER), "
        f"{NO_SORT_TIME}) AS sort_ts",
        "coalesce(figures.visible_count, 0) AS visible_count",
        *_derived(schema, "sessions"),
    ]
    listed = (
        f"SELECT {', '.join(columns)} FROM sessions LEFT JOIN ({figures}) AS figures "
        f"ON figures.sid = sessions.id{_where(conditions)}"
    )
    return sql(
        f"SELECT * FROM ({listed}) AS listed{_where(outer)} "
        "ORDER BY listed.sort_ts DESC, listed.id DESC",
        **params,
    )


def session_count(schema: GooseSchema, query: SessionQuery) -> TextClause:
    """How many sessions `list_page` pages through; the sort time is computed only when the
    query has an activity range."""
    conditions, params = _filters(schema, query)
    if query.active_after is None and query.active_before is None:
        return sql(f"SELECT count(*) FROM sessions{_where(conditions)}", **params)
    outer = _active_range(query, params)
    listed = f"{_session_select(schema)}{_where(conditions)}"
    return sql(f"SELECT count(*) FROM ({listed}) AS listed{_where(outer)}", **params)


def one_session(schema: GooseSchema, session_id: str) -> TextClause:
    found = f"{_session_select(schema)} WHERE sessions.id = :session_id"
    return sql(_with_derived(schema, found, "one", "one.id"), session_id=session_id)


def top_by_cost(schema: GooseSchema, limit: int) -> TextClause:
    """The costliest sessions of any type (sub-agents cost money too), archived included."""
    found = (
        f"{_session_select(schema)} WHERE sessions.accumulated_cost IS NOT NULL "
        "ORDER BY sessions.accumulated_cost DESC, sessions.id LIMIT :rows"
    )
    order = "costly.accumulated_cost DESC, costly.id"
    return sql(_with_derived(schema, found, "costly", order), rows=limit)


def visible_counts(schema: GooseSchema, session_ids: Sequence[str]) -> TextClause:
    return sql(
        f"SELECT session_id, sum({visible_sql(schema, 'messages')}) FROM messages "
        "WHERE session_id IN :session_ids GROUP BY session_id",
        session_ids=list(session_ids),
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


def session_states(schema: GooseSchema, session_ids: Sequence[str] | None) -> TextClause:
    """Session rows (no message-derived figures) with each one's highest message id and
    message count, which with `updated_at` make its revision."""
    columns = ", ".join(_columns_of(schema, "sessions"))
    text = (
        f"SELECT {columns}, {archived_sql(schema, 'sessions')} AS is_archived, "
        "coalesce(figures.top_message, 0) AS top_message, "
        "coalesce(figures.message_total, 0) AS message_total "
        "FROM sessions LEFT OUTER JOIN (SELECT session_id AS sid, max(id) AS top_message, "
        "count(*) AS message_total FROM messages GROUP BY session_id) AS figures "
        "ON figures.sid = sessions.id"
    )
    if session_ids is None:
        return sql(text)
    return sql(f"{text} WHERE sessions.id IN :session_ids", session_ids=list(session_ids))
