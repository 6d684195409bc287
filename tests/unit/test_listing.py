"""Listing exactly as goose does, paged, with sub-agents and archive filters."""

import json
import random
import sqlite3
from collections.abc import Callable

from sqlalchemy import event

from desktop_app.cli import main
from desktop_app.domain.session import Session
from desktop_app.domain.source import ArchivedFilter, SessionCursor, SessionQuery
from desktop_app.sources.goose import GooseSource
from tests.fixtures.goose_db import GooseDb

DbFactory = Callable[..., GooseDb]
SourceFactory = Callable[[GooseDb], GooseSource]

GOOSE_LIST_SQL = """
SELECT s.id,
       COUNT(m.id) FILTER (WHERE COALESCE(json_extract(m.metadata_json, '$.userVisible'), 1) != 0)
           AS message_count,
       COALESCE(MAX(CASE WHEN m.created_timestamp > 10000000000 THEN m.created_timestamp / 1000
                         ELSE m.created_timestamp END),
                unixepoch(s.updated_at)) AS sort_timestamp
FROM sessions s
LEFT JOIN messages m ON s.id = m.session_id
WHERE s.session_type IN ('user', 'scheduled', 'acp')
GROUP BY s.id
ORDER BY sort_timestamp DESC, s.id DESC
"""

HIDDEN = {"userVisible": False, "agentVisible": True}


def build_varied(db: GooseDb, rng: random.Random, count: int = 120) -> None:
    types = ["user"] * 6 + ["scheduled", "acp", "sub_agent", "hidden", "terminal", "gateway"]
    base = 1767000000
    for i in range(count):
        sid = f"2026010{i % 9 + 1}_{i}"
        archived = "2026-01-05 00:00:00" if i % 11 == 0 else ("junk" if i % 13 == 0 else None)
        db.add_session(
            sid,
            name="" if i % 5 == 0 else f"Session {i}",
            description=f"desc {i}",
            session_type=rng.choice(types),
            updated_at=f"2026-01-0{rng.randint(1, 9)} {rng.randint(10, 23)}:00:00",
            archived_at=archived,
        )
        for _ in range(rng.choice([0, 0, 1, 3, 6])):
            created = base + rng.randint(0, 500_000)
            if rng.random() < 0.3:
                created *= 1000
            db.add_message(
                sid,
                rng.choice(["user", "assistant"]),
                f"m {i}",
                created=created,
                metadata=HIDDEN if rng.random() < 0.3 else None,
            )
    # exact ties on the sort second, broken by id descending
    for sid in ("tie_a", "tie_b", "tie_c"):
        db.add_session(sid, name=sid)
        db.add_message(sid, created=base + 1_000_000)
        db.add_message(sid, created=(base + 1_000_000) * 1000 + 999)


def goose_order(db: GooseDb) -> list[tuple[str, int]]:
    conn = sqlite3.connect(db.path)
    try:
        return [(row[0], row[1]) for row in conn.execute(GOOSE_LIST_SQL)]
    finally:
        conn.close()


def all_pages(source: GooseSource, query: SessionQuery, size: int) -> list[Session]:
    sessions: list[Session] = []
    cursor: SessionCursor | None = None
    while True:
        page = source.list_sessions(query, after=cursor, limit=size)
        sessions.extend(page.sessions)
        if page.next_cursor is None:
            return sessions
        cursor = page.next_cursor


def test_list_json_matches_goose_list_query(make_db: DbFactory, capsys: object) -> None:
    db = make_db()
    build_varied(db, random.Random(1))
    expected = goose_order(db)
    assert len(expected) > 50
    assert main(["list", "--db", str(db.path), "--json", "--archived"]) == 0
    listed = json.loads(capsys.readouterr().out)  # type: ignore[attr-defined]
    assert [s["id"] for s in listed] == [sid for sid, _ in expected]
    assert [s["message_count"] for s in listed] == [count for _, count in expected]


def test_default_list_hides_archived_but_keeps_unparseable_archived_at(
    make_db: DbFactory, open_source: SourceFactory
) -> None:
    db = make_db()
    build_varied(db, random.Random(2))
    archived_ids = {
        row[0]
        for row in db.execute("SELECT id FROM sessions WHERE archived_at = '2026-01-05 00:00:00'")
    }
    junk_ids = {row[0] for row in db.execute("SELECT id FROM sessions WHERE archived_at = 'junk'")}
    expected = [sid for sid, _ in goose_order(db) if sid not in archived_ids]
    source = open_source(db)
    listed = all_pages(source, SessionQuery(), 1000)
    assert [s.id for s in listed] == expected
    assert junk_ids & {s.id for s in listed}
    assert not any(s.archived for s in listed)
    only = all_pages(source, SessionQuery(archived=ArchivedFilter.ONLY), 1000)
    assert {s.id for s in only} == archived_ids & {sid for sid, _ in goose_order(db)}
    assert all(s.archived and s.archived_at is not None for s in only)


def test_keyset_pages_concatenate_to_the_full_list(
    make_db: DbFactory, open_source: SourceFactory
) -> None:
    db = make_db()
    build_varied(db, random.Random(3), count=300)
    source = open_source(db)
    query = SessionQuery(session_types=None, archived=ArchivedFilter.INCLUDE)
    whole = [s.id for s in all_pages(source, query, 10_000)]
    for size in (1, 7, 50):
        assert [s.id for s in all_pages(source, query, size)] == whole
    assert len(whole) == len(set(whole)) == 303


def test_sort_falls_back_to_updated_at_and_name_to_description(
    make_db: DbFactory, open_source: SourceFactory
) -> None:
    db = make_db()
    db.add_session("a", name="", description="legacy title", updated_at="2026-03-01 00:00:00")
    db.add_session("b", name="B", updated_at="2026-01-01 00:00:00")
    db.add_message("b", created=1772323200 + 10)  # 2026-03-01 00:00:10 beats a's updated_at
    db.add_session("c", name="C", updated_at="2026-02-01 00:00:00")
    sessions = open_source(db).list_sessions(SessionQuery()).sessions
    assert [s.id for s in sessions] == ["b", "a", "c"]
    assert sessions[1].name == "legacy title"
    assert sessions[1].last_message_at is None
    assert sessions[1].sort_at == sessions[1].updated_at


def test_message_count_is_user_visible_only_and_hidden_only_session_listed(
    make_db: DbFactory, open_source: SourceFactory
) -> None:
    db = make_db()
    db.add_session("s", name="s")
    db.add_message("s", metadata=HIDDEN, created=100)
    db.add_message("s", metadata=HIDDEN, created=200)
    db.add_session("t", name="t")
    db.add_message("t", created=50)
    db.add_message("t", metadata={"userVisible": True, "agentVisible": False}, created=60)
    db.add_message("t", metadata="not json at all", created=70)
    sessions = {s.id: s for s in open_source(db).list_sessions(SessionQuery()).sessions}
    assert sessions["s"].message_count == 0
    assert sessions["t"].message_count == 3
    assert sessions["s"].last_message_at is not None
    assert sessions["s"].last_message_at.timestamp() == 200


def test_a_list_without_counts_reads_no_message_for_them(
    make_db: DbFactory, open_source: SourceFactory
) -> None:
    """The usage overview adds sessions up and needs no counts: counting read every message of
    each page's sessions (50,000 for one long session) in each of its background jobs."""
    db = make_db()
    db.add_session("t", name="t")
    db.add_message("t", created=50)
    source = open_source(db)
    statements: list[str] = []

    def seen(_conn: object, _cursor: object, statement: str, *_rest: object) -> None:
        statements.append(statement)

    event.listen(source._connections.engine, "before_cursor_execute", seen)
    listed = source.list_sessions(SessionQuery(with_counts=False)).sessions
    assert [s.message_count for s in listed] == [None]
    assert not any("GROUP BY messages.session_id" in s for s in statements)
    assert any("FROM sessions" in s for s in statements)  # the trace saw the listing
    counted = source.list_sessions(SessionQuery()).sessions
    assert [s.message_count for s in counted] == [1]
    assert any("GROUP BY messages.session_id" in s for s in statements)


def test_sub_agents_are_children_of_their_parent(
    make_db: DbFactory, open_source: SourceFactory
) -> None:
    db = make_db()
    db.add_session("parent", name="Parent")
    db.add_session("child1", name="C1", session_type="sub_agent", parent_session_id="parent")
    db.add_session("child2", name="C2", session_type="sub_agent", parent_session_id="parent")
    db.add_message("child1", created=1767323045 + 100_000)
    db.add_session("lonely", name="L")
    source = open_source(db)
    top = source.list_sessions(SessionQuery()).sessions
    assert {s.id for s in top} == {"parent", "lonely"}
    assert {s.id: s.has_children for s in top} == {"parent": True, "lonely": False}
    children = source.list_sessions(
        SessionQuery(session_types=None, parent_session_id="parent")
    ).sessions
    assert [c.id for c in children] == ["child1", "child2"]
    assert all(c.parent_session_id == "parent" for c in children)


def test_working_dir_filter_and_type_filters(
    make_db: DbFactory, open_source: SourceFactory
) -> None:
    db = make_db()
    db.add_session("u", name="u", working_dir="/a")
    db.add_session("sch", name="s", working_dir="/b", session_type="scheduled")
    db.add_session("acp", name="acp", working_dir="/a", session_type="acp")
    db.add_session("hid", name="h", working_dir="/a", session_type="hidden")
    source = open_source(db)
    assert {s.id for s in source.list_sessions(SessionQuery()).sessions} == {"u", "sch", "acp"}
    assert {s.id for s in source.list_sessions(SessionQuery(working_dir="/a")).sessions} == {
        "u",
        "acp",
    }
    assert {
        s.id for s in source.list_sessions(SessionQuery(session_types=("hidden",))).sessions
    } == {"hid"}


def test_working_dirs_most_recent_first(make_db: DbFactory, open_source: SourceFactory) -> None:
    db = make_db()
    db.add_session("a", working_dir="/old", updated_at="2026-01-01 00:00:00")
    db.add_session("b", working_dir="/new", updated_at="2026-03-01 00:00:00")
    db.add_session("c", working_dir="/old", updated_at="2026-02-01 00:00:00")
    assert open_source(db).working_dirs() == ["/new", "/old"]


def test_the_whole_list_in_one_pass_equals_the_pages(make_db: Callable[..., GooseDb]) -> None:
    """`gander list` reads every session in one pass (#13 item 2): the same sessions, in the
    same order, with the same counts as page by page."""
    from desktop_app.domain.reading import PAGE
    from desktop_app.domain.source import ArchivedFilter, SessionQuery, WholeListing

    db = make_db()
    for n in range(PAGE + 37):
        sid = f"s{n:04d}"
        db.add_session(
            sid,
            name=f"chat {n}",
            updated_at=f"2026-01-{n % 28 + 1:02d} 10:{n % 60:02d}:00",
            archived_at="2026-02-01 00:00:00" if n % 9 == 0 else None,
        )
        for k in range(n % 4):
            hidden = {"userVisible": k != 1, "agentVisible": True}
            db.add_message(sid, content=f"m{k}", created=1767323045 + n * 10 + k, metadata=hidden)
    # Damaged or odd timestamps: milliseconds beside seconds, a REAL, numeric and other text,
    # a blob; both ways normalise each message as goose does before taking the latest.
    odd: list[tuple[object, ...]] = [
        (1767323045123,),
        (10_000_000_001,),  # milliseconds in April 1970: the seconds value is later
        (1767323999,),
        (1767324000.5,),
        ("1767325000",),
        ("later", b"\x01"),
        ("1800000000000 ms", "9 s"),  # the larger text is not the later time
    ]
    for n, created in enumerate(odd):
        db.add_session(f"odd{n}", name=f"odd {n}", updated_at="2026-01-01 00:00:00")
        db.add_message(f"odd{n}", content="a", created=1767323000)
        db.conn.executemany(
            "INSERT INTO messages (session_id, role, content_json, created_timestamp) "
            "VALUES (?, 'user', '[]', ?)",
            [(f"odd{n}", value) for value in created],
        )
    db.conn.commit()
    source = GooseSource(db.path)
    assert isinstance(source, WholeListing)
    for query in (
        SessionQuery(),
        SessionQuery(archived=ArchivedFilter.INCLUDE, with_empty=False),
        SessionQuery(archived=ArchivedFilter.ONLY),
    ):
        whole = list(source.every_session(query))
        paged: list[Session] = []
        cursor = None
        while True:
            page = source.list_sessions(query, after=cursor, limit=50)
            paged.extend(page.sessions)
            if page.next_cursor is None:
                break
            cursor = page.next_cursor
        assert [(s.id, s.message_count, s.last_message_at) for s in whole] == [
            (s.id, s.message_count, s.last_message_at) for s in paged
        ]
        assert whole
    source.close()
