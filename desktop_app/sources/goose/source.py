"""`GooseSource`: the `Source` protocol over one goose `sessions.db`."""

import json
import threading
from collections.abc import Sequence
from contextlib import suppress
from datetime import date
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, func, select
from sqlalchemy.sql.expression import Update

from desktop_app.domain.errors import GanderError, UnknownSession
from desktop_app.domain.message import CursorList, Message, MessageCursor
from desktop_app.domain.session import Session
from desktop_app.domain.source import (
    FindHit,
    MessagePage,
    SessionCursor,
    SessionPage,
    SessionQuery,
    SessionTotals,
    SourceInfo,
    WriteAccess,
)
from desktop_app.domain.text import contains
from desktop_app.domain.usage import DayUsage, LedgerEntry, UsagePoint
from desktop_app.sources.goose import queries, usage_queries
from desktop_app.sources.goose.connection import (
    DEFAULT_BUSY_TIMEOUT_S,
    check_file,
    make_engine,
    readonly_uri,
    translated_errors,
    writable,
)
from desktop_app.sources.goose.rows import (
    ledger_from_row,
    message_from_row,
    session_from_row,
    stored_created,
)
from desktop_app.sources.goose.schema import GooseSchema, probe_schema
from desktop_app.sources.goose.totals import session_totals
from desktop_app.sources.goose.writes import apply_update, archive_statement, rename_statement


def _cursor_of(row: dict[str, Any]) -> MessageCursor:
    return MessageCursor(stored_created(row), int(row["id"]))


class GooseSource:
    """Reads goose's database through read-only connections; safe to use from any one thread
    at a time per call (each call takes its own pooled connection)."""

    def __init__(self, path: Path, *, busy_timeout_s: float = DEFAULT_BUSY_TIMEOUT_S) -> None:
        self.path = Path(path)
        self._busy_timeout_s = busy_timeout_s
        check_file(self.path)
        companions = [Path(f"{self.path}{suffix}") for suffix in ("-wal", "-shm")]
        existed = {p for p in companions if p.exists()}
        with translated_errors(self.path):
            uri = readonly_uri(self.path)
        self._engine = make_engine(uri, busy_timeout_s)
        self._watch_lock = threading.Lock()
        self._watch_conn: Any = None
        try:
            with translated_errors(self.path), self._engine.begin() as conn:
                self.schema: GooseSchema = probe_schema(conn, self.path)
        except GanderError:
            # A file we refuse must be left exactly as it was: SQLite may have created the
            # WAL companions while trying to read it.
            self._engine.dispose()
            for companion in companions:
                if companion not in existed:
                    # On a read-only mount nothing was created and removing raises EROFS.
                    with suppress(OSError):
                        companion.unlink(missing_ok=True)
            raise

    def info(self) -> SourceInfo:
        return SourceInfo(kind="goose", location=str(self.path), schema_version=self.schema.version)

    def list_sessions(
        self, query: SessionQuery, *, after: SessionCursor | None = None, limit: int = 100
    ) -> SessionPage:
        statement = queries.list_page(self.schema, query, after, limit)
        with translated_errors(self.path), self._engine.begin() as conn:
            rows = [dict(row._mapping) for row in conn.execute(statement)]
            counts = self._visible_counts(conn, [str(row["id"]) for row in rows[:limit]])
        more = len(rows) > limit
        rows = rows[:limit]
        sessions = tuple(session_from_row(row, counts.get(str(row["id"]), 0)) for row in rows)
        cursor = None
        if more and rows:
            cursor = SessionCursor(rows[-1]["sort_ts"], str(rows[-1]["id"]))
        return SessionPage(sessions=sessions, next_cursor=cursor)

    def _visible_counts(self, conn: Connection, session_ids: list[str]) -> dict[str, int]:
        if not session_ids:
            return {}
        result = conn.execute(queries.visible_counts(self.schema, session_ids))
        return {str(session_id): int(count or 0) for session_id, count in result}

    def get_session(self, session_id: str, *, with_message_count: bool = True) -> Session:
        with translated_errors(self.path), self._engine.begin() as conn:
            row = conn.execute(queries.one_session(self.schema, session_id)).first()
            if row is None:
                raise UnknownSession(f"There is no session with id {session_id!r}.")
            if not with_message_count:
                return session_from_row(dict(row._mapping), None)
            counts = self._visible_counts(conn, [session_id])
        return session_from_row(dict(row._mapping), counts.get(session_id, 0))

    def read_messages(
        self,
        session_id: str,
        *,
        before: MessageCursor | None = None,
        after: MessageCursor | None = None,
        from_end: bool = False,
        limit: int = 200,
    ) -> MessagePage:
        statement = queries.message_page(
            self.schema, session_id, before=before, after=after, from_end=from_end, limit=limit
        )
        descending = before is not None or (after is None and from_end)
        with translated_errors(self.path), self._engine.begin() as conn:
            rows = [dict(row._mapping) for row in conn.execute(statement)]
            more = len(rows) > limit
            rows = rows[:limit]
            if descending:
                rows.reverse()
            if not rows:
                return MessagePage(messages=(), has_older=False, has_newer=False)
            first, last = _cursor_of(rows[0]), _cursor_of(rows[-1])
            if descending:
                has_older = more
                has_newer = bool(
                    conn.execute(
                        queries.messages_exist(self.schema, session_id, after=last)
                    ).scalar()
                )
            else:
                has_newer = more
                has_older = bool(
                    conn.execute(
                        queries.messages_exist(self.schema, session_id, before=first)
                    ).scalar()
                )
        return MessagePage(
            messages=tuple(message_from_row(row) for row in rows),
            has_older=has_older,
            has_newer=has_newer,
        )

    def message_cursors(
        self, session_id: str, *, user_visible_only: bool = False
    ) -> Sequence[MessageCursor]:
        statement = queries.cursors(self.schema, session_id, user_visible_only=user_visible_only)
        with translated_errors(self.path), self._engine.begin() as conn:
            created, row_ids, odd, count = conn.execute(statement).one()
            if not count:
                return CursorList()
            if not odd:
                return CursorList.from_columns(
                    map(int, str(created).split(",")), map(int, str(row_ids).split(","))
                )
            typed = queries.typed_cursors(
                self.schema, session_id, user_visible_only=user_visible_only
            )
            rows = [dict(row._mapping) for row in conn.execute(typed)]
        return CursorList((stored_created(row), int(row["id"])) for row in rows)

    def messages_between(
        self, session_id: str, first: MessageCursor, last: MessageCursor
    ) -> Sequence[Message]:
        statement = queries.message_range(self.schema, session_id, first, last)
        with translated_errors(self.path), self._engine.connect() as conn:
            rows = [dict(row._mapping) for row in conn.execute(statement)]
        return [message_from_row(row) for row in rows]

    def find_in_session(self, session_id: str, needle: str) -> Sequence[FindHit]:
        """SQL narrows to rows whose JSON contains the words (ASCII case-folded by SQLite);
        each candidate is then parsed and checked on its real text, so JSON keys, escapes and
        base64 never produce a false hit."""
        if not needle.strip():
            return []
        m = self.schema.messages
        statement = select(*queries.message_columns(self.schema)).where(
            m.c.session_id == session_id
        )
        if needle.isascii() and json.dumps(needle)[1:-1] == needle:
            lowered = func.lower(m.c.content_json)
            statement = statement.where(func.instr(lowered, needle.lower()) > 0)
        statement = statement.order_by(m.c.created_timestamp, m.c.id)
        found = []
        with translated_errors(self.path), self._engine.connect() as conn:
            for row in conn.execute(statement):
                message = message_from_row(dict(row._mapping))
                if contains(message.parts, needle):
                    found.append(FindHit(message.cursor, message.visibility.user))
        return found

    def messages_after(self, row_id: int, limit: int) -> Sequence[Message]:
        m = self.schema.messages
        statement = (
            select(*queries.message_columns(self.schema))
            .where(m.c.id > row_id)
            .order_by(m.c.id)
            .limit(limit)
        )
        with translated_errors(self.path), self._engine.connect() as conn:
            rows = [dict(row._mapping) for row in conn.execute(statement)]
        return [message_from_row(row) for row in rows]

    def session_digests(self) -> dict[str, str]:
        s = self.schema.sessions
        statement = select(s.c.id, s.c.updated_at)
        with translated_errors(self.path), self._engine.connect() as conn:
            return {str(sid): str(updated) for sid, updated in conn.execute(statement)}

    def sessions_by_ids(self, session_ids: Sequence[str]) -> Sequence[Session]:
        if not session_ids:
            return []
        s = self.schema.sessions
        columns = [s.c[name] for name in queries.SESSION_COLUMNS if name in s.c]
        found: list[Session] = []
        with translated_errors(self.path), self._engine.connect() as conn:
            for start in range(0, len(session_ids), 500):
                chunk = list(session_ids[start : start + 500])
                statement = select(
                    *columns, queries.archived_expr(self.schema).label("is_archived")
                )
                statement = statement.where(s.c.id.in_(chunk))
                found.extend(
                    session_from_row(dict(row._mapping)) for row in conn.execute(statement)
                )
        return found

    def messages_by_ids(self, row_ids: Sequence[int]) -> Sequence[Message]:
        if not row_ids:
            return []
        m = self.schema.messages
        statement = (
            select(*queries.message_columns(self.schema))
            .where(m.c.id.in_(list(row_ids)))
            .order_by(m.c.id)
        )
        with translated_errors(self.path), self._engine.connect() as conn:
            rows = [dict(row._mapping) for row in conn.execute(statement)]
        return [message_from_row(row) for row in rows]

    def session_fingerprints(
        self, session_ids: Sequence[str] | None = None
    ) -> dict[str, tuple[int, int]]:
        m = self.schema.messages
        statement = select(m.c.session_id, func.max(m.c.id), func.count()).group_by(m.c.session_id)
        if session_ids is not None:
            statement = statement.where(m.c.session_id.in_(list(session_ids)))
        with translated_errors(self.path), self._engine.connect() as conn:
            return {str(sid): (int(top), int(count)) for sid, top, count in conn.execute(statement)}

    def usage_ledger(self, session_id: str) -> Sequence[LedgerEntry]:
        ledger = self.schema.usage_ledger
        if ledger is None:
            return []
        statement = (
            select(ledger)
            .where(ledger.c.session_id == session_id)
            .order_by(ledger.c.created_timestamp, ledger.c.id)
        )
        with translated_errors(self.path), self._engine.connect() as conn:
            return [ledger_from_row(dict(row._mapping)) for row in conn.execute(statement)]

    def usage_series(self, session_id: str) -> Sequence[UsagePoint]:
        with translated_errors(self.path), self._engine.begin() as conn:
            return usage_queries.usage_series(conn, self.schema, session_id)

    def usage_by_day(self, since: date) -> Sequence[DayUsage]:
        with translated_errors(self.path), self._engine.begin() as conn:
            return usage_queries.usage_by_day(conn, self.schema, since)

    def top_sessions_by_cost(self, limit: int) -> Sequence[Session]:
        if not self.schema.session_has("accumulated_cost"):
            return []
        statement = queries.top_by_cost(self.schema, limit)
        with translated_errors(self.path), self._engine.begin() as conn:
            rows = [dict(row._mapping) for row in conn.execute(statement)]
        return [session_from_row(row) for row in rows]

    def working_dirs(self) -> Sequence[str]:
        s = self.schema.sessions
        statement = (
            select(s.c.working_dir)
            .where(s.c.working_dir.is_not(None))
            .group_by(s.c.working_dir)
            .order_by(func.max(s.c.updated_at).desc())
        )
        with translated_errors(self.path), self._engine.begin() as conn:
            return [str(row[0]) for row in conn.execute(statement)]

    def session_totals(self, session_id: str) -> SessionTotals:
        with translated_errors(self.path), self._engine.begin() as conn:
            totals = session_totals(conn, self.schema, session_id)
        if totals is None:
            raise UnknownSession(f"There is no session with id {session_id!r}.")
        return totals

    def change_marker(self) -> tuple[int, ...]:
        """`PRAGMA data_version` of one long-lived connection: it moves with every commit made by
        any other connection, and costs no read transaction."""
        with self._watch_lock, translated_errors(self.path):
            if self._watch_conn is None:
                self._watch_conn = self._engine.raw_connection()
            version = self._watch_conn.cursor().execute("PRAGMA data_version").fetchone()[0]
        return (int(version),)

    def write_access(self) -> WriteAccess:
        reason = writable(self.path)
        can_rename = reason is None and self.schema.session_has("name", "user_set_name")
        can_archive = reason is None and self.schema.session_has("archived_at")
        if reason is None and not can_archive:
            reason = "This goose database is too old to archive sessions (before schema v12)."
        return WriteAccess(can_rename=can_rename, can_archive=can_archive, reason=reason)

    def rename(self, session_id: str, name: str) -> None:
        self._write(rename_statement(self.schema, session_id, name), session_id)

    def archive(self, session_id: str) -> None:
        self._write(archive_statement(self.schema, session_id, archived=True), session_id)

    def unarchive(self, session_id: str) -> None:
        self._write(archive_statement(self.schema, session_id, archived=False), session_id)

    def _write(self, statement: Update, session_id: str) -> None:
        with translated_errors(self.path):
            apply_update(self.path, statement, session_id, self._busy_timeout_s)

    def close(self) -> None:
        with self._watch_lock:
            if self._watch_conn is not None:
                self._watch_conn.close()
                self._watch_conn = None
        self._engine.dispose()
