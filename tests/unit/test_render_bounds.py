"""Rendering and exporting cost is bounded whatever the text, nothing silently disappears from
the rendered view, and values nested deeper than Python's recursion limit still export
(issue #8, points 7, 8 and 9).

Nothing here is timed (docs/reliability.md has the measured figures; before the fixes each case
took from 20 s to minutes, or raised): the work is counted instead — characters handed to the
Markdown parser, and tokens drawn from pygments under a budget whose clock ticks once a reading."""

import json
import re
import sys
import tracemalloc
from collections.abc import Callable, Iterator
from html import unescape
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name

from desktop_app.cli import main
from desktop_app.domain.jsontext import dumps
from desktop_app.domain.parts import TextPart, ToolCallPart
from desktop_app.rendering import markdown_html
from desktop_app.rendering.html_export import HtmlWriter
from desktop_app.rendering.markdown_export import MarkdownWriter
from desktop_app.rendering.markdown_html import (
    MARKDOWN_LIMIT,
    RENDER_BUDGET_S,
    highlight_code,
    render_markdown,
)
from desktop_app.rendering.transcript_blocks import MessageRenderer
from tests.fixtures.goose_db import GooseDb
from tests.unit.test_hostile import message

DbFactory = Callable[..., GooseDb]


class Work:
    """What rendering did, counted: `parsed` the length of each text markdown-it parsed,
    `lexed` the tokens pygments produced. The render budget's clock advances `TICK` at each
    reading, so a budget runs out after a fixed number of checks on any machine."""

    TICK = 0.01

    def __init__(self) -> None:
        self.parsed: list[int] = []
        self.lexed = 0
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += self.TICK
        return self.now

    def lexer(self, name: str, **options: Any) -> "CountedLexer":
        return CountedLexer(get_lexer_by_name(name, **options), self)


class CountedLexer:
    """A pygments lexer whose tokens are counted into `Work.lexed` as they are drawn."""

    def __init__(self, lexer: Lexer, work: Work) -> None:
        self._lexer = lexer
        self._work = work

    def get_tokens(self, text: str) -> Iterator[Any]:
        for token in self._lexer.get_tokens(text):
            self._work.lexed += 1
            yield token


BUDGET_TOKENS = (int(RENDER_BUDGET_S / Work.TICK) + 2) * 64
"""The most tokens one message's budget lets pygments produce on `Work`'s clock: it is read
when the budget is made, then before each fence and every 64 tokens."""


@pytest.fixture
def work(monkeypatch: pytest.MonkeyPatch) -> Work:
    counted = Work()
    parse = MarkdownIt.parse

    def counted_parse(self: MarkdownIt, src: str, env: Any = None) -> Any:
        counted.parsed.append(len(src))
        return parse(self, src, env)

    monkeypatch.setattr(MarkdownIt, "parse", counted_parse)
    monkeypatch.setattr(markdown_html, "time", counted)
    monkeypatch.setattr(markdown_html, "get_lexer_by_name", counted.lexer)
    return counted


def visible(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", html))


def test_a_language_is_never_guessed(work: Work) -> None:
    prose = "Dear team,\n\nthe release is on Monday.\n\n" * 50
    newlines = "\n" * 20_000
    html = render_markdown(f"```\n{prose}```\n\n```\n{newlines}```").html
    assert work.lexed == 0
    assert 'style="color' not in html  # no highlighting (the code block has its background)
    assert "Dear team," in html
    assert 'style="color' in highlight_code("def f(): pass", "python", dark=False)
    assert "style=" not in highlight_code("def f(): pass", "", dark=False)
    assert "style=" not in highlight_code("def f(): pass", "no-such-language", dark=False)


@pytest.mark.parametrize(
    ("language", "code"),
    [("html", "<!--" * 30_000), ("php", "<?php /*" * 15_000), ("html", "<!--" * 200_000)],
    ids=["html comments 120 kB", "php 120 kB", "html 800 kB"],
)
def test_quadratic_lexers_are_cut_short(work: Work, language: str, code: str) -> None:
    rendered = render_markdown(f"```{language}\n{code}\n```")
    assert work.lexed <= BUDGET_TOKENS
    assert code in "".join(rendered.code_blocks).replace("\n", "")


def test_a_message_of_many_slow_fences_stays_within_its_budget(work: Work) -> None:
    """One budget for the whole message: twenty fences lex no more than one budget allows."""
    fence = "```html\n" + "<!--" * 15_000 + "\n```\n\n"
    parts = tuple(TextPart(text=fence) for _ in range(20))
    rendered = MessageRenderer().render(message(*parts))
    assert work.lexed <= BUDGET_TOKENS
    assert len(rendered.blocks) == 20


def test_a_two_megabyte_table_is_shown_in_part_with_a_note(work: Work) -> None:
    row = "| " + " | ".join(f"c{i}" for i in range(8)) + " |\n"
    table = row + "|" + "---|" * 8 + "\n" + row * 50_000
    rendered = render_markdown(table)
    assert sum(work.parsed) <= MARKDOWN_LIMIT + 1
    assert "<table" in rendered.html
    assert "Shown in part: the first" in rendered.html
    assert "more not shown — " in rendered.html
    assert '<a href="gander-copy:' in rendered.html
    assert rendered.code_blocks[-1] is table  # Copy all: the whole text, not a copy of it


def test_fifty_megabytes_of_text_export_in_every_format(
    make_db: DbFactory, capsys: pytest.CaptureFixture[str], work: Work
) -> None:
    """Exports write the whole text, but Markdown formats only its first `MARKDOWN_LIMIT`."""
    db = make_db()
    db.add_session("s", name="huge")
    db.add_message("s", "assistant", "word " * 10_000_000)
    for fmt in ("md", "html", "json"):
        work.parsed.clear()
        assert main(["show", "s", "--db", str(db.path), "--format", fmt]) == 0
        out = capsys.readouterr().out
        assert out.count("word") >= 10_000_000, fmt
        assert sum(work.parsed) <= MARKDOWN_LIMIT + 1, fmt


NESTED_LIST = "".join("    " * depth + f"- level{depth}\n" for depth in range(14))
NESTED_QUOTES = "".join(">" * depth + f" quote{depth}\n" for depth in range(1, 30))


@pytest.mark.parametrize(
    "text",
    [
        NESTED_LIST + "\nafter the list",
        NESTED_QUOTES + "\nafter the quotes",
        "".join("  " * d + f"{d}. step{d}\n" for d in range(40)) + "\nthe end",
        "- " * 60 + "deepest\n\nafter",
    ],
    ids=["14-level list", "29-level quote", "40-level numbered list", "60 bullets on a line"],
)
def test_nothing_vanishes_past_the_nesting_limit(text: str) -> None:
    words = re.findall(r"[a-z]+\d*|\d+", text.replace("- ", " ").replace(">", " "))
    window = visible(render_markdown(text).html)
    exported = visible(HtmlWriter().message(message(TextPart(text=text))))
    for word in words:
        assert word in window, word
        assert word in exported, word


def test_text_after_a_too_deep_block_is_formatted_again() -> None:
    html = render_markdown(NESTED_LIST + "\nafter the **list**").html
    assert "level13" in visible(html)
    assert "<p>after the <strong>list</strong></p>" in html


def _deep(depth: int) -> str:
    return '{"a": [' * depth + '{"k": "deepest value"}' + "]}" * depth


@pytest.mark.parametrize("depth", [300, 490])
def test_deep_tool_arguments_export_everywhere(
    make_db: DbFactory, capsys: pytest.CaptureFixture[str], depth: int
) -> None:
    """980 levels still parse (goose's JSON), so they must render and export in full."""
    db = make_db()
    db.add_session("s", name="deep")
    block = (
        '[{"type": "toolRequest", "id": "t", "toolCall": {"status": "success", "value": '
        f'{{"name": "x__y", "arguments": {_deep(depth)}}}}}}}]'
    )
    db.add_message("s", "assistant", block)
    for fmt in ("md", "html", "json"):
        assert main(["show", "s", "--db", str(db.path), "--format", fmt]) == 0, fmt
        out = capsys.readouterr().out
        assert "deepest value" in out, fmt
        if fmt == "json":
            limit = sys.getrecursionlimit()
            sys.setrecursionlimit(10_000)
            try:
                parsed = json.loads(out)
            finally:
                sys.setrecursionlimit(limit)
            part = parsed["messages"][0]["parts"][0]
            assert part["kind"] == "tool_call"
    rendered = MessageRenderer().render(
        message(ToolCallPart(name="x__y", arguments=json.loads(_deep(depth))))
    )
    assert "deepest value" in visible(rendered.blocks[0].html)
    assert "deepest value" in MarkdownWriter().message(
        message(ToolCallPart(name="x__y", arguments=json.loads(_deep(depth))))
    )


def test_json_too_deep_to_parse_is_shown_as_its_text(
    make_db: DbFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    db = make_db()
    db.add_session("s", name="deeper")
    db.add_message("s", "assistant", f'[{{"type": "text", "text": "x", "extra": {_deep(20_000)}}}]')
    for fmt in ("md", "html", "json"):
        assert main(["show", "s", "--db", str(db.path), "--format", fmt]) == 0, fmt
        assert "deepest value" in capsys.readouterr().out, fmt


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(value=json_values, indent=st.sampled_from([None, 2]))
def test_dumps_writes_what_json_dumps_writes(value: Any, indent: int | None) -> None:
    from desktop_app.domain.jsontext import _pieces

    expected = json.dumps(value, ensure_ascii=False, indent=indent, default=str)
    assert "".join(_pieces(value, indent)) == expected
    assert dumps(value, indent=indent) == expected


@settings(max_examples=300, deadline=None)
@given(value=json_values, limit=st.integers(0, 120))
def test_the_head_of_a_dump_is_the_dump_cut_short(value: Any, limit: int) -> None:
    """What the window shows of a huge tool argument (#13 item 4) is exactly the start of what
    Copy all and the exports write."""
    from desktop_app.domain.jsontext import dumps_head

    whole = dumps(value, indent=2)
    head, complete = dumps_head(value, indent=2, limit=limit)
    assert head == whole[:limit]
    assert complete == (len(whole) <= limit)


def test_the_head_of_a_nineteen_megabyte_value_costs_what_is_shown() -> None:
    from desktop_app.domain.jsontext import dumps_head

    value = {"path": "/tmp/x", "content": "word " * 4_000_000, "more": list(range(1_000_000))}
    tracemalloc.start()
    try:
        head, complete = dumps_head(value, indent=2, limit=200_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not complete
    assert peak < 5_000_000  # the whole dump would be 27 MB
    assert head == dumps(value, indent=2)[:200_000]


def test_dumps_handles_a_hundred_thousand_levels() -> None:
    deep: dict[str, Any] = {}
    current = deep
    for _ in range(100_000):
        inner: dict[str, Any] = {}
        current["a"] = [inner]
        current = inner
    compact = dumps(deep)
    pretty = dumps(deep, indent=2)
    assert compact.startswith('{"a": [{"a": [')
    assert compact.count("{") == 100_001
    assert pretty.count("{") == 100_001


def test_a_fence_language_never_loads_a_pygments_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    """An unknown language names no installed package's plugin: pygments would import every
    lexer plugin to look for it (IPython's, once, changed the interpreter's recursion limit)."""
    import pygments.lexers

    def refuse(*_: object) -> None:
        raise AssertionError("pygments plugins were searched")

    monkeypatch.setattr(pygments.lexers, "find_plugin_lexers", refuse)
    assert highlight_code("x = 1", "ipython3-console-nonexistent", dark=False) == "x = 1"
    assert "style=" in highlight_code("x = 1", "python", dark=False)
