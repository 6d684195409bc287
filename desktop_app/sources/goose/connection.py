"""Opening goose's file safely: checks first, read-only connections, clear errors.

Reads go through `mode=ro` sqlite3 connections in autocommit mode; a multi-statement read opens an
explicit short transaction (`Connections.begin()`), so no read transaction outlives a call and
goose's WAL checkpoints are never held back by user think-time. The pool is our own, a dozen
lines: SQLAlchemy's costs 150 ms to import, a third of a whole `gander list`.
"""

import errno
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from desktop_app.domain.errors import (
    GanderError,
    NotAHistory,
    SourceBusy,
    SourceError,
    SourceNotFound,
    SourceUnreadable,
)

SQLITE_HEADER = b"SQLite format 3\x00"
DEFAULT_BUSY_TIMEOUT_S = 30.0


_open_files: dict[tuple[int, int], int] = {}
_open_lock = threading.Lock()


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_dev, info.st_ino


def in_use(path: Path) -> bool:
    """Whether a reader in this process has the database open. Such a file must not be opened
    and closed outside SQLite: closing any descriptor of a file drops every POSIX lock this
    process holds on it, SQLite's included, and goose, seeing no other reader, would then
    checkpoint and remove the WAL under Gander's open connections (they would see stale data)."""
    identity = _identity(path)
    with _open_lock:
        return identity is not None and _open_files.get(identity, 0) > 0


@contextmanager
def held_open(path: Path) -> Iterator[None]:
    """Count `path` as open by a reader in this process for as long as the block runs."""
    identity = _identity(path)
    if identity is not None:
        with _open_lock:
            _open_files[identity] = _open_files.get(identity, 0) + 1
    try:
        yield
    finally:
        if identity is not None:
            with _open_lock:
                _open_files[identity] -= 1
                if not _open_files[identity]:
                    del _open_files[identity]


def check_file(path: Path) -> None:
    """Refuse, with one sentence, anything that is not an existing SQLite file. A file a
    reader here already has open is known to be one, and is not opened again (see `in_use`)."""
    if not path.exists():
        raise SourceNotFound(f"There is no file at {path}.")
    if path.is_dir():
        raise NotAHistory(f"{path} is a directory, not a goose sessions.db file.")
    if in_use(path):
        return
    try:
        with path.open("rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except PermissionError as error:
        raise SourceUnreadable(f"{path} cannot be read: permission denied.") from error
    except OSError as error:
        raise SourceUnreadable(f"{path} cannot be read: {error.strerror or error}.") from error
    if not header:
        raise NotAHistory(f"{path} is an empty file, not a goose database.")
    if header != SQLITE_HEADER:
        raise NotAHistory(f"{path} is not an SQLite database, so it cannot be goose's sessions.db.")


def on_read_only_mount(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):  # AttributeError: no statvfs on Windows
        return False


def readonly_uri(path: Path) -> str:
    """A read-only URI. On a read-only mount nothing can change the file, and SQLite cannot
    create the `-shm` it needs for WAL mode there, so the file is opened as immutable — unless
    a non-empty `-wal` holds changes that immutable mode would silently skip."""
    if not on_read_only_mount(path):
        return f"{path.resolve().as_uri()}?mode=ro"
    wal = Path(f"{path}-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise SourceUnreadable(
            f"{path} is on a read-only file system and its latest changes are still in "
            f"{wal.name}, which SQLite can only read where it may write; copy both files to a "
            "writable folder to open them."
        )
    return f"{path.resolve().as_uri()}?mode=ro&immutable=1"


def readwrite_uri(path: Path) -> str:
    return f"{path.resolve().as_uri()}?mode=rw"


def open_connection(uri: str, busy_timeout_s: float) -> sqlite3.Connection:
    connection = sqlite3.connect(
        uri, uri=True, timeout=busy_timeout_s, isolation_level=None, check_same_thread=False
    )
    # A row with bytes that are not UTF-8 must not make a whole listing fail.
    connection.text_factory = lambda data: data.decode("utf-8", "replace")
    connection.execute("PRAGMA foreign_keys=ON")
    return connection


KEPT_CONNECTIONS = 2
"""Idle connections a source keeps open: the GUI thread and one worker rarely need more."""


class Connections:
    """A small pool of read-only connections, safe to share between threads: each block takes
    a connection of its own. A connection that saw an error is closed, never reused."""

    def __init__(self, uri: str, busy_timeout_s: float) -> None:
        self._uri = uri
        self._busy_timeout_s = busy_timeout_s
        self._idle: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._closed = False

    def new(self) -> sqlite3.Connection:
        """A connection the caller owns and closes (the change feed's watcher)."""
        return open_connection(self._uri, self._busy_timeout_s)

    @contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        """A connection in autocommit mode: each statement sees the latest commit."""
        with self._lent(begin=False) as conn:
            yield conn

    @contextmanager
    def begin(self) -> Iterator[sqlite3.Connection]:
        """A connection inside one read transaction: its statements see one snapshot."""
        with self._lent(begin=True) as conn:
            yield conn

    @contextmanager
    def _lent(self, *, begin: bool) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self._idle.pop() if self._idle else None
        if conn is None:
            conn = self.new()
        healthy = False
        try:
            if begin:
                conn.execute("BEGIN")
            yield conn
            if conn.in_transaction:
                conn.execute("ROLLBACK")  # nothing was written: the snapshot is let go
            healthy = True
        finally:
            with self._lock:
                keep = healthy and not self._closed and len(self._idle) < KEPT_CONNECTIONS
                if keep:
                    self._idle.append(conn)
            if not keep:
                conn.close()

    def dispose(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()


def describe_database_error(path: Path, error: BaseException) -> SourceError:
    """Turn an sqlite3 error into the sentence the user sees."""
    message = str(getattr(error, "orig", None) or error)
    lowered = message.lower()
    if "locked" in lowered or "busy" in lowered:
        return SourceBusy(f"{path} is locked by another program; try again in a moment.")
    if "not a database" in lowered or "malformed" in lowered or "corrupt" in lowered:
        return SourceUnreadable(f"{path} is damaged ({message}).")
    if "unable to open" in lowered or "disk i/o" in lowered:
        if not path.exists():
            return SourceNotFound(f"{path} disappeared while Gander was reading it.")
        return SourceUnreadable(f"{path} cannot be opened ({message}).")
    if "no such table" in lowered or "no such column" in lowered:
        return NotAHistory(
            f"{path} changed into something that is not goose's database ({message})."
        )
    return SourceUnreadable(f"{path} could not be read ({message}).")


@contextmanager
def translated_errors(path: Path) -> Iterator[None]:
    """Let only `GanderError` escape from database work."""
    try:
        yield
    except GanderError:
        raise
    except sqlite3.Error as error:
        raise describe_database_error(path, error) from error
    except OSError as error:
        if error.errno == errno.ENOENT:
            raise SourceNotFound(f"{path} disappeared while Gander was reading it.") from error
        raise SourceUnreadable(f"{path} cannot be read: {error.strerror or error}.") from error


def _write_protected(path: Path) -> bool:
    """No write permission for us, or no write bit for anyone (honoured even when run as root)."""
    return not os.access(path, os.W_OK) or path.stat().st_mode & 0o222 == 0


def writable(path: Path) -> str | None:
    """Why goose's file cannot be written, or `None` when it can."""
    if _write_protected(path):
        return f"{path.name} is read-only, so sessions cannot be renamed or archived."
    if _write_protected(path.parent) or not os.access(path.parent, os.X_OK):
        return f"The folder {path.parent} is read-only, so sessions cannot be renamed or archived."
    return None
