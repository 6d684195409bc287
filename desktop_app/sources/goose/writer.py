"""Writing new goose `sessions.db` files of any schema generation: the demo history and every
test's database are made here, and nowhere else.

Uses goose's own DDL (`desktop_app.sources.goose.ddl`) and inserts only the columns the chosen
generation has, the way goose's insert code would at that version. Never pointed at a user's
history: Gander writes to goose's file only through the goose reader's three writes.
"""

import json
import sqlite3
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from desktop_app.domain.errors import SourceUnreadable
from desktop_app.sources.goose.connection import held_open
from desktop_app.sources.goose.ddl import CURRENT_VERSION, fresh_schema, migrated_schema

GENERATIONS = (1, 4, 7, 12, 17)


class GooseWriter:
    def __init__(self, path: Path, *, version: int = CURRENT_VERSION, fresh: bool = True) -> None:
        self.path = path
        self.conn = sqlite3.connect(path, isolation_level=None)
        self._held = (
            ExitStack()
        )  # a connection in this process: its file is not opened outside SQLite
        self._held.enter_context(held_open(path))
        if fresh and version == CURRENT_VERSION:
            fresh_schema(self.conn)
        else:
            migrated_schema(self.conn, version)
        self.version = version
        self.session_columns = self._columns("sessions")
        self.message_columns = self._columns("messages")

    def _columns(self, table: str) -> set[str]:
        return {row[1] for row in self.conn.execute(f"PRAGMA table_info({table})")}

    def _insert(self, table: str, values: dict[str, Any]) -> int:
        columns = self._columns(table)
        kept = {k: v for k, v in values.items() if k in columns}
        names = ", ".join(kept)
        marks = ", ".join("?" for _ in kept)
        self.conn.execute("BEGIN IMMEDIATE")
        cursor = self.conn.execute(
            f"INSERT INTO {table} ({names}) VALUES ({marks})", list(kept.values())
        )
        self.conn.execute("COMMIT")
        return int(cursor.lastrowid or 0)

    def add_session(self, session_id: str, **fields: Any) -> str:
        values: dict[str, Any] = {"id": session_id, "working_dir": "/home/me/project"}
        for key in ("created_at", "updated_at"):
            values[key] = fields.pop(key, "2026-01-02 03:04:05")
        for key in ("extension_data", "model_config_json", "recipe_json", "parent_delegation"):
            if isinstance(fields.get(key), dict):
                fields[key] = json.dumps(fields[key])
        values.update(fields)
        self._insert("sessions", values)
        return session_id

    def add_message(
        self,
        session_id: str,
        role: str = "user",
        content: Any = "hello",
        *,
        created: int = 1767323045,
        metadata: Any = None,
        message_id: str | None = None,
    ) -> int:
        if isinstance(content, str) and not content.startswith("["):
            content = [{"type": "text", "text": content}]
        content_json = content if isinstance(content, str) else json.dumps(content)
        if metadata is None:
            metadata = {"userVisible": True, "agentVisible": True}
        metadata_json = metadata if isinstance(metadata, str) else json.dumps(metadata)
        values: dict[str, Any] = {
            "session_id": session_id,
            "role": role,
            "content_json": content_json,
            "created_timestamp": created,
            "metadata_json": metadata_json,
        }
        if message_id is not None:
            values["message_id"] = message_id
        return self._insert("messages", values)

    def insert_many(self, table: str, rows: list[dict[str, Any]]) -> None:
        """Many rows in one transaction, each with the columns this generation has."""
        columns = self._columns(table)
        self.conn.execute("BEGIN IMMEDIATE")
        for values in rows:
            kept = {k: v for k, v in values.items() if k in columns}
            names = ", ".join(kept)
            marks = ", ".join("?" for _ in kept)
            self.conn.execute(
                f"INSERT INTO {table} ({names}) VALUES ({marks})", list(kept.values())
            )
        self.conn.execute("COMMIT")

    def add_ledger(self, session_id: str, **fields: Any) -> int:
        values: dict[str, Any] = {"session_id": session_id, "created_timestamp": 1767323045}
        values.update(fields)
        return self._insert("usage_ledger", values)

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return list(self.conn.execute(sql, params))

    def close(self) -> None:
        self.conn.close()
        self._held.close()


def hand_over(writer: GooseWriter, target: Path) -> None:
    """Finish a file written in a temporary place and move it to `target` in WAL mode, as goose
    keeps its database."""
    writer.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    writer.conn.execute("PRAGMA journal_mode=DELETE")
    writer.close()
    writer.path.replace(target)
    conn = sqlite3.connect(target, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
    finally:
        conn.close()


def build_database(target: Path, fill: Callable[[GooseWriter], None]) -> None:
    """Write a whole new database beside `target` and move it there when it is complete, so
    no half-written file is ever at `target`; any failure is one sentence."""
    partial = target.with_name(target.name + ".partial")
    try:
        for leftover in (partial, target, Path(f"{target}-wal"), Path(f"{target}-shm")):
            leftover.unlink(missing_ok=True)
        writer = GooseWriter(partial)
        try:
            fill(writer)
        except BaseException:
            writer.close()
            raise
        hand_over(writer, target)
    except (OSError, sqlite3.Error) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise SourceUnreadable(f"{target} cannot be written ({reason}).") from error
