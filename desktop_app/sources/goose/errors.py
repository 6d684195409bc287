"""SQLite's errors as the sentence the user sees, told apart by SQLite's own error code
(`sqlite_errorcode` on the driver's exception), not by the words of its message."""

import errno
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from desktop_app.domain.errors import (
    GanderError,
    NotAHistory,
    SourceBusy,
    SourceError,
    SourceNotFound,
    SourceUnreadable,
)


def driver_error(error: BaseException) -> BaseException:
    """The driver's exception under SQLAlchemy's wrapper (the wrapper itself when it has none)."""
    if isinstance(error, DBAPIError) and error.orig is not None:
        return error.orig
    return error


def primary_code(error: BaseException) -> int | None:
    """SQLite's primary result code (`SQLITE_BUSY`, …) of a driver exception: the low byte of
    its extended code (`SQLITE_BUSY_SNAPSHOT` is `SQLITE_BUSY`); `None` when it carries none."""
    code = getattr(driver_error(error), "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def describe_database_error(path: Path, error: BaseException) -> SourceError:
    """Turn a database error into the sentence the user sees."""
    message = str(driver_error(error))
    match primary_code(error):
        case sqlite3.SQLITE_BUSY | sqlite3.SQLITE_LOCKED:
            return SourceBusy(f"{path} is locked by another program; try again in a moment.")
        case sqlite3.SQLITE_CORRUPT | sqlite3.SQLITE_NOTADB:
            return SourceUnreadable(f"{path} is damaged ({message}).")
        case sqlite3.SQLITE_CANTOPEN | sqlite3.SQLITE_IOERR:
            if not path.exists():
                return SourceNotFound(f"{path} disappeared while Gander was reading it.")
            return SourceUnreadable(f"{path} cannot be opened ({message}).")
        case sqlite3.SQLITE_READONLY:
            return SourceUnreadable(
                f"{path} could not be read: SQLite needed to write beside it (its -shm or -wal "
                f"file) and may not ({message})."
            )
        case sqlite3.SQLITE_FULL:
            return SourceUnreadable(f"{path} could not be read: the disk is full ({message}).")
        case sqlite3.SQLITE_ERROR:
            # Statements name only tables and columns the schema probe found, so SQL that no
            # longer applies means the file was changed under the reader.
            return NotAHistory(
                f"{path} changed into something that is not goose's database ({message})."
            )
        case _:
            return SourceUnreadable(f"{path} could not be read ({message}).")


@contextmanager
def translated_errors(path: Path) -> Iterator[None]:
    """Let only `GanderError` escape from database work."""
    try:
        yield
    except GanderError:
        raise
    except (SQLAlchemyError, sqlite3.Error) as error:
        raise describe_database_error(path, error) from error
    except OSError as error:
        if error.errno == errno.ENOENT:
            raise SourceNotFound(f"{path} disappeared while Gander was reading it.") from error
        raise SourceUnreadable(f"{path} cannot be read: {error.strerror or error}.") from error
