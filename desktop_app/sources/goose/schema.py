"""What this particular file has: tables and columns probed, not assumed.

Every goose generation from v1 to v17, and a future one with extra columns, opens: a column that is
missing is simply data the file does not have. SQLAlchemy `Table` objects are built from the probe,
so a query can never name a column the file lacks.
"""

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Column, Connection, Float, Integer, MetaData, Table, Text, text

from desktop_app.domain.errors import NotAHistory

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
    version: int | None
    sessions: Table
    messages: Table
    usage_ledger: Table | None

    def session_has(self, *names: str) -> bool:
        return all(name in self.sessions.c for name in names)

    def message_has(self, *names: str) -> bool:
        return all(name in self.messages.c for name in names)


def _column_type(name: str) -> type[Integer] | type[Float[float]] | type[Text]:
    if name in _INTEGER_COLUMNS or (name.startswith("accumulated_") and name.endswith("_tokens")):
        return Integer
    if name in _REAL_COLUMNS:
        return Float
    return Text


def _table(conn: Connection, metadata: MetaData, name: str) -> Table | None:
    columns = [row[1] for row in conn.exec_driver_sql(f"PRAGMA table_info({name})")]
    if not columns:
        return None
    return Table(name, metadata, *(Column(c, _column_type(c)) for c in columns))


def probe_schema(conn: Connection, path: Path) -> GooseSchema:
    """Read the file's layout; refuse a database that is not goose's session store."""
    metadata = MetaData()
    sessions = _table(conn, metadata, "sessions")
    messages = _table(conn, metadata, "messages")
    if sessions is None or messages is None:
        raise NotAHistory(
            f"{path} is an SQLite database but not goose's session store "
            "(it has no sessions and messages tables)."
        )
    missing = (_REQUIRED_SESSION_COLUMNS - set(sessions.c.keys())) | (
        _REQUIRED_MESSAGE_COLUMNS - set(messages.c.keys())
    )
    if missing:
        raise NotAHistory(
            f"{path} has sessions and messages tables, but not goose's "
            f"(missing {', '.join(sorted(missing))})."
        )
    version = None
    has_version_table = conn.execute(
        text("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'")
    ).first()
    if has_version_table:
        value = conn.execute(text("SELECT MAX(version) FROM schema_version")).scalar()
        version = value if isinstance(value, int) else None
    return GooseSchema(
        version=version,
        sessions=sessions,
        messages=messages,
        usage_ledger=_table(conn, metadata, "usage_ledger"),
    )
