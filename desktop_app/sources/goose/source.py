"""`GooseSource`: the reader contract over one goose `sessions.db`, with every capability:
writes, a change feed, usage history, project folders, bulk reads and SQL-narrowed find."""

import json
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, suppress
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from desktop_app.domain.errors import GanderError, UnknownSession
from desktop_app.domain.message import CursorList, Message, MessageCursor
from desktop_app.domain.session import Session
from desktop_app.domain.source import (
    FindHit,
    Resume,
    SessionCursor,
    SessionPage,
    SessionQuery,
    SessionState,
    SessionTotals,
    SourceInfo,
    WriteAccess,
)
from desktop_app.domain.text import contains
from desktop_app.domain.usage import DayUsage, LedgerEntry, UsagePoint
from desktop_app.sources.goose import listing, message_queries, usage_queries
from desktop_app.sources.goose.connection import (
    DEFAULT_BUSY_TIMEOUT_S,
    check_file,
    held_open,
    readonly_uri,
    writable,
)
from desktop_app.sources.goose.contents import message_rows, with_content
from desktop_app.sources.goose.engine import ReadEngine
from desktop_app.sources.goose.errors import translated_errors
from desktop_app.sources.goose.resume import resume_session
from desktop_app.sources.goose.rows import (
    ledger_from_row,
    message_from_row,
    session_from_row,
    stored_created,
)
from desktop_app.sources.goose.schema import GooseSchema, probe_schema
from desktop_app.sources.goose.statements import iter_rows, one, rows, sql, tuples
from desktop_app.sources.goose.totals import session_totals, trees_totals
from desktop_app.sources.goose.writes import apply_update, archive_statement, rename_statement

if TYPE_CHECKING:
    from sqlalchemy import Connection, TextClause


class GooseSource:
    """Reads goose's database through its read-only engine (`engine.py`); safe to use from
    several threads (each call takes its own pooled connection)."""

    def __init__(self, path: Path, *, busy_timeout_s: float = DEFAULT_BUSY_TIMEOUT_S) -> None:
        self.path = Path(path)
        self._busy_timeout_s = busy_timeout_s
        check_file(self.path)
        companions = [Path(f"{self.path}{suffix}") for suffix in ("-wal", "-shm")]
        existed = {p for p in companions if p.exists()}
        with translated_errors(self.path):
            uri = readonly_uri(self.path)
        self._connections = ReadEngine(uri, busy_timeout_s)
        self._watch_lock = threading.Lock()
        self._watch_conn: Connection | None = None
        self._token: str | None = None
        self._token_version: int | None = None
        try:
            with translated_errors(self.path), self._connections.snapshot() as conn:
                self.schema: GooseSchema = probe_schema(conn, self.path)
        except GanderError:
            # A file we refuse must be left exactly as it was: SQLite may have created the
            # WAL companions while trying to read it.
            self._connections.dispose()
            for companion in companions:
                if companion not in existed:
                    # On a read-only mount nothing was created and removing raises EROFS.
                    with suppress(OSError):
                        companion.unlink(missing_ok=True)
            raise
        self._held = ExitStack()
        self._held.enter_context(held_open(self.path))
        self._info = SourceInfo(
            kind="goose",
            location=os.path.abspath(self.path),
            schema_version=self.schema.version,
            agent="goose",
        )

    def info(self) -> SourceInfo:
        return self._info

    def resume(self, session: Session) -> Resume:
        return resume_session(session)

    def list_sessions(
        self, query: SessionQuery, *, after: SessionCursor | None = None, limit: int = 100
    ) -> SessionPage:
        statement = listing.list_page(self.schema, query, after, limit)
        with translated_errors(self.path), self._connections.snapshot() as conn:
            found = rows(conn, statement)
            counts = (
                self._visible_counts(conn, [str(row["id"]) for row in found[:limit]])
                if query.with_counts
                else None
            )
        more = len(found) > limit
        found = found[:limit]
        sessions = tuple(
            session_from_row(row, None if counts is None else counts.get(str(row["id"]), 0))
            for row in found
        )
        cursor = None
        if more and found:
            cursor = SessionCursor(found[-1]["sort_ts"], str(found[-1]["id"]))
        return SessionPage(sessions=sessions, next_cursor=cursor)

    def count_sessions(self, query: SessionQuery) -> int:
        with translated_errors(self.path), self._connections.snapshot() as conn:
            return int(one(conn, listing.session_count(self.schema, query))[0])

    def every_session(self, query: SessionQuery) -> Iterator[Session]:
        """The whole list in one statement, not a page at a time (each page sorts every
        session again). The rows are read before the first session is made, so no read
        transaction waits on whoever consumes the list (a pager, a slow pipe)."""
        with translated_errors(self.path), self._connections.snapshot() as conn:
            found = rows(conn, listing.whole_list(self.schema, query))
        for row in found:
            yield session_from_row(row, int(row["visible_count"] or 0))

    def _visible_counts(self, conn: "Connection", session_ids: list[str]) -> dict[str, int]:
        if not session_ids:
            return {}
        result = tuples(conn, listing.visible_counts(self.schema, session_ids))
        return {str(session_id): int(count or 0) for session_id, count in result}

    def get_session(self, session_id: str, *, with_message_count: bool = True) -> Session:
        with translated_errors(self.path), self._connections.snapshot() as conn:
            found = rows(conn, listing.one_session(self.schema, session_id))
            if not found:
                raise UnknownSession(f"There is no session with id {session_id!r}.")
            if not with_message_count:
                return session_from_row(found[0], None)
            counts = self._visible_counts(conn, [session_id])
        return session_from_row(found[0], counts.get(session_id, 0))

    def positions(self, session_id: str) -> Sequence[MessageCursor]:
        with translated_errors(self.path), self._connections.snapshot() as conn:
            created, row_ids, odd, count = one(conn, message_queries.cursors(session_id))
            if not count:
                return CursorList()
            if not odd:
                # Every value an integer, so each list is SQLite's digits and commas: a JSON
                # array, parsed in C at twice the speed of splitting and converting.
                return CursorList.of_integers(
                    json.loads(f"[{created}]"), json.loads(f"[{row_ids}]")
                )
            typed = rows(conn, message_queries.typed_cursors(session_id))
        return CursorList((stored_created(row), int(row["id"])) for row in typed)

    def messages_between(
        self, session_id: str, first: MessageCursor, last: MessageCursor
    ) -> Sequence[Message]:
        statement = message_queries.message_range(self.schema, session_id, first, last)
        with translated_errors(self.path), self._connections.connect() as conn:
            found = list(message_rows(conn, statement, self.schema))
        return [message_from_row(row) for row in found]

    def find_in_session(self, session_id: str, needle: str) -> Sequence[FindHit]:
        """SQL narrows to rows whose JSON contains the words (ASCII case-folded by SQLite);
        each candidate is then parsed and checked on its real text, so JSON keys, escapes and
        base64 never produce a false hit. Reasoning streamed a token per block is joined
        before it is searched, so a phrase across blocks is in no one block: rows with
        reasoning are always read."""
        if not needle.strip():
            return []
        narrowed = needle.isascii() and json.dumps(needle)[1:-1] == needle
        statement = message_queries.candidates(
            self.schema, session_id, needle if narrowed else None
        )
        found = []
        with translated_errors(self.path), self._connections.connect() as conn:
            for row in message_rows(conn, statement, self.schema):
                message = message_from_row(row)
                if contains(message.parts, needle):
                    found.append(FindHit(message.cursor, message.visibility.user))
        return found

    def messages_at(self, session_id: str, positions: Sequence[MessageCursor]) -> Sequence[Message]:
        """goose's row ids are unique, so positions are found by id and then checked whole (a
        rewritten conversation may have reused an id for another timestamp)."""
        if not positions:
            return []
        wanted = set(positions)
        found: list[Message] = []
        with translated_errors(self.path), self._connections.connect() as conn:
            for start in range(0, len(positions), 500):
                ids = [p.row_id for p in positions[start : start + 500]]
                statement = message_queries.with_ids(self.schema, session_id, ids)
                found.extend(
                    message_from_row(row) for row in message_rows(conn, statement, self.schema)
                )
        return sorted((m for m in found if m.cursor in wanted), key=lambda m: m.cursor)

    def messages_at_each(self, wanted: Mapping[str, Sequence[MessageCursor]]) -> Iterator[Message]:
        """goose's row ids are unique across sessions: one query by id for all of them, each
        row then checked against its session and whole position."""
        asked = {(sid, position) for sid, positions in wanted.items() for position in positions}
        ids = sorted({position.row_id for _, position in asked})
        with translated_errors(self.path), self._connections.connect() as conn:
            for start in range(0, len(ids), 500):
                statement = message_queries.with_ids(self.schema, None, ids[start : start + 500])
                for row in message_rows(conn, statement, self.schema):
                    message = message_from_row(row)
                    if (message.session_id, message.cursor) in asked:
                        yield message

    def messages_of(self, session_ids: Sequence[str]) -> Iterator[Message]:
        """Bulk reading for the search index: one query per 200 sessions, in the order of the
        (session_id, created_timestamp, id) index. The rows are fetched first, then made
        messages one at a time: made as each row was read, the reading thread took and gave
        back the interpreter lock at every row, and the window's start-up stalled 64–82 ms
        instead of 30–39. A large content is read (apart, `contents.py`) only when its message
        is made, so one is held at a time, not every one of 200 sessions'."""
        for start in range(0, len(session_ids), 200):
            statement = message_queries.of_sessions(self.schema, session_ids[start : start + 200])
            with translated_errors(self.path), self._connections.connect() as conn:
                found = rows(conn, statement)
                for row in found:
                    yield message_from_row(with_content(conn, row, self.schema))

    # ---- change feed ----------------------------------------------------------------------

    def change_token(self) -> str:
        """`v1:<highest message id>:<messages>:<sessions>:<latest updated_at>|<first session>`,
        recomputed only when `PRAGMA data_version` (free to ask, on a connection of its own)
        says another connection committed."""
        with self._watch_lock, translated_errors(self.path):
            if self._watch_conn is None:
                self._watch_conn = self._connections.watcher()
            version = self._watch_conn.exec_driver_sql("PRAGMA data_version").scalar()
            if version == self._token_version and self._token is not None:
                return self._token
        with translated_errors(self.path), self._connections.snapshot() as conn:
            figures = one(conn, listing.change_figures())
        top, messages, sessions, updated, first = figures
        self._token = f"v1:{top or 0}:{messages}:{sessions}:{updated or ''}|{first}"
        self._token_version = version
        return self._token

    def changed_since(self, token: str) -> frozenset[str] | None:
        figures, _, identity = token.rpartition("|")
        parts = figures.split(":", 4)
        if len(parts) != 5 or parts[0] != "v1" or not all(p.isdigit() for p in parts[1:4]):
            return None
        if identity != self.change_token().rpartition("|")[2]:
            return None  # another file in this one's place
        top, messages, sessions, updated = int(parts[1]), int(parts[2]), int(parts[3]), parts[4]
        with translated_errors(self.path), self._connections.snapshot() as conn:
            now_messages, now_sessions = one(conn, listing.counts())
            new_rows = tuples(conn, listing.sessions_with_new_messages(top))
            added: dict[str, int] = {str(sid): int(n) for sid, n in new_rows}
            touched = [row[0] for row in tuples(conn, listing.updated_since(updated))]
        if now_messages != messages + sum(added.values()) or now_sessions < sessions:
            return None  # rows were deleted: which sessions lost them cannot be told
        return frozenset(str(sid) for sid in (*added, *touched))

    def session_states(self, session_ids: Sequence[str] | None) -> dict[str, SessionState]:
        with translated_errors(self.path), self._connections.snapshot() as conn:
            found = [
                row
                for start in range(0, len(session_ids or [None]), 500)
                for row in iter_rows(
                    conn,
                    listing.session_states(
                        self.schema,
                        None if session_ids is None else list(session_ids[start : start + 500]),
                    ),
                )
            ]
        return {
            str(row["id"]): SessionState(
                session=session_from_row(row),
                revision=f"{row.get('updated_at')}|{row['top_message']}|{row['message_total']}",
                message_total=int(row["message_total"]),
            )
            for row in found
        }

    def usage_ledger(self, session_id: str) -> Sequence[LedgerEntry]:
        if self.schema.ledger_columns is None:
            return []
        statement = sql(
            "SELECT * FROM usage_ledger WHERE session_id = :session_id "
            "ORDER BY created_timestamp, id",
            session_id=session_id,
        )
        with translated_errors(self.path), self._connections.connect() as conn:
            return [ledger_from_row(row) for row in iter_rows(conn, statement)]

    def usage_series(self, session_id: str) -> Sequence[UsagePoint]:
        with translated_errors(self.path), self._connections.snapshot() as conn:
            return usage_queries.usage_series(conn, self.schema, session_id)

    def usage_by_day(self, since: date) -> Sequence[DayUsage]:
        with translated_errors(self.path), self._connections.snapshot() as conn:
            return usage_queries.usage_by_day(conn, self.schema, since)

    def top_sessions_by_cost(self, limit: int) -> Sequence[Session]:
        if not self.schema.session_has("accumulated_cost"):
            return []
        statement = listing.top_by_cost(self.schema, limit)
        with translated_errors(self.path), self._connections.snapshot() as conn:
            found = rows(conn, statement)
        return [session_from_row(row) for row in found]

    def working_dirs(self) -> Sequence[str]:
        with translated_errors(self.path), self._connections.snapshot() as conn:
            return [str(row[0]) for row in tuples(conn, listing.working_dirs())]

    def session_types(self) -> Sequence[str]:
        if not self.schema.session_has("session_type"):
            return ["user"]
        with translated_errors(self.path), self._connections.snapshot() as conn:
            found = tuples(conn, listing.session_types())
        return [str(row[0]) if row[0] is not None else "user" for row in found]

    def session_totals(self, session_id: str) -> SessionTotals:
        with translated_errors(self.path), self._connections.snapshot() as conn:
            totals = session_totals(conn, self.schema, session_id)
        if totals is None:
            raise UnknownSession(f"There is no session with id {session_id!r}.")
        return totals

    def trees_totals(self, sessions: Sequence[Session]) -> dict[str, SessionTotals]:
        with translated_errors(self.path), self._connections.snapshot() as conn:
            return trees_totals(conn, self.schema, [s.id for s in sessions])

    def write_access(self, session_id: str | None = None) -> WriteAccess:
        del session_id  # the same for every session of the file
        reason = writable(self.path)
        can_rename = reason is None and self.schema.session_has("name", "user_set_name")
        can_archive = reason is None and self.schema.session_has("archived_at")
        if reason is None and not can_archive:
            reason = "This goose database is too old to archive sessions (before schema v12)."
        return WriteAccess(can_rename=can_rename, can_archive=can_archive, reason=reason)

    def rename(self, session_id: str, name: str, *, user_set: bool = True) -> None:
        statement = rename_statement(self.schema, session_id, name, user_set=user_set)
        self._write(statement, session_id)

    def archive(self, session_id: str) -> None:
        self._write(archive_statement(self.schema, session_id, archived=True), session_id)

    def unarchive(self, session_id: str) -> None:
        self._write(archive_statement(self.schema, session_id, archived=False), session_id)

    def _write(self, statement: "TextClause", session_id: str) -> None:
        with translated_errors(self.path):
            apply_update(self.path, statement, session_id, self._busy_timeout_s)

    def close(self) -> None:
        with self._watch_lock:
            if self._watch_conn is not None:
                self._watch_conn.close()
                self._watch_conn = None
        self._connections.dispose()
        self._held.close()
