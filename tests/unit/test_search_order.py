"""Ranking by session, made faster (#20 item 5): the order is worked out for every matching
session, but only the sessions a page shows are read, and the results are exactly what the
slower ranking (kept here as the reference) gave."""

import sqlite3
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop_app.domain.source import folder_matches
from desktop_app.search import querying
from desktop_app.search.index import SearchIndex, index_path
from desktop_app.search.query import ParsedQuery, parse_query
from desktop_app.search.querying import (
    WEIGHTS,
    Candidate,
    RankedSession,
    Ranking,
    page_of,
    rank_sessions,
    run_query,
    session_results,
)
from desktop_app.sources.goose import GooseSource
from tests.fixtures.goose_db import GooseDb

BASE = 1_767_323_045
WORDS = ("alpha", "beta", "gamma", "delta")
QUERIES = (
    "alpha",
    "beta gamma",
    "alpha OR delta",
    "gam*",
    '"alpha beta"',
    "delta -beta",
    "alpha role:user",
    "beta in:tools",
    "gamma in:/home/me/one",
    "alpha in:ONE",
    "in:/home/me/one",
    "alpha session:s1",
    "session:s2",
    "role:assistant",
)


# ---- the reference: the ranking as it was before the page was cut before the sessions were read


def _reference_session_filters(parsed: ParsedQuery) -> tuple[str, list[object]]:
    """`_session_filters` as it stood at 49ebffb: the folders matched once per session."""
    clauses: list[str] = ["1"]
    params: list[object] = []
    if parsed.dirs:
        matching = " OR ".join("folder_matches(?, f.working_dir)" for _ in parsed.dirs)
        clauses.append(f"s.id IN (SELECT f.id FROM sessions f WHERE {matching})")
        params.extend(parsed.dirs)
    if parsed.types:
        clauses.append(f"s.session_type IN ({', '.join('?' for _ in parsed.types)})")
        params.extend(sorted(parsed.types))
    if parsed.archived_only:
        clauses.append("s.archived = 1")
    return " AND ".join(clauses), params


def _reference(conn: sqlite3.Connection, parsed: ParsedQuery) -> Ranking:
    """`rank_sessions` as it stood at 49ebffb: every matching session made, named and sorted."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(querying, "_session_filters", _reference_session_filters)
        return _reference_ranking(conn, parsed)


def _reference_ranking(conn: sqlite3.Connection, parsed: ParsedQuery) -> Ranking:
    if parsed.match is None and not parsed.narrows:
        return Ranking(sessions=[], total_hits=0, capped=False)
    filters, params = querying._filters(parsed)
    join = " JOIN sessions s ON s.id = d.session_id" if querying._needs_sessions(parsed) else ""
    if parsed.match is not None:
        source_rows = f"fts f JOIN docs d ON d.rowid = f.rowid{join} WHERE fts MATCH ? AND"
        rowid = "f.rowid"
        scores = f"bm25(fts, {', '.join(map(str, WEIGHTS))}) AS rank, bm25(fts, 1, 1, 0, 0)"
        params = [parsed.match, *params]
    else:
        source_rows = f"docs d{join} WHERE"
        rowid = "d.rowid"
        scores = "0.0 AS rank, -1.0"
    ranked_rows = conn.execute(
        f"SELECT {rowid} AS doc, {scores} AS prose, {querying._COLUMNS} FROM {source_rows}"
        f" {filters} ORDER BY {rowid} DESC LIMIT ?",
        [*params, querying.RANK_CAP + 1],
    ).fetchall()
    matched = [row["session_id"] for row in ranked_rows]
    if len(ranked_rows) > querying.RANK_CAP:
        ranked_rows = ranked_rows[: querying.RANK_CAP]
        matched = matched[: querying.RANK_CAP] + [
            row[0]
            for row in conn.execute(
                f"SELECT d.session_id FROM {source_rows} {filters} AND {rowid} < ?"
                f" ORDER BY {rowid} DESC LIMIT ?",
                [*params, ranked_rows[-1]["doc"], querying.COUNT_CAP - querying.RANK_CAP + 1],
            )
        ]
    counts = Counter(matched[: querying.COUNT_CAP])
    info = {
        row["id"]: row
        for row in conn.execute(
            "SELECT id, name, working_dir, archived, last_active FROM sessions"
        ).fetchall()
        if row["id"] in counts
    }
    by_session: dict[str, list[Candidate]] = defaultdict(list)
    for row in ranked_rows:
        by_session[row["session_id"]].append(querying._candidate(row, row["prose"] == 0.0))
    for found in by_session.values():
        found.sort(key=lambda c: (c.tool_output_only, c.rank, -c.doc))
    best = {sid: (int(c[0].tool_output_only), c[0].rank) for sid, c in by_session.items()}
    named = {row[0]: row for row in querying._name_matches(conn, parsed)}

    def made(
        sid: str,
        count: int,
        best: tuple[int, float] | None,
        name_matched: bool,
        row: Mapping[str, object],
        *,
        ranked: tuple[Candidate, ...] = (),
    ) -> RankedSession:
        last_active = row["last_active"]
        active = last_active if isinstance(last_active, int) else None
        tool_only, rank = best if best is not None else (0, 1e300)
        name, folder = row["name"], row["working_dir"]
        return RankedSession(
            sid,
            (int(not name_matched), int(best is None), tool_only, rank, -float(active or 0)),
            count,
            name_matched,
            name if isinstance(name, str) else sid,
            folder if isinstance(folder, str) else None,
            bool(row["archived"]),
            active,
            ranked,
        )

    def title_only(name: str, folder: str | None, archived: bool) -> dict[str, object]:
        return {"name": name, "working_dir": folder, "archived": archived, "last_active": None}

    sessions = [
        made(
            sid,
            count,
            best.get(sid),
            named.pop(sid, None) is not None,
            info.get(sid) or title_only(sid, None, False),
            ranked=tuple(by_session.get(sid, ())),
        )
        for sid, count in counts.items()
    ]
    sessions += [
        made(sid, 0, None, True, title_only(name, folder, archived))
        for sid, name, folder, archived in named.values()
    ]
    sessions.sort(key=lambda s: (s.order, s.session_id))
    return Ranking(
        sessions=sessions,
        total_hits=min(len(matched), querying.COUNT_CAP),
        capped=len(matched) > querying.RANK_CAP,
        all_counted=len(matched) <= querying.COUNT_CAP,
    )


# ---- a corpus of a few sessions, with ties, hidden messages, tool output and title matches

_MESSAGE = st.tuples(
    st.integers(0, 7),  # the session it is in
    st.sampled_from(["user", "assistant"]),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=4),
    st.booleans(),  # the words are in a tool's output, not said
    st.booleans(),  # hidden from the user
    st.integers(0, 3),  # its time: few, so sessions tie on their last activity
)
Message = tuple[int, str, list[str], bool, bool, int]
_SESSION = st.tuples(
    st.lists(st.sampled_from(WORDS), max_size=2),  # its name
    st.sampled_from(["/home/me/one", "/home/me/one/sub", "/home/me/onex", "/HOME/ME/ONE", ""]),
)


def _fill(db: GooseDb, sessions: list[tuple[list[str], str]], messages: list[Message]) -> None:
    for n, (name, folder) in enumerate(sessions):
        db.add_session(f"s{n}", name=" ".join(name) or f"untitled {n}", working_dir=folder)
    for number, (session, role, words, in_tool, hidden, at) in enumerate(messages):
        text = " ".join(words)
        content: object = text
        if in_tool:
            content = [
                {
                    "type": "toolResponse",
                    "id": f"t{number}",
                    "toolResult": {
                        "status": "success",
                        "value": {"content": [{"type": "text", "text": text}], "isError": False},
                    },
                }
            ]
        db.add_message(
            f"s{session % len(sessions)}",
            role,
            content,
            created=BASE + at,
            metadata={"userVisible": not hidden, "agentVisible": True},
        )


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    sessions=st.lists(_SESSION, min_size=1, max_size=8),
    messages=st.lists(_MESSAGE, max_size=40),
    rank_cap=st.integers(1, 6),
    count_room=st.integers(0, 10),
    limit=st.sampled_from([1, 2, 5, 50]),
)
def test_sessions_come_in_the_order_and_with_the_hits_the_reference_gives(  # noqa: PLR0917
    monkeypatch: pytest.MonkeyPatch,
    sessions: list[tuple[list[str], str]],
    messages: list[Message],
    rank_cap: int,
    count_room: int,
    limit: int,
) -> None:
    """Small caps, so ranked, counted and uncounted matches all occur; every page of every
    query, and the whole ranking several histories merge, are the reference's."""
    monkeypatch.setattr(querying, "RANK_CAP", rank_cap)
    monkeypatch.setattr(querying, "COUNT_CAP", rank_cap + count_room)
    with tempfile.TemporaryDirectory() as folder:
        db = GooseDb(Path(folder) / "sessions.db")
        _fill(db, sessions, messages)
        source = GooseSource(db.path)
        index = SearchIndex(index_path(Path(folder) / "data", str(db.path)), source)
        try:
            index.update()
            conn = index._storage.reader
            for text in QUERIES:
                parsed = parse_query(text)
                expected = _reference(conn, parsed)
                assert rank_sessions(conn, parsed) == expected, text
                for offset in range(len(expected.sessions) + 1):
                    got = run_query(conn, source, text, parsed, limit, offset=offset)
                    chosen = page_of(expected.sessions, offset, limit)
                    assert got.sessions == tuple(session_results(conn, source, parsed, chosen))
                    assert (got.total_sessions, got.total_hits) == (
                        len(expected.sessions),
                        expected.total_hits,
                    )
                    assert (got.capped, got.all_counted) == (expected.capped, expected.all_counted)
        finally:
            index.close()
            source.close()
            db.close()


def test_a_page_reads_the_names_of_its_own_sessions_only(
    make_db: Callable[..., GooseDb], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """150 sessions match, 20 are shown: the names and folders of those 20 are read, not of
    all 150 (reading every matching session's made the median query of `benchmarks.search`
    36.9 ms). Each message is longer than the last, so no two rank alike: sessions tied on
    their best hit are all read, as their last activity decides their order."""
    db = make_db()
    for n in range(150):
        db.add_session(f"s{n}", name=f"Session {n}", working_dir=f"/home/me/p{n}")
    db.insert_many(
        "messages",
        [
            {
                "session_id": f"s{n}",
                "role": "user",
                "content_json": f'[{{"type": "text", "text": "webhook invoice{" pad" * n}"}}]',
                "created_timestamp": BASE + n,
                "metadata_json": '{"userVisible": true, "agentVisible": true}',
            }
            for n in range(150)
        ],
    )
    read: list[int] = []
    info = querying._session_info

    def counted(conn: sqlite3.Connection, session_ids: list[str]) -> dict[str, sqlite3.Row]:
        read.append(len(session_ids))
        return info(conn, session_ids)

    monkeypatch.setattr(querying, "_session_info", counted)
    source = GooseSource(db.path)
    index = SearchIndex(index_path(tmp_path / "data", str(db.path)), source)
    try:
        index.update()
        page = index.search("webhook invoice", limit=20)
        assert page.total_sessions == 150
        assert len(page.sessions) == 20
        assert sum(read) == len(page.sessions)
        assert all(s.name == f"Session {s.session_id[1:]}" for s in page.sessions)
    finally:
        index.close()
        source.close()


def test_a_folder_filter_matches_each_folder_once_not_each_session(
    make_db: Callable[..., GooseDb], tmp_path: Path
) -> None:
    """`in:DIR` asks `folder_matches` once per distinct folder: 60 sessions in 3 folders are 3
    calls a statement, not 60 (20,000 sessions made `ledger in:project7` 300 ms)."""
    db = make_db()
    for n in range(60):
        db.add_session(f"s{n}", name=f"Session {n}", working_dir=f"/home/me/p{n % 3}")
        db.add_message(f"s{n}", "user", "webhook invoice", created=BASE + n)
    source = GooseSource(db.path)
    index = SearchIndex(index_path(tmp_path / "data", str(db.path)), source)
    calls: list[str | None] = []

    def counted(folder: str, working_dir: str | None) -> bool:
        calls.append(working_dir)
        return folder_matches(folder, working_dir)

    try:
        index.update()
        index._storage.reader.create_function("folder_matches", 2, counted)
        page = index.search("webhook in:/home/me/p1", limit=100)
        assert {s.session_id for s in page.sessions} == {f"s{n}" for n in range(1, 60, 3)}
        assert len(calls) <= 3 * 3  # the ranked, the title and (none here) the counted matches
    finally:
        index.close()
        source.close()


def test_a_session_filter_walks_that_session_s_matches_only(
    make_db: Callable[..., GooseDb], tmp_path: Path
) -> None:
    """`session:ID` seeks to the session's documents: its query does a small part of the work
    of the same words over every session (it walked all their matches, then kept its own)."""
    db = make_db()
    db.add_session("one", name="One")
    db.add_message("one", "user", "chrome tab", created=BASE)
    rows = []
    for n in range(50):
        db.add_session(f"s{n}", name=f"Session {n}")
        rows += [
            {
                "session_id": f"s{n}",
                "role": "user",
                "content_json": f'[{{"type": "text", "text": "chrome {m}"}}]',
                "created_timestamp": BASE + 1 + m,
                "metadata_json": '{"userVisible": true, "agentVisible": true}',
            }
            for m in range(40)
        ]
    db.insert_many("messages", rows)
    source = GooseSource(db.path)
    index = SearchIndex(index_path(tmp_path / "data", str(db.path)), source)
    steps = [0]

    def step() -> int:
        steps[0] += 1
        return 0

    def work(text: str) -> int:
        steps[0] = 0
        index._storage.reader.set_progress_handler(step, 100)
        try:
            rank_sessions(index._storage.reader, parse_query(text))
        finally:
            index._storage.reader.set_progress_handler(None, 0)
        return steps[0]

    try:
        index.update()
        page = index.search("chrome session:one")
        assert [(s.session_id, s.match_count) for s in page.sessions] == [("one", 1)]
        assert work("chrome session:one") * 20 < work("chrome")
    finally:
        index.close()
        source.close()
