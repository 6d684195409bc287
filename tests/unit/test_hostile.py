"""Untrusted text is shown as text and never makes the view load anything (issue #5, point 3)."""

import re
import time
from html import escape
from pathlib import Path

import pytest

from desktop_app.domain.message import Message, Role, Visibility
from desktop_app.domain.parts import Part, TextPart, ToolResultPart
from desktop_app.rendering.html_export import HtmlWriter
from desktop_app.rendering.transcript_blocks import BODY_CHARS_LIMIT, MessageRenderer

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
    hrefs = re.findall(r'href="([^"]*)"', html)
    assert all(h.startswith(("http://", "https://", "gander-copy:")) for h in hrefs), hrefs


@pytest.mark.parametrize("text", HOSTILE)
def test_html_export_fetches_nothing_beyond_its_own_data_images(text: str) -> None:
    writer = HtmlWriter()
    page = (
        writer.header(
            __import__("desktop_app.domain.session", fromlist=["Session"]).Session(
                id="s", name=text
            )
        )
        + writer.message(message(TextPart(text=text)))
        + writer.footer()
    )
    body = page.split("</style>", 1)[1]
    assert not fetches(body), body
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


def test_one_megabyte_line_and_hundred_thousand_line_output() -> None:
    line = "x" * 1_000_000
    lines = "\n".join(f"line {i}" for i in range(100_000))
    started = time.perf_counter()
    rendered = MessageRenderer().render(
        message(TextPart(text=line), ToolResultPart(content=(TextPart(text=lines),)))
    )
    elapsed = time.perf_counter() - started
    text_block, result = rendered.blocks
    assert len(text_block.html) >= 1_000_000
    assert result.collapsed
    assert result.size_label == "100000 lines"
    assert len(result.html) < BODY_CHARS_LIMIT + 2_000
    assert "more not shown" in result.html
    assert elapsed < 10


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
