"""Search snippets read as the sentence they came from: Markdown's marks are taken out, the
matched words are marked, and any input gives a short snippet with balanced marks (#10 item 10)."""

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from desktop_app.domain.search import MARK_END, MARK_START
from desktop_app.search.query import parse_query
from desktop_app.search.snippets import make_snippet, strip_markdown

RETRY = [("retry", False)]


def _plain(snippet: str) -> str:
    return snippet.replace(MARK_START, "[").replace(MARK_END, "]")


def test_markdown_marks_are_taken_out() -> None:
    text = (
        "# The plan\n\nHere is **the plan** for `src/orders.py`:\n\n```python\n"
        "def retry():\n    pass\n```\n\n| step | what |\n|---|:---:|\n| 1 | *retry* it |\n\n"
        "- see [the docs](https://example.com/guide) and <https://example.org>\n"
        "> 1. quoted ~~old~~ retry\n\n---\n"
    )
    plain = strip_markdown(text)
    for mark in ("#", "**", "`", "```", "|", "](", "<https", "~~", "---", "> "):
        assert mark not in plain, mark
    assert "Here is the plan for src/orders.py:" in plain
    assert "see the docs (https://example.com/guide) and https://example.org" in plain
    assert _plain(make_snippet([text], RETRY)).startswith(
        "The plan Here is the plan for src/orders.py: def [retry]():"
    )


def test_the_snippet_of_a_streamed_real_message_has_no_stray_marks() -> None:
    """The shape goose's developer extension writes: a heading, a file list in a fence."""
    text = "## Files changed\n\n```\nsrc/orders.py\nsrc/retry_policy.py\n```\n\n**Retry** is next."
    snippet = _plain(make_snippet([text], RETRY))
    # The index splits retry_policy at its underscore: the message matched there too.
    assert snippet == "Files changed src/orders.py src/[retry]_policy.py [Retry] is next."


def test_a_match_inside_a_link_target_is_kept_and_marked() -> None:
    snippet = _plain(make_snippet(["see [the runbook](https://wiki.example/retry)."], RETRY))
    assert snippet == "see the runbook (https://wiki.example/[retry])."


def test_identifiers_keep_their_underscores() -> None:
    """Their underscores are no emphasis; and they are where the index splits the words
    (`retry_all` is searched as the words retry and all)."""
    terms = parse_query("retry_all").terms
    snippet = _plain(make_snippet(["call __init__ then retry_all()"], terms))
    assert snippet == "call __init__ then [retry]_[all]()"


def test_rules_and_progress_dots_are_shortened() -> None:
    text = "=" * 70 + " test session starts " + "=" * 70 + "\n" + "." * 200 + " retry passed"
    snippet = _plain(make_snippet([text], RETRY))
    assert "====" not in snippet
    assert "...." not in snippet
    assert "[retry] passed" in snippet


def test_a_huge_word_around_the_match_is_cut() -> None:
    text = "A" * 500_000 + " the retry here " + "b" * 500_000
    snippet = _plain(make_snippet([text], RETRY))
    assert "the [retry] here" in snippet
    assert len(snippet) < 260
    assert snippet.startswith("…")
    assert snippet.endswith("…")


def test_without_a_matching_word_the_start_is_shown_plain() -> None:
    snippet = make_snippet(["**Bold** start of a `long` message " * 50], RETRY)
    assert snippet.startswith("Bold start of a long message")
    assert snippet.endswith("…")
    assert len(snippet) <= 201


def test_the_snippet_of_every_commonmark_construct_parses_as_plain_text() -> None:
    """Rendered back through markdown-it, a snippet holds no emphasis, code, link or heading."""
    text = (
        "### Heading retry\n*em retry* **strong retry** `code retry` [link retry](http://x) "
        "![img retry](http://y)\n~~~\nfenced retry\n~~~\n"
    )
    snippet = make_snippet([text], RETRY).replace(MARK_START, "").replace(MARK_END, "")
    tokens = MarkdownIt("commonmark").parseInline(snippet)[0].children or []
    assert {t.type for t in tokens} <= {"text", "softbreak"}


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("retry *_`[]()!#>|-~=.\n x"), max_size=3000))
def test_any_text_gives_a_balanced_bounded_snippet(text: str) -> None:
    snippet = make_snippet([text], RETRY)
    assert snippet.count(MARK_START) == snippet.count(MARK_END)
    assert re.fullmatch(
        f"(?:[^{MARK_START}{MARK_END}]|{MARK_START}[^{MARK_START}{MARK_END}]+{MARK_END})*", snippet
    )
    assert len(snippet) <= 1200
