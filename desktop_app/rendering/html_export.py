"""A transcript as one self-contained HTML file, rendered by the same code as the window.

Images are embedded as data URLs, reasoning and tool results sit in `<details>`, and a Content
Security Policy forbids every remote load and every script, so opening an export of untrusted
model output in a browser cannot fetch or run anything. The window's own links (Copy, Show more,
Save all, open a sub-agent's transcript) mean nothing in a browser and are left out; the copy of
a tool result sent to the model only is in the page only with `include_hidden`, as in Markdown.
"""

import base64
import re
from collections.abc import Iterable, Iterator
from html import escape

from desktop_app.domain.message import Message
from desktop_app.domain.parts import ImagePart, ToolCallPart
from desktop_app.domain.session import Session
from desktop_app.rendering import formatting
from desktop_app.rendering.images import check_raster
from desktop_app.rendering.markdown_html import COPY_SCHEME, MORE_SCHEME, SAVE_SCHEME, WRAP_SCHEME
from desktop_app.rendering.tool_cards import call_label
from desktop_app.rendering.transcript_blocks import (
    SESSION_SCHEME,
    Block,
    MessageRenderer,
    RenderedMessage,
)

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"

STYLE = """
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
pre { overflow-x: auto; background: #f6f8fa; padding: .5rem; border-radius: 4px; }
summary { cursor: pointer; color: #0969da; font-weight: 600; }
.preview { color: #656d76; font-style: italic; font-weight: 400; }
img { max-width: 100%; max-height: 480px; border: 1px solid #d0d7de; }
table { border-collapse: collapse; } td, th { border: 1px solid #d0d7de; padding: 2px 6px; }
table.diff td, table.terminal td, table.code td { border: none; padding: 0 4px; }
table.diff td:first-child, table.diff td[align] { color: #656d76; user-select: none; }
@media (prefers-color-scheme: dark) {
  body { color: #e6edf3; background: #0d1117; }
  article { background: #161b22; border-color: #30363d; }
  article.user { background: #12263f; } article.tool, pre { background: #1c2128; }
  .title, summary { color: #4493f8; } .meta, .preview, article > header span { color: #8d96a0; }
  tr.del { background: #4a1c21; } tr.add { background: #173a24; } tr.hunk { background: #1a2c44; }
  tr.fold, table.code { background: #1c2128; } table.terminal { background: #0d1117; }
  span.err { color: #f85149 !important; } span.meta { color: #8d96a0 !important; }
  table.code + pre { background: #1c2128 !important; }
  table.diff td:first-child, table.diff td[align] { color: #8d96a0; }
}
"""


def _image(part: ImagePart) -> str:
    """Embedded only when the window would decode it too (`check_raster`): never SVG, never
    bytes that are not what their label says."""
    data = formatting.decode_base64(part.data_b64)
    check = check_raster(part.mime_type, data)
    if check.format is not None and data is not None:
        encoded = base64.b64encode(data).decode("ascii")
        return f'<img alt="image" src="data:image/{check.format};base64,{encoded}">'
    label = escape(part.mime_type or "unknown type")
    return f'<p class="meta">[image: {label} not embedded: {escape(check.reason)}]</p>'


_ACTION = f"(?:{COPY_SCHEME}|{MORE_SCHEME}|{SAVE_SCHEME}):[0-9]+"
_COPY_LINE = re.compile(f'<p align="right"><a href="{COPY_SCHEME}:[0-9]+">Copy</a></p>')
_CODE_LINKS = re.compile(
    f'<a href="{WRAP_SCHEME}:0">[^<]*</a> · <a href="{COPY_SCHEME}:[0-9]+">Copy</a>'
)
_ACTION_LINKS = re.compile(f' — </i>(?:(?: · )?<a href="{_ACTION}">[^<]*</a>)+</p>')
_SESSION_LINK = re.compile(f'<p><a href="{SESSION_SCHEME}:([^"]*)">[^<]*</a></p>')
_OTHER_LINK = re.compile('<a href="gander-[a-z]+:[^"]*">([^<]*)</a>')


def without_window_links(html: str) -> str:
    """A block's HTML without the window's own links: Copy lines and code blocks' Wrap and Copy
    links go, "… more not shown — Copy all · Save all…" keeps its note, a sub-agent's link
    becomes its session id. The renderer escapes all stored text, so these patterns can only
    match markup it made itself."""
    html = _COPY_LINE.sub("", _CODE_LINKS.sub("", html))
    html = _ACTION_LINKS.sub("</i></p>", html)
    html = _SESSION_LINK.sub(r'<p class="meta">Sub-agent session <code>\1</code></p>', html)
    return _OTHER_LINK.sub(r"\1", html)


def _block(block: Block, message: RenderedMessage) -> str:
    css = f"block {block.kind}{' error' if block.error else ''}"
    title = escape(block.title)
    if block.size_label:
        title += f' <span class="meta">({escape(block.size_label)})</span>'
    if block.image_index >= 0:
        return f'<div class="{css}">{_image(message.images[block.image_index])}</div>'
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
        body = without_window_links("".join(_block(block, rendered) for block in rendered.blocks))
        return (
            f'<article class="{css}"><header>{escape(rendered.role_label)} '
            f"<span>{escape(details)}{mark}</span></header>{body}</article>\n"
        )

    @staticmethod
    def footer() -> str:
        return "</body></html>\n"
