"""Markdown as coding agents write it (issue #19, item 6): file names are no links, identifiers
and paths are never emphasis, links to local paths are code-styled paths, never links."""

import pytest

from desktop_app.rendering.markdown_html import (
    WORD_LOOK,
    is_identifier_or_path,
    local_path,
    markdown_to_html,
)


def paragraph(text: str) -> str:
    html = markdown_to_html(text).strip()
    assert html.startswith("<p>"), html
    assert html.endswith("</p>"), html
    return html[3:-4]


@pytest.mark.parametrize(
    "text",
    ["hello.py", "README.md", "setup.py and main.rs", "docs/guide.md", "app.config.ts"],
)
def test_a_bare_file_name_is_no_link(text: str) -> None:
    assert "<a" not in markdown_to_html(f"I edited {text}.")


def test_schemes_and_www_stay_links() -> None:
    html = markdown_to_html("see https://x.org/a_b_c and www.example.com")
    assert '<a href="https://x.org/a_b_c">https://x.org/a_b_c</a>' in html
    assert '<a href="http://www.example.com">' in html


@pytest.mark.parametrize(
    "text",
    [
        "the __tests__ folder",
        "edit src/__init__.py now",
        "run __init__.py",
        "in /usr/lib/__pycache__/x.pyc",
        "call __main__ or (__name__)",
        "snake_case_words everywhere",
        "_private_var and my_var_",
        "os.__file__ and obj._cache_",
        r"C:\Users\me\my_project\a",
        "**__main__**",
    ],
)
def test_identifiers_and_paths_are_never_emphasis(text: str) -> None:
    html = paragraph(text)
    assert "<em>" not in html
    assert html.replace("<strong>", "").replace("</strong>", "") == text.replace("**", "")


@pytest.mark.parametrize(
    ("text", "html"),
    [
        ("_this_ matters", "<em>this</em> matters"),
        ("a _few words_ here.", "a <em>few words</em> here."),
        ("__bold words__, *star* and **strong**", None),
        ("see _this_.", "see <em>this</em>."),
    ],
)
def test_emphasis_in_prose_stays_emphasis(text: str, html: str | None) -> None:
    shown = paragraph(text)
    if html is not None:
        assert shown == html
    else:
        assert shown.count("<strong>") == 2
        assert shown.count("<em>") == 1


def test_a_long_word_is_never_emphasis() -> None:
    """A word longer than `WORD_LOOK` is a hash, an identifier or a path."""
    word = "_" + "x" * (WORD_LOOK + 10) + "_"
    assert paragraph(word) == word


@pytest.mark.parametrize(
    ("text", "html"),
    [
        ("[toolbar.css](src/toolbar.css)", "<code>src/toolbar.css</code>"),
        ("[a](/home/u/a.py)", "a (<code>/home/u/a.py</code>)"),
        ("[b.py](file:///home/u/b.py)", "<code>file:///home/u/b.py</code>"),
        ("<file:///home/u/my%20notes.md>", "<code>file:///home/u/my notes.md</code>"),
        ("[line 12](src/x.py:12)", "line 12 (<code>src/x.py:12</code>)"),
        ("[c](./rel/c.md)", "c (<code>./rel/c.md</code>)"),
        ("[a.py](src/ba.py)", "a.py (<code>src/ba.py</code>)"),
        ("[`x`](../x.py)", "<code>x</code> (<code>../x.py</code>)"),
        ("![shot](/tmp/shot.png)", "[image: shot] <code>/tmp/shot.png</code>"),
    ],
)
def test_local_path_links_are_code_styled_paths(text: str, html: str) -> None:
    shown = paragraph(text)
    assert shown == html
    assert "<a" not in shown


@pytest.mark.parametrize(
    "text",
    ["[j](javascript:alert(1))", "[d](data:text/html,x)", "[n](//host/share)", "[h](#top)"],
)
def test_other_addresses_stay_text_as_before(text: str) -> None:
    assert paragraph(text) == text.replace("&", "&amp;")


def test_the_rules_read_words_and_addresses_as_agents_write_them() -> None:
    assert is_identifier_or_path("(src/__init__.py),")
    assert not is_identifier_or_path("_word_.")
    assert local_path("README.md:12")
    assert not local_path("https://x.org")
    assert not local_path("vbscript:msgbox")
