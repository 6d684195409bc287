"""The search index: one SQLite FTS5 file per indexed history, in Gander's data directory.

Building reads the history in row-id order through the `Source` protocol, a batch at a time, so a
caller (the window's worker, the CLI) can interleave other work and report progress. Later
updates add rows above the last indexed row id, and re-index sessions whose message count or
highest row id no longer match (goose's `replace_conversation` rewrites whole sessions). A file
that is corrupt, from another Gander version or built from another history is deleted and built
again — never trusted. The file counts who has it open: one that was not closed cleanly is
checked whole on opening (`quick_check` and FTS5's own `integrity-check`, which finds damage
inside the full-text tables that `quick_check` passes); one that was is opened without a check.
Damage found later, in the middle of a search or an update, also rebuilds it, and says so.

Ranking: bm25 over four weighted columns, and every hit whose words are only in tool output comes
after every hit in prose. For a word in most messages, ranking the whole match set costs hundreds
of milliseconds, so only the newest `RANK_CAP` matches are ranked (the result says so).
"""

import hashlib
import json
import os
import sqlite3
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from desktop_app.domain.errors import GanderError
from desktop_app.domain.message import Message, MessageCursor, plain_sort_value
from desktop_app.domain.search import SearchHit, SearchResults, SessionResult
from desktop_app.domain.source import Source
from desktop_app.search.documents import IndexDocument, to_document
from desktop_app.search.parallel import SourceFactory, documents_in_parallel
from desktop_app.search.query import ParsedQuery, QueryError, parse_query
from desktop_app.search.snippets import make_snippet

INDEX_FORMAT = "5"
PARALLEL_FROM = 50_000
"""Pending messages from which a first build is worth starting worker processes for."""
BATCH = 5_000
RANK_CAP = 1_000
WEIGHTS = (10.0, 5.0, 3.0, 1.0)
"""bm25 weights of body, reasoning, tools, output."""

Progress = Callable[[int, int], None]
"""(messages indexed so far, messages to index in all)."""

_SCHEMA = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE sessions (
        id TEXT PRIMARY KEY, name TEXT NOT NULL, session_type TEXT, working_dir TEXT,
        archived INTEGER NOT NULL, parent TEXT, digest TEXT NOT NULL DEFAULT ''
    )""",
    """CREATE TABLE docs (
        rowid INTEGER PRIMARY KEY, session_id TEXT NOT NULL, message_id TEXT, role TEXT,
        created INTEGER, visible INTEGER NOT NULL,
        has_image INTEGER NOT NULL, has_error INTEGER NOT NULL, tool_names TEXT NOT NULL
    )""",
    "CREATE INDEX docs_session ON docs(session_id)",
    """CREATE VIRTUAL TABLE fts USING fts5(
        body, reasoning, tools, output, content = '',
        tokenize = 'unicode61 remove_diacritics 2', prefix = '3'
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


def open_index(
    data_dir: Path, source: Source, reopen: SourceFactory | None = None
) -> "SearchIndex":
    """The index of `source`, in Gander's data directory."""
    path = index_path(data_dir, source.info().location)
    try:
        return SearchIndex(path, source, reopen)
    except (OSError, sqlite3.Error) as error:
        raise SearchIndexUnavailable(_describe(path, error)) from error


class SearchIndexUnavailable(GanderError):
    pass


class SearchIndexRebuilt(GanderError):
    """The index was damaged and has been started afresh; searching again rebuilds it."""


def _is_damage(error: sqlite3.Error) -> bool:
    text = str(error).lower()
    return any(word in text for word in ("malformed", "corrupt", "not a database"))


def _describe(path: Path, error: sqlite3.Error | OSError) -> str:
    text = str(error).lower()
    if "full" in text:
        return f"The disk holding the search index ({path.parent}) is full; free some space."
    if "readonly" in text or "read-only" in text:
        return f"The search index at {path} cannot be written (read-only)."
    if "locked" in text or "busy" in text:
        return "The search index is busy in another Gander; try again in a moment."
    return f"The search index at {path} failed ({error})."


def index_path(data_dir: Path, location: str) -> Path:
    key = hashlib.sha256(str(Path(location).resolve()).encode()).hexdigest()[:20]
    return data_dir / "search" / f"{key}.sqlite"


class SearchIndex:
    def __init__(self, path: Path, source: Source, reopen: SourceFactory | None = None) -> None:
        """`reopen` makes a new `Source` for the same history in another process; with it, a
        large first build reads and tokenises in parallel."""
        self.path = path
        self.source = source
        self._reopen = reopen
        self.location = str(Path(source.info().location).resolve())
        self.rebuilt = False
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = self._open_checked()
        self._reader = self._connect()
        """Searches read through their own connection, so they run while an update writes."""

    # ---- opening --------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    def _open_checked(self) -> sqlite3.Connection:
        """Open the file if it is ours, current and healthy; otherwise start a new one. Health
        is checked only when the file was not closed cleanly (or is open elsewhere)."""
        if self.path.exists():
            try:
                conn = self._connect()
                meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
                ours = meta.get("format") == INDEX_FORMAT and meta.get("source") == self.location
                clean = meta.get("open_count", "0") == "0"
                if ours and (clean or _healthy(conn)):
                    opened = 1 if not clean else int(meta.get("open_count", "0")) + 1
                    conn.execute(
                        "INSERT OR REPLACE INTO meta (key, value) VALUES ('open_count', ?)",
                        (str(opened),),
                    )
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
                    ("open_count", "1"),
                ],
            )
        return conn

    def _delete_files(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)

    def close(self) -> None:
        """Close, marking the file as closed cleanly (no check on the next opening)."""
        with suppress(sqlite3.Error):
            self._conn.execute(
                "UPDATE meta SET value = max(0, CAST(value AS INTEGER) - 1)"
                " WHERE key = 'open_count'"
            )
        self._conn.close()
        self._reader.close()

    def _start_afresh(self) -> None:
        """Drop a damaged file and start an empty one (the next update builds it)."""
        for conn in (self._conn, self._reader):
            with suppress(sqlite3.Error):
                conn.close()
        self._delete_files()
        self._conn = self._open_checked()
        self._reader = self._connect()

    @contextmanager
    def _guarded(self) -> Iterator[None]:
        """Every index error as a sentence; damage found in use rebuilds the file."""
        try:
            yield
        except sqlite3.Error as error:
            if _is_damage(error):
                try:
                    self._start_afresh()
                except (OSError, sqlite3.Error) as again:
                    raise SearchIndexUnavailable(_describe(self.path, again)) from again
                raise SearchIndexRebuilt(
                    "The search index was damaged, so Gander started it afresh; it is being "
                    "rebuilt."
                ) from error
            raise SearchIndexUnavailable(_describe(self.path, error)) from error
        except OSError as error:
            raise SearchIndexUnavailable(
                f"The search index at {self.path} cannot be used ({error.strerror or error})."
            ) from error

    def _meta(self, key: str) -> str:
        row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else ""

    def _set_meta(self, key: str, value: str) -> None:
        self._conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    # ---- updating -------------------------------------------------------------------------

    def update(
        self, progress: Progress | None = None, *, batches: int = 0, full_check: bool = False
    ) -> UpdateReport:
        """See `_update`; errors come back as sentences, damage rebuilds the file."""
        with self._guarded():
            return self._update(progress, batches=batches, full_check=full_check)

    def _update(
        self, progress: Progress | None = None, *, batches: int = 0, full_check: bool = False
    ) -> UpdateReport:
        """Bring the index up to date. With `batches` > 0, stop after that many batches of new
        messages (`done` is then False) so a worker can do other jobs in between.

        Only sessions that got new rows or a new `updated_at` are compared message by message,
        which keeps an update after a few new messages in the milliseconds; `full_check`
        compares every session (done once when the index is opened, and after a build)."""
        started = time.perf_counter()
        source = self.source
        if not self._same_history(source) or self._too_many_orphans():
            self._conn.close()
            self._reader.close()
            self._delete_files()
            self._conn = self._open_checked()
            self._reader = self._connect()
        full_check = full_check or self.rebuilt
        removed, touched = self._sync_sessions(source)
        added, done, with_new_rows = self._add_new(source, progress, batches)
        reindexed = 0
        if done:
            reindexed = self._reindex_changed(
                source, None if full_check else touched | with_new_rows
            )
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

    def _sync_sessions(self, source: Source) -> tuple[int, set[str]]:
        """Session rows: drop the gone, refresh those whose digest changed. Returns how many
        went and which changed."""
        digests = source.session_digests()
        known = dict(self._conn.execute("SELECT id, digest FROM sessions").fetchall())
        gone = [sid for sid in known if sid not in digests]
        changed = [sid for sid, digest in digests.items() if known.get(sid) != digest]
        if not gone and not changed:
            return 0, set()
        fresh = source.sessions_by_ids(changed)
        self._conn.execute("BEGIN")
        for sid in gone:
            self._drop_session(sid)
        rowids = dict(self._conn.execute("SELECT id, rowid FROM sessions").fetchall())
        self._conn.executemany(
            "DELETE FROM names WHERE rowid = ?", [(rowids[s.id],) for s in fresh if s.id in rowids]
        )
        self._conn.executemany(
            "INSERT INTO sessions (id, name, session_type, working_dir, archived, parent, digest)"
            " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET name = excluded.name,"
            " session_type = excluded.session_type, working_dir = excluded.working_dir,"
            " archived = excluded.archived, parent = excluded.parent, digest = excluded.digest",
            [
                (
                    s.id,
                    s.name,
                    s.session_type,
                    s.working_dir,
                    int(s.archived),
                    s.parent_session_id,
                    digests[s.id],
                )
                for s in fresh
            ],
        )
        self._conn.execute(
            "INSERT INTO names (rowid, session_id, name) SELECT rowid, id, name FROM sessions"
            " WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps([s.id for s in fresh]),),
        )
        self._conn.execute("COMMIT")
        return len(gone), set(changed)

    def _drop_session(self, session_id: str) -> None:
        self._forget_rows(
            [
                r[0]
                for r in self._conn.execute(
                    "SELECT rowid FROM docs WHERE session_id = ?", (session_id,)
                )
            ]
        )
        self._conn.execute(
            "DELETE FROM names WHERE rowid = (SELECT rowid FROM sessions WHERE id = ?)",
            (session_id,),
        )
        self._conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    def _forget_rows(self, row_ids: Sequence[int]) -> None:
        """Rows goose no longer has. The contentless FTS table cannot delete them (SQLite 3.40),
        so they stay there as orphans that no search returns (every search joins `docs`); once
        orphans are a quarter of the index it is rebuilt."""
        self._conn.executemany("DELETE FROM docs WHERE rowid = ?", [(r,) for r in row_ids])
        orphans = int(self._meta("orphans") or 0) + len(row_ids)
        self._set_meta("orphans", str(orphans))

    def _too_many_orphans(self) -> bool:
        orphans = int(self._meta("orphans") or 0)
        docs = int(self._conn.execute("SELECT COUNT(*) FROM docs").fetchone()[0])
        return orphans > max(10_000, docs // 4)

    def _insert(self, documents: Sequence[IndexDocument]) -> None:
        self._conn.executemany(
            "INSERT INTO docs (rowid, session_id, message_id, role, created,"
            " visible, has_image, has_error, tool_names)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    d.row_id,
                    d.session_id,
                    d.message_id,
                    d.role,
                    d.created,
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

    def _add_new(
        self, source: Source, progress: Progress | None, batches: int
    ) -> tuple[int, bool, set[str]]:
        """Index rows above the last indexed one. Returns how many, whether all are done, and
        the sessions they belong to (empty after a parallel first build: all are checked)."""
        last = int(self._meta("last_row") or 0)
        touched: set[str] = set()
        messages = source.messages_after(last, BATCH)
        if not messages:
            return 0, True, touched
        if len(messages) == BATCH:
            fingerprints = source.session_fingerprints()
            total = sum(count for top, count in fingerprints.values() if top > last)
            workers = min(2, os.cpu_count() or 1)
            if self._reopen is not None and total >= PARALLEL_FROM and workers > 1 and not batches:
                until = max(top for top, _ in fingerprints.values())
                return self._add_in_parallel(last, until, total, progress, workers), True, touched
        else:
            total = len(messages)
        added = 0
        done_batches = 0
        while True:
            if not messages:
                return added, True, touched
            touched.update(m.session_id for m in messages)
            documents = [to_document(m) for m in messages]
            self._conn.execute("BEGIN")
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
                return added, len(messages) < BATCH, touched
            messages = source.messages_after(last, BATCH)

    def _add_in_parallel(
        self, last: int, until: int, total: int, progress: Progress | None, workers: int
    ) -> int:
        if self._reopen is None:
            return 0
        added = 0
        # A bulk load: build the session index once at the end instead of row by row, and skip
        # fsyncs (a crash leaves a file that fails its check and is rebuilt).
        self._conn.execute("DROP INDEX IF EXISTS docs_session")
        self._conn.execute("PRAGMA synchronous=OFF")
        for covered, documents in documents_in_parallel(self._reopen, last, until, workers):
            self._conn.execute("BEGIN")
            self._set_meta("last_row", str(covered))
            if documents:
                self._insert(documents)
                if not self._meta("identity"):
                    first = self.source.messages_by_ids([documents[0].row_id])
                    if first:
                        self._set_meta("identity", _identity(first[0]))
                added += len(documents)
            self._conn.execute("COMMIT")
            if progress is not None:
                progress(added, max(total, added))
        self._conn.execute("CREATE INDEX IF NOT EXISTS docs_session ON docs(session_id)")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        return added

    def _reindex_changed(self, source: Source, only: set[str] | None) -> int:
        """Sessions whose rows in goose no longer match ours (rewritten or truncated): rows that
        went away are forgotten, rows we never saw are added. `only` limits the comparison."""
        if only is not None and not only:
            return 0
        theirs = source.session_fingerprints(None if only is None else sorted(only))
        sql = "SELECT session_id, MAX(rowid), COUNT(*) FROM docs"
        params: list[str] = []
        if only is not None:
            sql += " WHERE session_id IN (SELECT value FROM json_each(?))"
            params.append(json.dumps(sorted(only)))
        ours = {
            row[0]: (row[1], row[2])
            for row in self._conn.execute(sql + " GROUP BY session_id", params)
        }
        last = int(self._meta("last_row") or 0)
        changed = [sid for sid in set(theirs) | set(ours) if theirs.get(sid) != ours.get(sid)]
        for sid in changed:
            present = {c.row_id for c in source.message_cursors(sid)} if sid in theirs else set()
            indexed = {
                r[0]
                for r in self._conn.execute("SELECT rowid FROM docs WHERE session_id = ?", (sid,))
            }
            missing = sorted(r for r in present - indexed if r <= last)
            self._conn.execute("BEGIN")
            self._forget_rows(sorted(indexed - present))
            for start in range(0, len(missing), BATCH):
                batch = source.messages_by_ids(missing[start : start + BATCH])
                self._insert([to_document(m) for m in batch])
            self._conn.execute("COMMIT")
        return len(changed)

    # ---- searching ------------------------------------------------------------------------

    def search(self, text: str, limit: int = 50) -> SearchResults:
        parsed = parse_query(text)
        with self._guarded():
            try:
                return self._search(text, parsed, limit)
            except sqlite3.OperationalError as error:
                if _is_damage(error) or "fts5" not in str(error):
                    raise
                raise QueryError(f"This search cannot be run ({error}).") from error

    def _search(self, text: str, parsed: ParsedQuery, limit: int) -> SearchResults:
        started = time.perf_counter()
        if parsed.match is None and not parsed.narrows:
            return SearchResults(
                query=text, sessions=(), total_hits=0, capped=False, elapsed_ms=0.0
            )
        filters, params = _filters(parsed)
        join = " JOIN sessions s ON s.id = d.session_id" if _needs_sessions(parsed) else ""
        if parsed.match is not None:
            sql = (
                f"SELECT f.rowid, bm25(fts, {', '.join(map(str, WEIGHTS))}), bm25(fts, 1, 1, 0, 0),"
                " d.session_id, d.message_id, d.role"
                f" FROM fts f JOIN docs d ON d.rowid = f.rowid{join}"
                f" WHERE fts MATCH ? AND {filters} ORDER BY f.rowid DESC LIMIT ?"
            )
            rows = self._reader.execute(sql, [parsed.match, *params, RANK_CAP + 1]).fetchall()
        else:
            sql = (
                "SELECT d.rowid, 0.0, -1.0, d.session_id, d.message_id, d.role"
                f" FROM docs d{join}"
                f" WHERE {filters} ORDER BY d.rowid DESC LIMIT ?"
            )
            rows = self._reader.execute(sql, [*params, RANK_CAP + 1]).fetchall()
        capped = len(rows) > RANK_CAP
        rows = rows[:RANK_CAP]
        ranked = sorted(rows, key=lambda r: (r[2] == 0.0, r[1], -r[0]))
        top = ranked[:limit]
        read_back = _read_back(self.source, parsed, [r[0] for r in top])
        per_session: dict[str, int] = defaultdict(int)
        for row in rows:
            per_session[row[3]] += 1
        hits = [
            SearchHit(
                session_id=row[3],
                row_id=row[0],
                message_id=row[4],
                role=row[5],
                cursor=read_back[row[0]][1] if row[0] in read_back else None,
                snippet=read_back[row[0]][0] if row[0] in read_back else "",
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

    def _name_matches(self, parsed: ParsedQuery) -> list[tuple[str, str, str | None, bool]]:
        if parsed.name_match is None or parsed.columns != ("body", "reasoning", "tools", "output"):
            return []
        filters, params = _session_filters(parsed)
        if parsed.session_id is not None:
            filters += " AND s.id = ?"
            params.append(parsed.session_id)
        sql = (
            "SELECT s.id, s.name, s.working_dir, s.archived FROM names n JOIN sessions s"
            f" ON s.id = n.session_id WHERE names MATCH ? AND {filters} ORDER BY rank LIMIT 20"
        )
        try:
            rows = self._reader.execute(
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
                for row in self._reader.execute(
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


def _healthy(conn: sqlite3.Connection) -> bool:
    """`quick_check` for the file, FTS5's own `integrity-check` for the full-text tables."""
    if conn.execute("PRAGMA quick_check").fetchone()[0] != "ok":
        return False
    try:
        conn.execute("INSERT INTO fts (fts) VALUES ('integrity-check')")
        conn.execute("INSERT INTO names (names) VALUES ('integrity-check')")
    except sqlite3.DatabaseError:
        return False
    return True


def _read_back(
    source: Source, parsed: ParsedQuery, row_ids: list[int]
) -> dict[int, tuple[str, MessageCursor]]:
    """Read the page's messages back from the history: each one's snippet, with the query's
    words marked, and its exact position (to open the transcript there)."""
    found = {}
    for message in source.messages_by_ids(row_ids):
        document = to_document(message)
        columns = [document.body, document.reasoning, document.tools, document.output]
        found[message.row_id] = (make_snippet(columns, parsed.terms), message.cursor)
    return found


def _identity(message: Message) -> str:
    """Enough of the first indexed message to tell this history from a replaced file."""
    created = plain_sort_value(message.created_raw)
    return f"{message.row_id}:{message.session_id}:{created}:{message.message_id or ''}"


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
    return " AND ".join(clauses), params


def _needs_sessions(parsed: ParsedQuery) -> bool:
    return bool(parsed.dirs or parsed.types or parsed.archived_only)


def _filters(parsed: ParsedQuery) -> tuple[str, list[object]]:
    clauses, params = _session_filters(parsed)
    parts = [clauses]
    if parsed.session_id is not None:
        parts.append("d.session_id = ?")
        params.append(parsed.session_id)
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
