"""Every paging path visits every row exactly once, whatever SQLite holds in the key columns
(issue #8, point 6).

SQLite keeps any type in any column: goose writes INTEGER seconds or milliseconds, but a REAL,
a TEXT (valid UTF-8 or not), a BLOB or (in a table without NOT NULL) a NULL can be there, with
ties at page edges. Hypothesis builds such sessions; the oracle is SQLite's own
`ORDER BY created_timestamp, id` (goose's order), and each paging loop must advance on every
page, so a cursor that stops moving fails here instead of hanging.
"""

import math
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop_app.domain.reading import iter_messages, iter_sessions
from desktop_app.domain.source import ArchivedFilter, SessionCursor, SessionQuery, Source
from desktop_app.sources.goose import GooseSource
from tests.fixtures.goose_db import GooseDb

Stored = tuple[str, object]
"""How to store a value: ("value", v) binds v as it is; ("text-bytes", b) stores the bytes as
TEXT that need not be UTF-8."""

_NUMBERS = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.integers(min_value=1_700_000_000, max_value=1_700_000_005),
    st.integers(min_value=1_700_000_000_000, max_value=1_700_000_000_005),
    st.floats(allow_nan=False),
    st.sampled_from([1_700_000_000.5, 1_700_000_000.25, math.inf, -math.inf]),
)
_STORED: st.SearchStrategy[Stored] = st.one_of(
    st.tuples(st.just("value"), _NUMBERS),
    st.tuples(st.just("value"), st.text(max_size=6)),
    st.tuples(st.just("value"), st.binary(max_size=4)),
    st.tuples(st.just("value"), st.none()),
    st.tuples(st.just("text-bytes"), st.binary(min_size=1, max_size=4)),
)


def _nullable_messages(db: GooseDb) -> None:
    """goose's table, minus NOT NULL on `created_timestamp` (as a hand-made or damaged file may
    have it), with goose's indexes."""
    sql = db.execute("SELECT sql FROM sqlite_master WHERE name = 'messages'")[0][0]
    indexes = [
        row[0]
        for row in db.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'messages'"
            " AND sql IS NOT NULL"
        )
    ]
    db.conn.execute("DROP TABLE messages")
    db.conn.execute(sql.replace("created_timestamp INTEGER NOT NULL", "created_timestamp INTEGER"))
    for index in indexes:
        db.conn.execute(index)


def _insert(db: GooseDb, session_id: str, stored: Stored, text: str) -> None:
    how, value = stored
    placeholder = "CAST(? AS TEXT)" if how == "text-bytes" else "?"
    db.conn.execute(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json)"
        f" VALUES (?, 'user', ?, {placeholder}, '{{}}')",
        (session_id, f'[{{"type":"text","text":"{text}"}}]', value),
    )


def _build(folder: Path, sessions: list[list[Stored]]) -> GooseDb:
    db = GooseDb(folder / "sessions.db")
    _nullable_messages(db)
    for number, values in enumerate(sessions):
        db.add_session(f"s{number:03d}", name=f"n{number}", updated_at="2026-01-01 00:00:00")
        for index, stored in enumerate(values):
            _insert(db, f"s{number:03d}", stored, f"m{index}")
    return db


def _oracle(db: GooseDb, session_id: str) -> list[int]:
    return [
        row[0]
        for row in db.execute(
            "SELECT id FROM messages WHERE session_id = ? ORDER BY created_timestamp, id",
            (session_id,),
        )
    ]


def _by_ranges(source: GooseSource, session_id: str, size: int) -> list[int]:
    """The transcript read range by range over its positions, as the window reads it."""
    positions = source.positions(session_id)
    seen: list[int] = []
    for start in range(0, len(positions), size):
        part = positions[start : start + size]
        seen += [m.row_id for m in source.messages_between(session_id, part[0], part[-1])]
    return seen


def _with_db(test: Callable[[GooseDb, GooseSource], None], sessions: list[list[Stored]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        db = _build(Path(folder), sessions)
        source = GooseSource(db.path, busy_timeout_s=5)
        try:
            test(db, source)
        finally:
            source.close()
            db.close()


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    values=st.lists(_STORED, min_size=1, max_size=6).flatmap(
        lambda pool: st.lists(st.sampled_from(pool), min_size=1, max_size=25)
    ),
    size=st.integers(min_value=1, max_value=5),
    data=st.data(),
)
def test_messages_page_once_each_in_sqlite_order(
    values: list[Stored], size: int, data: st.DataObject
) -> None:
    def check(db: GooseDb, source: GooseSource) -> None:
        expected = _oracle(db, "s000")
        assert _by_ranges(source, "s000", size) == expected
        cursors = source.positions("s000")
        assert [c.row_id for c in cursors] == expected
        assert sorted(cursors) == list(cursors)
        first = data.draw(st.integers(min_value=0, max_value=len(expected) - 1))
        last = data.draw(st.integers(min_value=first, max_value=len(expected) - 1))
        between = source.messages_between("s000", cursors[first], cursors[last])
        assert [m.row_id for m in between] == expected[first : last + 1]
        assert [m.cursor for m in between] == list(cursors[first : last + 1])
        assert [m.row_id for m in iter_messages(source, "s000")] == expected
        picked = sorted(set(data.draw(st.lists(st.sampled_from(list(cursors)), max_size=6))))
        assert [m.cursor for m in source.messages_at("s000", picked)] == picked

    _with_db(check, [values])


@settings(max_examples=25, deadline=None)
@given(
    sessions=st.lists(
        st.lists(st.tuples(st.just("value"), _NUMBERS), max_size=3) | st.lists(_STORED, max_size=3),
        min_size=1,
        max_size=30,
    ),
    size=st.integers(min_value=1, max_value=7),
)
def test_sessions_page_once_each(sessions: list[list[Stored]], size: int) -> None:
    def check(db: GooseDb, source: GooseSource) -> None:
        query = SessionQuery(session_types=None, archived=ArchivedFilter.INCLUDE)
        whole = [s.id for s in source.list_sessions(query, limit=10_000).sessions]
        assert sorted(whole) == [f"s{n:03d}" for n in range(len(sessions))]
        paged: list[str] = []
        cursor: SessionCursor | None = None
        while True:
            page = source.list_sessions(query, after=cursor, limit=size)
            paged += [s.id for s in page.sessions]
            if page.next_cursor is None:
                break
            assert cursor is None or page.next_cursor < cursor, "session paging stalled"
            cursor = page.next_cursor
        assert paged == whole
        assert [s.id for s in iter_sessions(source, query, None)] == whole

    _with_db(check, sessions)


def test_fractional_timestamps_at_a_page_edge_list_every_session(tmp_path: Path) -> None:
    """The reported case: 600 sessions, a third with REAL timestamps; 590 were listed."""
    db = GooseDb(tmp_path / "sessions.db")
    for number in range(600):
        db.add_session(f"s{number:04d}", name=f"n{number}")
        created = 1_767_323_045 + (number % 7) * 0.37 if number % 3 == 0 else 1_767_323_045 + number
        db.conn.execute(
            "INSERT INTO messages (session_id, role, content_json, created_timestamp,"
            " metadata_json) VALUES (?, 'user', '[]', ?, '{}')",
            (f"s{number:04d}", created),
        )
    source = GooseSource(db.path)
    try:
        query = SessionQuery(session_types=None)
        listed = [s.id for s in iter_sessions(source, query, None)]
        assert len(listed) == len(set(listed)) == 600
        fractional = source.get_session("s0003")
        assert fractional.last_message_at is not None
        assert fractional.last_message_at.timestamp() == 1_767_323_045 + 3 * 0.37
    finally:
        source.close()
        db.close()
    assert sqlite3.sqlite_version_info >= (3, 37)


class _Stuck:
    """A source whose pages never advance: each call hands back the same page and cursor."""

    def __init__(self, session: Any) -> None:
        self._session = session

    def list_sessions(self, query: SessionQuery, *, after: Any = None, limit: int = 100) -> Any:
        from desktop_app.domain.source import SessionPage

        del query, after, limit
        return SessionPage(sessions=(self._session,), next_cursor=SessionCursor(5, "s"))


def test_paging_loops_fail_instead_of_hanging_when_a_cursor_stops() -> None:
    from desktop_app.domain.errors import GanderError
    from desktop_app.domain.session import Session

    stuck = cast(Source, _Stuck(Session(id="s", name="s")))
    with pytest.raises(GanderError, match="stopped advancing"):
        _first(iter_sessions(stuck, SessionQuery(), None), 10)


def _first(items: Iterator[object], most: int) -> None:
    for count, _ in enumerate(items):
        assert count < most, "the loop went on"
