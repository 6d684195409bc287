"""Every goose schema generation opens and reads: v0–v17 and a future v18."""

from collections.abc import Callable

import pytest

from desktop_app.domain.errors import WriteRefused
from desktop_app.domain.source import ArchivedFilter, SessionQuery
from desktop_app.sources.goose import GooseSource
from desktop_app.sources.goose.ddl import MIGRATIONS
from tests.fixtures.goose_db import GENERATIONS, GooseDb
from tests.fixtures.reading import all_messages

DbFactory = Callable[..., GooseDb]
SourceFactory = Callable[[GooseDb], GooseSource]


def _populate(db: GooseDb) -> None:
    db.add_session(
        "20260101_1", name="Named", description="Old title", updated_at="2026-01-01 10:00:00"
    )
    db.add_session("20260101_2", description="Only a description", updated_at="2026-01-01 09:00:00")
    db.add_message("20260101_1", "user", "first question", created=1767261600, message_id="msg_a")
    db.add_message("20260101_1", "assistant", "an answer", created=1767261660)


@pytest.mark.parametrize("version", [0, *GENERATIONS, 2, 3, 5, 6, 8, 9, 10, 11, 13, 14, 15, 16])
def test_migrated_generation_opens_lists_and_reads(
    version: int, make_db: DbFactory, open_source: SourceFactory
) -> None:
    db = make_db(version, fresh=False)
    _populate(db)
    source = open_source(db)
    assert source.info().schema_version == (version or None)
    sessions = source.list_sessions(SessionQuery()).sessions
    assert [s.id for s in sessions] == ["20260101_1", "20260101_2"]
    names = {s.id: s.name for s in sessions}
    if version >= 4:
        assert names["20260101_1"] == "Named"
    else:
        assert names["20260101_1"] == "Old title"
    assert names["20260101_2"] == "Only a description"
    assert sessions[0].message_count == 2
    messages = all_messages(source, "20260101_1")
    assert [m.parts[0].text for m in messages] == ["first question", "an answer"]  # type: ignore[union-attr]
    assert messages[0].message_id == ("msg_a" if version >= 7 else None)


def test_v7_backfill_gives_message_ids(make_db: DbFactory, open_source: SourceFactory) -> None:
    """Migration 7 rewrote message ids as msg_<session>_<rowid> for rows that existed then."""
    db = make_db(6, fresh=False)
    _populate(db)
    for statement in MIGRATIONS[7]:
        db.conn.execute(statement)
    messages = all_messages(open_source(db), "20260101_1")
    assert [m.message_id for m in messages] == [f"msg_20260101_1_{m.row_id}" for m in messages]


def test_fresh_v17_has_everything(make_db: DbFactory, open_source: SourceFactory) -> None:
    db = make_db(17)
    _populate(db)
    source = open_source(db)
    assert source.info().schema_version == 17
    assert source.schema.ledger_columns is not None
    access = source.write_access()
    assert access.can_rename
    assert access.can_archive
    assert access.reason is None


def test_future_v18_with_extra_tables_and_columns_works_like_v17(
    make_db: DbFactory, open_source: SourceFactory
) -> None:
    db = make_db(17)
    db.conn.execute("ALTER TABLE sessions ADD COLUMN mood TEXT DEFAULT 'calm'")
    db.conn.execute("ALTER TABLE messages ADD COLUMN reactions_json TEXT")
    db.conn.execute("CREATE TABLE session_tags (session_id TEXT, tag TEXT)")
    db.conn.execute("INSERT INTO schema_version (version) VALUES (18)")
    _populate(db)
    db.add_session("20260101_3", name="Archived", archived_at="2026-01-03 00:00:00")
    source = open_source(db)
    assert source.info().schema_version == 18
    assert [s.id for s in source.list_sessions(SessionQuery()).sessions] == [
        "20260101_1",
        "20260101_2",
    ]
    archived = source.list_sessions(SessionQuery(archived=ArchivedFilter.ONLY)).sessions
    assert [s.id for s in archived] == ["20260101_3"]
    source.rename("20260101_2", "Renamed in v18")
    assert source.get_session("20260101_2").name == "Renamed in v18"


def test_v0_to_v17_via_create_schema_edge_case(
    make_db: DbFactory, open_source: SourceFactory
) -> None:
    """A v0 file that goose's create_schema marked v17 without adding columns."""
    db = make_db(0, fresh=False)
    db.conn.execute(
        "CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP)"
    )
    db.conn.execute("INSERT INTO schema_version (version) VALUES (17)")
    _populate(db)
    source = open_source(db)
    assert source.info().schema_version == 17
    assert [s.name for s in source.list_sessions(SessionQuery()).sessions] == [
        "Old title",
        "Only a description",
    ]
    access = source.write_access()
    assert not access.can_rename
    assert not access.can_archive
    with pytest.raises(WriteRefused, match="predates session names"):
        source.rename("20260101_1", "x")


def test_writes_refused_on_generations_without_the_columns(
    make_db: DbFactory, open_source: SourceFactory
) -> None:
    old = make_db(7, fresh=False)
    _populate(old)
    source = open_source(old)
    with pytest.raises(WriteRefused, match="predates archiving"):
        source.archive("20260101_1")
    source.rename("20260101_1", "fine on v7")
    assert source.get_session("20260101_1").name == "fine on v7"
    assert not source.write_access().can_archive
    assert source.write_access().can_rename


def test_a_column_named_like_sql_is_never_run_as_sql(make_db: Callable[..., GooseDb]) -> None:
    """A future (or hostile) goose file may name a column anything: Gander writes no name it
    read from the file into a statement, so such a name is data, not SQL."""
    db = make_db()
    db.add_session("s", name="Chat")
    db.add_message("s", content="hello")
    hostile = 'evil") FROM sessions; DROP TABLE messages; --'
    for table in ("sessions", "messages", "usage_ledger"):
        db.conn.execute(f'ALTER TABLE {table} ADD COLUMN "{hostile.replace(chr(34), chr(34) * 2)}"')
    db.conn.commit()
    source = GooseSource(db.path)
    assert hostile in source.schema.session_columns
    (listed,) = source.list_sessions(SessionQuery()).sessions
    assert listed.id == "s"
    positions = source.positions("s")
    assert len(source.messages_between("s", positions[0], positions[-1])) == 1
    assert source.usage_ledger("s") == []
    assert source.session_totals("s").session_count == 1
    source.rename("s", "Renamed")
    assert source.get_session("s").name == "Renamed"
    source.close()
