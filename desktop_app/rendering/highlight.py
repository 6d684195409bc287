"""Mark every occurrence of a search term in an HTML fragment, touching only text, never tags."""

import re
from collections.abc import Sequence
from html import escape, unescape

_TAG = re.compile(r"(<[^>]*>)")
MARK_STYLE = "background-color:#ffe066;color:#000000"


def highlight_html(
    html: str, needle: str | Sequence[str], style: str = MARK_STYLE
) -> tuple[str, int]:
    """The fragment with matches of the needle (or any of several) wrapped in a styled span, and
    how many there were. Text between tags is unescaped before matching, so `"a<b"` finds
    `&quot;a&lt;b&quot;`."""
    needles = [needle] if isinstance(needle, str) else [n for n in needle if n]
    needles = [n for n in needles if n]
    if not needles:
        return html, 0
    alternatives = sorted(needles, key=len, reverse=True)
    pattern = re.compile("|".join(re.escape(n) for n in alternatives), re.IGNORECASE)
    pieces = _TAG.split(html)
    count = 0
    for index in range(0, len(pieces), 2):
        text = unescape(pieces[index])
        if not pattern.search(text):
            continue
        out = []
        position = 0
        for match in pattern.finditer(text):
            out.append(escape(text[position : match.start()], quote=False))
            out.append(f'<span style="{style}">{escape(match.group(0), quote=False)}</span>')
            position = match.end()
            count += 1
        out.append(escape(text[position:], quote=False))
        pieces[index] = "".join(out)
    return "".join(pieces), count
