"""Mark a search's words, or a find's text, in an HTML fragment, touching only text, never tags.

A find (the find bar) marks its text wherever it occurs, as a find in a text editor does. A
search marks whole words as the index matched them (`SearchTerms`): "is" is not marked inside
"surprising", and `deploy*` marks the words that start with "deploy". Words are found in the
fragment's text as read, across inline tags (a syntax-highlighted word is several spans); a
block tag (a paragraph, a line break, a table cell) ends a word.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape, unescape

from desktop_app.domain.search import Term, matches, words

_TAG = re.compile(r"(<[^>]*>)")
_TAG_NAME = re.compile(r"</?\s*([A-Za-z][A-Za-z0-9]*)")
_INLINE = frozenset(
    [
        "a",
        "abbr",
        "b",
        "big",
        "code",
        "em",
        "font",
        "i",
        "kbd",
        "mark",
        "q",
        "s",
        "samp",
        "small",
        "span",
        "strong",
        "sub",
        "sup",
        "tt",
        "u",
        "var",
    ]
)
"""Tags that sit inside a word's text; any other tag ends a word."""
_BREAK = "\x00"
"""Stands for a block tag in the text the words are found in (it is no word character)."""
MARK_STYLE = "background-color:#ffe066;color:#000000"


@dataclass(frozen=True, slots=True)
class SearchTerms:
    """A search's words, highlighted at word boundaries as the index matched them."""

    terms: tuple[Term, ...]


Needle = str | Sequence[str] | SearchTerms
"""A find's text (or several), or a search's words."""


def highlight_html(html: str, needle: Needle, style: str = MARK_STYLE) -> tuple[str, int]:
    """The fragment with matches of the needle wrapped in a styled span, and how many there
    were. Text between tags is unescaped before matching, so `"a<b"` finds
    `&quot;a&lt;b&quot;`."""
    if isinstance(needle, SearchTerms):
        return _highlight_words(html, needle.terms, style)
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


def _ends_word(tag: str) -> bool:
    name = _TAG_NAME.match(tag)
    return name is None or name.group(1).lower() not in _INLINE


def _highlight_words(html: str, terms: Sequence[Term], style: str) -> tuple[str, int]:
    """Each word the terms match, marked; a word split by inline tags is marked in each of its
    pieces."""
    if not terms:
        return html, 0
    pieces = _TAG.split(html)
    texts = [unescape(pieces[index]) for index in range(0, len(pieces), 2)]
    starts: list[int] = []
    joined: list[str] = []
    length = 0
    for number, text in enumerate(texts):
        if number and _ends_word(pieces[2 * number - 1]):
            joined.append(_BREAK)
            length += 1
        starts.append(length)
        joined.append(text)
        length += len(text)
    marked: list[list[tuple[int, int]]] = [[] for _ in texts]
    count = 0
    number = 0
    for word in words("".join(joined)):
        if not matches(word.group(0), terms):
            continue
        count += 1
        while number + 1 < len(texts) and starts[number + 1] <= word.start():
            number += 1
        piece = number
        while piece < len(texts) and starts[piece] < word.end():
            begin = max(word.start(), starts[piece]) - starts[piece]
            end = min(word.end(), starts[piece] + len(texts[piece])) - starts[piece]
            if begin < end:
                marked[piece].append((begin, end))
            piece += 1
    for number, spans in enumerate(marked):
        if spans:
            pieces[2 * number] = _wrapped(texts[number], spans, style)
    return "".join(pieces), count


def _wrapped(text: str, spans: list[tuple[int, int]], style: str) -> str:
    out: list[str] = []
    position = 0
    for begin, end in spans:
        out.append(escape(text[position:begin], quote=False))
        out.append(f'<span style="{style}">{escape(text[begin:end], quote=False)}</span>')
        position = end
    out.append(escape(text[position:], quote=False))
    return "".join(out)
