"""Snippets made faster (#20 item 5: the page's snippets were a fifth of a query in
`benchmarks.search`): the first match is found by a regular expression in ASCII text and each
distinct word is folded once, and every snippet is the one the word-by-word search gave."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.domain import search
from desktop_app.domain.search import Term, matches, words
from desktop_app.search import snippets
from desktop_app.search.snippets import make_snippet


def _reference_first_match(text: str, terms: list[Term]) -> int | None:
    """`_first_match` as it stood at 785e029: every word folded until one matches."""
    for word in words(text):
        if matches(word.group(0), terms):
            return word.start()
    return None


def _reference_marked(passage: str, terms: list[Term]) -> tuple[str, bool, bool] | None:
    """`_marked` as it stood at 785e029."""
    found = list(words(passage))
    hit = next((n for n, w in enumerate(found) if matches(w.group(0), terms)), None)
    if hit is None:
        return None
    first = max(0, hit - snippets.CONTEXT_WORDS)
    last = min(len(found) - 1, hit + snippets.CONTEXT_WORDS)
    start = re.compile(r"[^\s\w]*$").search(
        passage, max(0, found[first].start() - 20), found[first].start()
    )
    end = re.compile(r"[^\s\w]*").match(passage, found[last].end(), found[last].end() + 20)
    begin, finish = start.start() if start else found[first].start(), end.end() if end else 0
    pieces, position = [], begin
    for index in range(first, last + 1):
        word = found[index]
        if matches(word.group(0), terms):
            pieces.append(passage[position : word.start()])
            pieces.append(f"{search.MARK_START}{word.group(0)}{search.MARK_END}")
            position = word.end()
    pieces.append(passage[position:finish])
    pieces = [re.sub(r"([^\w\s])\1{3,}", r"\1\1\1", piece) for piece in pieces]
    cut_before, cut_after = begin > 0, finish < len(passage)
    if len(pieces[0]) > snippets.EDGE_CHARS:
        pieces[0], cut_before = pieces[0][-snippets.EDGE_CHARS :], True
    if len(pieces[-1]) > snippets.EDGE_CHARS:
        pieces[-1], cut_after = pieces[-1][: snippets.EDGE_CHARS], True
    body = " ".join("".join(pieces).split())
    return body, cut_before, cut_after


_PIECES = st.sampled_from(
    [
        " ",
        "  ",
        "\n",
        "_",
        "-",
        "*",
        "**",
        "`",
        "#",
        "|",
        ".",
        "....",
        "[",
        "](",
        ")",
        "é",
        "\u0301",
        "東京",
        "ß",
        "K",
        "\u212a",
        "İ",
        "2",
        "x2",
        "Retry",
        "retry",
        "RETRY",
        "retrying",
        "re",
        "ré",
        "Café",
        "cafe",
        "CAFÉ",
        "naïve",
        "deploy_script",
        "v2.3",
        "ΆΈ",
    ]
)
_TEXT = st.lists(_PIECES, max_size=60).map("".join)
_TERM = st.tuples(
    st.sampled_from(["retry", "re", "cafe", "café", "2", "x2", "deploy", "東", "k", "", "ß", "i"]),
    st.booleans(),
)


@settings(max_examples=300, deadline=None)
@given(texts=st.lists(_TEXT, min_size=1, max_size=3), terms=st.lists(_TERM, max_size=3))
def test_every_snippet_is_the_one_the_word_by_word_search_gave(
    texts: list[str], terms: list[Term]
) -> None:
    for text in texts:
        assert snippets._first_match(text, terms) == _reference_first_match(text, terms)
        assert snippets._marked(text, terms) == _reference_marked(text, terms)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(snippets, "_first_match", _reference_first_match)
        patch.setattr(snippets, "_marked", _reference_marked)
        expected = make_snippet(texts, terms)
    assert make_snippet(texts, terms) == expected


def test_the_words_before_the_first_match_are_not_each_folded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A long tool output whose match is at its end: the words before the passage are not
    folded one by one (the word-by-word search called `matches` 4,000 times here)."""
    calls: list[str] = []

    def counted(word: str, terms: list[Term]) -> bool:
        calls.append(word)
        return matches(word, terms)

    monkeypatch.setattr(snippets, "matches", counted)
    text = "lorem ipsum dolor sit " * 1000 + "the deadline is retried"
    snippet = make_snippet([text], [("retried", False)])
    assert snippet.endswith(f"is {search.MARK_START}retried{search.MARK_END}")
    assert len(calls) <= 10


_FORMER_RUN = re.compile("(?:[^\\W_]|[\u0300-\u036f])+")
"""`domain.search._RUN` as it stood at 785e029, a character at a time."""


@settings(max_examples=300, deadline=None)
@given(text=st.lists(_PIECES | st.characters(), max_size=80).map("".join))
def test_words_are_the_runs_the_former_pattern_found(text: str) -> None:
    assert [m.span() for m in search._RUN.finditer(text)] == [
        m.span() for m in _FORMER_RUN.finditer(text)
    ]
