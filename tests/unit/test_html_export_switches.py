"""The HTML export switches what the window switches, without script (#19 items 5 and 7): each
code or output block wraps its long lines, with a No wrap switch of its own (a checkbox and its
label, CSS's `:checked`), and an image is at least 96 px high (a smaller one crisply), at most
220, never wider than the column, and enlarged by a click — on genuine sessions."""

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from PySide6.QtCore import QBuffer, QByteArray, QIODevice
from PySide6.QtGui import QColor, QImage

from desktop_app.domain.message import Message
from desktop_app.rendering.colours import AA_CONTRAST, contrast
from desktop_app.rendering.html_export import (
    STYLE,
    HtmlWriter,
    dark_code_colours,
    dark_code_rule,
    raster_height,
)
from desktop_app.sources.claude_code import format as claude_format
from desktop_app.sources.codex import format as codex_format
from tests.fixtures.html_oracle import live_markup

AGENTS = Path(__file__).parents[1] / "fixtures" / "agents"
DARK_CODE_BACKGROUND = "#1c2128"
"""The dark page's code background (`STYLE`'s `pre` in its dark rules)."""
CLAUDE_TOOLS = next((AGENTS / "claude_code" / "tools" / "2.1.110").rglob("*.jsonl"))
CODEX_IMAGE = next(
    (AGENTS / "codex" / "cli" / "2026" / "12" / "01").glob("rollout-2026-12-01T09-22-06-*.jsonl")
)


def _page(messages: list[Message]) -> str:
    writer = HtmlWriter()
    return "".join(writer.messages(messages)) + writer.footer()


class _Siblings(HTMLParser):
    """Each `<pre>` with the tags before it among its siblings, and each label's `for` and
    checkbox's `id`: enough to say which checkbox a block's `:checked` rule listens to."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[list[tuple[str, dict[str, str]]]] = [[]]
        self.pres: list[list[tuple[str, dict[str, str]]]] = []
        self.labels: dict[str, str] = {}
        self.boxes: list[str] = []
        self._in_table: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = {k: v or "" for k, v in attrs}
        if tag == "pre":
            self.pres.append(list(self.stack[-1]))
        if tag == "input":
            self.boxes.append(named.get("id", ""))
        if tag == "label":
            self.labels[named.get("for", "")] = tag
            if self._in_table:
                self._in_table[-1] = named.get("for", "")
        if tag == "table":
            self._in_table.append("")
        self.stack[-1].append((tag, named))
        if tag not in ("input", "img", "br", "meta"):
            self.stack.append([])

    def handle_endtag(self, tag: str) -> None:
        if tag in ("input", "img", "br", "meta"):
            return
        if len(self.stack) > 1:
            self.stack.pop()
        if tag == "table" and self._in_table:
            label = self._in_table.pop()
            if label:  # the code header's label: remembered on the table, as CSS sees it
                self.stack[-1][-1][1]["data-label"] = label


def test_every_block_of_a_genuine_session_wraps_and_has_its_own_no_wrap_switch() -> None:
    """Claude Code 2.1.110's own log: every `<pre>` follows a checkbox and the label for it
    (directly, or with a code block's header between, the label inside it), ids unique; the
    page's rules wrap every block and unwrap the one whose box is checked; no script."""
    page = _page(list(claude_format.parse(CLAUDE_TOOLS, CLAUDE_TOOLS.read_bytes()).messages))
    found = _Siblings()
    found.feed(page)
    assert len(found.pres) > 5
    assert len(found.boxes) == len(set(found.boxes))
    for before in found.pres:
        if before[-1][0] == "label":
            box, label = before[-2], before[-1]
            assert label[1]["class"] == "nowrap"
            assert label[1]["for"] == box[1]["id"]
        else:
            box, header = before[-2], before[-1]
            assert header[0] == "table"
            assert header[1]["class"] == "code"
            assert header[1]["data-label"] == box[1]["id"]
        assert box[0] == "input"
        assert box[1]["type"] == "checkbox"
    rule = re.search(r"\npre \{[^}]*\}", STYLE)
    assert rule
    assert "white-space: pre-wrap" in rule.group(0)
    assert "overflow-x: auto" not in rule.group(0)
    assert "input.switch:checked + label.nowrap + pre" in STYLE
    assert "input.switch:checked + table.code + pre" in STYLE
    assert "<script" not in page
    assert live_markup(page, export=True) == []


def test_the_window_s_links_and_an_open_block_s_preview_leave_no_words_behind() -> None:
    """ "Copy JSON" means nothing in a browser: neither its link nor its words are in the page;
    a block opened shows its text, not its one-line preview too (the window hides it)."""
    page = _page(list(claude_format.parse(CLAUDE_TOOLS, CLAUDE_TOOLS.read_bytes()).messages))
    assert "Copy JSON" not in page
    assert ">Copy<" not in page
    assert "details[open] > summary .preview { display: none; }" in STYLE


def test_a_tiny_genuine_image_is_drawn_at_least_96_px_high_crisply_and_enlarged_by_a_click() -> (
    None
):
    """Codex 0.171.0's own `image_generation_call`, a 4×4 PNG: a thumbnail no lower than
    96 px and no higher than 220, never wider than the column, drawn pixelated, inside the
    label of a checkbox whose `:checked` rule shows it larger."""
    page = _page(list(codex_format.parse(CODEX_IMAGE, CODEX_IMAGE.read_bytes()).messages))
    (image,) = re.findall(r'<label class="zoom"[^>]*><input [^>]*><img [^>]*></label>', page)
    assert 'class="thumb crisp"' in image
    box = re.search(r'id="(z\d+)"', image)
    assert box
    assert f'for="{box.group(1)}"' in image
    for rule in ("min-height: 96px", "max-height: 220px", "image-rendering: pixelated"):
        assert rule in STYLE
    assert re.search(r"\nimg \{[^}]*max-width: 100%", STYLE)
    assert "input.switch:checked + img.thumb { max-height: none" in STYLE
    assert live_markup(page, export=True) == []


def _written(kind: str, width: int, height: int) -> bytes:
    """An image of `kind` as Qt's own writer writes it."""
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor("teal"))
    array = QByteArray()
    buffer = QBuffer(array)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    assert image.save(buffer, kind.upper())  # type: ignore[call-overload]
    buffer.close()
    return bytes(array.data())


@pytest.mark.parametrize("kind", ["png", "jpeg", "bmp", "webp"])
@pytest.mark.parametrize("height", [17, 300])
def test_an_image_s_height_is_read_from_its_header(kind: str, height: int) -> None:
    assert raster_height(kind, _written(kind, 31, height)) == height


def test_a_header_too_short_or_damaged_claims_no_height() -> None:
    assert raster_height("png", b"\x89PNG\r\n\x1a\n") is None
    assert raster_height("jpeg", b"\xff\xd8\xff\xe0\x00\x00") is None
    assert raster_height("jpeg", b"\xff\xd8" + b"\xff\xe0\x00\x10" + b"\x00" * 20) is None
    assert raster_height("webp", b"RIFF\x00\x00\x00\x00WEBPXXXX" + b"\x00" * 20) is None
    gif = b"GIF89a" + (31).to_bytes(2, "little") + (17).to_bytes(2, "little") + b"\x00" * 4
    assert raster_height("gif", gif) == 17  # GIF89a's logical screen: width, height, LE


def test_code_colours_are_swapped_for_the_dark_theme_s_and_stay_readable() -> None:
    """The page is written once, in the light theme's code colours; a dark reader's browser
    swaps each for the dark code style's (navy on black before). Every colour the genuine
    session's highlighted code uses, as written (`#00F`), has its swap, readable on the dark
    code background; a short colour's rule never catches a longer one."""
    page = _page(list(claude_format.parse(CLAUDE_TOOLS, CLAUDE_TOOLS.read_bytes()).messages))
    used = set(re.findall(r'<span style="color: #([0-9a-fA-F]{3,6})\b', page))
    assert used
    swaps = dark_code_colours()
    dark = STYLE[STYLE.index("@media (prefers-color-scheme: dark)") :]
    for colour in used:
        assert dark_code_rule(colour, swaps[colour]) in dark
        assert contrast(f"#{swaps[colour]}", DARK_CODE_BACKGROUND) >= AA_CONTRAST
    assert 'pre span[style^="color: #800" i]' not in STYLE
