"""Markdown → the HTML subset Qt's rich text shows, safely and in bounded time.

Model and tool text is untrusted: raw HTML is escaped (markdown-it `html=False`), images become
plain links so nothing remote is ever fetched, only http/https/mailto links are links, and code
is highlighted by pygments with inline styles (Qt rich text has no stylesheet classes). GFM
tables, strikethrough, task lists and autolinks are on, as users of goose's own renderer expect.

Cost is bounded whatever the text (figures in docs/reliability.md): a lexer is never guessed
(`guess_lexer` took 20 s on 20 kB of newlines and called prose "scdoc"); code is highlighted only
below `HIGHLIGHT_LIMIT` and while the message's `Budget` lasts (some lexers are quadratic: an
HTML fence of `<!--` repeated took 30 s for 120 kB); only the first `MARKDOWN_LIMIT` characters
are parsed as Markdown (a 2 MB table took 53 s and 1.4 GB), the rest is shown as plain text
with a note; and when markdown-it's nesting limit would drop the rest of a deeply nested block,
that rest is shown as plain text instead.

Memory and layout are bounded too: the window looks at no more of a text than it shows (a 20 MB
message is never copied, sliced whole or laid out); what is left is offered as Show more, Copy
all and Save all; and text with a long run of characters that has nowhere to wrap says so
(`long_runs`), because Qt lays out such a run in time quadratic in its length (200,000
characters: 0.8 s per layout pass) unless it may break anywhere.
"""

import re
import time
from dataclasses import dataclass
from functools import lru_cache
from html import escape
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.tasklists import tasklists_plugin
from pygments import format as format_tokens
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_all_lexers, get_lexer_by_name
from pygments.style import Style
from pygments.styles import get_style_by_name
from pygments.util import ClassNotFound

from desktop_app.rendering import formatting
from desktop_app.rendering.colours import DARK, LIGHT, code_backgrounds, readable
from desktop_app.rendering.links import safe_link

LIGHT_STYLE = "default"
DARK_STYLE = "monokai"
"""The pygments styles code colours start from; `code_style` makes each colour meet WCAG AA on
the theme's card backgrounds."""
HIGHLIGHT_LIMIT = 64_000
MARKDOWN_LIMIT = 64_000
SHOWN_LIMIT = 64_000
"""Characters of a text the window shows at first, Markdown first (up to `MARKDOWN_LIMIT`),
then plain; Show more shows more, and exports pass `None` for all of it. Qt lays out about 1.4
million characters a second on the GUI thread: 264,000 stalled the window 90 ms."""
PLAIN_LEAST = 4_000
"""Less plain text than this, in a text shown in part, is not shown at all."""
MORE_SCHEME = "gander-more"
"""Show more of a message's text than the window shows at first."""
SAVE_SCHEME = "gander-save"
"""Save a text whole to a file (`gander-save:N`, N as in `copy:N`)."""
LONG_RUN = 1_000
"""Characters without a space or line end after which a text may wrap anywhere."""
_RUN_SLICE = 64 * 1024
RENDER_BUDGET_S = 0.25
"""Highlighting time one message may take; code after that is shown plain."""
NESTING_GUARD = 4
"""Levels below markdown-it's `maxNesting` at which the rest of a block becomes plain text."""


@dataclass(slots=True)
class Budget:
    """A deadline shared by everything one message renders."""

    deadline: float

    @classmethod
    def of(cls, seconds: float = RENDER_BUDGET_S) -> "Budget":
        return cls(time.monotonic() + seconds)

    def spent(self) -> bool:
        return time.monotonic() > self.deadline


_COLOUR = re.compile(r"(?<![:\w])#[0-9a-fA-F]{3,6}\b")


@lru_cache(maxsize=2)
def code_style(dark: bool) -> type[Style]:
    """The pygments style of a theme, every foreground colour made readable on its cards."""
    base = get_style_by_name(DARK_STYLE if dark else LIGHT_STYLE)
    backgrounds = code_backgrounds(DARK if dark else LIGHT)

    def fixed(rule: str) -> str:
        return _COLOUR.sub(lambda m: readable(m.group(0), backgrounds, dark=dark), rule)

    styles = {token: fixed(rule) for token, rule in base.styles.items()}
    return type(f"Readable{base.__name__}", (base,), {"styles": styles})


@lru_cache(maxsize=2)
def _formatter(dark: bool) -> HtmlFormatter[str]:
    return HtmlFormatter(nowrap=True, noclasses=True, style=code_style(dark))


@lru_cache(maxsize=1)
def _builtin_aliases() -> frozenset[str]:
    """The languages pygments itself knows. A name from a transcript is looked up only among
    these: pygments would otherwise search installed packages' lexer plugins for an unknown
    name, importing them (one installed package set the interpreter's recursion limit)."""
    return frozenset(
        alias.lower() for _, aliases, _, _ in get_all_lexers(plugins=False) for alias in aliases
    )


def highlight_code(code: str, language: str, *, dark: bool, budget: Budget | None = None) -> str:
    """Pygments spans with inline colours, or the code escaped: when no language is named (a
    language is never guessed), when it is unknown, when the code is longer than
    `HIGHLIGHT_LIMIT`, or when the budget runs out while lexing."""
    if not language or len(code) > HIGHLIGHT_LIMIT or language.lower() not in _builtin_aliases():
        return escape(code)
    try:
        lexer = get_lexer_by_name(language)
    except ClassNotFound:
        return escape(code)
    budget = budget or Budget.of()
    if budget.spent():
        return escape(code)
    tokens = []
    for count, token in enumerate(lexer.get_tokens(code)):
        tokens.append(token)
        if count % 64 == 0 and budget.spent():
            return escape(code)
    return str(format_tokens(tokens, _formatter(dark)))


def _render_image(
    renderer: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """Never an <img>: a link the user may click, so no image is loaded behind their back;
    an image at a local path is named with its path as code (`local_path`)."""
    del renderer, options, env
    token = tokens[idx]
    alt = escape(token.content or "image")
    address = str(token.attrGet("src") or "")
    source = safe_link(address)
    if source is None:
        shown = escape(_shown_address(address))
        return f"[image: {alt}] <code>{shown}</code>"
    return f'<a href="{escape(source, quote=True)}">[image: {alt}]</a>'


WRAP_SCHEME = "gander-wrap"
"""`gander-wrap:0`, in a code block's header: the view switches the block between long lines
wrapped (the default) and one line each, scrolled sideways (`wrap_pre`)."""
NO_WRAP_LABEL = "No wrap"
WRAP_LABEL = "Wrap"
"""What the link says: the state it switches to."""


def code_frame(body: str, language: str, index: int, *, dark: bool) -> str:
    """A code block as Qt rich text can draw one (it has no CSS borders): a header on the
    theme's code background with the language and the block's Wrap and Copy links (copying
    code block `index`), then the code, preformatted on the same background. The header is a
    table of its own, so a block switched to no wrap scrolls its code, never its links out of
    sight. The HTML export styles it by its class (its dark colours) and drops the links."""
    theme = DARK if dark else LIGHT
    label = f'<span style="color:{theme.muted}">{escape(language)}</span>' if language else ""
    code = body.removesuffix("\n")  # the block ends with its last line, not a blank one
    links = (
        f'<a href="{WRAP_SCHEME}:0">{NO_WRAP_LABEL}</a> · <a href="{COPY_SCHEME}:{index}">Copy</a>'
    )
    return (
        f'<table class="code" width="100%" cellspacing="0" cellpadding="3" '
        f'bgcolor="{theme.background}"><tr><td>{label}</td><td align="right">{links}</td></tr>'
        f'</table><pre style="background-color:{theme.background};margin-top:0">'
        f"<code>{code}</code></pre>\n"
    )


def _render_fence(
    renderer: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """A fenced or indented code block, highlighted when it names its language, framed with
    its header; blocks are numbered in order for their Copy links."""
    del renderer, options
    token = tokens[idx]
    language = token.info.strip().split(" ")[0] if token.info else ""
    body = highlight_code(token.content, language, dark=env["dark"], budget=env["budget"])
    env["code_number"] = index = env.get("code_number", -1) + 1
    return code_frame(body, language, index, dark=env["dark"])


_PRE = re.compile(r'<pre(?: style="([^"]*)")?>')
_WHITE_SPACE = re.compile(r"white-space:[^;]*;?")
_WRAP_LINK = re.compile(f'(<a href="{WRAP_SCHEME}:0">)[^<]*(</a>)')


def wrap_pre(html: str, *, wrap: bool) -> str:
    """A block's HTML with every preformatted part wrapping its long lines at the card's edge
    (`wrap`), or keeping each on one line to scroll sideways, and its Wrap links saying what
    they switch to. Only tags the renderers wrote can match: stored text is escaped."""
    rule = "white-space:pre-wrap" if wrap else "white-space:pre"

    def styled(match: re.Match[str]) -> str:
        rest = _WHITE_SPACE.sub("", match.group(1) or "").strip(";")
        return f'<pre style="{rule}{";" + rest if rest else ""}">'

    label = NO_WRAP_LABEL if wrap else WRAP_LABEL
    html = _PRE.sub(styled, html)
    return _WRAP_LINK.sub(lambda match: f"{match.group(1)}{label}{match.group(2)}", html)


def _too_deep(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Near markdown-it's nesting limit, take the rest of the block as plain text: past the
    limit markdown-it drops every remaining line of it. The block ends where markdown-it's
    own loop would end it: at the first line indented less than the block."""
    if state.level < state.md.options.maxNesting - NESTING_GUARD:
        return False
    stop = start
    while stop < end and (state.isEmpty(stop) or state.sCount[stop] >= state.blkIndent):
        stop += 1
    while stop > start + 1 and state.isEmpty(stop - 1):
        stop -= 1
    if not silent:
        token = state.push("too_deep", "", 0)
        token.content = state.getLines(start, stop, state.blkIndent, True)
        token.map = [start, stop]
    state.line = stop
    return True


PLAIN_STYLE = "white-space:pre-wrap;font-family:monospace"


def _render_too_deep(
    renderer: RendererHTML, tokens: list[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """Line breaks as `<br>` and indentation as non-breaking spaces: inside a list item Qt
    would start a new bulleted item at every newline of a pre-wrapped paragraph."""
    del renderer, options, env
    lines = tokens[idx].content.rstrip("\n").split("\n")
    shown = "<br>".join(
        "&nbsp;" * (len(line) - len(line.lstrip(" "))) + escape(line.lstrip(" ")) for line in lines
    )
    return f'<p style="font-family:monospace">{shown}</p>\n'


def _gfm_autolinks(linkify: Any) -> None:
    """GFM's autolinks only: a URL with its scheme, a `www.` name, an e-mail address. linkify-it
    also links any bare name with a dot before a country code, which in an agent's reply is a
    file (`NOTES.md`, `setup.py` became links to the sites http://NOTES.md and http://setup.py);
    goose's renderer (remark-gfm) leaves them text."""
    everything = linkify.match

    def gfm(text: str) -> list[Any] | None:
        links = [
            link
            for link in everything(text) or ()
            if link.schema or link.text.lower().startswith("www.")
        ]
        return links or None

    linkify.match = gfm


WORD_LOOK = 128
"""Characters looked at on each side of an underscore for the word it is in; a longer word is
an identifier, a hash or a path, never emphasis."""
_OPENING_MARKS = "([{\"'*~<"
_CLOSING_MARKS = ")]}\"'*~>,;:!?."
_INTRAWORD = re.compile(r"[^\W_]_[^\W_]")
_DOTTED = re.compile(r"\w\.\w")


def _word_of(src: str, start: int, end: int) -> str | None:
    """The whitespace-delimited word holding `src[start:end]`, or None when it is longer than
    `WORD_LOOK` on either side (found by C-speed scans, so each underscore costs a bounded
    amount whatever the text)."""
    low = max(0, start - WORD_LOOK)
    before = max(src.rfind(space, low, start) for space in " \n\t")
    if before < 0 and low > 0:
        return None
    high = min(len(src), end + WORD_LOOK)
    after = [found for space in " \n\t" if (found := src.find(space, end, high)) >= 0]
    if not after and high < len(src):
        return None
    return src[before + 1 : min(after) if after else high]


def is_identifier_or_path(word: str) -> bool:
    """Whether a word is code an agent wrote bare, whose underscores are never emphasis: a
    path (`src/__init__.py`), a dotted or file name (`__init__.py`, `os.__file__`), a
    snake_case name (`my_var_`, `_private_name`), a dunder (`__tests__`). `_word_` and
    `__several words__` stay emphasis, as CommonMark reads them."""
    core = word.lstrip(_OPENING_MARKS).rstrip(_CLOSING_MARKS)
    if "/" in core or "\\" in core or _INTRAWORD.search(core) or _DOTTED.search(core):
        return True
    return len(core) > 4 and core.startswith("__") and core.endswith("__") and core.strip("_") != ""


def _code_underscores(state: StateInline, silent: bool) -> bool:
    """A run of underscores in an identifier or a path is text: markdown-it would read
    `__tests__` and `src/__init__.py` as bold, and `_private_var and my_var_` as emphasis.
    Runs before markdown-it's emphasis rule, which then never sees these underscores."""
    start = state.pos
    if state.src[start] != "_":
        return False
    end = start
    while end < state.posMax and state.src[end] == "_":
        end += 1
    word = _word_of(state.src, start, end)
    if word is not None and not is_identifier_or_path(word):
        return False
    if not silent:
        state.pending += state.src[start:end]
    state.pos = end
    return True


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+:(?!\d)")


def local_path(url: str) -> bool:
    """Whether a link's address is a path on the agent's machine (`/home/u/a.py`, `./a.py`,
    `src/a.py:12`, `C:\\a.py`, `file:///a.py`): shown as a code-styled path, never a link
    (nothing on this machine is opened from a history). A URL of another scheme
    (`javascript:`, `data:`) or a network path (`//host/x`) is none."""
    if not url or url.startswith(("//", "#", "?")) or safe_link(url) is not None:
        return False
    if url[:5].lower() == "file:":
        return True
    return _SCHEME.match(url) is None


def _shown_address(address: str) -> str:
    """A normalized address as written (`%20` back to a space)."""
    return str(_parser().normalizeLinkText(address))


def _local_links(state: StateCore) -> None:
    """Each link to a local path becomes its path as code: alone when the link's text is the
    path or its end (`[toolbar.css](src/toolbar.css)`), else after the text, in brackets."""
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        children: list[Token] = []
        opened: tuple[str, int] | None = None
        for token in block.children:
            href = str(token.attrGet("href") or "") if token.type == "link_open" else ""
            if token.type == "link_open" and local_path(href):
                opened = (_shown_address(href), len(children))
            elif token.type == "link_close" and opened is not None:
                path, first = opened
                opened = None
                label = "".join(t.content for t in children[first:])
                code = Token("code_inline", "code", 0, content=path, markup="`")
                if label and (path == label or path.endswith(("/" + label, "\\" + label))):
                    children[first:] = [code]
                else:
                    children += [Token("text", "", 0, content=" ("), code]
                    children.append(Token("text", "", 0, content=")"))
            else:
                children.append(token)
        block.children = children


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    md = MarkdownIt("gfm-like", {"html": False, "linkify": True})
    md.validateLink = lambda url: safe_link(url) is not None or local_path(url)  # type: ignore[method-assign]
    _gfm_autolinks(md.linkify)
    md.inline.ruler.before("emphasis", "code_underscores", _code_underscores)
    md.core.ruler.after("linkify", "local_links", _local_links)
    md.use(tasklists_plugin)
    md.block.ruler.before("table", "too_deep", _too_deep)
    md.add_render_rule("too_deep", _render_too_deep)
    md.add_render_rule("fence", _render_fence)
    md.add_render_rule("code_block", _render_fence)
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
    """The source of each fenced or indented code block, for its copy link; for a text shown in
    part, the last is the whole text (the caller's own string, not a copy)."""
    long_runs: bool = False
    """Whether what is shown has a run of `LONG_RUN` characters with nowhere to wrap."""


_BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")
_LONE_SURROGATES = re.compile("[\ud800-\udfff]")


def show_controls(text: str) -> str:
    """Bidirectional overrides can make text read differently from what it is (a file name
    that ends in `.exe` displayed as `.txt`); in the transcript they appear as visible marks.
    Lone surrogates (from `\\ud800` escapes in stored JSON), which Qt would silently drop,
    appear as U+FFFD."""
    text = _LONE_SURROGATES.sub("\ufffd", text)
    return _BIDI_CONTROLS.sub(lambda m: f"⟦U+{ord(m.group(0)):04X}⟧", text)


def _split(text: str, limit: int) -> tuple[str, str]:
    """The Markdown part (cut at a line end when one is near the limit) and the rest."""
    if len(text) <= limit:
        return text, ""
    cut = text.rfind("\n", limit // 2, limit)
    cut = cut + 1 if cut >= 0 else limit
    return text[:cut], text[cut:]


def _remainder(head: str, shown: str, hidden: int, whole: int, *, more: bool) -> str:
    """The plain part and its note; `hidden` characters of the text are not shown, and the
    text is code block number `whole` (see `more_links`)."""
    note = f"Shown in part: the first {formatting.byte_size(len(head))} as formatted text"
    if shown:
        note += f", then {formatting.byte_size(len(shown))} as plain text"
    plain = f'<p style="{PLAIN_STYLE}">{escape(shown)}</p>' if shown else ""
    if not hidden:
        return f"<p><i>{escape(note)}.</i></p>{plain}"
    note += f"; {formatting.byte_size(hidden)} more not shown"
    links = more_links(whole, more=more)
    top = f"<p><i>{escape(note)} — </i>{links}</p>"
    if not plain:
        return top
    return f"{top}{plain}<p><i>{formatting.byte_size(hidden)} more — </i>{links}</p>"


def has_long_run(text: str) -> bool:
    """A run of `LONG_RUN` characters with no whitespace in `text`. Linear (a regular
    expression would retry every start of a run, or every place: 37 ms for a megabyte of
    prose), and split a slice at a time: the megabyte shown after Show more split at once held
    the interpreter lock 15–30 ms. Slices overlap by `LONG_RUN`, so a run that starts in one
    is seen whole in it; a word cut at a slice's start is part of a run at least as long."""
    return any(
        len(word) >= LONG_RUN
        for start in range(0, len(text), _RUN_SLICE)
        for word in text[start : start + _RUN_SLICE + LONG_RUN].split()
    )


def more_links(whole: int | None, *, more: bool) -> str:
    """Show more of the message (unless the window shows as much as it ever will), and copy or
    save code block `whole` (the text, whole) when there is one."""
    links = [f'<a href="{MORE_SCHEME}:0">Show more</a>'] if more else []
    if whole is not None:
        links.append(f'<a href="{COPY_SCHEME}:{whole}">Copy all</a>')
        links.append(f'<a href="{SAVE_SCHEME}:{whole}">Save all…</a>')
    return " · ".join(links)


def render_markdown(
    text: str,
    *,
    dark: bool = False,
    budget: Budget | None = None,
    shown_limit: int | None = SHOWN_LIMIT,
    offer_more: bool = True,
) -> RenderedMarkdown:
    """Qt rich text has no form controls, CSS borders or buttons: task-list boxes become ☑ and
    ☐, tables get HTML border attributes, and each code block a header (`code_frame`). A text
    longer than the window shows ends in Show more (when `offer_more`), Copy all and Save
    all."""
    parser = _parser()
    # The window looks at no more than it may show, plus one character that says more follows.
    window = text if shown_limit is None else text[: shown_limit + 1]
    formatted = MARKDOWN_LIMIT if shown_limit is None else min(MARKDOWN_LIMIT, shown_limit)
    head, rest = _split(show_controls(window), formatted)
    tokens = parser.parse(head)
    env: dict[str, Any] = {"dark": dark, "budget": budget or Budget.of()}
    codes = [t.content for t in tokens if t.type in ("fence", "code_block")]
    html = str(parser.renderer.render(tokens, parser.options, env))
    html = html.replace("<table>", '<table border="1" cellspacing="0" cellpadding="4">')
    html = html.replace(_CHECKED, "☑").replace(_UNCHECKED, "☐")
    shown = rest if shown_limit is None else rest[: max(0, shown_limit - len(head))]
    if len(shown) < len(rest) and len(shown) < PLAIN_LEAST:
        shown = ""  # a few hundred bytes of plain text between the two notes say nothing
    if rest:
        hidden = len(text) - len(window) + len(rest) - len(shown)
        html += (_copy_link(len(codes)) if not hidden else "") + _remainder(
            head, shown, hidden, len(codes), more=offer_more
        )
        codes.append(text if hidden else rest)
    long_runs = has_long_run(head) or has_long_run(shown)
    return RenderedMarkdown(html=html, code_blocks=tuple(codes), long_runs=long_runs)


def _copy_link(index: int) -> str:
    return f'<p align="right"><a href="{COPY_SCHEME}:{index}">Copy</a></p>'


def markdown_to_html(text: str, *, dark: bool = False) -> str:
    return render_markdown(text, dark=dark).html
