"""Several histories at once: one merged list by last activity, ids unique across histories,
capabilities per session, search over all of them, and the CLI's `ID` / `KIND:ID`."""

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop_app.cli import main
from desktop_app.domain.combined import CombinedHistory, distinguishing, session_reference
from desktop_app.domain.errors import UnknownSession, WriteRefused
from desktop_app.domain.reading import EVERY_SESSION, count_sessions, iter_messages, iter_sessions
from desktop_app.domain.source import SessionCursor, SessionQuery
from desktop_app.search.histories import HistoriesIndex
from desktop_app.sources.goose import GooseSource
from desktop_app.sources.registry import open_history
from tests.fixtures import histories
from tests.fixtures.goose_db import GooseDb

DbFactory = Callable[..., GooseDb]


def _goose(make_db: DbFactory, count: int) -> GooseDb:
    db = make_db()
    for index in range(count):
        sid = f"2026010{index % 9 + 1}_{index}"
        stamp = f"2026-01-{index % 28 + 1:02} 10:00:{index % 60:02}"
        db.add_session(sid, name=f"goose chat {index}", created_at=stamp, updated_at=stamp)
        db.add_message(sid, "user", f"hello from goose {index}")
    return db


def _toolnexus(folder: Path, count: int) -> Path:
    for index in range(count):
        histories.write_json(
            folder / f"thread-{index}.json",
            [{"role": "user", "content": f"hello from toolnexus {index}"}],
            mtime=1_767_000_000 + index * 100_000,
        )
    return folder


@pytest.fixture
def combined(make_db: DbFactory, tmp_path: Path) -> CombinedHistory:
    db = _goose(make_db, 30)
    folder = _toolnexus(tmp_path / "tn", 25)
    return CombinedHistory(
        [GooseSource(db.path), open_history(folder, cache_dir=tmp_path / "data")]
    )


def test_listing_merges_by_last_activity_and_pages_visit_each_once(
    combined: CombinedHistory,
) -> None:
    seen: list[str] = []
    keys: list[float] = []
    cursor: SessionCursor | None = None
    for _ in range(100):
        page = combined.list_sessions(EVERY_SESSION, after=cursor, limit=7)
        seen.extend(s.id for s in page.sessions)
        keys.extend(s.list_key or 0.0 for s in page.sessions)
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert len(seen) == len(set(seen)) == 55
    assert keys == sorted(keys, reverse=True)
    assert {s.split(":")[0] for s in seen} == {"goose", "toolnexus"}
    everything = [s.id for s in iter_sessions(combined, EVERY_SESSION)]
    assert everything == seen


def test_history_filter_and_tags(combined: CombinedHistory) -> None:
    only = list(iter_sessions(combined, SessionQuery(session_types=None, history="toolnexus")))
    assert len(only) == 25
    assert all(s.history == "toolnexus" for s in only)
    session = combined.get_session("toolnexus:thread-3")
    assert session.history == "toolnexus"
    assert [m.parts[0].text for m in iter_messages(combined, session.id)] == [  # type: ignore[union-attr]
        "hello from toolnexus 3"
    ]
    # One history of each agent: the agent's name alone.
    assert combined.labels() == {"goose": "goose", "toolnexus": "toolnexus"}


def test_two_histories_of_one_kind_are_numbered(make_db: DbFactory, tmp_path: Path) -> None:
    first = _goose(make_db, 2)
    second = GooseDb(tmp_path / "other.db")
    second.add_session("20260101_0", name="same id, other file")
    second.close()
    both = CombinedHistory([GooseSource(first.path), GooseSource(second.path)])
    assert both.tags == ["goose", "goose-2"]
    # Two of one agent: told apart by their files' names here (their folders are one).
    assert both.labels() == {"goose": "goose · sessions.db", "goose-2": "goose · other.db"}
    with pytest.raises(UnknownSession, match="goose:20260101_0, goose-2:20260101_0"):
        session_reference(both, "20260101_0")
    with pytest.raises(UnknownSession, match="more than one"):
        session_reference(both, "goose:20260101_0")
    assert session_reference(both, "goose-2:20260101_0") == "goose-2:20260101_0"
    assert session_reference(both, "20260102_1") == "goose:20260102_1"
    with pytest.raises(UnknownSession, match="no session"):
        session_reference(both, "nope")
    both.close()


def test_writes_go_to_the_session_s_own_history(combined: CombinedHistory) -> None:
    assert combined.write_access("goose:20260101_0").can_rename
    assert not combined.write_access("toolnexus:thread-1").can_rename
    combined.rename("goose:20260101_0", "renamed here")
    assert combined.get_session("goose:20260101_0").name == "renamed here"
    with pytest.raises(WriteRefused, match="toolnexus histories are read-only"):
        combined.rename("toolnexus:thread-1", "no")


def test_search_covers_every_history(combined: CombinedHistory, tmp_path: Path) -> None:
    index = HistoriesIndex(tmp_path / "data", combined)
    try:
        index.update()
        found = index.search("hello", limit=200)
        sessions = {s.session_id.split(":")[0] for s in found.sessions}
        assert sessions == {"goose", "toolnexus"}
        hit = next(h for h in found.hits if h.session_id.startswith("toolnexus:"))
        assert combined.messages_at(hit.session_id, [hit.cursor])  # type: ignore[list-item]
        assert index.search('"toolnexus 7"').sessions[0].session_id == "toolnexus:thread-7"
    finally:
        index.close()


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_with_two_histories(
    make_db: DbFactory, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _goose(make_db, 3)
    folder = _toolnexus(tmp_path / "tn", 2)
    both = ["--db", str(db.path), "--db", str(folder)]
    code, out, err = _run([*both, "list", "--json"], capsys)
    assert (code, err) == (0, "")
    items = json.loads(out)
    assert len(items) == 5
    kinds = {item["history"]["kind"] for item in items}
    assert kinds == {"goose", "toolnexus"}
    toolnexus = next(i for i in items if i["history"]["kind"] == "toolnexus")
    assert toolnexus["id"] in {"thread-0", "thread-1"}
    assert toolnexus["history"]["location"] == str(folder.resolve())

    code, out, _ = _run([*both, "show", "thread-1", "--format", "json"], capsys)
    assert code == 0
    shown = json.loads(out)
    assert shown["session"]["id"] == "thread-1"
    assert shown["session"]["history"]["kind"] == "toolnexus"
    code, out, _ = _run([*both, "show", "toolnexus:thread-1"], capsys)
    assert code == 0
    assert "hello from toolnexus 1" in out

    code, out, err = _run([*both, "search", "hello", "--json"], capsys)
    assert code == 0
    hits = json.loads(out)
    assert {h["history"]["kind"] for h in hits} == {"goose", "toolnexus"}

    code, out, err = _run([*both, "rename", "thread-1", "x"], capsys)
    assert (code, out) == (1, "")
    assert err == "gander: toolnexus histories are read-only in Gander.\n"
    code, out, err = _run([*both, "archive", "20260101_0"], capsys)
    assert (code, err) == (0, "")


def test_cli_single_history_keeps_plain_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _toolnexus(tmp_path / "tn", 2)
    code, out, err = _run(["--db", str(folder), "list"], capsys)
    assert (code, err) == (0, "")
    assert out.startswith("thread-1\t")
    code, out, _ = _run(["--db", str(folder), "show", "toolnexus:thread-0"], capsys)
    assert code == 0
    assert "hello from toolnexus 0" in out


@pytest.mark.parametrize(
    "query",
    [SessionQuery(), SessionQuery(text="chat 1"), SessionQuery(history="toolnexus")],
    ids=["all", "text", "one-history"],
)
def test_counts_match_the_listing(combined: CombinedHistory, query: SessionQuery) -> None:
    """The status bar's total (#10 item 14): each reader's own count, summed."""
    listed = sum(1 for _ in iter_sessions(combined, query))
    assert listed > 0
    assert combined.count_sessions(query) == listed
    for tag, source in combined.readers():
        if query.history in (None, tag):
            assert count_sessions(source, query) == sum(1 for _ in iter_sessions(source, query))


ODD_IDS = [
    "a",
    "a\x00",
    "a\x00b",
    "a\x00!",
    "a\x00\x00",
    "a\x01",
    "a\x01\x01",
    "a\x01b",
    *(f"c{chr(code)}d" for code in [*range(32), 127]),
]
"""Session ids with NUL and every other control character, several sharing a prefix (each
with the same last activity, so the ids alone order them)."""


def _odd_goose(make_db: DbFactory) -> GooseDb:
    db = make_db()
    for sid in ODD_IDS:
        stamp = "2026-01-05 10:00:00"
        db.add_session(sid, name=f"odd {sid!r}", created_at=stamp, updated_at=stamp)
        db.add_message(sid, "user", "hello")
    return db


def test_control_characters_in_ids_never_break_paging(make_db: DbFactory, tmp_path: Path) -> None:
    """#18 item 10: the combined cursor held the last id and each history's position split at
    the first NUL, so an id with a NUL made the next page a JSON error (`list --json` failed,
    the window stopped at its first page)."""
    db = _odd_goose(make_db)
    both = CombinedHistory(
        [GooseSource(db.path), open_history(_toolnexus(tmp_path / "tn", 5), cache_dir=tmp_path)]
    )
    try:
        whole = [s.id for s in both.list_sessions(EVERY_SESSION, limit=1000).sessions]
        for limit in (1, 2, 3, 7):
            seen: list[str] = []
            cursor: SessionCursor | None = None
            for _ in range(200):
                page = both.list_sessions(EVERY_SESSION, after=cursor, limit=limit)
                assert page.advances_from(cursor)
                seen.extend(s.id for s in page.sessions)
                if page.next_cursor is None:
                    break
                cursor = page.next_cursor
            assert seen == whole
        assert sorted(whole) == sorted(
            [f"goose:{sid}" for sid in ODD_IDS] + [f"toolnexus:thread-{i}" for i in range(5)]
        )
    finally:
        both.close()


def test_cli_lists_ids_with_control_characters(
    make_db: DbFactory,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """#18 item 10: `list --json` over several histories pages past a NUL in an id."""
    monkeypatch.setattr("desktop_app.domain.reading.PAGE", 1)  # every id ends a page
    db = _odd_goose(make_db)
    folder = _toolnexus(tmp_path / "tn", 3)
    code, out, err = _run(["--db", str(db.path), "--db", str(folder), "list", "--json"], capsys)
    assert (code, err) == (0, "")
    ids = [item["id"] for item in json.loads(out)]
    assert sorted(ids) == sorted([*ODD_IDS, *(f"thread-{i}" for i in range(3))])


def test_histories_of_one_agent_are_told_apart_by_their_folders() -> None:
    """Three goose databases, each `sessions.db`: their badges name the folders that differ."""
    assert distinguishing(
        [
            "/home/a/work/.local/share/goose/sessions/sessions.db",
            "/home/a/play/.local/share/goose/sessions/sessions.db",
            "/mnt/backup/goose/sessions/sessions.db",
        ]
    ) == ["work", "play", "backup"]
    assert distinguishing(["/x/one.db", "/x/two.db"]) == ["one.db", "two.db"]
    assert distinguishing(["/same", "/same"]) == ["/same", "/same"]
