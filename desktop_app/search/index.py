"""The search index: one SQLite FTS5 file per indexed history, in Gander's data directory.

Building reads the history in row-id order through the `Source` protocol, a batch at a time, so a
caller (the window's worker, the CLI) can interleave other work and report progress. Later
updates add rows above the last indexed row id, and re-index sessions whose message count or
highest row id no longer match (goose's `replace_conversation` rewrites whole sessions). A file
that is corrupt, from another Gander version or built from another history is deleted and built
again — never trusted.

Ranking: bm25 over four weighted columns, and every hit whose words are only in tool output comes
after every hit in prose. For a word in most messages, ranking the whole match set costs hundreds
of milliseconds, so only the newest `RANK_CAP` matches are ranked (the result says so).
"""

import hashlib
import sqlite3
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from desktop_app.domain.errors import GanderError
from desktop_app.domain.message import Message, MessageCursor
from desktop_app.domain.search import MARK_END, MARK_START, SearchHit, SearchResults, SessionResult
from desktop_app.domain.session import Session
from desktop_app.domain.source import ArchivedFilter, SessionQuery, Source
from desktop_app.search.documents import IndexDocument, to_document
from desktop_app.search.query import ParsedQuery, parse_query

INDEX_FORMAT = "1"
BATCH = 5_000
RANK_CAP = 2_000
WEIGHTS = (10.0, 5.0, 3.0, 1.0)
"""bm25 weights of body, reasoning, tools, output."""

Progress = Callable[[int, int], None]
"""(messages indexed so far, messages to index in all)."""

_SCHEMA = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE sessions (
        id TEXT PRIMARY KEY, name TEXT NOT NULL, session_type TEXT, working_dir TEXT,
        archived INTEGER NOT NULL, parent TEXT
    )""",
    """CREATE TABLE docs (
        rowid INTEGER PRIMARY KEY, session_id TEXT NOT NULL, message_id TEXT, role TEXT,
        created INTEGER, created_raw INTEGER NOT NULL, visible INTEGER NOT NULL,
        has_image INTEGER NOT NULL, has_error INTEGER NOT NULL, tool_names TEXT NOT NULL
    )""",
    "CREATE INDEX docs_session ON docs(session_id)",
    """CREATE VIRTUAL TABLE fts USING fts5(
        body, reasoning, tools, output,
        tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
    )""",
    """CREATE VIRTUAL TABLE names USING fts5(
        session_id UNINDEXED, name, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
    )""",
)


@dataclass(frozen=True, slots=True)
class UpdateReport:
    added: int
    reindexed_sessions: int
    removed_sessions: int
    rebuilt: bool
    elapsed_s: float
    done: bool
    """False when only one batch was done and `update` should be called again."""


def open_index(data_dir: Path, location: str) -> "SearchIndex":
    """The index of the history at `location`, in Gander's data directory."""
    path = index_path(data_dir, location)
    try:
        return SearchIndex(path, location)
    except (OSError, sqlite3.Error) as error:
        raise SearchIndexUnavailable(
            f"The search index at {path} cannot be written ({error}); searching needs it."
        ) from error


class SearchIndexUnavailable(GanderError):
    pass


def index_path(data_dir: Path, location: str) -> Path:
    key = hashlib.sha256(str(Path(location).resolve()).encode()).hexdigest()[:20]
    return data_dir / "search" / f"{key}.sqlite"


class SearchIndex:
    def __init__(self, path: Path, location: str) -> None:
        self.path = path
        self.location = str(Path(location).resolve())
        self.rebuilt = False
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = self._open_checked()

    # ---- opening --------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    def _open_checked(self) -> sqlite3.Connection:
        """Open the file if it is ours, current and healthy; otherwise start a new one."""
        if self.path.exists():
            try:
                conn = self._connect()
                meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
                healthy = conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
                if (
                    healthy
                    and meta.get("format") == INDEX_FORMAT
                    and meta.get("source") == self.location
                ):
                    return conn
                conn.close()
            except sqlite3.DatabaseError:
                pass
            self._delete_files()
        self.rebuilt = True
        conn = self._connect()
        with conn:
            conn.execute("BEGIN")
            for statement in _SCHEMA:
                conn.execute(statement)
            conn.executemany(
                "INSERT INTO meta (key, value) VALUES (?, ?)",
                [
                    ("format", INDEX_FORMAT),
                    ("source", self.location),
                    ("last_row", "0"),
                    ("identity", ""),
                ],
            )
        return conn

    def _delete_files(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)

    def close(self) -> None:
        self._conn.close()

    def _meta(self, key: str) -> str:
        row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else ""

    def _set_meta(self, key: str, value: str) -> None:
        self._conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    # ---- updating -------------------------------------------------------------------------

    def update(
        self, source: Source, progress: Progress | None = None, *, batches: int = 0
    ) -> UpdateReport:
        """Bring the index up to date. With `batches` > 0, stop after that many batches of new
        messages (`done` is then False) so a worker can do other jobs in between."""
        started = time.perf_counter()
        if not self._same_history(source):
            self._conn.close()
            self._delete_files()
            self._conn = self._open_checked()
        removed = self._sync_sessions(source)
        added, done = self._add_new(source, progress, batches)
        reindexed = self._reindex_changed(source) if done else 0
        rebuilt, self.rebuilt = self.rebuilt, False
        return UpdateReport(
            added=added,
            reindexed_sessions=reindexed,
            removed_sessions=removed,
            rebuilt=rebuilt,
            elapsed_s=time.perf_counter() - started,
            done=done,
        )

    def _same_history(self, source: Source) -> bool:
        """The first message this index saw must still be there: a replaced file means rebuild."""
        identity = self._meta("identity")
        if not identity:
            return True
        row_id = int(identity.split(":", 1)[0])
        first = source.messages_after(row_id - 1, 1)
        return bool(first) and _identity(first[0]) == identity

    def _sync_sessions(self, source: Source) -> int:
        query = SessionQuery(session_types=None, archived=ArchivedFilter.INCLUDE)
        fresh: dict[str, Session] = {}
        cursor = None
        while True:
            page = source.list_sessions(query, after=cursor, limit=5_000)
            fresh.update((s.id, s) for s in page.sessions)
            if page.next_cursor is None:
                break
            cursor = page.next_cursor
        known = {
            row[0]: row[1:]
            for row in self._conn.execute(
                "SELECT id, name, session_type, working_dir, archived, parent FROM sessions"
            )
        }
        gone = [sid for sid in known if sid not in fresh]
        changed = [
            s
            for s in fresh.values()
            if known.get(s.id)
            != (s.name, s.session_type, s.working_dir, int(s.archived), s.parent_session_id)
        ]
        if not gone and not changed:
            return 0
        self._conn.execute("BEGIN")
        for sid in gone:
            self._drop_session(sid)
        for s in changed:
            self._conn.execute(
                "INSERT OR REPLACE INTO sessions"
                " (id, name, session_type, working_dir, archived, parent)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (s.id, s.name, s.session_type, s.working_dir, int(s.archived), s.parent_session_id),
            )
            self._conn.execute("DELETE FROM names WHERE session_id = ?", (s.id,))
            self._conn.execute("INSERT INTO names (session_id, name) VALUES (?, ?)", (s.id, s.name))
        self._conn.execute("COMMIT")
        return len(gone)

    def _drop_session(self, session_id: str) -> None:
        rows = [
            r[0]
            for r in self._conn.execute(
                "SELECT rowid FROM docs WHERE session_id = ?", (session_id,)
            )
        ]
        self._conn.executemany("DELETE FROM fts WHERE rowid = ?", [(r,) for r in rows])
        self._conn.execute("DELETE FROM docs WHERE session_id = ?", (session_id,))
        self._conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
        self._conn.execute("DELETE FROM names WHERE session_id = ?", (session_id,))

    def _insert(self, documents: Sequence[IndexDocument]) -> None:
        self._conn.executemany(
            "INSERT OR REPLACE INTO docs (rowid, session_id, message_id, role, created,"
            " created_raw, visible, has_image, has_error, tool_names)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    d.row_id,
                    d.session_id,
                    d.message_id,
                    d.role,
                    d.created,
                    d.created_raw,
                    int(d.visible),
                    int(d.has_image),
                    int(d.has_error),
                    d.tool_names,
                )
                for d in documents
            ],
        )
        self._conn.executemany(
            "INSERT INTO fts (rowid, body, reasoning, tools, output) VALUES (?, ?, ?, ?, ?)",
            [(d.row_id, d.body, d.reasoning, d.tools, d.output) for d in documents],
        )

    def _add_new(self, source: Source, progress: Progress | None, batches: int) -> tuple[int, bool]:
        last = int(self._meta("last_row") or 0)
        total = self._pending_estimate(source, last)
        added = 0
        done_batches = 0
        while True:
            messages = source.messages_after(last, BATCH)
            if not messages:
                return added, True
            documents = [to_document(m) for m in messages]
            self._conn.execute("BEGIN")
            stale = [(d.row_id,) for d in documents]
            self._conn.executemany("DELETE FROM fts WHERE rowid = ?", stale)
            self._insert(documents)
            last = messages[-1].row_id
            self._set_meta("last_row", str(last))
            if not self._meta("identity"):
                self._set_meta("identity", _identity(messages[0]))
            self._conn.execute("COMMIT")
            added += len(messages)
            if progress is not None:
                progress(added, max(total, added))
            done_batches += 1
            if batches and done_batches >= batches:
                return added, len(messages) < BATCH

    @staticmethod
    def _pending_estimate(source: Source, last: int) -> int:
        fingerprints = source.session_fingerprints()
        return sum(count for top, count in fingerprints.values() if top > last)

    def _reindex_changed(self, source: Source) -> int:
        """Sessions whose rows in goose no longer match ours (rewritten or truncated)."""
        theirs = source.session_fingerprints()
        ours = {
            row[0]: (row[1], row[2])
            for row in self._conn.execute(
                "SELECT session_id, MAX(rowid), COUNT(*) FROM docs GROUP BY session_id"
            )
        }
        changed = [sid for sid in set(theirs) | set(ours) if theirs.get(sid) != ours.get(sid)]
        for sid in changed:
            self._conn.execute("BEGIN")
            rows = [
                r[0]
                for r in self._conn.execute("SELECT rowid FROM docs WHERE session_id = ?", (sid,))
            ]
            self._conn.executemany("DELETE FROM fts WHERE rowid = ?", [(r,) for r in rows])
            self._conn.execute("DELETE FROM docs WHERE session_id = ?", (sid,))
            after = None
            while sid in theirs:
                page = source.read_messages(sid, after=after, limit=BATCH)
                self._insert([to_document(m) for m in page.messages])
                if not page.has_newer or not page.messages:
                    break
                after = page.messages[-1].cursor
            self._conn.execute("COMMIT")
        return len(changed)

    # ---- searching ------------------------------------------------------------------------

    def search(self, text: str, limit: int = 50) -> SearchResults:
        started = time.perf_counter()
        parsed = parse_query(text)
        if parsed.match is None and not parsed.narrows:
            return SearchResults(
                query=text, sessions=(), total_hits=0, capped=False, elapsed_ms=0.0
            )
        filters, params = _filters(parsed)
        if parsed.match is not None:
            sql = (
                f"SELECT f.rowid, bm25(fts, {', '.join(map(str, WEIGHTS))}), bm25(fts, 1, 1, 0, 0),"
                " d.session_id, d.message_id, d.role, d.created_raw"
                " FROM fts f JOIN docs d ON d.rowid = f.rowid"
                " JOIN sessions s ON s.id = d.session_id"
                f" WHERE fts MATCH ? AND {filters} ORDER BY f.rowid DESC LIMIT ?"
            )
            rows = self._conn.execute(sql, [parsed.match, *params, RANK_CAP + 1]).fetchall()
        else:
            sql = (
                "SELECT d.rowid, 0.0, -1.0, d.session_id, d.message_id, d.role, d.created_raw"
                " FROM docs d JOIN sessions s ON s.id = d.session_id"
                f" WHERE {filters} ORDER BY d.rowid DESC LIMIT ?"
            )
            rows = self._conn.execute(sql, [*params, RANK_CAP + 1]).fetchall()
        capped = len(rows) > RANK_CAP
        rows = rows[:RANK_CAP]
        ranked = sorted(rows, key=lambda r: (r[2] == 0.0, r[1], -r[0]))
        top = ranked[:limit]
        snippets = self._snippets(parsed, [r[0] for r in top])
        per_session: dict[str, int] = defaultdict(int)
        for row in rows:
            per_session[row[3]] += 1
        hits = [
            SearchHit(
                session_id=row[3],
                row_id=row[0],
                message_id=row[4],
                role=row[5],
                cursor=MessageCursor(row[6], row[0]),
                snippet=snippets.get(row[0], ""),
                rank=float(row[1]),
                in_tool_output_only=row[2] == 0.0,
            )
            for row in top
        ]
        sessions = self._group(hits, per_session, self._name_matches(parsed))
        return SearchResults(
            query=text,
            sessions=tuple(sessions),
            total_hits=len(rows),
            capped=capped,
            elapsed_ms=(time.perf_counter() - started) * 1000,
        )

    def _snippets(self, parsed: ParsedQuery, row_ids: list[int]) -> dict[int, str]:
        if not row_ids:
            return {}
        marks = ", ".join("?" for _ in row_ids)
        if parsed.match is None:
            sql = (
                "SELECT rowid, substr(body || ' ' || output, 1, 200) FROM fts"
                f" WHERE rowid IN ({marks})"
            )
            return {r[0]: " ".join(str(r[1]).split()) for r in self._conn.execute(sql, row_ids)}
        sql = (
            f"SELECT rowid, snippet(fts, -1, '{MARK_START}', '{MARK_END}', '…', 24) FROM fts"
            f" WHERE fts MATCH ? AND rowid IN ({marks})"
        )
        return {
            r[0]: " ".join(str(r[1]).split())
            for r in self._conn.execute(sql, [parsed.match, *row_ids])
        }

    def _name_matches(self, parsed: ParsedQuery) -> list[tuple[str, str, str | None, bool]]:
        if parsed.name_match is None or parsed.columns != ("body", "reasoning", "tools", "output"):
            return []
        filters, params = _session_filters(parsed)
        sql = (
            "SELECT s.id, s.name, s.working_dir, s.archived FROM names n JOIN sessions s"
            f" ON s.id = n.session_id WHERE names MATCH ? AND {filters} ORDER BY rank LIMIT 20"
        )
        try:
            rows = self._conn.execute(
                sql, ["{name} : (" + parsed.name_match + ")", *params]
            ).fetchall()
        except sqlite3.OperationalError:
            return []
        return [(r[0], r[1], r[2], bool(r[3])) for r in rows]

    def _group(
        self,
        hits: list[SearchHit],
        counts: dict[str, int],
        named: list[tuple[str, str, str | None, bool]],
    ) -> list[SessionResult]:
        by_session: dict[str, list[SearchHit]] = defaultdict(list)
        for hit in hits:
            by_session[hit.session_id].append(hit)
        info = (
            {
                row[0]: row[1:]
                for row in self._conn.execute(
                    f"SELECT id, name, working_dir, archived FROM sessions WHERE id IN "
                    f"({', '.join('?' for _ in by_session)})",
                    list(by_session),
                )
            }
            if by_session
            else {}
        )
        named_ids = {n[0] for n in named}
        results = [
            SessionResult(
                session_id=sid,
                name=n,
                working_dir=wd,
                archived=archived,
                hits=tuple(by_session.get(sid, ())),
                match_count=counts.get(sid, 0),
                name_matched=True,
            )
            for sid, n, wd, archived in named
        ]
        for sid, session_hits in by_session.items():
            if sid in named_ids:
                continue
            name, working_dir, archived = info.get(sid, (sid, None, 0))
            results.append(
                SessionResult(
                    session_id=sid,
                    name=name,
                    working_dir=working_dir,
                    archived=bool(archived),
                    hits=tuple(session_hits),
                    match_count=counts.get(sid, 0),
                )
            )
        return results


def _identity(message: Message) -> str:
    """Enough of the first indexed message to tell this history from a replaced file."""
    return f"{message.row_id}:{message.session_id}:{message.created_raw}:{message.message_id or ''}"


def _session_filters(parsed: ParsedQuery) -> tuple[str, list[object]]:
    clauses: list[str] = ["1"]
    params: list[object] = []
    if parsed.dirs:
        clauses.append(
            "(" + " OR ".join("instr(lower(s.working_dir), ?) > 0" for _ in parsed.dirs) + ")"
        )
        params.extend(d.lower() for d in parsed.dirs)
    if parsed.types:
        clauses.append(f"s.session_type IN ({', '.join('?' for _ in parsed.types)})")
        params.extend(sorted(parsed.types))
    if parsed.archived_only:
        clauses.append("s.archived = 1")
    if parsed.session_id is not None:
        clauses.append("s.id = ?")
        params.append(parsed.session_id)
    return " AND ".join(clauses), params


def _filters(parsed: ParsedQuery) -> tuple[str, list[object]]:
    clauses, params = _session_filters(parsed)
    parts = [clauses]
    if not parsed.include_hidden:
        parts.append("d.visible = 1")
    if parsed.roles:
        parts.append(f"d.role IN ({', '.join('?' for _ in parsed.roles)})")
        params.extend(sorted(parsed.roles))
    for tool in parsed.tools:
        parts.append("instr(d.tool_names, ?) > 0")
        params.append(f" {tool} ")
    if parsed.before is not None:
        parts.append("d.created < ?")
        params.append(parsed.before)
    if parsed.after is not None:
        parts.append("d.created >= ?")
        params.append(parsed.after)
    if parsed.has_image:
        parts.append("d.has_image = 1")
    if parsed.has_error:
        parts.append("d.has_error = 1")
    return " AND ".join(parts), params
