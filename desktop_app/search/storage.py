"""The search index's file: one SQLite FTS5 database per history, in Gander's data directory.

What it holds: `meta` (format, the history's location, the change token it is current with, how
many have it open, orphan count, the next document number), `sessions` (each indexed session's
listing facts, its revision, and how far its messages are indexed), `docs` (one row per message:
session, encoded position, role, time, flags) and two FTS5 tables: `fts`, contentless, over the
four text columns, and `names`, over session names.

A file that is not ours, of another format version, or for another location is replaced. The
file counts who has it open: one not closed cleanly is checked whole on opening (`quick_check`
and FTS5's own `integrity-check`, which finds damage inside the full-text tables that
`quick_check` passes); one that was is opened without a check. Contentless FTS5 cannot delete
rows (SQLite 3.40): rows of re-indexed messages stay there as orphans that no query returns
(every query joins `docs`), counted, until the file is rebuilt.

Several Ganders (a window and a CLI, two `gander search` loops) share one file. One of them at
a time writes it (`turn`): its plan and its batches, or the check and the rebuild on opening,
so no two plans made from one state write the same messages twice, and no opening deletes the
file under another's update. A lock another connection holds is never taken for damage: a check
it keeps from running is skipped (the file is in use), any other write waits `BUSY_TIMEOUT_S`
and then is one sentence. A Gander whose file was replaced under it (another one rebuilt it)
opens the new file before it next writes or searches.
"""

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from desktop_app.domain.errors import GanderError
from desktop_app.domain.session import Session
from desktop_app.search.documents import (
    DOC_FIELDS,
    TEXT_FIELDS,
    DocumentRow,
)

INDEX_FORMAT = "7"
"""7: `fts` has no 3-character prefix index. It made FTS5 write every word twice (a third of a
build's insert cost, 28 % of the file) and served only a query of a 3-character prefix (`lat*`),
which walks the words starting so about as fast without it (85 against 92 ms over 200,000
messages; `the*` 376 against 307 ms)."""
_BUSY = "The search index is being rebuilt by another Gander; try again when it is done."

SESSION_FIELDS = (
    "id",
    "name",
    "session_type",
    "working_dir",
    "archived",
    "parent",
    "last_active",
    "revision",
    "indexed_count",
    "last_position",
)
_SESSION_TYPES = {
    "id": "TEXT NOT NULL UNIQUE",
    "name": "TEXT NOT NULL",
    "archived": "INTEGER NOT NULL",
    "last_active": "INTEGER",
    "revision": "TEXT NOT NULL DEFAULT ''",
    "indexed_count": "INTEGER NOT NULL DEFAULT 0",
}
_DOC_TYPES = {
    "session_id": "TEXT NOT NULL",
    "position": "TEXT NOT NULL",
    "created": "INTEGER",
    "visible": "INTEGER NOT NULL",
    "has_image": "INTEGER NOT NULL",
    "has_error": "INTEGER NOT NULL",
    "tool_names": "TEXT NOT NULL",
}


AUTOMERGE = 8
"""FTS5 merges segments eight at a time, not four: a first build writes each posting fewer
times (with `WRITER_CACHE_KIB`, 500,000 messages at 23,900–24,400/s instead of 18,000/s in
`benchmarks.search`), and queries stay within their budget over the extra segments."""
PENDING_BYTES = 16 * 1024 * 1024
"""FTS5's in-memory buffer of new postings (`hashsize`), 16 MB instead of 1 MB: a first build's
transaction of some 5,000 messages is written as one segment instead of about a dozen, which
the merges then had to read and rewrite again (the writer's insert cost fell by a fifth)."""
WRITER_CACHE_KIB = 65_536
"""The writing connection's page cache, 64 MB instead of SQLite's 2 MB: FTS5's merges reread
the segments they write. The reader keeps the default; the cache is filled only as a build
needs it."""


def _columns(names: Sequence[str], types: dict[str, str]) -> str:
    return ", ".join(f"{name} {types.get(name, 'TEXT')}" for name in names)


SCHEMA = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    f"CREATE TABLE sessions (rowid INTEGER PRIMARY KEY, "
    f"{_columns(SESSION_FIELDS, _SESSION_TYPES)})",
    f"CREATE TABLE docs (rowid INTEGER PRIMARY KEY, {_columns(DOC_FIELDS, _DOC_TYPES)})",
    "CREATE INDEX docs_session ON docs(session_id)",
    f"""CREATE VIRTUAL TABLE fts USING fts5({", ".join(TEXT_FIELDS)}, content = '',
        tokenize = 'unicode61 remove_diacritics 2')""",
    """CREATE VIRTUAL TABLE names USING fts5(
        session_id UNINDEXED, name, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
    )""",
    f"INSERT INTO fts (fts, rank) VALUES ('automerge', {AUTOMERGE})",
    f"INSERT INTO fts (fts, rank) VALUES ('hashsize', {PENDING_BYTES})",
)
_INSERT_DOC = (
    f"INSERT INTO docs (rowid, {', '.join(DOC_FIELDS)}) "
    f"VALUES (?, {', '.join('?' for _ in DOC_FIELDS)})"
)
_INSERT_FTS = (
    f"INSERT INTO fts (rowid, {', '.join(TEXT_FIELDS)}) "
    f"VALUES (?, {', '.join('?' for _ in TEXT_FIELDS)})"
)


@dataclass(frozen=True, slots=True)
class IndexedSession:
    """How far a session is indexed."""

    revision: str
    indexed_count: int
    last_position: str | None


BUSY_TIMEOUT_S = 30.0
"""How long a write to the index waits for another connection's (another Gander's batch, its
count of openers) before it is a sentence."""
OPENING_WAIT_S = 2.0
"""How long an opening waits for another Gander's update to end before it opens the file
without checking it (a file being updated is in use, not left by a crash)."""


class IndexBusy(GanderError):
    """Another Gander is writing the index and has not let go within the wait."""


def busy(error: sqlite3.Error) -> bool:
    """Whether SQLite refused because another connection holds a lock: the file is in use,
    which says nothing about its health."""
    code = getattr(error, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(
        path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_S
    )
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn


def healthy(conn: sqlite3.Connection) -> bool:
    """`quick_check` for the file, FTS5's own `integrity-check` for the full-text tables. The
    latter is a write: when another connection's lock keeps it from running, the file is in use
    and counts as healthy (damage met in use starts it afresh)."""
    if conn.execute("PRAGMA quick_check").fetchone()[0] != "ok":
        return False
    try:
        conn.execute("INSERT INTO fts (fts) VALUES ('integrity-check')")
        conn.execute("INSERT INTO names (names) VALUES ('integrity-check')")
    except sqlite3.DatabaseError as error:
        return busy(error)
    return True


def _take_turn(path: Path, wait_s: float) -> sqlite3.Connection | None:
    """The lock file's connection holding its exclusive lock, or None when another holds it
    past `wait_s`. A lock file that is not a database (damaged) is one nobody can hold: it is
    made again, once."""
    for attempt in range(2):
        lock = sqlite3.connect(path, timeout=wait_s, isolation_level=None)
        try:
            lock.execute("BEGIN EXCLUSIVE")
        except sqlite3.DatabaseError as error:
            lock.close()
            if busy(error):
                return None
            if attempt:
                raise
            path.unlink(missing_ok=True)
        else:
            return lock
    return None


def _identity(path: Path) -> tuple[int, int] | None:
    """Which file the path names now (device, inode); None when there is none."""
    try:
        found = path.stat()
    except FileNotFoundError:
        return None
    return (found.st_dev, found.st_ino)


class IndexStorage:
    """The file, opened for writing (`conn`) and for searching while an update writes
    (`reader`)."""

    def __init__(self, path: Path, location: str) -> None:
        self.path = path
        self.location = location
        self.rebuilt = False
        path.parent.mkdir(parents=True, exist_ok=True)
        with self.turn(OPENING_WAIT_S) as mine:
            self.conn = self._writer(may_replace=mine)
        self._writing = _identity(path)
        self.reader = connect(self.path)
        self._reading = self._writing

    # ---- opening and closing ----------------------------------------------------------------

    @contextmanager
    def turn(self, wait_s: float) -> Iterator[bool]:
        """This Gander's turn to write the file, waiting up to `wait_s` for another's to end:
        yields whether it has it. The turn is an exclusive lock on a file of its own beside the
        index (`-lock`, never deleted), which the system lets go of when its holder dies."""
        self.path.parent.mkdir(parents=True, exist_ok=True)  # the data folder may be deleted
        lock = _take_turn(Path(f"{self.path}-lock"), wait_s)
        try:
            yield lock is not None
        finally:
            if lock is not None:
                lock.close()

    def _writer(self, *, may_replace: bool = True) -> sqlite3.Connection:
        conn = self._open_checked(may_replace=may_replace)
        conn.execute(f"PRAGMA cache_size = -{WRITER_CACHE_KIB}")
        return conn

    def _open_checked(self, *, may_replace: bool) -> sqlite3.Connection:
        """Open the file if it is ours, current and healthy; otherwise start a new one. Health
        is checked only when the file was not closed cleanly (or is open elsewhere), and only
        in this Gander's turn (`may_replace`): without it another is updating the file, which
        is then opened as it is, or, if it is not ours, left to that one (a sentence)."""
        if self.path.exists():
            conn: sqlite3.Connection | None = None
            try:
                conn = connect(self.path)
                meta = {row["key"]: row["value"] for row in conn.execute("SELECT * FROM meta")}
                ours = meta.get("format") == INDEX_FORMAT and meta.get("source") == self.location
                clean = meta.get("open_count", "0") == "0"
                if ours and (clean or not may_replace or healthy(conn)):
                    opened = 1 if not clean else int(meta.get("open_count", "0")) + 1
                    conn.execute(
                        "INSERT OR REPLACE INTO meta (key, value) VALUES ('open_count', ?)",
                        (str(opened),),
                    )
                    return conn
            except sqlite3.DatabaseError as error:
                if busy(error):
                    if conn is not None:
                        conn.close()
                    raise
            if conn is not None:
                conn.close()
            if not may_replace:
                raise IndexBusy(_BUSY)
            self.delete_files()
        elif not may_replace:
            raise IndexBusy(_BUSY)
        self.rebuilt = True
        conn = connect(self.path)
        conn.execute("BEGIN IMMEDIATE")
        self._create(conn, open_count="1")
        conn.execute("COMMIT")
        return conn

    def _create(self, conn: sqlite3.Connection, *, open_count: str) -> None:
        for statement in SCHEMA:
            conn.execute(statement)
        conn.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?)",
            [
                ("format", INDEX_FORMAT),
                ("source", self.location),
                ("open_count", open_count),
                ("next_doc", "1"),
            ],
        )

    def empty(self) -> None:
        """Every table dropped and made again, in one transaction (in this Gander's turn): the
        file stays, so another Gander that has it open reads and writes the emptied index, not
        a deleted file (the file is sound; `start_afresh` is for damage). Its free pages hold
        the rebuild."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            open_count = self.meta("open_count") or "1"
            for table in ("fts", "names", "docs", "sessions", "meta"):
                self.conn.execute(f"DROP TABLE {table}")
            self._create(self.conn, open_count=open_count)
            self.conn.execute("COMMIT")
        except BaseException:
            with suppress(sqlite3.Error):
                self.conn.execute("ROLLBACK")
            raise
        self.rebuilt = True

    def delete_files(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)

    def close(self) -> None:
        """Close, marking the file as closed cleanly (no check on the next opening)."""
        with suppress(sqlite3.Error):
            self.conn.execute(
                "UPDATE meta SET value = max(0, CAST(value AS INTEGER) - 1)"
                " WHERE key = 'open_count'"
            )
        self.conn.close()
        self.reader.close()

    def start_afresh(self) -> None:
        """Drop the file and start an empty one (the next update builds it)."""
        for conn in (self.conn, self.reader):
            with suppress(sqlite3.Error):
                conn.close()
        self.delete_files()
        self.conn = self._writer()
        self._writing = _identity(self.path)
        self.reader = connect(self.path)
        self._reading = self._writing

    def follow_writer(self) -> None:
        """Before a write (in this Gander's turn): if another Gander replaced the file, the
        writing connection opens the new one, and if the file was deleted it is made again;
        the batches would go to the deleted file."""
        if _identity(self.path) == self._writing:
            return
        with suppress(sqlite3.Error):
            self.conn.close()
        self.conn = self._writer()
        self._writing = _identity(self.path)

    def follow_reader(self) -> bool:
        """Before a search: whether the reading connection was opened again on a file another
        Gander put in place of the one it read. A file deleted and not yet made again (the
        next update makes it) is read on as it was."""
        now = _identity(self.path)
        if now is None or now == self._reading:
            return False
        with suppress(sqlite3.Error):
            self.reader.close()
        self.reader = connect(self.path)
        self._reading = now
        return True

    # ---- meta -------------------------------------------------------------------------------

    def meta(self, key: str) -> str:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(row["value"]) if row else ""

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    # ---- sessions ---------------------------------------------------------------------------

    def indexed(self, session_ids: Iterable[str] | None = None) -> dict[str, IndexedSession]:
        sql = "SELECT id, revision, indexed_count, last_position FROM sessions"
        params: list[str] = []
        if session_ids is not None:
            ids = list(session_ids)
            sql += f" WHERE id IN ({', '.join('?' for _ in ids)})" if ids else " WHERE 0"
            params = ids
        return {
            row["id"]: IndexedSession(row["revision"], row["indexed_count"], row["last_position"])
            for row in self.conn.execute(sql, params)
        }

    def put_sessions(self, sessions: Sequence[Session]) -> None:
        """Insert or refresh sessions' listing facts (their revision is set once their
        messages are indexed, so an update stopped half-way does the rest again)."""
        self.conn.executemany(
            "INSERT INTO sessions (id, name, session_type, working_dir, archived, parent,"
            " last_active) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET"
            " name = excluded.name, session_type = excluded.session_type,"
            " working_dir = excluded.working_dir, archived = excluded.archived,"
            " parent = excluded.parent, last_active = excluded.last_active",
            [
                (
                    s.id,
                    s.name,
                    s.session_type,
                    s.working_dir,
                    int(s.archived),
                    s.parent_session_id,
                    int(s.sort_at.timestamp()) if s.sort_at else None,
                )
                for s in sessions
            ],
        )
        ids = [s.id for s in sessions]
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            self.conn.execute(f"DELETE FROM names WHERE session_id IN ({marks})", chunk)
            self.conn.execute(
                "INSERT INTO names (rowid, session_id, name) SELECT rowid, id, name"
                f" FROM sessions WHERE id IN ({marks})",
                chunk,
            )

    def mark_indexed(self, session_id: str, revision: str, count: int, last: str | None) -> None:
        self.mark_all_indexed([(session_id, revision, count, last)])

    def mark_all_indexed(self, marks: Sequence[tuple[str, str, int, str | None]]) -> None:
        """Each (session, revision, documents, last position) as now indexed."""
        self.conn.executemany(
            "UPDATE sessions SET revision = ?, indexed_count = ?, last_position = ? WHERE id = ?",
            [(revision, count, last, sid) for sid, revision, count, last in marks],
        )

    def drop_session(self, session_id: str) -> None:
        self.forget_docs(session_id)
        self.conn.execute("DELETE FROM names WHERE session_id = ?", (session_id,))
        self.conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    # ---- documents --------------------------------------------------------------------------

    def forget_docs(self, *session_ids: str) -> None:
        """These sessions' documents go; their full-text rows stay as counted orphans."""
        if not session_ids:
            return
        removed = self.conn.executemany(
            "DELETE FROM docs WHERE session_id = ?", [(sid,) for sid in session_ids]
        )
        if removed.rowcount > 0:
            self.set_meta("orphans", str(int(self.meta("orphans") or 0) + removed.rowcount))

    def forget_positions(self, session_id: str, positions: Sequence[str]) -> int:
        """These documents of one session go (counted orphans, as above); how many went."""
        removed = self.conn.executemany(
            "DELETE FROM docs WHERE session_id = ? AND position = ?",
            [(session_id, position) for position in positions],
        )
        if removed.rowcount > 0:
            self.set_meta("orphans", str(int(self.meta("orphans") or 0) + removed.rowcount))
        return max(removed.rowcount, 0)

    def too_many_orphans(self) -> bool:
        orphans = int(self.meta("orphans") or 0)
        docs = int(self.conn.execute("SELECT COUNT(*) FROM docs").fetchone()[0])
        return orphans > max(10_000, docs // 4)

    def insert_rows(self, rows: Sequence[DocumentRow]) -> None:
        """Documents numbered on from `next_doc` (never reused: the contentless full-text
        table still has rows under numbers of forgotten documents)."""
        if not rows:
            return
        first = int(self.meta("next_doc") or 1)
        split = len(DOC_FIELDS)
        numbered = list(zip(range(first, first + len(rows)), rows, strict=True))
        self.conn.executemany(_INSERT_DOC, [(number, *row[:split]) for number, row in numbered])
        self.conn.executemany(_INSERT_FTS, [(number, *row[split:]) for number, row in numbered])
        self.set_meta("next_doc", str(first + len(rows)))
