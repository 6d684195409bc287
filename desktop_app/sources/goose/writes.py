"""The only writes Gander ever makes to goose's file: rename, archive, unarchive.

Each is exactly goose's own statement: one `UPDATE` in a `BEGIN IMMEDIATE` transaction on a
separate, short-lived read-write connection (`engine.write_connection`), with SQLite's busy
timeout and a few retries on top, so a goose process holding the write lock delays us rather than
failing us. The retries share one deadline: `--wait N` waits N seconds in all. No other table,
column or pragma of goose's is touched (`busy_timeout` is a setting of our own connection).
Failures are told apart by SQLite's error code (`errors.primary_code`).
"""

import sqlite3
import time
from pathlib import Path

from sqlalchemy import TextClause
from sqlalchemy.exc import DBAPIError

from desktop_app.domain.errors import UnknownSession, WriteRefused
from desktop_app.sources.goose.connection import readwrite_uri, writable
from desktop_app.sources.goose.engine import write_connection
from desktop_app.sources.goose.errors import driver_error, primary_code
from desktop_app.sources.goose.schema import GooseSchema
from desktop_app.sources.goose.statements import sql

BUSY_RETRIES = 3


def rename_statement(
    schema: GooseSchema, session_id: str, name: str, *, user_set: bool = True
) -> TextClause:
    """goose's `apply_update` for a name: `user_provided_name` (a person's: `user_set_name`
    1, so goose stops naming the session itself), or `system_generated_name` (0) — what an undo
    writes back to a session goose had named, so goose goes on naming it."""
    if not schema.session_has("name", "user_set_name"):
        raise WriteRefused(
            "This goose database predates session names (schema v4); "
            "open it with goose once so goose upgrades it, then rename."
        )
    trimmed = name.strip()
    if not trimmed:
        raise WriteRefused("A session name cannot be empty.")
    return sql(
        "UPDATE sessions SET name = :name, user_set_name = :user_set, "
        "updated_at = datetime('now') WHERE id = :session_id",
        name=trimmed,
        user_set=1 if user_set else 0,
        session_id=session_id,
    )


def archive_statement(schema: GooseSchema, session_id: str, *, archived: bool) -> TextClause:
    if not schema.session_has("archived_at"):
        raise WriteRefused(
            "This goose database predates archiving (schema v12); "
            "open it with goose once so goose upgrades it, then archive."
        )
    archived_at = "datetime('now')" if archived else "NULL"
    return sql(
        f"UPDATE sessions SET archived_at = {archived_at}, updated_at = datetime('now') "
        "WHERE id = :session_id",
        session_id=session_id,
    )


def _is_busy(error: BaseException) -> bool:
    return primary_code(error) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def apply_update(path: Path, statement: TextClause, session_id: str, busy_timeout_s: float) -> None:
    """Run one goose-style write; refuse with one sentence if it cannot land. Each attempt is a
    fresh read-write connection whose busy timeout is what is left until the deadline."""
    reason = writable(path)
    if reason is not None:
        raise WriteRefused(reason)
    deadline = time.monotonic() + busy_timeout_s
    uri = readwrite_uri(path)
    for attempt in range(BUSY_RETRIES + 1):
        try:
            _write_once(uri, statement, session_id, max(0.0, deadline - time.monotonic()))
            return
        except (DBAPIError, sqlite3.Error) as error:
            retry = attempt < BUSY_RETRIES and time.monotonic() < deadline
            if _is_busy(error) and retry:
                time.sleep(0.05 * (attempt + 1))
                continue
            if _is_busy(error):
                raise WriteRefused(
                    "goose kept the database locked; nothing was changed. Try again."
                ) from error
            if primary_code(error) == sqlite3.SQLITE_READONLY:
                raise WriteRefused(
                    f"{path.name} is read-only, so sessions cannot be renamed or archived."
                ) from error
            raise WriteRefused(f"The change could not be saved ({driver_error(error)}).") from error


def _write_once(uri: str, statement: TextClause, session_id: str, wait_s: float) -> None:
    """`BEGIN IMMEDIATE`, goose's one `UPDATE`, `COMMIT`, waiting at most `wait_s` for the lock.
    The driver is in autocommit mode, so the transaction is exactly the one begun here; one
    not committed is rolled back when the connection closes."""
    with write_connection(uri, wait_s) as conn:
        conn.exec_driver_sql("BEGIN IMMEDIATE")
        changed = conn.execute(statement).rowcount
        if changed == 0:
            raise UnknownSession(f"There is no session with id {session_id!r}.")
        conn.exec_driver_sql("COMMIT")
