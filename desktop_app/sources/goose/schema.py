"""What this particular file has: tables and columns probed, not assumed.

Every goose generation from v1 to v17, and a future one with extra columns, opens: a column that is
missing is simply data the file does not have. Queries name only columns the probe found, so a
query can never name a column the file lacks.
"""

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Connection
from sqlalchemy.exc import OperationalError

from desktop_app.domain.errors import NotAHistory
from desktop_app.sources.goose.statements import sql

_REQUIRED_SESSION_COLUMNS = {"id", "working_dir"}
_REQUIRED_MESSAGE_COLUMNS = {"session_id", "role", "content_json", "created_timestamp"}


@dataclass(frozen=True)
class GooseSchema:
    """The columns each table has; statements name only these."""

    version: int | None
    session_columns: tuple[str, ...]
    message_columns: tuple[str, ...]
    ledger_columns: tuple[str, ...] | None
    utf8: bool = True
    """Whether the file keeps its text as UTF-8 (`PRAGMA encoding`): then a text's bytes
    (`CAST(… AS BLOB)`, a blob read) are its UTF-8. A file in UTF-16 has its texts read as
    text."""
    message_rowid: str | None = None
    """How the messages table's row ids are named (`rowid`, or `_rowid_` or `oid` when a column
    takes that name); None when it has none a query can name (a `WITHOUT ROWID` table, or all
    three names taken). A large content is read through its row id (`contents.py`)."""

    def session_has(self, *names: str) -> bool:
        return all(name in self.session_columns for name in names)

    def message_has(self, *names: str) -> bool:
        return all(name in self.message_columns for name in names)


def _columns(conn: Connection, name: str) -> tuple[str, ...] | None:
    """The columns of one of goose's tables (`name` is Gander's constant; a pragma takes no
    bound parameter)."""
    columns = tuple(str(row[1]) for row in conn.exec_driver_sql(f"PRAGMA table_info({name})"))
    return columns or None


def probe_schema(conn: Connection, path: Path) -> GooseSchema:
    """Read the file's layout; refuse a database that is not goose's session store."""
    sessions = _columns(conn, "sessions")
    messages = _columns(conn, "messages")
    if sessions is None or messages is None:
        raise NotAHistory(
            f"{path} is an SQLite database but not goose's session store "
            "(it has no sessions and messages tables)."
        )
    missing = (_REQUIRED_SESSION_COLUMNS - set(sessions)) | (
        _REQUIRED_MESSAGE_COLUMNS - set(messages)
    )
    if missing:
        raise NotAHistory(
            f"{path} has sessions and messages tables, but not goose's "
            f"(missing {', '.join(sorted(missing))})."
        )
    version = None
    has_version_table = conn.execute(
        sql("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'")
    ).first()
    if has_version_table:
        value = conn.execute(sql("SELECT MAX(version) FROM schema_version")).scalar()
        version = value if isinstance(value, int) else None
    return GooseSchema(
        version=version,
        session_columns=sessions,
        message_columns=messages,
        ledger_columns=_columns(conn, "usage_ledger"),
        utf8=conn.exec_driver_sql("PRAGMA encoding").scalar() == "UTF-8",
        message_rowid=_rowid_name(conn, messages),
    )


def _rowid_name(conn: Connection, columns: tuple[str, ...]) -> str | None:
    """SQLite's first name for the row id that no column of the table takes, when the table
    has row ids."""
    taken = {column.lower() for column in columns}
    name = next((n for n in ("rowid", "_rowid_", "oid") if n not in taken), None)
    if name is None:
        return None
    try:
        conn.exec_driver_sql(f"SELECT {name} FROM messages LIMIT 0").close()
    except OperationalError:  # a WITHOUT ROWID table
        return None
    return name
