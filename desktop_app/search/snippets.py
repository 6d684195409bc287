"""Snippets around the matched words, made from the message itself.

The index stores no text (a contentless FTS5 table: half the size, faster to build), so the few
messages on a result page are read back from the history and the query's words are found in them
with the same folding the tokenizer applies (case and accents ignored; `prefix*` matches starts).
"""

import re
import unicodedata

from desktop_app.domain.search import MARK_END, MARK_START

_WORD = re.compile(r"\w+", re.UNICODE)
CONTEXT_WORDS = 12


def fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def _matches(word: str, terms: list[tuple[str, bool]]) -> bool:
    folded = fold(word)
    return any(folded.startswith(t) if prefix else folded == t for t, prefix in terms)


def make_snippet(texts: list[str], terms: list[tuple[str, bool]], width: int = 200) -> str:
    """The first passage holding a term, matched words marked; else the start of the text."""
    for text in texts:
        if not text:
            continue
        if not terms:
            continue
        words: list[re.Match[str]] = []
        hit: int | None = None
        for word in _WORD.finditer(text):  # up to the first match and the words after it
            words.append(word)
            if hit is None and _matches(word.group(0), terms):
                hit = len(words) - 1
            if hit is not None and len(words) > hit + CONTEXT_WORDS:
                break
        if hit is None:
            continue
        first = max(0, hit - CONTEXT_WORDS)
        last = min(len(words) - 1, hit + CONTEXT_WORDS)
        start, end = words[first].start(), words[last].end()
        pieces, position = [], start
        for index in range(first, last + 1):
            word = words[index]
            if _matches(word.group(0), terms):
                pieces.append(text[position : word.start()])
                pieces.append(f"{MARK_START}{word.group(0)}{MARK_END}")
                position = word.end()
        pieces.append(text[position:end])
        body = " ".join("".join(pieces).split())
        return ("…" if start > 0 else "") + body + ("…" if end < len(text) else "")
    joined = " ".join(" ".join(texts).split())
    return joined[:width] + ("…" if len(joined) > width else "")
