"""`EverrunsServer`: an everruns PostgreSQL database (server mode) through the reader contract,
read live and read-only.

The tables are everruns' own (`crates/server/migrations/001_base_schema.sql` and the later
migrations): `sessions` (title, agent, status, model, created/updated; later `harness_id` with
`agent_id` nullable, `parent_session_id` and `subagent_*` for a sub-agent's session,
`archived_at`/`deleted_at`), `events` (append-only, `UNIQUE(session_id, sequence)`) and
`archived_events` (events past the retention period, moved there: a session's events are
read from both), `agents` and `llm_models` for names. The columns and tables are probed once,
as goose's reader does, and only those a database has are used, so every generation reads.

Every read is its own short transaction, made read-only (`default_transaction_read_only`) with
a statement timeout; no transaction stays open between reads, nothing is ever written, no index
is created. Queries per action: a page of the list is 1 query (the page's message counts and
first prompts are computed in it for its rows only); opening a session is 2 (the session,
its positions); a page of a transcript is 1; the change poll is 1.
"""

import json
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, date, datetime
from typing import Any
from uuid import UUID

from sqlalchemy import Connection, Engine, event, text
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from desktop_app.domain.errors import SourceError, SourceUnreadable, UnknownSession
from desktop_app.domain.jsontext import loads
from desktop_app.domain.message import CursorList, Message, MessageCursor
from desktop_app.domain.reading import tree_totals
from desktop_app.domain.session import Session
from desktop_app.domain.source import (
    ArchivedFilter,
    SessionCursor,
    SessionPage,
    SessionQuery,
    SessionState,
    SessionTotals,
    SourceInfo,
)
from desktop_app.domain.usage import DayUsage, TokenUsage, UsagePoint
from desktop_app.sources.everruns import connection
from desktop_app.sources.everruns.connection import (
    STATEMENT_TIMEOUT_MS,
    ReadDeadline,
    Watch,
    make_engine,
    public_location,
    secrets_of,
    sentence,
)
from desktop_app.sources.everruns.events import (
    AGENT_TYPES,
    IGNORED,
    REASONING_TYPES,
    USER_TYPES,
    VOICE_TYPES,
    StoredEvent,
    message_of,
)
from desktop_app.sources.files.values import EARLIEST, LATEST, whole

KIND = "everruns"
_TABLES = ("sessions", "events", "archived_events", "agents", "llm_models")
_EVENT_COLUMNS = (
    "id",
    "session_id",
    "sequence",
    "event_type",
    "data",
    "ts",
    "created_at",
    "context",
)
_HAS_MESSAGES = (
    "EXISTS (SELECT 1 FROM {events} e WHERE e.session_id = {alias}.id::uuid "
    "AND NOT (e.event_type = ANY(:ignored)))"
)
"""A session with a message to show, its message count above 0 (the window leaves the others
out, as goose Desktop does): an event not IGNORED is shown, or absorbed by a reply or a voice
message that is."""
_EXTRA_PARAMS = {
    "user_types": list(USER_TYPES),
    "agent": list(AGENT_TYPES),
    "voice": list(VOICE_TYPES),
    "ignored": list(IGNORED),
    "reasoning": list(REASONING_TYPES),
}
_ABSORBED = (
    "e.event_type = ANY(:reasoning) AND EXISTS (SELECT 1 FROM (SELECT o.data, o.context "
    "FROM {events} o WHERE o.session_id = e.session_id AND o.sequence > e.sequence"
    " AND o.event_type = ANY(:agent) ORDER BY o.sequence LIMIT 1) nxt"
    " WHERE COALESCE(nxt.context ->> 'turn_id', '') ="
    " COALESCE(e.context ->> 'turn_id', e.data ->> 'turn_id', '')"
    " AND (jsonb_path_exists(nxt.data, '$.message.content[*] ? (@.type == \"reasoning\")')"
    " OR nxt.data #> '{message,thinking}' IS NOT NULL))"
)
"""A reasoning event the next agent message of its turn absorbs, carrying reasoning itself
(one index probe per reasoning event)."""
_BY_VOICE = "e.event_type = ANY(:user_types) AND e.data #>> '{message,metadata,source}' = 'voice'"
"""A user message a delegated voice call made: its transcripts are not shown beside it."""
_MESSAGE_COUNT = (
    f"count(*) FILTER (WHERE NOT e.event_type = ANY(:voice) AND NOT ({_ABSORBED})) + CASE WHEN "
    f"bool_or({_BY_VOICE}) THEN 0 ELSE count(*) FILTER (WHERE e.event_type = ANY(:voice)) END"
)
"""`_SHOWN_SQL` counted over a session's events that are not IGNORED, in the scan that sums its
usage: whether the call was delegated is a figure of the session (`bool_or`), not a probe."""
_EXTRA_COLUMNS = "agg.*, first.first_prompt, latest.last_usage, replied.reply_model"
"""What `_page_extras` adds to a session row."""


class EverrunsServer:
    """Reads everruns' `sessions` and `events`; safe to use from any thread (each call takes a
    pooled connection of its own, and a connection the server dropped is replaced)."""

    def __init__(self, location: str, *, statement_timeout_ms: int = STATEMENT_TIMEOUT_MS) -> None:
        self.location = public_location(location)
        self.reopen_location = location
        self._secrets = secrets_of(location)
        """How to open this server again in a worker process (with any password it took)."""
        self._deadline = ReadDeadline(connection.READ_TIMEOUT_S)  # read now: tests shorten it
        self._pause_s = connection.STALL_PAUSE_S
        self._paused: tuple[float, str] = (0.0, "")
        """Until when reads fail at once, and their sentence: the server last stalled."""
        self._engine: Engine = make_engine(location, statement_timeout_ms, self._deadline)
        self._closed = False
        event.listen(self._engine, "checkin", self._checked_in)
        self._columns: dict[str, set[str]] = {t: set() for t in _TABLES}
        with self._reading() as conn:
            for table, column in conn.execute(
                text(
                    "SELECT c.relname, a.attname FROM pg_attribute a "
                    "JOIN pg_class c ON c.oid = a.attrelid "
                    "JOIN pg_namespace n ON n.oid = c.relnamespace "
                    "WHERE n.nspname = current_schema() AND c.relname = ANY(:tables) "
                    "AND a.attnum > 0 AND NOT a.attisdropped"
                ),
                {"tables": list(_TABLES)},
            ):
                self._columns[str(table)].add(str(column))
        if (
            not {"id", "created_at"} <= self._columns["sessions"]
            or not {
                "session_id",
                "sequence",
                "event_type",
                "data",
            }
            <= self._columns["events"]
        ):
            self.close()
            raise SourceError(
                f"{self.location} has no everruns sessions and events tables "
                "(expected everruns' server schema)."
            )
        self._ev = self._events_source()
        """Where a session's events are: `events`, and `archived_events` when there is one."""

    def _events_source(self) -> str:
        """`events`, or `events` and `archived_events` as one (the columns both have): the
        retention job moves old events there, and without them an old session would start in
        the middle."""
        live, archived = self._columns["events"], self._columns["archived_events"]
        if not {"session_id", "sequence", "event_type", "data"} <= archived:
            return "events"
        shared = [c for c in _EVENT_COLUMNS if c in live and c in archived]
        self._columns["events"] = set(shared)
        columns = ", ".join(shared)
        return f"(SELECT {columns} FROM events UNION ALL SELECT {columns} FROM archived_events)"

    # ---- connections ---------------------------------------------------------------------

    @contextmanager
    def _reading(self) -> Iterator[Connection]:
        """One short read-only transaction; any database failure becomes one sentence."""
        with self._watched() as (conn, _):
            yield conn

    @contextmanager
    def _watched(self) -> Iterator[tuple[Connection, Watch]]:
        """A read-only transaction on a connection whose waits on the server the read deadline
        bounds, with its watch (a streamed read pauses it while its rows are used); any
        database failure becomes one sentence, a cut one says the server stopped answering.
        After a stall (a cut, a connection timed out) reads fail at once for `STALL_PAUSE_S`."""
        until, said = self._paused
        if time.monotonic() < until:
            raise SourceUnreadable(said)
        watch: Watch | None = None
        try:
            with (
                self._engine.connect() as conn,
                self._deadline.watching(conn.connection.dbapi_connection) as watch,
                conn.begin(),
            ):
                yield conn, watch
        except (DBAPIError, SQLAlchemyError) as error:
            cut = watch is not None and watch.cut and not self._closed
            said = (
                f"The everruns database at {self.location} stopped answering (nothing for "
                f"{self._deadline.seconds:g} s); the read was given up."
                if cut
                else sentence(error, self.location, self._secrets)
            )
            if cut or "timeout expired" in str(getattr(error, "orig", error)):
                self._paused = (time.monotonic() + self._pause_s, said)
            raise SourceUnreadable(said) from error

    def interrupt(self) -> None:
        """Cut every read in flight (and any later one): a worker waiting on a stalled server
        is freed at once, and the window that closes never waits for it."""
        self._closed = True
        self._deadline.close()

    def close(self) -> None:
        self.interrupt()
        self._engine.dispose()

    def _checked_in(self, dbapi_connection: Any, record: Any) -> None:
        """A connection a worker gives back after `close` (a window closed while its index
        was being read) is closed at once: `dispose` closes only the connections at rest, and
        this one would stay open in the disposed pool until the garbage collector found it."""
        del record
        if self._closed and dbapi_connection is not None:
            dbapi_connection.close()

    def info(self) -> SourceInfo:
        return SourceInfo(kind=KIND, location=self.location, agent="everruns")

    # ---- sessions ------------------------------------------------------------------------

    def _session_sql(self) -> tuple[str, str]:
        """The select list and joins of a session row, for the columns this database has."""
        s = self._columns["sessions"]
        sort = (
            "COALESCE("
            + ", ".join(
                f"s.{c}"
                for c in ("updated_at", "finished_at", "started_at", "created_at")
                if c in s
            )
            + ")"
        )
        archived = [f"s.{c}" for c in ("archived_at", "deleted_at") if c in s]
        fields = [
            "s.id::text AS id",
            f"{'s.title' if 'title' in s else 'NULL'} AS title",
            f"{'s.status' if 'status' in s else 'NULL'} AS status",
            f"{'s.parent_session_id::text' if 'parent_session_id' in s else 'NULL'} AS parent",
            f"{'s.subagent_name' if 'subagent_name' in s else 'NULL'} AS subagent_name",
            f"{'s.deleted_at' if 'deleted_at' in s else 'NULL'} AS deleted_at",
            f"COALESCE({', '.join(archived)}) AS archived_at"
            if archived
            else "NULL AS archived_at",
            (
                "EXISTS (SELECT 1 FROM sessions c WHERE c.parent_session_id = s.id) AS children"
                if "parent_session_id" in s
                else "FALSE AS children"
            ),
            "s.created_at AS created_at",
            f"{sort} AS sort_at",
            f"(EXTRACT(EPOCH FROM {sort}) * 1000000)::bigint AS sort_us",
        ]
        for column in (
            "total_input_tokens",
            "total_output_tokens",
            "total_cache_read_tokens",
            "total_cache_creation_tokens",
        ):
            fields.append(f"{'s.' + column if column in s else 'NULL'} AS {column}")
        joins = ""
        if "agent_id" in s and "name" in self._columns["agents"]:
            fields.append("a.name AS agent")
            joins += " LEFT JOIN agents a ON a.id = s.agent_id"
        else:
            fields.append("NULL AS agent")
        if "model_id" in s and "model_id" in self._columns["llm_models"]:
            fields.append("m.model_id AS model")
            joins += " LEFT JOIN llm_models m ON m.id = s.model_id"
        else:
            fields.append("NULL AS model")
        return ", ".join(fields), joins

    def _filters(self, query: SessionQuery) -> tuple[list[str], dict[str, Any]]:
        """The query in SQL: a sub-agent's session (`parent_session_id` set) is of type
        `sub_agent` and listed under its parent; an archived or deleted one is archived."""
        s = self._columns["sessions"]
        conditions: list[str] = []
        params: dict[str, Any] = {}
        nested = "parent_session_id" in s
        archived = [f"s.{c}" for c in ("archived_at", "deleted_at") if c in s]
        if query.session_types is not None:
            kind = (
                "CASE WHEN s.parent_session_id IS NULL THEN 'user' ELSE 'sub_agent' END"
                if nested
                else "'user'"
            )
            conditions.append(f"{kind} = ANY(:types)")
            params["types"] = list(query.session_types)
        if query.archived is not ArchivedFilter.INCLUDE:
            flag = f"COALESCE({', '.join(archived)}) IS NOT NULL" if archived else "FALSE"
            conditions.append(flag if query.archived is ArchivedFilter.ONLY else f"NOT ({flag})")
        if query.parent_session_id is not None:
            if nested and _is_uuid(query.parent_session_id):
                conditions.append("s.parent_session_id = CAST(:parent AS uuid)")
                params["parent"] = query.parent_session_id
            else:
                conditions.append("FALSE")
        if query.working_dir is not None:  # everruns sessions have no project folder
            conditions.append("FALSE")
        if query.text:
            conditions.append("strpos(lower(COALESCE(s.title, '')), :text) > 0")
            params["text"] = query.text.lower()
        return conditions, params

    def list_sessions(
        self, query: SessionQuery, *, after: SessionCursor | None = None, limit: int = 100
    ) -> SessionPage:
        fields, joins = self._session_sql()
        inner, params = self._filters(query)
        outer: list[str] = []
        if not query.with_empty:  # looked at in list order, only until the page is full
            outer.append(_HAS_MESSAGES.format(alias="listed", events=self._ev))
        if query.active_after is not None:
            outer.append("sort_at >= :active_after")
            params["active_after"] = query.active_after
        if query.active_before is not None:
            outer.append("sort_at < :active_before")
            params["active_before"] = query.active_before
        if after is not None:  # microseconds: exact, whatever the float carried
            outer.append("(sort_us < :after_us OR (sort_us = :after_us AND id < :after_id))")
            params |= {"after_us": round(after.sort_at * 1_000_000), "after_id": after.session_id}
        sql = (
            f"SELECT page.*, {_EXTRA_COLUMNS} "
            "FROM ("
            f"SELECT * FROM (SELECT {fields} FROM sessions s{joins}{_where(inner)}"
            " ORDER BY sort_us DESC, id DESC OFFSET 0) listed"
            f"{_where(outer)} LIMIT :limit) page "
            f"{self._page_extras('page')} ORDER BY sort_us DESC, id DESC"
        )
        params |= {"limit": limit + 1, **_EXTRA_PARAMS}
        with self._reading() as conn:
            rows = [dict(r._mapping) for r in conn.execute(text(sql), params)]
        more = len(rows) > limit
        sessions = tuple(self._session(row) for row in rows[:limit])
        cursor = None
        if more and sessions:
            last = rows[limit - 1]
            cursor = SessionCursor(int(last["sort_us"]) / 1_000_000, str(last["id"]))
        return SessionPage(sessions=sessions, next_cursor=cursor)

    def _page_extras(self, alias: str) -> str:
        """Per-row figures computed only for the rows of a page (a LATERAL join over each
        session's events): the messages the window shows (`_MESSAGE_COUNT`, so the list row,
        the header and `list --json` count what the transcript holds), the tokens the agent's
        replies used (only numbers are summed: a stored string is skipped, never an error), the
        last reply's usage, and the first prompt (a title for an untitled session)."""

        def used(key: str) -> str:
            path = "{usage," + key + "}"
            return (
                f"sum(CASE WHEN e.event_type = ANY(:agent) AND jsonb_typeof(e.data #> '{path}')"
                f" = 'number' THEN (e.data #>> '{path}')::numeric END) AS used_{key}"
            )

        events = self._ev
        return (
            f"LEFT JOIN LATERAL (SELECT {_MESSAGE_COUNT.replace('{events}', events)} AS "
            f"message_count, {used('input_tokens')}, {used('output_tokens')}, "
            f"{used('cache_read_tokens')}, {used('cache_creation_tokens')} FROM {events} e "
            f"WHERE e.session_id = {alias}.id::uuid AND NOT (e.event_type = ANY(:ignored))) agg "
            "ON TRUE "
            "LEFT JOIN LATERAL (SELECT e.data #>> '{message,content,0,text}' AS first_prompt "
            f"FROM {events} e WHERE e.session_id = {alias}.id::uuid AND "
            "e.event_type = ANY(:user_types) ORDER BY e.sequence LIMIT 1) first ON TRUE "
            f"LEFT JOIN LATERAL (SELECT e.data -> 'usage' AS last_usage FROM {events} e WHERE "
            f"e.session_id = {alias}.id::uuid AND e.event_type = ANY(:agent) AND "
            "e.data ? 'usage' ORDER BY e.sequence DESC LIMIT 1) latest ON TRUE "
            "LEFT JOIN LATERAL (SELECT e.data #>> '{metadata,model}' AS reply_model "
            f"FROM {events} e WHERE e.session_id = {alias}.id::uuid AND "
            "e.event_type = ANY(:agent) AND e.data #>> '{metadata,model}' IS NOT NULL "
            "ORDER BY e.sequence DESC LIMIT 1) replied ON TRUE"
        )

    def _session(self, row: dict[str, Any]) -> Session:
        title = (row.get("title") or "").strip()
        prompt = " ".join(str(row.get("first_prompt") or "").split())
        name = title or (prompt[:79] + "…" if len(prompt) > 80 else prompt) or "(untitled)"
        sort_at = row.get("sort_at")
        from_events = row.get("used_input_tokens") is not None
        prefix = "used_" if from_events else "total_"
        given = _whole(row.get(f"{prefix}input_tokens"))
        produced = _whole(row.get(f"{prefix}output_tokens"))
        total = given + produced if given is not None and produced is not None else None
        parent = row.get("parent")
        name = name if name != "(untitled)" else row.get("subagent_name") or name
        return Session(
            id=str(row["id"]),
            name=name,
            session_type="sub_agent" if parent else "user",
            parent_session_id=parent,
            has_children=bool(row.get("children")),
            archived_at=row.get("archived_at"),
            stored_name=row.get("title"),
            user_set_name=bool(title),
            created_at=row.get("created_at"),
            updated_at=sort_at,
            message_count=row.get("message_count"),
            model=row.get("model") or row.get("reply_model"),
            agent=row.get("agent"),
            status="deleted" if row.get("deleted_at") else row.get("status"),
            usage=_last_usage(row.get("last_usage")),
            accumulated_usage=TokenUsage(
                input_tokens=given,
                output_tokens=produced,
                total_tokens=total,
                cache_read_tokens=_whole(row.get(f"{prefix}cache_read_tokens")),
                cache_write_tokens=_whole(row.get(f"{prefix}cache_creation_tokens")),
            ),
            list_key=int(row["sort_us"]) / 1_000_000 if row.get("sort_us") is not None else None,
        )

    def get_session(self, session_id: str, *, with_message_count: bool = True) -> Session:
        del with_message_count  # one indexed count; always given
        fields, joins = self._session_sql()
        sql = (
            f"SELECT one.*, {_EXTRA_COLUMNS} "
            "FROM "
            f"(SELECT {fields} FROM sessions s{joins} WHERE s.id = CAST(:id AS uuid)) one "
            f"{self._page_extras('one')}"
        )
        if not _is_uuid(session_id):
            raise UnknownSession(f"There is no session with id {session_id!r}.")
        params = {"id": session_id, **_EXTRA_PARAMS}
        with self._reading() as conn:
            row = conn.execute(text(sql), params).first()
        if row is None:
            raise UnknownSession(f"There is no session with id {session_id!r}.")
        return self._session(dict(row._mapping))

    def count_sessions(self, query: SessionQuery) -> int:
        conditions, params = self._filters(query)
        if not query.with_empty:
            conditions.append(_HAS_MESSAGES.format(alias="s", events=self._ev))
            params["ignored"] = list(IGNORED)
        sql = f"SELECT count(*) FROM sessions s{_where(conditions)}"
        if query.active_after is not None or query.active_before is not None:
            return sum(1 for _ in self._all(query))
        with self._reading() as conn:
            return int(conn.execute(text(sql), params).scalar_one())

    def _all(self, query: SessionQuery) -> Iterator[Session]:
        cursor: SessionCursor | None = None
        while True:
            page = self.list_sessions(query, after=cursor, limit=500)
            yield from page.sessions
            if page.next_cursor is None or not page.advances_from(cursor):
                return
            cursor = page.next_cursor

    # ---- transcripts -----------------------------------------------------------------------

    _SHOWN_SQL = (
        f"NOT (e.event_type = ANY(:ignored)) AND NOT ({_ABSORBED}) AND NOT ("
        "e.event_type = ANY(:voice) AND EXISTS (SELECT 1 FROM {events} v"
        " WHERE v.session_id = e.session_id AND v.event_type = ANY(:user_types)"
        " AND v.data #>> '{message,metadata,source}' = 'voice'))"
    )
    """`events.shown_events` in SQL: every event type but the IGNORED ones, less a reasoning
    event the reply absorbs (`_ABSORBED`) and a voice transcript of a delegated call (one
    probe per transcript)."""

    def _shown_sql(self) -> str:
        return self._SHOWN_SQL.replace("{events}", self._ev)

    def _shown_params(self, session_id: str) -> dict[str, Any]:
        return {
            "sid": session_id,
            "ignored": list(IGNORED),
            "voice": list(VOICE_TYPES),
            "user_types": list(USER_TYPES),
            "reasoning": list(REASONING_TYPES),
            "agent": list(AGENT_TYPES),
        }

    def positions(self, session_id: str) -> Sequence[MessageCursor]:
        if not _is_uuid(session_id):
            return CursorList()
        sql = (
            f"SELECT e.sequence FROM {self._ev} e WHERE e.session_id = CAST(:sid AS uuid) AND "
            f"{self._shown_sql()} ORDER BY e.sequence"
        )
        with self._reading() as conn:
            sequences = [int(r[0]) for r in conn.execute(text(sql), self._shown_params(session_id))]
        return CursorList((s, s) for s in sequences)

    def _events(self, session_id: str, where: str, params: dict[str, Any]) -> list[StoredEvent]:
        if not _is_uuid(session_id):
            return []
        columns = self._columns["events"]
        ts = "e.ts" if "ts" in columns else ("e.created_at" if "created_at" in columns else "NULL")
        ts = _usable_time(ts)
        context = "e.context" if "context" in columns else "NULL"
        sql = (
            f"SELECT e.sequence, e.event_type, e.data, {ts} AS ts, e.id::text AS id, "
            f"{context} AS context FROM {self._ev} e WHERE e.session_id = CAST(:sid AS uuid) "
            f"AND {where} AND {self._shown_sql()} ORDER BY e.sequence"
        )
        with self._reading() as conn:
            rows = conn.execute(text(sql), self._shown_params(session_id) | params).all()
        return [
            StoredEvent(
                sequence=int(row[0]),
                event_type=str(row[1]),
                data=_json(row[2]),
                ts=row[3],
                event_id=row[4],
                context=_json(row[5]),
            )
            for row in rows
        ]

    def messages_between(
        self, session_id: str, first: MessageCursor, last: MessageCursor
    ) -> Sequence[Message]:
        events = self._events(
            session_id,
            "e.sequence BETWEEN :first AND :last",
            {"first": first.row_id, "last": last.row_id},
        )
        return [message_of(event, session_id) for event in events]

    def messages_at(self, session_id: str, positions: Sequence[MessageCursor]) -> Sequence[Message]:
        if not positions:
            return []
        events = self._events(
            session_id, "e.sequence = ANY(:wanted)", {"wanted": [p.row_id for p in positions]}
        )
        return [message_of(event, session_id) for event in events]

    # ---- bulk reads (the search index) -----------------------------------------------------

    def _events_of(
        self, session_ids: Sequence[str], where: str, params: dict[str, Any]
    ) -> Iterator[tuple[str, StoredEvent]]:
        """The shown events of many sessions in one query, session by session, each in order;
        rows are streamed (a server-side cursor), never all held at once."""
        wanted = [sid for sid in session_ids if _is_uuid(sid)]
        if not wanted:
            return
        columns = self._columns["events"]
        ts = "e.ts" if "ts" in columns else ("e.created_at" if "created_at" in columns else "NULL")
        ts = _usable_time(ts)
        context = "e.context" if "context" in columns else "NULL"
        sql = (
            f"SELECT e.session_id::text, e.sequence, e.event_type, e.data, {ts}, e.id::text, "
            f"{context} FROM {self._ev} e WHERE e.session_id = ANY(CAST(:sids AS uuid[])) "
            f"AND {where} AND {self._shown_sql()} ORDER BY e.session_id, e.sequence"
        )
        params = self._shown_params("") | params | {"sids": wanted}
        with self._watched() as (conn, watch):
            result = conn.execution_options(stream_results=True, max_row_buffer=2000)
            for row in result.execute(text(sql), params):
                stored = StoredEvent(
                    sequence=int(row[1]),
                    event_type=str(row[2]),
                    data=_json(row[3]),
                    ts=row[4],
                    event_id=row[5],
                    context=_json(row[6]),
                )
                watch.pause()  # the caller's time with a row is no wait on the server
                yield str(row[0]), stored
                watch.resume()

    def messages_of(self, session_ids: Sequence[str]) -> Iterator[Message]:
        order = {sid: n for n, sid in enumerate(session_ids)}
        found: dict[str, list[Message]] = {}
        for sid, stored in self._events_of(session_ids, "TRUE", {}):
            found.setdefault(sid, []).append(message_of(stored, sid))
        for sid in sorted(found, key=lambda s: order.get(s, 0)):
            yield from found[sid]

    def messages_at_each(self, wanted: Mapping[str, Sequence[MessageCursor]]) -> Iterator[Message]:
        pairs = [(sid, p.row_id) for sid, positions in wanted.items() for p in positions]
        if not pairs:
            return
        keys = {f"{sid}:{sequence}" for sid, sequence in pairs}
        where = "(e.session_id::text || ':' || e.sequence) = ANY(:keys)"
        for sid, stored in self._events_of(list(wanted), where, {"keys": sorted(keys)}):
            yield message_of(stored, sid)

    # ---- usage (the usage panel) --------------------------------------------------------------

    def _usage_sum(self, key: str) -> str:
        path = "{usage," + key + "}"
        return (
            f"CASE WHEN jsonb_typeof(e.data #> '{path}') = 'number' "
            f"THEN (e.data #>> '{path}')::numeric END"
        )

    def usage_series(self, session_id: str) -> Sequence[UsagePoint]:
        """Each reply's usage in order: the context-growth chart."""
        if not _is_uuid(session_id):
            return []
        sql = (
            f"SELECT e.ts, {self._usage_sum('input_tokens')}, {self._usage_sum('output_tokens')} "
            f"FROM {self._ev} e WHERE e.session_id = CAST(:sid AS uuid) "
            "AND e.event_type = ANY(:agent)"
            " AND e.data ? 'usage' ORDER BY e.sequence"
        )
        with self._reading() as conn:
            rows = conn.execute(text(sql), {"sid": session_id, "agent": list(AGENT_TYPES)}).all()
        return [
            UsagePoint(
                at=row[0], input_tokens=_whole(row[1]), output_tokens=_whole(row[2]), cost=None
            )
            for row in rows
        ]

    def usage_by_day(self, since: date) -> Sequence[DayUsage]:
        """Tokens of every reply per UTC day since `since` (everruns records no prices)."""
        sql = (
            "SELECT (e.ts AT TIME ZONE 'UTC')::date AS day, "
            f"sum(COALESCE({self._usage_sum('input_tokens')}, 0) + "
            f"COALESCE({self._usage_sum('output_tokens')}, 0)) FROM {self._ev} e "
            "WHERE e.event_type = ANY(:agent) AND e.ts >= :since GROUP BY day ORDER BY day"
        )
        start = datetime(since.year, since.month, since.day, tzinfo=UTC)
        with self._reading() as conn:
            rows = conn.execute(text(sql), {"agent": list(AGENT_TYPES), "since": start}).all()
        return [DayUsage(day=row[0], tokens=_whole(row[1]) or 0, cost=None) for row in rows]

    def top_sessions_by_cost(self, limit: int) -> Sequence[Session]:
        del limit
        return []  # everruns stores tokens, not prices

    def session_totals(self, session_id: str) -> SessionTotals:
        """With its task sessions, added up as for every kind without a figure of its own."""
        return tree_totals(self, self.get_session(session_id))

    # ---- change feed -----------------------------------------------------------------------

    def change_token(self) -> str:
        """The newest event (ids are UUIDv7: time-ordered, so the primary key finds it), the
        newest session change and the number of sessions: one query."""
        updated = "max(updated_at)" if "updated_at" in self._columns["sessions"] else "NULL"
        sql = (
            "SELECT (SELECT e.id::text FROM events e ORDER BY e.id DESC LIMIT 1), "
            f"(SELECT {updated}::text FROM sessions), (SELECT count(*) FROM sessions)"
        )
        with self._reading() as conn:
            newest, changed, count = conn.execute(text(sql)).one()
        return json.dumps([newest, changed, count])

    def changed_since(self, token: str) -> frozenset[str] | None:
        try:
            newest, changed, count = json.loads(token)
        except (ValueError, TypeError):
            return None
        current = json.loads(self.change_token())
        if current == [newest, changed, count]:
            return frozenset()
        if current[2] != count:
            return None  # a session was added or removed: anything may have moved
        found: set[str] = set()
        with self._reading() as conn:
            if newest is not None:
                found.update(
                    str(r[0])
                    for r in conn.execute(
                        text(
                            "SELECT DISTINCT session_id::text FROM events "
                            "WHERE id > CAST(:newest AS uuid)"
                        ),
                        {"newest": newest},
                    )
                )
            if changed is not None and "updated_at" in self._columns["sessions"]:
                found.update(
                    str(r[0])
                    for r in conn.execute(
                        text(
                            "SELECT id::text FROM sessions "
                            "WHERE updated_at > CAST(:changed AS timestamptz)"
                        ),
                        {"changed": changed},
                    )
                )
        return frozenset(found)

    def session_states(self, session_ids: Sequence[str] | None) -> dict[str, SessionState]:
        """Sessions with a revision made of their newest event's sequence, last change and name:
        for named sessions two queries (their rows, their newest sequences); for every session
        the listing's pages and one grouped query."""
        if session_ids is None:
            every = SessionQuery(session_types=None, archived=ArchivedFilter.INCLUDE)
            sessions = list(self._all(every))
            newest_sql = (
                f"SELECT session_id::text, max(sequence) FROM {self._ev} GROUP BY session_id"
            )
            newest_params: dict[str, Any] = {}
        else:
            wanted = [sid for sid in session_ids if _is_uuid(sid)]
            if not wanted:
                return {}
            fields, joins = self._session_sql()
            sql = (
                f"SELECT one.*, {_EXTRA_COLUMNS} "
                "FROM "
                f"(SELECT {fields} FROM sessions s{joins} "
                "WHERE s.id = ANY(CAST(:ids AS uuid[]))) one "
                f"{self._page_extras('one')}"
            )
            with self._reading() as conn:
                rows = conn.execute(text(sql), {"ids": wanted, **_EXTRA_PARAMS}).all()
            sessions = [self._session(dict(r._mapping)) for r in rows]
            newest_sql = (
                f"SELECT session_id::text, max(sequence) FROM {self._ev} "
                "WHERE session_id = ANY(CAST(:ids AS uuid[])) GROUP BY session_id"
            )
            newest_params = {"ids": wanted}
        with self._reading() as conn:
            newest = {str(r[0]): r[1] for r in conn.execute(text(newest_sql), newest_params)}
        return {
            s.id: SessionState(session=s, revision=f"{newest.get(s.id)}:{s.updated_at}:{s.name}")
            for s in sessions
        }


def _is_uuid(text: str) -> bool:
    """Session ids are UUIDs: anything else names no session (and is never sent as one)."""
    try:
        UUID(text)
    except ValueError:
        return False
    return True


def _whole(value: Any) -> int | None:
    """A token figure as an integer (sums arrive as Decimal); anything else is unknown."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        return whole(int(value))  # beyond 64 bits (a 1e308 in JSONB) is no figure
    except (TypeError, ValueError, OverflowError):
        return None


def _last_usage(value: Any) -> TokenUsage:
    """The last reply's usage: the session's current context, as the usage panel shows it."""
    usage = _json(value)
    if not isinstance(usage, dict):
        return TokenUsage()
    given, produced = _whole(usage.get("input_tokens")), _whole(usage.get("output_tokens"))
    return TokenUsage(
        input_tokens=given,
        output_tokens=produced,
        total_tokens=given + produced if given is not None and produced is not None else None,
        cache_read_tokens=_whole(usage.get("cache_read_tokens")),
        cache_write_tokens=_whole(usage.get("cache_creation_tokens")),
    )


def _usable_time(column: str) -> str:
    """A time column as every zone can show it, else NULL (an unknown time): PostgreSQL's run
    to 294276 AD, and psycopg refuses one past 9999 — failing the whole read of the session
    and every search of the server for one event's time."""
    kept = f"BETWEEN '{EARLIEST.isoformat()}' AND '{LATEST.isoformat()}'"
    return f"CASE WHEN {column} {kept} THEN {column} END"


def _where(conditions: list[str]) -> str:
    return " WHERE " + " AND ".join(conditions) if conditions else ""


def _json(value: Any) -> Any:
    """psycopg hands JSONB over parsed; a text column (an older schema) is parsed here."""
    if isinstance(value, str):
        try:
            return loads(value)
        except (ValueError, RecursionError):
            return value
    return value
