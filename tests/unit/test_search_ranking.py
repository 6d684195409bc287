"""Search at scale and as the index matched (#20 items 4, 5): words are highlighted where FTS5's
unicode61 tokenizer finds them, and results are ranked and paged by session."""

import sqlite3

import pytest

from desktop_app.domain.search import fold, words
from desktop_app.rendering.highlight import SearchTerms, highlight_html
from desktop_app.search.query import parse_query
from desktop_app.search.tokens import segment_cjk

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
