"""Reading messages in pages from either end, in goose's order, without loading a session whole."""

from collections.abc import Callable

import pytest

from desktop_app.domain.errors import UnknownSession
from desktop_app.domain.message import MessageCursor, Role
from desktop_app.domain.parts import TextPart, UnsupportedPart
from desktop_app.sources.goose import GooseSource
from tests.fixtures.goose_db import GooseDb
from tests.fixtures.reading import all_messages, last_messages

DbFactory = Callable[..., GooseDb]
SourceFactory = Callable[[GooseDb], GooseSource]


def texts(messages: object) -> list[str]:
    return [m.parts[0].text for m in messages]  # type: ignore[attr-defined]


@pytest.fixture
def long_session(make_db: DbFactory) -> GooseDb:
    db = make_db()
    db.add_session("long", name="long")
    rows = [
        (
            "long",
            "user" if i % 2 == 0 else "assistant",
            f'[{{"type":"text","text":"m{i}"}}]',
            1767323045 + i // 3,
            '{"userVisible":true,"agentVisible":true}',
        )
        for i in range(2500)
    ]
    db.conn.execute("BEGIN")
    db.conn.executemany(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json)"
        " VALUES (?, ?, ?, ?, ?)",
        rows,
    )
    db.conn.execute("COMMIT")
    return db


def test_ranges_of_positions_cover_everything_once(
    long_session: GooseDb, open_source: SourceFactory
) -> None:
    source = open_source(long_session)
    positions = source.positions("long")
    forward: list[str] = []
    for start in range(0, len(positions), 333):
        part = positions[start : start + 333]
        forward += texts(source.messages_between("long", part[0], part[len(part) - 1]))
    assert forward == [f"m{i}" for i in range(2500)]
    assert texts(all_messages(source, "long")) == forward
    assert texts(last_messages(source, "long", 400))[-1] == "m2499"


def test_positions_ranges_and_messages_at(
    long_session: GooseDb, open_source: SourceFactory
) -> None:
    source = open_source(long_session)
    cursors = source.positions("long")
    assert len(cursors) == 2500
    assert cursors == sorted(cursors)
    middle = source.messages_between("long", cursors[1000], cursors[1009])
    assert texts(middle) == [f"m{i}" for i in range(1000, 1010)]
    picked = source.messages_at("long", [cursors[7], cursors[2000], cursors[3]])
    assert texts(picked) == ["m3", "m7", "m2000"]
    assert [m.cursor for m in picked] == [cursors[3], cursors[7], cursors[2000]]


def test_order_uses_raw_timestamp_then_row_id_like_goose(
    make_db: DbFactory, open_source: SourceFactory
) -> None:
    db = make_db()
    db.add_session("s", name="s")
    db.add_message("s", content="third (ms value)", created=1767323045000)
    db.add_message("s", content="first", created=1767323046)
    db.add_message("s", content="second, same time, later row", created=1767323046)
    messages = all_messages(open_source(db), "s")
    assert texts(messages) == ["first", "second, same time, later row", "third (ms value)"]
    assert messages[2].created_at is not None
    assert messages[2].created_at.timestamp() == 1767323045


def test_positions_include_agent_only_messages(
    make_db: DbFactory, open_source: SourceFactory
) -> None:
    db = make_db()
    db.add_session("s", name="s")
    db.add_message("s", content="seen", created=1)
    db.add_message("s", content="hidden", created=2, metadata={"userVisible": False})
    db.add_message("s", content="broken meta", created=3, metadata="{{{")
    source = open_source(db)
    assert [c.created_raw for c in source.positions("s")] == [1, 2, 3]
    assert [m.visibility.user for m in all_messages(source, "s")] == [True, False, True]


def test_unknown_roles_and_broken_rows_are_shown_beside_good_ones(
    make_db: DbFactory, open_source: SourceFactory
) -> None:
    db = make_db()
    db.add_session("s", name="s")
    db.add_message("s", "user", "good", created=1)
    db.add_message("s", "system", "odd role", created=2)
    db.add_message("s", "assistant", '[{"type":"text","text":"cut', created=3)
    db.add_message("s", "assistant", "fine", created=4, metadata="nonsense")
    messages = all_messages(open_source(db), "s")
    assert len(messages) == 4
    assert messages[1].role is Role.UNKNOWN
    assert messages[1].role_raw == "system"
    assert isinstance(messages[2].parts[0], UnsupportedPart)
    assert messages[3].parts == (TextPart(text="fine"),)
    assert messages[3].metadata_problem is not None


def test_unknown_session(make_db: DbFactory, open_source: SourceFactory) -> None:
    db = make_db()
    source = open_source(db)
    with pytest.raises(UnknownSession, match="no session with id 'nope'"):
        source.get_session("nope")
    assert source.positions("nope") == []
    assert all_messages(source, "nope") == []
    assert MessageCursor(1, 2) < MessageCursor(1, 3) < MessageCursor(2, 0)


def test_odd_created_timestamp_values_do_not_break_reading(
    make_db: DbFactory, open_source: SourceFactory
) -> None:
    db = make_db()
    db.add_session("s", name="s")
    db.add_message("s", content="real", created=100)
    db.conn.execute(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp)"
        " VALUES ('s', 'user', '[]', 'not a number')"
    )
    source = open_source(db)
    assert len(source.positions("s")) == 2
    messages = all_messages(source, "s")
    assert len(messages) == 2
    assert messages[1].created_at is None


def test_find_in_session_matches_real_text_only(
    make_db: DbFactory, open_source: SourceFactory
) -> None:
    db = make_db()
    db.add_session("s", name="s")
    db.add_message("s", content="The Retry loop", created=1)
    db.add_message(
        "s", content=[{"type": "thinking", "thinking": "retry twice", "signature": "x"}], created=2
    )
    db.add_message("s", content="nothing here", created=3)
    db.add_message("s", content='He said "quoted" — Ünïcode', created=4)
    db.add_message(
        "s",
        content=[
            {
                "type": "toolResponse",
                "id": "t",
                "toolResult": {
                    "status": "success",
                    "value": {"content": [{"type": "text", "text": "RETRY failed"}]},
                },
            }
        ],
        created=5,
    )
    source = open_source(db)
    assert [h.cursor.created_raw for h in source.find_in_session("s", "retry")] == [1, 2, 5]
    assert source.find_in_session("s", "type") == []
    assert [h.cursor.created_raw for h in source.find_in_session("s", '"quoted"')] == [4]
    assert [h.cursor.created_raw for h in source.find_in_session("s", "ünïCODE")] == [4]
    assert source.find_in_session("s", "  ") == []
