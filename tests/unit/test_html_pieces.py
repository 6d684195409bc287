"""A long block's HTML cut into pieces (`rendering.html_pieces`): each piece is balanced HTML,
none is much longer than the size, and the pieces' texts joined are the block's text — on the
renderers' own HTML of long prose, code and a line with nowhere to wrap, and on any nesting."""

import re
from html import escape

from hypothesis import example, given
from hypothesis import strategies as st

from desktop_app.rendering.html_pieces import PIECE_CHARS, split_pieces
from desktop_app.rendering.markdown_html import render_markdown

_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)[^>]*>")
_VOID = {"br", "hr", "img"}


def _text(html: str) -> str:
    return _TAG.sub("", html)


def _balanced(html: str) -> bool:
    stack: list[str] = []
    for match in _TAG.finditer(html):
        name = match.group(2).lower()
        if name in _VOID:
            continue
        if match.group(1):
            if not stack or stack.pop() != name:
                return False
        else:
            stack.append(name)
    return not stack


def _check(html: str, size: int = PIECE_CHARS) -> list[str]:
    pieces = split_pieces(html, size)
    joined = _text("".join(pieces))
    # The same text, less at most one line end a cut (a piece ends where a line did).
    assert joined.replace("\n", "") == _text(html).replace("\n", "")
    assert joined.count("\n") >= _text(html).count("\n") - (len(pieces) - 1)
    assert all(_balanced(piece) for piece in pieces)
    assert all(piece.strip() for piece in pieces) or pieces == [html]  # none empty
    return pieces


def test_a_short_text_is_one_piece() -> None:
    html = render_markdown("Hello **there**.").html
    assert split_pieces(html) == [html]


def test_long_prose_is_cut_between_paragraphs() -> None:
    prose = "\n\n".join(f"Paragraph {n} says something *useful* here." * 6 for n in range(220))
    html = render_markdown(prose, shown_limit=None).html
    pieces = _check(html)
    assert len(pieces) >= len(html) // PIECE_CHARS
    assert all(len(piece) <= PIECE_CHARS + 600 for piece in pieces)
    assert all(p.lstrip().startswith("<p>") and p.rstrip().endswith("</p>") for p in pieces)


def test_a_long_code_block_is_cut_at_line_ends_and_keeps_its_frame() -> None:
    code = "\n".join(f"print('line {n}')  # {'x' * 40}" for n in range(900))
    html = render_markdown(f"```python\n{code}\n```", shown_limit=None).html
    pieces = _check(html)
    assert len(pieces) > 5
    for piece in pieces[1:]:
        # The code's own <pre>, opened again, with no margin above: one block on screen.
        assert piece.startswith("<pre style=")
        assert "margin-top:0;" in piece[: piece.index(">")]
        # Nor a background: Qt paints it behind a block's first line only, a stripe per piece.
        assert "background-color" not in piece[: piece.index(">")]
        assert "<code>" in piece[:200]
    for piece in pieces[:-1]:
        assert 'style="margin-bottom:0;' in piece  # nor below, where it was cut
        assert not _text(piece).endswith("\n")  # no empty last line
    # Cut at a line end: every piece but the first begins a line of the code.
    assert all(_text(piece).startswith("print(") for piece in pieces[1:])


def test_a_line_with_nowhere_to_wrap_is_cut_anyway_never_inside_an_entity() -> None:
    line = "&lt;x&gt;" + "a&amp;b" * 20_000
    html = f"<p>{line}</p>"
    pieces = _check(html, 1_000)
    assert len(pieces) > 100
    for piece in pieces:
        inner = piece.removeprefix("<p>").removesuffix("</p>")
        assert not re.search(r"&[a-z]*$", inner), inner[-12:]
        assert not re.match(r"^[a-z]*;", inner), inner[:12]


_words = st.text(alphabet="ab <>&\n\"'", min_size=0, max_size=40).map(escape)


@st.composite
def _html(draw: st.DrawFn, depth: int = 0) -> str:
    parts = []
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["text", "br", "tag"] if depth < 4 else ["text", "br"]))
        if kind == "text":
            parts.append(draw(_words))
        elif kind == "br":
            parts.append("<br />")
        else:
            name = draw(st.sampled_from(["p", "pre", "span", "a", "table", "td", "b"]))
            attrs = draw(
                st.sampled_from(["", ' style="color:#123"', ' href="https://x/?a=1&amp;b"'])
            )
            parts.append(f"<{name}{attrs}>{draw(_html(depth + 1))}</{name}>")
    return "".join(parts)


@given(_html(), st.integers(8, 200))
@example(html=escape("aa'  <'"), size=8)  # a piece of two spaces alone (found by hypothesis)
@example(html="a" * 30 + " " * 600 + "\n" + "b" * 30, size=100)
def test_any_nesting_is_cut_into_balanced_pieces_with_the_same_text(html: str, size: int) -> None:
    pieces = _check(html, size)
    if len(html) <= size + size // 2:
        assert pieces == [html]
