"""A transcript as one self-contained HTML file, rendered by the same code as the window.

Images are embedded as data URLs, reasoning and tool results sit in `<details>`, and a Content
Security Policy forbids every remote load and every script, so opening an export of untrusted
model output in a browser cannot fetch or run anything. The window's own links (Copy, Show more,
Save all, open a sub-agent's transcript) mean nothing in a browser and are left out; the copy of
a tool result sent to the model only is in the page only with `include_hidden`, as in Markdown.

What the window switches, the page switches without script: each code or output block wraps
its long lines, and its "No wrap" (a checkbox's label, the `:checked` rule beside it) keeps them
on one line to scroll sideways; an image is at least 96 pixels high (a smaller one enlarged,
crisply) and at most 220, never wider than the column, and a click on it (a checkbox's label
again) shows it larger. Without CSS the checkboxes are plain and every block wraps as text does.
"""

import base64
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from html import escape

from pygments import format as format_tokens
from pygments.formatters import HtmlFormatter

from desktop_app.domain.message import Message
from desktop_app.domain.parts import ImagePart, ToolCallPart
from desktop_app.domain.session import Session
from desktop_app.rendering import formatting
from desktop_app.rendering.images import check_raster
from desktop_app.rendering.markdown_html import (
    COPY_SCHEME,
    MORE_SCHEME,
    SAVE_SCHEME,
    WRAP_SCHEME,
    code_style,
)
from desktop_app.rendering.tool_cards import call_label
from desktop_app.rendering.transcript_blocks import (
    SESSION_SCHEME,
    Block,
    MessageRenderer,
    RenderedMessage,
)

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def dark_code_colours() -> dict[str, str]:
    """Each colour the light code style writes inline, as it writes it (`#00F`, `#BA2121`) →
    the dark style's colour for the same tokens (the one most of them take): the page is
    rendered once, in the light theme's colours, and a dark reader's browser swaps them
    (`STYLE`), so code stays readable on the dark background instead of navy on black."""
    light, dark = code_style(False), code_style(True)
    written = HtmlFormatter(nowrap=True, noclasses=True, style=light)
    votes: dict[str, Counter[str]] = {}
    for token, _ in light:
        found = _INLINE_COLOUR.search(format_tokens([(token, "x")], written))
        swapped = dark.style_for_token(token)["color"]
        if found and swapped:
            votes.setdefault(found.group(1), Counter())[swapped.lower()] += 1
    return {colour: counted.most_common(1)[0][0] for colour, counted in sorted(votes.items())}


_INLINE_COLOUR = re.compile(r'style="color: #([0-9a-fA-F]{3,6})\b')


def dark_code_rule(light: str, dark: str) -> str:
    """The rule that swaps one inline code colour, on a span with it alone or first (`#800`
    never matches `#800080`)."""
    spans = f'pre span[style="color: #{light}" i], pre span[style^="color: #{light};" i]'
    return f"  {spans} {{ color: #{dark} !important; }}"


_DARK_CODE = "\n".join(dark_code_rule(*swap) for swap in dark_code_colours().items())

STYLE = (
    """
:root { color-scheme: light dark; }
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
       color: #1f2328; background: #f6f8fa; }
header.session { margin-bottom: 1.5rem; } header.session h1 { margin-bottom: .25rem; }
.meta { color: #656d76; font-size: 13px; }
article { background: #fff; border: 1px solid #d0d7de; border-radius: 6px; padding: .5rem .9rem;
          margin: .5rem 0; }
article.user { background: #eef5ff; } article.tool { background: #f6f8fa; }
article.agent-only { border-color: #9a6700; border-style: dashed; }
article > header { font-weight: 600; } article > header span { color: #656d76; font-weight: 400; }
.title { color: #0969da; font-weight: 600; } .error .title, .error { color: #cf222e; }
pre { background: #f6f8fa; padding: .5rem; border-radius: 4px; white-space: pre-wrap;
      overflow-wrap: anywhere; }
td { overflow-wrap: anywhere; } table.terminal { table-layout: fixed; }
input.switch { position: absolute; opacity: 0; width: 1px; height: 1px; margin: 0; }
label.nowrap { display: block; text-align: right; font-size: 12px; color: #0969da;
               cursor: pointer; user-select: none; }
table.code label.nowrap { display: inline; }
input.switch:focus-visible + label.nowrap, input.switch:focus-visible + table.code label.nowrap
  { outline: 2px solid #0969da; }
input.switch:checked + label.nowrap + pre, input.switch:checked + table.code + pre
  { white-space: pre !important; overflow-wrap: normal; overflow-x: auto; }
input.switch:checked + label.nowrap, input.switch:checked + table.code label.nowrap
  { font-size: 0; }
input.switch:checked + label.nowrap::after, input.switch:checked + table.code label.nowrap::after
  { content: "Wrap"; font-size: 12px; }
label.zoom { display: inline-block; max-width: 100%; cursor: zoom-in; }
img.thumb { min-height: 96px; max-height: 220px; object-fit: contain; }
img.crisp { image-rendering: pixelated; }
input.switch:checked + img.thumb { max-height: none; cursor: zoom-out; }
input.switch:checked + img.crisp { min-height: 384px; }
summary { cursor: pointer; color: #0969da; font-weight: 600; }
details[open] > summary .preview { display: none; }
.preview { color: #656d76; font-style: italic; font-weight: 400; }
img { max-width: 100%; max-height: 480px; border: 1px solid #d0d7de; }
table { border-collapse: collapse; } td, th { border: 1px solid #d0d7de; padding: 2px 6px; }
table.diff td, table.terminal td, table.code td { border: none; padding: 0 4px; }
table.diff td:first-child, table.diff td[align] { color: #656d76; user-select: none; }
@media (prefers-color-scheme: dark) {
  body { color: #e6edf3; background: #0d1117; }
  article { background: #161b22; border-color: #30363d; }
  article.user { background: #12263f; } article.tool, pre { background: #1c2128; }
  .title, summary, label.nowrap { color: #4493f8; }
  .meta, .preview, article > header span { color: #8d96a0; }
  tr.del { background: #4a1c21; } tr.add { background: #173a24; } tr.hunk { background: #1a2c44; }
  tr.fold, table.code { background: #1c2128; } table.terminal { background: #0d1117; }
  span.err { color: #f85149 !important; } span.meta { color: #8d96a0 !important; }
  table.code + pre { background: #1c2128 !important; }
  table.diff td:first-child, table.diff td[align] { color: #8d96a0; }
"""
    + _DARK_CODE
    + """
}
"""
)


THUMB_MIN = 96
"""An image less high than this is drawn this high, crisply (`img.crisp`), as the window does."""


def raster_height(kind: str, data: bytes) -> int | None:
    """The image's height as its header says, for the formats `check_raster` lets through;
    `None` where the header cannot say (the image is then drawn smoothly). Reads at most the
    JPEG segments before its frame header, each skipped by its length."""
    if kind == "png" and len(data) >= 24:
        return int.from_bytes(data[20:24], "big")
    if kind == "gif" and len(data) >= 10:
        return int.from_bytes(data[8:10], "little")
    if kind == "bmp" and len(data) >= 26:
        return abs(int.from_bytes(data[22:26], "little", signed=True))
    if kind == "webp" and len(data) >= 30:
        chunk = data[12:16]
        if chunk == b"VP8X":
            return int.from_bytes(data[27:30], "little") + 1
        if chunk == b"VP8L":
            return ((int.from_bytes(data[21:25], "little") >> 14) & 0x3FFF) + 1
        if chunk == b"VP8 ":
            return int.from_bytes(data[28:30], "little") & 0x3FFF
        return None
    if kind == "jpeg":
        return _jpeg_height(data)
    return None


_JPEG_FRAMES = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def _jpeg_height(data: bytes) -> int | None:
    position = 2
    while position + 9 <= len(data) and data[position] == 0xFF:
        marker = data[position + 1]
        if marker in _JPEG_FRAMES:
            return int.from_bytes(data[position + 5 : position + 7], "big")
        length = int.from_bytes(data[position + 2 : position + 4], "big")
        if length < 2:
            return None
        position += 2 + length
    return None


def _image(part: ImagePart, number: int) -> str:
    """Embedded only when the window would decode it too (`check_raster`): never SVG, never
    bytes that are not what their label says. Inside a label with a hidden checkbox: a click
    shows it larger, no script."""
    data = formatting.decode_base64(part.data_b64)
    check = check_raster(part.mime_type, data)
    if check.format is not None and data is not None:
        encoded = base64.b64encode(data).decode("ascii")
        height = raster_height(check.format, data)
        crisp = " crisp" if height is not None and height < THUMB_MIN else ""
        return (
            f'<label class="zoom" for="z{number}" title="Click to enlarge">'
            f'<input type="checkbox" class="switch" id="z{number}" aria-label="Enlarge">'
            f'<img class="thumb{crisp}" alt="image" '
            f'src="data:image/{check.format};base64,{encoded}"></label>'
        )
    label = escape(part.mime_type or "unknown type")
    return f'<p class="meta">[image: {label} not embedded: {escape(check.reason)}]</p>'


_ACTION = f"(?:{COPY_SCHEME}|{MORE_SCHEME}|{SAVE_SCHEME}):[0-9]+"
_COPY_LINE = re.compile(f'<p align="right"><a href="{COPY_SCHEME}:[0-9]+">Copy(?: JSON)?</a></p>')
_CODE_LINKS = re.compile(
    f'<a href="{WRAP_SCHEME}:0">[^<]*</a> · <a href="{COPY_SCHEME}:[0-9]+">Copy</a>'
)
_ACTION_LINKS = re.compile(f' — </i>(?:(?: · )?<a href="{_ACTION}">[^<]*</a>)+</p>')
_SESSION_LINK = re.compile(f'<p><a href="{SESSION_SCHEME}:([^"]*)">[^<]*</a></p>')
_OTHER_LINK = re.compile('<a href="gander-[a-z]+:[^"]*">([^<]*)</a>')


_BLOCKS = re.compile(
    f'(?P<head><table class="code"[^>]*><tr><td>(?:<span[^>]*>[^<]*</span>)?</td>'
    f'<td align="right">)<a href="{WRAP_SCHEME}:0">[^<]*</a> · <a href="{COPY_SCHEME}:[0-9]+">'
    f"Copy</a>(?P<tail></td></tr></table>)<pre|<pre(?=[ >])"
)


class WrapSwitches:
    """Gives each code or output block of a page its No wrap switch: a hidden checkbox before
    the block (its header, for a code block framed as the window frames one) and a label for
    it that the `:checked` rules of `STYLE` make switch the block to one line a row. Numbered
    across the page, so each label names its own checkbox. Run before `without_window_links`
    (it takes the code header's Wrap link's place); stored text is escaped, so only tags the
    renderers wrote can match."""

    def __init__(self) -> None:
        self.count = 0

    def _switch(self) -> tuple[str, str]:
        self.count += 1
        name = f"w{self.count}"
        return (
            f'<input type="checkbox" class="switch" id="{name}" aria-label="No wrap">',
            f'<label class="nowrap" for="{name}">No wrap</label>',
        )

    def add(self, html: str) -> str:
        def switched(match: re.Match[str]) -> str:
            box, label = self._switch()
            if match.group("head") is None:
                return f"{box}{label}<pre"
            return f"{box}{match.group('head')}{label}{match.group('tail')}<pre"

        return _BLOCKS.sub(switched, html)


def without_window_links(html: str) -> str:
    """A block's HTML without the window's own links: Copy lines and code blocks' Wrap and Copy
    links go, "… more not shown — Copy all · Save all…" keeps its note, a sub-agent's link
    becomes its session id. The renderer escapes all stored text, so these patterns can only
    match markup it made itself."""
    html = _COPY_LINE.sub("", _CODE_LINKS.sub("", html))
    html = _ACTION_LINKS.sub("</i></p>", html)
    html = _SESSION_LINK.sub(r'<p class="meta">Sub-agent session <code>\1</code></p>', html)
    return _OTHER_LINK.sub(r"\1", html)


def _block(block: Block, message: RenderedMessage, number: int) -> str:
    css = f"block {block.kind}{' error' if block.error else ''}"
    title = escape(block.title)
    if block.size_label:
        title += f' <span class="meta">({escape(block.size_label)})</span>'
    if block.image_index >= 0:
        return f'<div class="{css}">{_image(message.images[block.image_index], number)}</div>'
    if block.collapsible and block.html:
        preview = f' <span class="preview">{escape(block.preview)}</span>' if block.preview else ""
        opened = "" if block.collapsed else " open"
        return (
            f'<details class="{css}"{opened}><summary>{title}{preview}</summary>'
            f"{block.html}</details>"
        )
    heading = f'<div class="title">{title}</div>' if block.title else ""
    preview = (
        f'<div class="preview">{escape(block.preview)}</div>'
        if block.preview and not block.html
        else ""
    )
    return f'<div class="{css}">{heading}{preview}{block.html}</div>'


class HtmlWriter:
    def __init__(self, *, include_hidden: bool = False) -> None:
        self.include_hidden = include_hidden
        self._renderer = MessageRenderer(dark=False, shown_limit=None, model_copies=include_hidden)
        self._tool_names: dict[str, str] = {}
        self._switches = WrapSwitches()
        self._blocks = 0

    def header(self, session: Session) -> str:
        facts = [f"<code>{escape(session.id)}</code> · {escape(session.session_type)}"]
        if session.working_dir:
            facts.append(f"<code>{escape(session.working_dir)}</code>")
        if session.provider or session.model:
            facts.append(escape(" · ".join(x for x in (session.provider, session.model) if x)))
        acc = session.accumulated_usage
        if not acc.is_empty or session.cost is not None:
            facts.append(
                f"{formatting.tokens(acc.total_tokens)} tokens · {formatting.cost(session.cost)}"
            )
        title = escape(session.name or session.id)
        return (
            '<!doctype html>\n<html><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            '<meta name="referrer" content="no-referrer">'
            f"<title>{title}</title><style>{STYLE}</style></head><body>\n"
            f'<header class="session"><h1>{title}</h1><div class="meta">'
            f"{' — '.join(facts)}</div></header>\n"
        )

    def messages(self, messages: Iterable[Message]) -> Iterator[str]:
        for message in messages:
            for part in message.parts:
                if isinstance(part, ToolCallPart) and part.call_id and part.tool:
                    self._tool_names[part.call_id] = call_label(part)
            if not message.visibility.user and not self.include_hidden:
                continue
            yield self.message(message)

    def message(self, message: Message) -> str:
        rendered = self._renderer.render(message, self._tool_names)
        role = rendered.role_label.lower()
        css = f"{escape(role)}{' agent-only' if rendered.agent_only else ''}"
        details = " · ".join(x for x in (rendered.time_label, rendered.model_label) if x)
        mark = " · agent only, hidden from the user" if rendered.agent_only else ""
        blocks = []
        for block in rendered.blocks:
            self._blocks += 1
            blocks.append(_block(block, rendered, self._blocks))
        body = without_window_links(self._switches.add("".join(blocks)))
        return (
            f'<article class="{css}"><header>{escape(rendered.role_label)} '
            f"<span>{escape(details)}{mark}</span></header>{body}</article>\n"
        )

    @staticmethod
    def footer() -> str:
        return "</body></html>\n"
