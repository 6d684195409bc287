"""Rename, archive and unarchive change exactly what goose changes, nothing else (ref. §6.3–§7)."""

import hashlib
import re
import sqlite3
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from desktop_app.domain.errors import UnknownSession, WriteRefused
from desktop_app.domain.source import SessionQuery
from desktop_app.sources.goose import GooseSource
from tests.fixtures.goose_db import GooseDb
from tests.fixtures.reading import last_messages

DbFactory = Callable[..., GooseDb]
SourceFactory = Callable[[GooseDb], GooseSource]
SQLITE_NOW = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$")


def snapshot(path: Path) -> dict[str, list[dict[str, object]]]:
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {
            t: [dict(r) for r in conn.execute(f"SELECT * FROM {t} ORDER BY rowid")] for t in tables
        }
    finally:
        conn.close()


def integrity(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


def changed_columns(
    before: dict[str, list[dict[str, object]]], after: dict[str, list[dict[str, object]]]
) -> dict[tuple[str, int], set[str]]:
    assert before.keys() == after.keys()
    changes: dict[tuple[str, int], set[str]] = {}
    for table, rows in before.items():
        assert len(rows) == len(after[table]), table
        for index, (old, new) in enumerate(zip(rows, after[table], strict=True)):
            diff = {key for key in old if old[key] != new[key]}
            if diff:
                changes[(table, index)] = diff
    return changes


@pytest.fixture
def populated(make_db: DbFactory) -> GooseDb:
    db = make_db()
    for sid in ("a", "b", "c"):
        db.add_session(sid, name=f"name {sid}", updated_at="2026-01-01 00:00:00")
        db.add_message(sid, content=f"hello {sid}")
    db.add_ledger("b", input_tokens=10, cost=0.1)
    return db


def _fresh_now(value: object) -> None:
    assert isinstance(value, str)
    assert SQLITE_NOW.match(value), value
    stamp = datetime.strptime(value, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
    assert abs((datetime.now(UTC) - stamp).total_seconds()) < 120


def test_rename_changes_only_name_user_set_name_updated_at(
    populated: GooseDb, open_source: SourceFactory
) -> None:
    before = snapshot(populated.path)
    open_source(populated).rename("b", "  Trimmed title  ")
    after = snapshot(populated.path)
    assert changed_columns(before, after) == {
        ("sessions", 1): {"name", "user_set_name", "updated_at"}
    }
    row = after["sessions"][1]
    assert row["name"] == "Trimmed title"
    assert row["user_set_name"] == 1
    assert row["description"] == before["sessions"][1]["description"]
    _fresh_now(row["updated_at"])
    assert integrity(populated.path) == "ok"


def test_archive_and_unarchive_change_only_archived_at_and_updated_at(
    populated: GooseDb, open_source: SourceFactory
) -> None:
    source = open_source(populated)
    before = snapshot(populated.path)
    source.archive("c")
    archived = snapshot(populated.path)
    assert changed_columns(before, archived) == {("sessions", 2): {"archived_at", "updated_at"}}
    _fresh_now(archived["sessions"][2]["archived_at"])
    assert source.get_session("c").archived
    source.unarchive("c")
    restored = snapshot(populated.path)
    assert restored["sessions"][2]["archived_at"] is None
    assert changed_columns(before, restored) == {("sessions", 2): {"updated_at"}}
    assert not source.get_session("c").archived
    assert integrity(populated.path) == "ok"


def test_refusals_change_nothing(populated: GooseDb, open_source: SourceFactory) -> None:
    source = open_source(populated)
    before = snapshot(populated.path)
    with pytest.raises(WriteRefused, match="cannot be empty"):
        source.rename("a", "   ")
    with pytest.raises(UnknownSession, match="no session with id 'zzz'"):
        source.rename("zzz", "name")
    with pytest.raises(UnknownSession):
        source.archive("zzz")
    assert snapshot(populated.path) == before


def file_hashes(directory: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(directory.iterdir())}


def test_read_only_file_and_folder_refuse_writes(
    populated: GooseDb, open_source: SourceFactory
) -> None:
    populated.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    populated.close()
    source = GooseSource(populated.path)
    try:
        populated.path.chmod(0o444)
        before = file_hashes(populated.path.parent)
        assert (
            source.write_access().reason
            == "sessions.db is read-only, so sessions cannot be renamed or archived."
        )
        assert not source.write_access().can_rename
        with pytest.raises(WriteRefused, match="read-only"):
            source.rename("a", "new")
        assert len(source.list_sessions(SessionQuery()).sessions) == 3
        assert file_hashes(populated.path.parent) == before
        populated.path.chmod(0o644)
        populated.path.parent.chmod(0o555)
        with pytest.raises(WriteRefused, match=r"folder .* is read-only"):
            source.archive("a")
    finally:
        populated.path.parent.chmod(0o755)
        populated.path.chmod(0o644)
        source.close()


def test_write_waits_for_goose_lock_then_lands(
    populated: GooseDb, open_source: SourceFactory
) -> None:
    holder = sqlite3.connect(populated.path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    holder.execute(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp)"
        " VALUES ('a', 'user', '[]', 5)"
    )
    releasing = threading.Event()

    def release_lock() -> None:
        releasing.set()
        holder.execute("COMMIT")

    release = threading.Timer(0.8, release_lock)
    release.start()
    open_source(populated).rename("a", "after the lock")
    # Ordered, not timed: the rename returned only once goose's transaction was ending.
    returned_after_release = releasing.is_set()
    release.join()
    holder.close()
    assert returned_after_release
    rows = snapshot(populated.path)
    assert rows["sessions"][0]["name"] == "after the lock"
    assert len(rows["messages"]) == 4


def test_write_gives_up_with_a_sentence_when_lock_is_never_released(populated: GooseDb) -> None:
    source = GooseSource(populated.path, busy_timeout_s=0.2)
    holder = sqlite3.connect(populated.path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(
            WriteRefused, match="goose kept the database locked; nothing was changed"
        ):
            source.archive("a")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        source.close()
    assert snapshot(populated.path)["sessions"][0]["archived_at"] is None


def test_reading_never_writes(populated: GooseDb) -> None:
    populated.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    populated.close()
    before = file_hashes(populated.path.parent)
    source = GooseSource(populated.path)
    source.list_sessions(SessionQuery())
    last_messages(source, "a", 50)
    source.session_totals("b")
    source.usage_ledger("b")
    source.change_token()
    source.close()
    after = file_hashes(populated.path.parent)
    assert after["sessions.db"] == before["sessions.db"]
    wal = populated.path.with_name("sessions.db-wal")
    assert not wal.exists() or wal.stat().st_size == 0
