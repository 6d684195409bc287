"""goose's file through SQLAlchemy 2 Core: one read-only `Engine` per history, and a short-lived
read-write engine for each write attempt.

The read engine's connections are `mode=ro` SQLite URIs (`connection.readonly_uri`) in the
driver's autocommit mode (no implicit `BEGIN`), with `PRAGMA query_only` set by a `connect`
event, so nothing read through it can write even by mistake. `connect()` lends a connection on
which each statement sees the latest commit; `snapshot()` one inside an explicit read
transaction, so a multi-statement read sees one state of the file. Either is rolled back when
it goes back to the pool (SQLAlchemy's reset on return), so no read transaction outlives a call
and goose's WAL checkpoints are never held back by user think-time.

The dialect is imported here, with SQLAlchemy, when the goose reader is: the window imports it
before it is built (through `desktop_app.opening`), never first in a worker while the GUI thread
runs — that import holds the interpreter lock long enough to stall the window.
"""

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import sqlalchemy.dialects.sqlite.pysqlite  # noqa: F401  # see the module's docstring
from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.pool import ConnectionPoolEntry, NullPool, QueuePool

KEPT_CONNECTIONS = 2
"""Idle connections the read pool keeps open: the GUI thread and one worker rarely need more;
more are opened when needed and closed when given back."""


def driver_connection(uri: str, busy_timeout_s: float) -> sqlite3.Connection:
    """The driver's connection to an SQLite URI: autocommit (`isolation_level=None`, so the
    driver never begins a transaction of its own), usable from the pool's any thread, waiting
    up to `busy_timeout_s` for a lock (SQLite's busy timeout)."""
    return sqlite3.connect(
        uri, uri=True, timeout=busy_timeout_s, isolation_level=None, check_same_thread=False
    )


def _decode_leniently(data: bytes) -> str:
    """A row with bytes that are not UTF-8 must not make a whole listing fail."""
    return data.decode("utf-8", "replace")


def _set_up(*, read_only: bool) -> Callable[[sqlite3.Connection, ConnectionPoolEntry], None]:
    """The `connect` event: the text factory and the pragmas of a new driver connection."""

    def on_connect(dbapi_connection: sqlite3.Connection, _record: ConnectionPoolEntry) -> None:
        dbapi_connection.text_factory = _decode_leniently
        dbapi_connection.execute("PRAGMA foreign_keys=ON")
        if read_only:
            dbapi_connection.execute("PRAGMA query_only=ON")

    return on_connect


def _engine(uri: str, busy_timeout_s: float, *, read_only: bool, **pooling: Any) -> Engine:
    engine = create_engine(
        "sqlite+pysqlite://",
        creator=lambda: driver_connection(uri, busy_timeout_s),
        **pooling,
    )
    event.listen(engine, "connect", _set_up(read_only=read_only))
    return engine


class ReadEngine:
    """The read-only engine of one history and the connections it lends; safe to share between
    threads (each block takes a connection of its own). A connection that saw an error is
    closed, never given back to the pool."""

    def __init__(self, uri: str, busy_timeout_s: float) -> None:
        self.engine = _engine(
            uri,
            busy_timeout_s,
            read_only=True,
            poolclass=QueuePool,
            pool_size=KEPT_CONNECTIONS,
            max_overflow=-1,
        )

    @contextmanager
    def connect(self) -> Iterator[Connection]:
        """A connection in autocommit mode: each statement sees the latest commit."""
        with self._lent() as conn:
            yield conn

    @contextmanager
    def snapshot(self) -> Iterator[Connection]:
        """A connection inside one read transaction: its statements see one snapshot."""
        with self._lent() as conn:
            conn.exec_driver_sql("BEGIN")
            yield conn

    def watcher(self) -> Connection:
        """A connection the caller keeps and closes (the change feed's `PRAGMA data_version`
        must be asked on the same connection each time)."""
        return self.engine.connect()

    @contextmanager
    def _lent(self) -> Iterator[Connection]:
        with self.engine.connect() as conn:
            try:
                yield conn
            except BaseException:
                conn.invalidate()
                raise

    def dispose(self) -> None:
        self.engine.dispose()


@contextmanager
def write_connection(uri: str, busy_timeout_s: float) -> Iterator[Connection]:
    """A read-write connection of its own for one write attempt, closed after it (no pool)."""
    engine = _engine(uri, busy_timeout_s, read_only=False, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            yield conn
    finally:
        engine.dispose()
