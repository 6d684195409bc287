"""Untrusted text is shown as text and never makes the view load anything (issue #5, point 3)."""

import re
from html import escape
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from desktop_app.domain.message import Message, Role, Visibility
from desktop_app.domain.parts import (
    FilePart,
    ImagePart,
    Part,
    ResourceLinkPart,
    TextPart,
    ToolResultPart,
)
from desktop_app.domain.session import Session
from desktop_app.rendering.html_export import HtmlWriter
from desktop_app.rendering.links import safe_link
from desktop_app.rendering.markdown_export import MarkdownWriter
from desktop_app.rendering.markdown_html import SHOWN_LIMIT
from desktop_app.rendering.transcript_blocks import BODY_CHARS_LIMIT, MessageRenderer
from tests.fixtures.html_oracle import live_markup

HOSTILE = [
    "<script>alert(document.cookie)</script>",
    '<img src="https://evil.example/pixel.png" onerror="alert(1)">',
    '<iframe src="https://evil.example"></iframe><link rel=stylesheet href=https://evil.example/x.css>',
    "<style>body{background:url(https://evil.example/bg.png)}</style>",
    '<span style="position:fixed;top:0;left:0;width:100%">cover</span>',
    "[click](javascript:alert(1)) [file](file:///etc/passwd) [data](data:text/html,<b>x</b>)",
    "![tracker](https://evil.example/t.gif) ![local](file:///home/me/secret.png)",
    "<javascript:alert(1)> <https://ok.example/page>",
    "<a href='javascript:alert(1)'>a</a> <a href=https://x.example>b</a>",
    "<svg onload=alert(1)><use href=https://evil.example/#x /></svg>",
]
FETCHING_TAG = re.compile(r"(?i)<\s*(img|iframe|link|script|style|svg|object|embed|video|audio)\b")
FETCHING_ATTRIBUTE = re.compile(r"(?i)(\bsrc\s*=|url\s*\(|@import|\bon[a-z]+\s*=)")
QML = Path(__file__).resolve().parents[2] / "resources" / "qml" / "Transcript.qml"


def fetches(html: str) -> list[str]:
    """Markup a rich-text view would act on: loading tags, or src/url/on* inside any tag."""
    found = FETCHING_TAG.findall(html)
    found += [tag for tag in re.findall(r"<[^>]+>", html) if FETCHING_ATTRIBUTE.search(tag)]
    return found


def message(*parts: Part) -> Message:
    return Message(
        session_id="s",
        row_id=1,
        message_id="m",
        role=Role.ASSISTANT,
        role_raw="assistant",
        created_at=None,
        created_raw=1,
        parts=parts,
        visibility=Visibility(),
    )


def all_html(rendered_message: Message) -> str:
    """Every block's HTML; titles and previews are plain text in the view, escaped for it."""
    rendered = MessageRenderer().render(rendered_message)
    return "\n".join(b.html + escape(b.title) + escape(b.preview) for b in rendered.blocks)


@pytest.mark.parametrize("text", HOSTILE)
def test_transcript_html_fetches_nothing_and_runs_nothing(text: str) -> None:
    html = all_html(message(TextPart(text=text), ToolResultPart(content=(TextPart(text=text),))))
    assert not fetches(html), html
    assert live_markup(html) == []


@pytest.mark.parametrize("text", HOSTILE)
def test_html_export_fetches_nothing_beyond_its_own_data_images(text: str) -> None:
    writer = HtmlWriter()
    page = (
        writer.header(Session(id="s", name=text))
        + writer.message(message(TextPart(text=text)))
        + writer.footer()
    )
    body = page.split("</style>", 1)[1]
    assert not fetches(body), body
    assert live_markup(page, document=True) == []
    assert "default-src 'none'" in page


def test_bidi_overrides_are_made_visible() -> None:
    spoof = "invoice_\u202eexe.pdf and \u2066isolate\u2069"
    html = all_html(message(TextPart(text=spoof), ToolResultPart(content=(TextPart(text=spoof),))))
    assert "\u202e" not in html
    assert "⟦U+202E⟧" in html
    assert "⟦U+2066⟧" in html


def test_zero_width_and_rtl_text_survive_as_text() -> None:
    text = "مرحبا بالعالم zero\u200bwidth \ufeffbom"
    html = all_html(message(TextPart(text=text)))
    assert "مرحبا بالعالم" in html
    assert "zero\u200bwidth" in html


def test_one_megabyte_line_and_hundred_thousand_line_output(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The cost is bounded by what is shown, not by the text: the Markdown parser is handed a
    window of the text, never all of it (counted in characters, not timed)."""
    parsed: list[int] = []
    parse = MarkdownIt.parse

    def counted_parse(self: MarkdownIt, src: str, env: Any = None) -> Any:
        parsed.append(len(src))
        return parse(self, src, env)

    monkeypatch.setattr(MarkdownIt, "parse", counted_parse)
    line = "x" * 1_000_000
    lines = "\n".join(f"line {i}" for i in range(100_000))
    rendered = MessageRenderer().render(
        message(TextPart(text=line), ToolResultPart(content=(TextPart(text=lines),)))
    )
    assert parsed
    assert sum(parsed) <= SHOWN_LIMIT + 1
    text_block, result = rendered.blocks
    # A run with nowhere to wrap: a sixteenth of the window (QML lays such runs out slowly).
    assert "Shown in part: the first 4.0 kB as formatted text; 996.0 kB more not shown — " in (
        text_block.html
    )
    for link in ("gander-more:0", "gander-copy:0", "gander-save:0"):
        assert f'href="{link}"' in text_block.html
    assert len(text_block.html) < SHOWN_LIMIT + 2_000
    assert text_block.code_blocks[-1] is line  # Copy all and Save all: the text itself, no copy
    assert text_block.wrap_anywhere  # a million characters with nowhere to wrap
    exported = HtmlWriter().message(message(TextPart(text=line)))
    assert exported.count("x") >= 1_000_000
    assert result.collapsed
    assert result.size_label == "100000 lines"
    assert len(result.html) < BODY_CHARS_LIMIT + 2_000
    assert "more not shown" in result.html


def test_qml_shows_history_text_as_plain_text_or_escaped_rich_text() -> None:
    """QML's default `AutoText` would render anything that looks like HTML; every Text showing
    history content must say its format, and rich text is only our escaped, rendered HTML."""
    qml = QML.read_text()
    texts = re.findall(r"\bText \{[^{}]*\}|\bText \{(?:[^{}]|\{[^{}]*\})*\}", qml)
    assert texts
    for element in texts:
        assert "textFormat:" in element, element
    assert "modelData.preview" in qml
    assert qml.count("Text.PlainText") >= 4


DANGEROUS_LINKS = [
    "javascript:alert(1)",
    "JavaScript:alert(1)",
    "java\tscript:alert(1)",
    "file:///etc/passwd",
    "data:text/html,<script>alert(1)</script>",
    "data:image/svg+xml;base64,PHN2Zz4=",
    "vbscript:msgbox",
    "ftp://example.com/x",
    "../../etc/passwd",
    "\\\\server\\share",
    "https://ok.example/a b",
    "mailto:",
]


@pytest.mark.parametrize("uri", DANGEROUS_LINKS)
def test_one_link_rule_for_every_part(uri: str) -> None:
    """Markdown links, images and autolinks, MCP resource links, image and file URLs: only
    http, https and mailto become links, in the window and in both exports (issue #8, 4)."""
    parts: tuple[Part, ...] = (
        TextPart(text=f"[a]({uri}) ![b]({uri}) <{uri}> {uri}"),
        ResourceLinkPart(uri=uri, name="the resource"),
        ToolResultPart(content=(ResourceLinkPart(uri=uri, name="nested"),)),
        ImagePart(url=uri, mime_type="image/png"),
        FilePart(url=uri, name="f.pdf"),
    )
    rendered = all_html(message(*parts))
    assert live_markup(rendered) == []
    assert 'href="' + escape(uri, quote=True) not in rendered
    writer = HtmlWriter(include_hidden=True)
    page = writer.header(Session(id="s", name="links")) + writer.message(message(*parts))
    assert live_markup(page + writer.footer(), document=True) == []
    # The Markdown export keeps the model's own Markdown as written; the links Gander writes
    # itself (resource links, attachment URLs) follow the rule.
    markdown = MarkdownWriter(include_hidden=True).message(message(*parts[1:]))
    tokens = MarkdownIt("gfm-like").parse(markdown)
    hrefs = [
        str(child.attrGet("href"))
        for token in tokens
        for child in token.children or []
        if child.type == "link_open"
    ]
    assert all(safe_link(href) for href in hrefs), hrefs


def test_allowed_links_stay_links() -> None:
    parts = (
        TextPart(text="[docs](https://docs.example/a) <mailto:me@example.com>"),
        ResourceLinkPart(uri="https://files.example/x", name="x"),
    )
    rendered = all_html(message(*parts))
    assert 'href="https://docs.example/a"' in rendered
    assert 'href="mailto:me@example.com"' in rendered
    assert 'href="https://files.example/x"' in rendered
