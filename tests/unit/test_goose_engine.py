"""goose's reader on SQLAlchemy 2 Core (#21 item 1): its read-only engine, errors told apart by
SQLite's error code, named parameters, and SQLAlchemy imported before the window is built."""

import json
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import ClauseElement
from sqlalchemy.dialects import sqlite
from sqlalchemy.exc import OperationalError

from desktop_app.domain.errors import NotAHistory, SourceBusy, SourceNotFound, SourceUnreadable
from desktop_app.domain.message import MessageCursor, StoredText
from desktop_app.domain.source import ArchivedFilter, SessionCursor, SessionQuery
from desktop_app.sources.goose import GooseSource, listing, message_queries
from desktop_app.sources.goose.errors import describe_database_error
from tests.fixtures.goose_db import GooseDb
from tests.fixtures.processes import run_python

DbFactory = Callable[..., GooseDb]
SourceFactory = Callable[[GooseDb], GooseSource]


def _driver_error(code: int, message: str) -> OperationalError:
    """What SQLAlchemy raises for a driver error with SQLite's `code`."""
    error = sqlite3.OperationalError(message)
    error.sqlite_errorcode = code
    return OperationalError("SELECT 1", None, error)


@pytest.mark.parametrize(
    ("code", "kind", "start"),
    [
        (sqlite3.SQLITE_BUSY, SourceBusy, "is locked by another program"),
        (517, SourceBusy, "is locked by another program"),  # SQLITE_BUSY_SNAPSHOT
        (sqlite3.SQLITE_LOCKED, SourceBusy, "is locked by another program"),
        (sqlite3.SQLITE_CORRUPT, SourceUnreadable, "is damaged"),
        (sqlite3.SQLITE_NOTADB, SourceUnreadable, "is damaged"),
        (sqlite3.SQLITE_CANTOPEN, SourceUnreadable, "cannot be opened"),
        (sqlite3.SQLITE_IOERR, SourceUnreadable, "cannot be opened"),
        (sqlite3.SQLITE_READONLY, SourceUnreadable, "could not be read: SQLite needed to write"),
        (sqlite3.SQLITE_FULL, SourceUnreadable, "could not be read: the disk is full"),
        (sqlite3.SQLITE_ERROR, NotAHistory, "changed into something that is not goose's"),
        (sqlite3.SQLITE_PERM, SourceUnreadable, "could not be read ("),
    ],
)
def test_errors_are_told_apart_by_sqlites_code_not_its_words(
    tmp_path: Path, code: int, kind: type, start: str
) -> None:
    """Each error says what its code says, whatever its message's words: a message that reads
    'database is locked' under another code is not taken for a lock (text matching did)."""
    path = tmp_path / "sessions.db"
    path.touch()
    for words in ("database is locked", "something else entirely"):
        said = describe_database_error(path, _driver_error(code, words))
        assert type(said) is kind, (code, words)
        assert str(said).startswith(f"{path} {start}"), str(said)
        assert "\n" not in str(said)


def test_a_file_gone_under_an_io_error_is_said_to_have_disappeared(tmp_path: Path) -> None:
    path = tmp_path / "gone.db"
    said = describe_database_error(path, _driver_error(sqlite3.SQLITE_IOERR, "disk I/O error"))
    assert isinstance(said, SourceNotFound)
    assert str(said) == f"{path} disappeared while Gander was reading it."


def test_the_read_engine_cannot_write(make_db: DbFactory, open_source: SourceFactory) -> None:
    """`mode=ro` and `PRAGMA query_only`, set by the engine's `connect` event: a statement that
    would write is refused by SQLite, and the file keeps its row."""
    db = make_db()
    db.add_session("s1", name="A chat")
    source = open_source(db)
    with source._connections.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA query_only").scalar() == 1
        with pytest.raises(OperationalError):
            conn.exec_driver_sql("DELETE FROM sessions")
    assert [s.id for s in source.list_sessions(SessionQuery()).sessions] == ["s1"]


def test_a_snapshot_ends_with_its_call(make_db: DbFactory, open_source: SourceFactory) -> None:
    """A pooled connection goes back with no read transaction open (goose's checkpoints are
    never held back between calls), and an autocommit one never had one."""
    db = make_db()
    db.add_session("s1", name="A chat")
    source = open_source(db)
    with source._connections.snapshot() as conn:
        raw = conn.connection.dbapi_connection
        assert raw is not None
        assert raw.in_transaction
    assert not raw.in_transaction
    with source._connections.connect() as conn:
        conn.exec_driver_sql("SELECT count(*) FROM sessions")
        raw = conn.connection.dbapi_connection
        assert raw is not None
        assert not raw.in_transaction


def test_bytes_that_are_not_utf8_do_not_fail_a_listing(
    make_db: DbFactory, open_source: SourceFactory
) -> None:
    """The engine's connections decode text leniently (their text factory): one session name
    of bytes that are not UTF-8 is read with a replacement character, and the list still
    comes."""
    db = make_db()
    db.add_session("s1", name="fine")
    db.add_session("s2", name="placeholder")
    db.conn.execute("UPDATE sessions SET name = CAST(x'4869ff' AS TEXT) WHERE id = 's2'")
    source = open_source(db)
    names = {s.id: s.name for s in source.list_sessions(SessionQuery()).sessions}
    assert names == {"s1": "fine", "s2": "Hi\ufffd"}


def _bound(statement: ClauseElement) -> dict[str, object]:
    compiled = statement.compile(dialect=sqlite.dialect())
    return dict(compiled.params)


def test_the_listing_binds_every_value_and_formats_none(make_db: DbFactory) -> None:
    """Every value of a page's statement is a bound parameter; none is written into the SQL,
    whatever it holds, and the page's probes run with them (nothing found, nothing broken)."""
    db = make_db()
    db.add_session("s1", name="A chat")
    source = GooseSource(db.path)
    try:
        hostile = "x') OR 1=1 --"
        query = SessionQuery(
            text=hostile,
            working_dir=f"/{hostile}",
            session_types=(hostile,),
            parent_session_id=hostile,
            archived=ArchivedFilter.EXCLUDE,
            active_after=datetime(2026, 1, 1, tzinfo=UTC),
            active_before=datetime(2026, 2, 1, tzinfo=UTC),
        )
        statement = listing.list_page(source.schema, query, SessionCursor(5, hostile), 20)
        values = list(_bound(statement).values())
        for value in (
            [hostile],
            f"/{hostile}",
            f"/{hostile}/",
            hostile.lower(),
            hostile,
            1767225600,
            1769904000,
            5,
            21,
        ):
            assert value in values, value
        assert _bound(statement)["after_sort"] == 5
        assert "x')" not in str(statement.compile(dialect=sqlite.dialect()))
        assert source.list_sessions(query).sessions == ()
        assert source.count_sessions(query) == 0
        found = message_queries.message_range(
            source.schema,
            hostile,
            MessageCursor(StoredText(hostile.encode()), 1),
            MessageCursor(7, 9),
        )
        assert "x')" not in str(found)
        assert set(_bound(found)) == {
            "session_id",
            "first_created",
            "first_id",
            "last_created",
            "last_id",
        }
    finally:
        source.close()


def test_sqlalchemy_is_imported_before_the_window_is_built() -> None:
    """Importing SQLAlchemy first in a worker while the GUI thread runs stalls the window: the
    window's module brings it in (through the goose reader), its SQLite dialect too, before any
    thread other than the main one exists."""
    code = (
        "import json, sys, threading\n"
        "import desktop_app.app\n"
        "print(json.dumps([threading.active_count(),"
        " 'sqlalchemy' in sys.modules,"
        " 'sqlalchemy.dialects.sqlite.pysqlite' in sys.modules]))\n"
    )
    done = run_python(code)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [1, True, True]
