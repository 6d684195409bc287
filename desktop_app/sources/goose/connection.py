"""Opening goose's file safely: the checks made before SQLite opens it, the URIs it is opened
with, and whether it may be written. The engine that reads it is `engine.py`'s; this module
imports no SQLAlchemy, so naming goose's constants (the registry, the opener) stays cheap.
"""

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from desktop_app.domain.errors import NotAHistory, SourceNotFound, SourceUnreadable

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
