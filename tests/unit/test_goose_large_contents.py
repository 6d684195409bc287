"""goose's large message contents are read apart from their rows, through SQLite's blob
reading (`sources/goose/contents.py`), to exactly what reading them with the row gives: in
every way the reader reads messages, whatever the table's row ids are called, and when the
row is gone by the time its content is read."""

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from desktop_app.demo.generator import ensure_demo_database
from desktop_app.domain.message import Message
from desktop_app.domain.reading import EVERY_SESSION, iter_sessions
from desktop_app.sources.goose import GooseSource, contents, message_queries
from desktop_app.sources.goose.ddl import fresh_schema
from tests.fixtures.goose_db import GooseDb

TEXT = 'An answer\nwith "quotes", é and 😀. ' * 40_000
"""1.5 MB, over `INLINE_BYTES`."""


def _everything(source: GooseSource) -> dict[str, list[Message]]:
    """Every message of every session, read the four ways the reader reads them."""
    read: dict[str, list[Message]] = {}
    for session in iter_sessions(source, EVERY_SESSION):
        positions = source.positions(session.id)
        between = list(source.messages_between(session.id, positions[0], positions[-1]))
        at = list(source.messages_at(session.id, positions))
        each = list(source.messages_at_each({session.id: positions}))
        bulk = list(source.messages_of([session.id]))
        assert between == at == each == bulk
        read[session.id] = between
    return read


def _apart_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    read: list[int] = []
    apart = contents._read_apart

    def counted(*args: object) -> bytes | None:
        found = apart(*args)  # type: ignore[arg-type]
        read.append(len(found or b""))
        return found

    monkeypatch.setattr(contents, "_read_apart", counted)
    return read


def test_a_large_content_is_read_apart_and_whole(
    make_db: Callable[..., GooseDb], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = make_db()
    db.add_session("s", name="large")
    db.add_message("s", content="Show me.", created=1_767_323_000)
    db.add_message("s", "assistant", content=TEXT, created=1_767_323_001)
    apart = _apart_reads(monkeypatch)
    source = GooseSource(db.path)
    (messages,) = _everything(source).values()
    assert messages[1].parts[0].text == TEXT  # type: ignore[union-attr]
    ((stored,),) = db.execute(
        "SELECT length(CAST(content_json AS BLOB)) FROM messages WHERE role = 'assistant'"
    )
    assert apart == [stored] * 4  # read apart each time, the short one never
    assert [hit.cursor for hit in source.find_in_session("s", "quotes")] == [messages[1].cursor]


def test_every_demo_message_reads_the_same_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With every content over two bytes read apart, every message of the demo history (tool
    calls, images, reasoning) is what reading each with its row gives."""
    path = ensure_demo_database(tmp_path / "demo", datetime(2026, 12, 1, tzinfo=UTC))
    inline = _everything(GooseSource(path))
    monkeypatch.setattr(message_queries, "INLINE_BYTES", 2)
    apart = _apart_reads(monkeypatch)
    assert _everything(GooseSource(path)) == inline
    assert len(apart) > 100


def test_row_ids_under_another_name_or_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A messages table with a column named `rowid` is read through `_rowid_`; one without row
    ids (`WITHOUT ROWID`) reads every content with its row."""
    monkeypatch.setattr(message_queries, "INLINE_BYTES", 2)
    shadowed = _copy_with(tmp_path / "shadowed.db", "rowid INTEGER, ", "")
    without = _copy_with(tmp_path / "without.db", "", " WITHOUT ROWID")
    for path, name in ((shadowed, "_rowid_"), (without, None)):
        source = GooseSource(path)
        assert source.schema.message_rowid == name
        (messages,) = _everything(source).values()
        assert [m.parts[0].text for m in messages] == ["first", "second"]  # type: ignore[union-attr]


def test_a_file_in_utf16_reads_its_texts_as_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A text's bytes are its UTF-8 only in a UTF-8 file: one that keeps its text in UTF-16
    has every content read as text, with its row, never apart."""
    monkeypatch.setattr(message_queries, "INLINE_BYTES", 2)
    apart = _apart_reads(monkeypatch)
    path = _copy_with(tmp_path / "utf16.db", "", "", encoding="UTF-16le", text="é 漢字 😀")
    source = GooseSource(path)
    assert not source.schema.utf8
    (messages,) = _everything(source).values()
    assert [m.parts[0].text for m in messages] == ["é 漢字 😀"] * 2  # type: ignore[union-attr]
    assert apart == []


def _copy_with(
    path: Path, column: str, suffix: str, *, encoding: str = "UTF-8", text: str = ""
) -> Path:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA encoding = '{encoding}'")
    fresh_schema(conn)
    conn.execute("DROP TABLE messages")
    conn.execute(
        f"CREATE TABLE messages ({column}id INTEGER PRIMARY KEY, message_id TEXT, session_id "
        "TEXT NOT NULL, role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp "
        f"INTEGER NOT NULL, metadata_json TEXT){suffix}"
    )
    conn.execute("INSERT INTO sessions (id, name, working_dir) VALUES ('s', 'odd', '/w')")
    for n, said in enumerate((text or "first", text or "second"), start=1):
        conn.execute(
            "INSERT INTO messages (id, session_id, role, content_json, created_timestamp) "
            "VALUES (?, 's', 'user', ?, ?)",
            (n, f'[{{"type": "text", "text": "{said}"}}]', n),
        )
    conn.close()
    return path


def test_a_row_gone_before_its_content_is_read_has_none(make_db: Callable[..., GooseDb]) -> None:
    db = make_db()
    db.add_session("s", name="gone")
    db.add_message("s", content="here", created=1)
    source = GooseSource(db.path)
    with source._connections.connect() as conn:
        assert contents._read_apart(conn, 999, "rowid") is None
        (row_id,) = db.execute("SELECT id FROM messages")[0]
        assert contents._read_apart(conn, row_id, "rowid") == b'[{"type": "text", "text": "here"}]'


def test_the_index_reading_holds_one_large_content_at_a_time(
    make_db: Callable[..., GooseDb], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index's bulk reading fetches a batch's rows first, but reads a large content only
    when its message is made: six 20 MB messages held at once took the first build's peak RSS
    to 508 MB."""
    db = make_db()
    for n in range(3):
        db.add_session(f"s{n}", name=f"large {n}")
        db.add_message(f"s{n}", "assistant", content=TEXT, created=1_767_323_000 + n)
    apart = _apart_reads(monkeypatch)
    source = GooseSource(db.path)
    made = []
    for message in source.messages_of(["s0", "s1", "s2"]):
        made.append(message)
        assert len(apart) == len(made)  # read as its message is made, not all first
    assert len(made) == 3
