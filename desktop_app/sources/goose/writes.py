"""The only writes Gander ever makes to goose's file: rename, archive, unarchive.

Each is exactly goose's own statement: one `UPDATE` in a
`BEGIN IMMEDIATE` transaction on a separate, short-lived read-write connection, with SQLite's busy
timeout and a few retries on top, so a goose process holding the write lock delays us rather than
failing us. The retries share one deadline: `--wait N` waits N seconds in all. No other table,
column or pragma of goose's is touched (`busy_timeout` is a setting of our own connection).
"""

import sqlite3
import time
from pathlib import Path

from desktop_app.domain.errors import UnknownSession, WriteRefused
from desktop_app.sources.goose.connection import open_connection, readwrite_uri, writable
from desktop_app.sources.goose.schema import GooseSchema
from desktop_app.sources.goose.statements import Sql

BUSY_RETRIES = 3


def rename_statement(
    schema: GooseSchema, session_id: str, name: str, *, user_set: bool = True
) -> Sql:
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
    return Sql(
        "UPDATE sessions SET name = ?, user_set_name = ?, updated_at = datetime('now') "
        "WHERE id = ?",
        (trimmed, 1 if user_set else 0, session_id),
    )


def archive_statement(schema: GooseSchema, session_id: str, *, archived: bool) -> Sql:
    if not schema.session_has("archived_at"):
        raise WriteRefused(
            "This goose database predates archiving (schema v12); "
            "open it with goose once so goose upgrades it, then archive."
        )
    archived_at = "datetime('now')" if archived else "NULL"
    return Sql(
        f"UPDATE sessions SET archived_at = {archived_at}, updated_at = datetime('now') "
        "WHERE id = ?",
        (session_id,),
    )


def _is_busy(error: BaseException) -> bool:
    text = str(error).lower()
    return "locked" in text or "busy" in text


def apply_update(path: Path, statement: Sql, session_id: str, busy_timeout_s: float) -> None:
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
        except sqlite3.OperationalError as error:
            retry = attempt < BUSY_RETRIES and time.monotonic() < deadline
            if _is_busy(error) and retry:
                time.sleep(0.05 * (attempt + 1))
                continue
            if _is_busy(error):
                raise WriteRefused(
                    "goose kept the database locked; nothing was changed. Try again."
                ) from error
            if "readonly" in str(error).lower():
                raise WriteRefused(
                    f"{path.name} is read-only, so sessions cannot be renamed or archived."
                ) from error
            raise WriteRefused(f"The change could not be saved ({error}).") from error
        except sqlite3.Error as error:
            raise WriteRefused(f"The change could not be saved ({error}).") from error


def _write_once(uri: str, statement: Sql, session_id: str, wait_s: float) -> None:
    """`BEGIN IMMEDIATE`, goose's one `UPDATE`, `COMMIT`, waiting at most `wait_s` for the lock."""
    conn = open_connection(uri, wait_s)
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            changed = conn.execute(statement.text, statement.params).rowcount
            if changed == 0:
                raise UnknownSession(f"There is no session with id {session_id!r}.")
            conn.execute("COMMIT")
        finally:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
    finally:
        conn.close()
