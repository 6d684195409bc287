"""Search at scale and as the index matched (#20 items 4, 5): words are highlighted where FTS5's
unicode61 tokenizer finds them, and results are ranked and paged by session."""

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop_app.domain.combined import CombinedHistory
from desktop_app.domain.search import fold, words
from desktop_app.rendering.highlight import SearchTerms, highlight_html
from desktop_app.search.histories import HistoriesIndex
from desktop_app.search.index import SearchIndex, index_path
from desktop_app.search.query import parse_query
from desktop_app.search.querying import HITS_PER_SESSION, RANK_CAP
from desktop_app.search.tokens import segment_cjk
from desktop_app.sources.goose import GooseSource
from tests.fixtures.goose_db import GooseDb

BASE = 1_767_323_045

MIXED = (
    "deploy_script foo-bar Café naïve ÉTÉ x²y 東京 Straße ΆΈ Ёж İstanbul a\u200db "
    "surprising is IS, v2.3.1 __init__ ① ｆｕｌｌ n\u0303o"
)


def _index_tokens(text: str) -> list[str]:
    """The words FTS5 itself stores for `text`, in order, with Gander's tokenizer options."""
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'unicode61 remove_diacritics 2')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    conn.execute("INSERT INTO t VALUES (?)", (text,))
    found = [row[0] for row in conn.execute("SELECT term FROM v ORDER BY offset")]
    conn.close()
    return found


def test_words_are_split_and_folded_as_the_index_does() -> None:
    assert [fold(w.group(0)) for w in words(MIXED)] == _index_tokens(segment_cjk(MIXED))


def _marked(html: str) -> list[str]:
    return [part.split(">", 1)[1] for part in html.split('<span style="')[1:]]


def _highlight(html: str, query: str) -> tuple[list[str], int]:
    marked, count = highlight_html(html, SearchTerms(tuple(parse_query(query).terms)))
    return [m.split("</span>")[0] for m in _marked(marked)], count


def test_a_word_is_highlighted_whole_never_inside_another() -> None:
    assert _highlight("<p>Is it surprising? It <b>is</b>.</p>", "is") == (["Is", "is"], 2)


def test_a_prefix_highlights_the_words_it_starts() -> None:
    html = "<p>deployment, redeploy, Deploy_x and <code>deploys</code></p>"
    assert _highlight(html, "deploy*") == (["deployment", "Deploy", "deploys"], 3)


def test_accents_and_case_are_ignored_as_the_index_ignores_them() -> None:
    assert _highlight("<p>Caf&eacute; CAFE cafés</p>", "cafe") == (["Café", "CAFE"], 2)


def test_a_word_split_by_syntax_colouring_is_one_word() -> None:
    html = '<pre><span class="n">re</span><span class="n">try</span> retrying</pre>'
    marked, count = _highlight(html, "retry")
    assert (marked, count) == (["re", "try"], 1)


def test_a_block_tag_ends_a_word() -> None:
    assert _highlight("<td>re</td><td>try</td><p>retry</p>", "retry") == (["retry"], 1)


def test_tool_output_lines_are_never_highlighted_whole() -> None:
    """A line of output is marked at its matching words, not from end to end."""
    line = "ERROR 2026-01-02 webhook invoice_42 failed: timeout after 30s"
    html = "<pre>" + "\n".join([line] * 3) + "</pre>"
    marked, count = _highlight(html, "webhook invoice")
    assert (marked, count) == (["webhook", "invoice"] * 3, 6)


@pytest.mark.parametrize("query", ["", "-excluded word", "role:user"])
def test_nothing_to_look_for_marks_nothing(query: str) -> None:
    terms = parse_query(query).terms if query != "-excluded word" else []
    assert highlight_html("<p>word</p>", SearchTerms(tuple(terms))) == ("<p>word</p>", 0)


def _crowded(db: GooseDb, huge: int, single: int, *, first: int = 0) -> None:
    """One session with `huge` messages matching "webhook invoice", then `single` sessions
    holding one each, newer than all of the huge session's."""
    db.add_session("huge", name="Dockerfile size", working_dir="/home/me/big")
    rows = [("huge", "user", _text(f"webhook invoice retry {n}"), BASE + n) for n in range(huge)]
    for n in range(first, first + single):
        db.add_session(f"s{n}", name="Dockerfile size", working_dir=f"/home/me/p{n}")
        rows.append((f"s{n}", "user", _text(f"the webhook sent invoice {n}"), BASE + huge + n))
    db.conn.execute("BEGIN")
    db.conn.executemany(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp)"
        " VALUES (?, ?, ?, ?)",
        rows,
    )
    db.conn.execute("COMMIT")


def _text(text: str) -> str:
    return f'[{{"type": "text", "text": "{text}"}}]'


def test_one_huge_session_does_not_use_up_the_page(
    make_db: Callable[..., GooseDb], tmp_path: Path
) -> None:
    db = make_db()
    _crowded(db, huge=3 * RANK_CAP, single=150)
    source = GooseSource(db.path)
    index = SearchIndex(index_path(tmp_path / "data", str(db.path)), source)
    try:
        index.update()
        page = index.search("webhook invoice", limit=100)
        assert page.total_sessions == 151
        assert page.total_hits == 3 * RANK_CAP + 150
        assert len(page.sessions) >= 50
        huge = next(s for s in page.sessions if s.session_id == "huge")
        assert huge.match_count == 3 * RANK_CAP
        assert len(huge.hits) == HITS_PER_SESSION
        assert all(s.last_active is not None and s.working_dir for s in page.sessions)
        seen = [s.session_id for s in page.sessions]
        while page.more:
            page = index.search("webhook invoice", limit=100, offset=len(seen))
            assert page.sessions
            seen += [s.session_id for s in page.sessions]
        assert len(seen) == len(set(seen)) == 151
    finally:
        index.close()
        source.close()


def test_sessions_of_several_histories_are_paged_together_with_their_badges(
    make_db: Callable[..., GooseDb], tmp_path: Path
) -> None:
    first = make_db()
    _crowded(first, huge=2 * RANK_CAP, single=40)
    second = make_db(name="work.db")
    _crowded(second, huge=10, single=40, first=100)
    both = CombinedHistory([GooseSource(first.path), GooseSource(second.path)])
    index = HistoriesIndex(tmp_path / "data", both)
    try:
        index.update()
        page = index.search("webhook invoice", limit=60)
        assert page.total_sessions == 82
        assert {s.history for s in page.sessions} == {"goose · sessions.db", "goose · work.db"}
        seen = [s.session_id for s in page.sessions]
        while page.more:
            page = index.search("webhook invoice", limit=60, offset=len(seen))
            seen += [s.session_id for s in page.sessions]
        assert len(seen) == len(set(seen)) == 82
        assert {"goose:huge", "goose-2:huge"} <= set(seen)
    finally:
        index.close()
        both.close()
