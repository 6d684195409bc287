"""What this particular file has: tables and columns probed, not assumed.

Every goose generation from v1 to v17, and a future one with extra columns, opens: a column that is
missing is simply data the file does not have. Queries name only columns the probe found, so a
query can never name a column the file lacks.
"""

import sqlite3
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from desktop_app.domain.errors import NotAHistory

if TYPE_CHECKING:
    from sqlalchemy import Table

_REQUIRED_SESSION_COLUMNS = {"id", "working_dir"}
_REQUIRED_MESSAGE_COLUMNS = {"session_id", "role", "content_json", "created_timestamp"}
_INTEGER_COLUMNS = {
    "id",
    "created_timestamp",
    "tokens",
    "user_set_name",
    "is_compaction",
    "total_tokens",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
}
_REAL_COLUMNS = {"accumulated_cost", "cost"}


@dataclass(frozen=True)
class GooseSchema:
    """The columns each table has. The SQLAlchemy tables are built on first use, so the
    commands that run only SQL text (`listing.py`) never import SQLAlchemy."""

    version: int | None
    session_columns: tuple[str, ...]
    message_columns: tuple[str, ...]
    ledger_columns: tuple[str, ...] | None

    def session_has(self, *names: str) -> bool:
        return all(name in self.session_columns for name in names)

    def message_has(self, *names: str) -> bool:
        return all(name in self.message_columns for name in names)

    @cached_property
    def sessions(self) -> "Table":
        return _table("sessions", self.session_columns)

    @cached_property
    def messages(self) -> "Table":
        return _table("messages", self.message_columns)

    @cached_property
    def usage_ledger(self) -> "Table | None":
        return None if self.ledger_columns is None else _table("usage_ledger", self.ledger_columns)


def _table(name: str, columns: tuple[str, ...]) -> "Table":
    from sqlalchemy import Column, Float, Integer, MetaData, Table, Text

    def column_type(column: str) -> type[Integer] | type[Float[float]] | type[Text]:
        if column in _INTEGER_COLUMNS or (
            column.startswith("accumulated_") and column.endswith("_tokens")
        ):
            return Integer
        if column in _REAL_COLUMNS:
            return Float
        return Text

    return Table(name, MetaData(), *(Column(c, column_type(c)) for c in columns))


def _columns(conn: sqlite3.Connection, name: str) -> tuple[str, ...] | None:
    columns = tuple(str(row[1]) for row in conn.execute(f"PRAGMA table_info({name})"))
    return columns or None


def probe_schema(conn: sqlite3.Connection, path: Path) -> GooseSchema:
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
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
    ).fetchone()
    if has_version_table:
        value = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
        version = value if isinstance(value, int) else None
    return GooseSchema(
        version=version,
        session_columns=sessions,
        message_columns=messages,
        ledger_columns=_columns(conn, "usage_ledger"),
    )
