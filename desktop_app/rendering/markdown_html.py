"""Markdown → the HTML subset Qt's rich text shows, safely.

Model and tool text is untrusted: raw HTML is escaped (markdown-it `html=False`), images become
plain links so nothing remote is ever fetched, and code is highlighted by pygments with inline
styles (Qt rich text has no stylesheet classes). GFM tables, strikethrough, task lists and
autolinks are on, as users of goose's own renderer expect.
"""

import re
from dataclasses import dataclass
from functools import lru_cache
from html import escape
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.tasklists import tasklists_plugin
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name, guess_lexer
from pygments.util import ClassNotFound

from desktop_app.rendering.links import safe_link

LIGHT_STYLE = "default"
DARK_STYLE = "monokai"


def highlight_code(code: str, language: str, *, dark: bool) -> str:
    """Pygments spans with inline colours; unknown languages stay plain, never guessed wrong."""
    try:
        lexer = get_lexer_by_name(language) if language else None
    except ClassNotFound:
        lexer = None
    if lexer is None:
        if len(code) > 20_000:
            return escape(code)
        try:
            lexer = guess_lexer(code)
        except ClassNotFound:
            return escape(code)
        if lexer.name == "Text only":
            return escape(code)
    formatter = HtmlFormatter(
        nowrap=True, noclasses=True, style=DARK_STYLE if dark else LIGHT_STYLE
    )
    return str(highlight(code, lexer, formatter))


def _render_image(
    renderer: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """Never an <img>: a link the user may click, so no image is loaded behind their back;
    an image whose address is no allowed link is only named."""
    del renderer, options, env
    token = tokens[idx]
    alt = escape(token.content or "image")
    source = safe_link(str(token.attrGet("src") or ""))
    if source is None:
        return f"[image: {alt}]"
    return f'<a href="{escape(source, quote=True)}">[image: {alt}]</a>'


@lru_cache(maxsize=2)
def _parser(dark: bool) -> MarkdownIt:
    def fence(code: str, language: str, attrs: Any) -> str:
        del attrs
        return highlight_code(code, language.strip().split(" ")[0], dark=dark)

    md = MarkdownIt("gfm-like", {"html": False, "linkify": True, "highlight": fence})
    md.validateLink = lambda url: safe_link(url) is not None  # type: ignore[method-assign]
    md.use(tasklists_plugin)
    md.add_render_rule("image", _render_image)
    return md


_CHECKED = (
    '<input class="task-list-item-checkbox" checked="checked" disabled="disabled" type="checkbox">'
)
_UNCHECKED = '<input class="task-list-item-checkbox" disabled="disabled" type="checkbox">'


COPY_SCHEME = "gander-copy"
"""Links `gander-copy:N` above code blocks: the view copies code block N when clicked."""


@dataclass(frozen=True, slots=True)
class RenderedMarkdown:
    html: str
    code_blocks: tuple[str, ...]
    """The source of each fenced or indented code block, for its copy link."""


_BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")


def show_controls(text: str) -> str:
    """Bidirectional overrides can make text read differently from what it is (a file name
    that ends in `.exe` displayed as `.txt`); in the transcript they appear as visible marks."""
    return _BIDI_CONTROLS.sub(lambda m: f"⟦U+{ord(m.group(0)):04X}⟧", text)


def render_markdown(text: str, *, dark: bool = False) -> RenderedMarkdown:
    """Qt rich text has no form controls, CSS borders or buttons: task-list boxes become ☑ and
    ☐, tables get HTML border attributes, and each code block gets a "Copy" link."""
    parser = _parser(dark)
    tokens = parser.parse(show_controls(text))
    codes = tuple(t.content for t in tokens if t.type in ("fence", "code_block"))
    html = str(parser.renderer.render(tokens, parser.options, {}))
    html = html.replace("<table>", '<table border="1" cellspacing="0" cellpadding="4">')
    html = html.replace(_CHECKED, "☑").replace(_UNCHECKED, "☐")
    pieces = html.split("<pre>")
    html = pieces[0] + "".join(
        f'<p align="right"><a href="{COPY_SCHEME}:{index}">Copy</a></p><pre>{piece}'
        for index, piece in enumerate(pieces[1:])
    )
    return RenderedMarkdown(html=html, code_blocks=codes)


def markdown_to_html(text: str, *, dark: bool = False) -> str:
    return render_markdown(text, dark=dark).html
