"""Reading messages in pages from either end, in goose's order, without loading a session whole."""

from collections.abc import Callable

import pytest

from desktop_app.domain.errors import UnknownSession
from desktop_app.domain.message import MessageCursor, Role
from desktop_app.domain.parts import TextPart, UnsupportedPart
from desktop_app.sources.goose import GooseSource
from tests.fixtures.goose_db import GooseDb

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


def test_pages_forward_and_backward_cover_everything_once(
    long_session: GooseDb, open_source: SourceFactory
) -> None:
    source = open_source(long_session)
    forward: list[str] = []
    page = source.read_messages("long", limit=333)
    assert not page.has_older
    while True:
        forward += texts(page.messages)
        if not page.has_newer:
            break
        page = source.read_messages("long", after=page.messages[-1].cursor, limit=333)
    assert forward == [f"m{i}" for i in range(2500)]

    backward: list[str] = []
    page = source.read_messages("long", from_end=True, limit=400)
    assert not page.has_newer
    assert texts(page.messages)[-1] == "m2499"
    while True:
        backward = texts(page.messages) + backward
        if not page.has_older:
            break
        page = source.read_messages("long", before=page.messages[0].cursor, limit=400)
    assert backward == forward


def test_cursors_and_ranges(long_session: GooseDb, open_source: SourceFactory) -> None:
    source = open_source(long_session)
    cursors = source.message_cursors("long")
    assert len(cursors) == 2500
    assert cursors == sorted(cursors)
    middle = source.messages_between("long", cursors[1000], cursors[1009])
    assert texts(middle) == [f"m{i}" for i in range(1000, 1010)]


def test_order_uses_raw_timestamp_then_row_id_like_goose(
    make_db: DbFactory, open_source: SourceFactory
) -> None:
    db = make_db()
    db.add_session("s", name="s")
    db.add_message("s", content="third (ms value)", created=1767323045000)
    db.add_message("s", content="first", created=1767323046)
    db.add_message("s", content="second, same time, later row", created=1767323046)
    messages = open_source(db).read_messages("s").messages
    assert texts(messages) == ["first", "second, same time, later row", "third (ms value)"]
    assert messages[2].created_at is not None
    assert messages[2].created_at.timestamp() == 1767323045


def test_visible_only_cursors(make_db: DbFactory, open_source: SourceFactory) -> None:
    db = make_db()
    db.add_session("s", name="s")
    db.add_message("s", content="seen", created=1)
    db.add_message("s", content="hidden", created=2, metadata={"userVisible": False})
    db.add_message("s", content="broken meta", created=3, metadata="{{{")
    source = open_source(db)
    assert len(source.message_cursors("s")) == 3
    visible = source.message_cursors("s", user_visible_only=True)
    assert [c.created_raw for c in visible] == [1, 3]


def test_unknown_roles_and_broken_rows_are_shown_beside_good_ones(
    make_db: DbFactory, open_source: SourceFactory
) -> None:
    db = make_db()
    db.add_session("s", name="s")
    db.add_message("s", "user", "good", created=1)
    db.add_message("s", "system", "odd role", created=2)
    db.add_message("s", "assistant", '[{"type":"text","text":"cut', created=3)
    db.add_message("s", "assistant", "fine", created=4, metadata="nonsense")
    messages = open_source(db).read_messages("s").messages
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
    assert source.read_messages("nope").messages == ()
    assert source.message_cursors("nope") == []
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
    assert len(source.message_cursors("s")) == 2
    page = source.read_messages("s")
    assert len(page.messages) == 2
    assert page.messages[1].created_at is None


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
