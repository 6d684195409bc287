"""The search summary counts the same with and without `--limit` and says "1 session"; title
matches are labelled and every filter applies to them (#10 item 10)."""

from collections.abc import Callable
from pathlib import Path

import pytest

from desktop_app.cli import main
from desktop_app.domain.search import SearchResults, SessionResult, match_label, summary_line
from desktop_app.search.index import open_index
from desktop_app.sources.goose import GooseSource
from tests.fixtures.goose_db import GooseDb


def _db(make_db: Callable[..., GooseDb]) -> GooseDb:
    db = make_db()
    db.add_session("old", name="Walrus migration plan", updated_at="2025-01-01 00:00:00")
    db.add_message("old", content="nothing about it here", created=1735689600)
    for index in range(4):
        sid = f"s{index}"
        db.add_session(sid, name=f"Chat {index}", updated_at="2026-03-01 00:00:00")
        db.add_message(sid, content=f"the walrus sat on rock {index}", created=1772323200 + index)
    return db


def test_summary_words() -> None:
    one = SearchResults(
        query="x", sessions=(), total_hits=1, total_sessions=1, capped=False, elapsed_ms=0.0
    )
    assert summary_line(one) == "1 matching message in 1 session"
    many = SearchResults(
        query="x", sessions=(), total_hits=3, total_sessions=2, capped=True, elapsed_ms=0.0
    )
    assert summary_line(many) == (
        "3 matching messages in 2 sessions (the newest matches were ranked)"
    )


def test_match_labels() -> None:
    def result(count: int, named: bool) -> SessionResult:
        return SessionResult(
            session_id="s",
            name="n",
            working_dir=None,
            archived=False,
            hits=(),
            match_count=count,
            name_matched=named,
        )

    assert match_label(result(0, True)) == "title match"
    assert match_label(result(1, True)) == "1 match · title match"
    assert match_label(result(3, False)) == "3 matches"


def test_counts_do_not_depend_on_the_page(
    make_db: Callable[..., GooseDb], capsys: pytest.CaptureFixture[str]
) -> None:
    db = _db(make_db)
    lines = []
    for limit in ("1", "20"):
        assert main(["--db", str(db.path), "search", "walrus", "--limit", limit]) == 0
        lines.append(capsys.readouterr().err.split(",")[0])
    assert lines[0] == lines[1] == "gander: 4 matching messages in 5 sessions"


def test_filters_apply_to_title_matches(make_db: Callable[..., GooseDb], tmp_path: Path) -> None:
    db = _db(make_db)
    source = GooseSource(db.path)
    index = open_index(tmp_path / "data", source)
    try:
        index.update()
        plain = index.search("walrus")
        titled = [s for s in plain.sessions if s.name_matched]
        assert [s.session_id for s in titled] == ["old"]
        assert match_label(titled[0]) == "title match"
        for query in ("walrus after:2026-01-01", "walrus role:user", "walrus has:image"):
            found = index.search(query)
            assert "old" not in {s.session_id for s in found.sessions}, query
        assert "old" in {s.session_id for s in index.search("walrus before:2025-06-01").sessions}
    finally:
        index.close()
        source.close()
