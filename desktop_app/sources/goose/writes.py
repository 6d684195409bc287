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

from sqlalchemy import Engine, Update, create_engine, event, func, null, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.pool import NullPool

from desktop_app.domain.errors import UnknownSession, WriteRefused
from desktop_app.sources.goose.connection import open_connection, readwrite_uri, writable
from desktop_app.sources.goose.schema import GooseSchema

BUSY_RETRIES = 3


def rename_statement(schema: GooseSchema, session_id: str, name: str) -> Update:
    if not schema.session_has("name", "user_set_name"):
        raise WriteRefused(
            "This goose database predates session names (schema v4); "
            "open it with goose once so goose upgrades it, then rename."
        )
    trimmed = name.strip()
    if not trimmed:
        raise WriteRefused("A session name cannot be empty.")
    s = schema.sessions
    return (
        update(s)
        .where(s.c.id == session_id)
        .values(name=trimmed, user_set_name=1, updated_at=func.datetime("now"))
    )


def archive_statement(schema: GooseSchema, session_id: str, *, archived: bool) -> Update:
    if not schema.session_has("archived_at"):
        raise WriteRefused(
            "This goose database predates archiving (schema v12); "
            "open it with goose once so goose upgrades it, then archive."
        )
    s = schema.sessions
    return (
        update(s)
        .where(s.c.id == session_id)
        .values(
            archived_at=func.datetime("now") if archived else null(),
            updated_at=func.datetime("now"),
        )
    )


def make_engine(uri: str, busy_timeout_s: float, *, begin: str, deadline: float) -> Engine:
    """An engine whose `begin()` really starts an SQLite transaction of the given kind, each
    waiting for a lock only as long as is left until `deadline` (a `time.monotonic()` value),
    so retries never add up to more than the time the user allowed."""
    engine = create_engine(
        "sqlite://", creator=lambda: open_connection(uri, busy_timeout_s), poolclass=NullPool
    )

    @event.listens_for(engine, "begin")
    def _start_transaction(conn: object) -> None:
        left_ms = max(0, int((deadline - time.monotonic()) * 1000))
        conn.exec_driver_sql(f"PRAGMA busy_timeout = {left_ms}")  # type: ignore[attr-defined]
        conn.exec_driver_sql(begin)  # type: ignore[attr-defined]

    return engine


def _is_busy(error: BaseException) -> bool:
    text = str(getattr(error, "orig", error)).lower()
    return "locked" in text or "busy" in text


def apply_update(path: Path, statement: Update, session_id: str, busy_timeout_s: float) -> None:
    """Run one goose-style write; refuse with one sentence if it cannot land."""
    reason = writable(path)
    if reason is not None:
        raise WriteRefused(reason)
    deadline = time.monotonic() + busy_timeout_s
    engine = make_engine(
        readwrite_uri(path), busy_timeout_s, begin="BEGIN IMMEDIATE", deadline=deadline
    )
    try:
        for attempt in range(BUSY_RETRIES + 1):
            try:
                with engine.begin() as conn:
                    if conn.execute(statement).rowcount == 0:
                        raise UnknownSession(f"There is no session with id {session_id!r}.")
                return
            except OperationalError as error:
                retry = attempt < BUSY_RETRIES and time.monotonic() < deadline
                if _is_busy(error) and retry:
                    time.sleep(0.05 * (attempt + 1))
                    continue
                if _is_busy(error):
                    raise WriteRefused(
                        "goose kept the database locked; nothing was changed. Try again."
                    ) from error
                if "readonly" in str(error.orig).lower():
                    raise WriteRefused(
                        f"{path.name} is read-only, so sessions cannot be renamed or archived."
                    ) from error
                raise WriteRefused(f"The change could not be saved ({error.orig}).") from error
            except sqlite3.Error as error:
                raise WriteRefused(f"The change could not be saved ({error}).") from error
    finally:
        engine.dispose()
