"""Snippets around the matched words, made from the message itself.

The index stores no text (a contentless FTS5 table: half the size, faster to build), so the few
messages on a result page are read back from the history and the query's words are found in them
with the same folding the tokenizer applies (case and accents ignored; `prefix*` matches starts).

A snippet is read, not rendered: Markdown's marks (`**`, fences, `#`, link targets, table pipes)
are taken out of the passage around the match, so a result reads as the sentence it came from.
"""

import re
from collections.abc import Callable

from desktop_app.domain.search import MARK_END, MARK_START, Term, matches, words

CONTEXT_WORDS = 12
REGION_CHARS = 400
"""How far either side of the first match the passage is taken from before its Markdown is
taken out (a line's marks need the line's start; a huge one-line message needs a bound)."""

_FENCE = re.compile(r"^\s{0,3}(?:`{3,}|~{3,})\s*[\w+#.-]*\s*$")
_RULE = re.compile(r"^\s{0,3}(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,})$")
_TABLE_RULE = re.compile(r"^\s*\|?(?:\s*:?-+:?\s*\|)+\s*:?-*:?\s*$")
_LINE_START = re.compile(
    r"^\s{0,3}(?:>\s?)*(?:#{1,6}\s+|[-*+]\s+(?:\[[ xX]\]\s+)?|\d{1,9}[.)]\s+)?"
)
_IMAGE = re.compile(r"!\[([^\]\n]{0,300})\]\([^)\s]{0,2000}(?:\s+\"[^\"\n]{0,300}\")?\)")
_LINK = re.compile(r"\[([^\]\n]{0,300})\]\(([^)\s]{0,2000})(?:\s+\"[^\"\n]{0,300}\")?\)")
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^>\s]{1,2000})>")
_EMPHASIS = re.compile(r"\*{1,3}|~~|`+")
_CLINGING_BEFORE = re.compile(r"[^\s\w]*$")
_CLINGING_AFTER = re.compile(r"[^\s\w]*")
_RUN = re.compile(r"([^\w\s])\1{3,}")
"""A rule of `=====` or a progress line of dots says nothing in a snippet; three are kept."""
EDGE_CHARS = 100
"""At most this much text before the first match and after the last one (one word can be a
megabyte of base64)."""


def strip_markdown(text: str) -> str:
    """The words of a Markdown passage without its marks; each pattern is linear in the text."""
    return "\n".join(
        _plain_line(line)
        for line in text.split("\n")
        if not (_FENCE.match(line) or _RULE.match(line) or _TABLE_RULE.match(line))
    )


def _plain_line(line: str) -> str:
    plain = _LINE_START.sub("", line, count=1)
    if "|" in plain:
        plain = plain.strip().strip("|").replace("|", " ")
    plain = _IMAGE.sub(r"\1", plain)
    plain = _LINK.sub(_link_text, plain)
    plain = _AUTOLINK.sub(r"\1", plain)
    return _EMPHASIS.sub("", plain)


def _link_text(link: re.Match[str]) -> str:
    """A link reads as its text and, where it says more, its target (a match may be in it)."""
    text, target = link.group(1), link.group(2)
    return text if not target or target == text else f"{text} ({target})"


def _matcher(terms: list[Term]) -> Callable[[str], bool]:
    """`matches` for these terms, each distinct word folded once (a passage says its words
    many times over)."""
    seen: dict[str, bool] = {}

    def match(word: str) -> bool:
        found = seen.get(word)
        if found is None:
            found = seen[word] = matches(word, terms)
        return found

    return match


def _ascii_search(terms: list[Term]) -> re.Pattern[str] | None:
    """Where a word of ASCII text first matches, as a regular expression: there a word is a
    run of ASCII letters and digits and folding is lower case, so a term is found by case
    alone. None when a term is not such a run (it is then looked for word by word)."""
    if not terms or not all(
        term.isascii() and term.isalnum() and term == term.lower() for term, _ in terms
    ):
        return None
    either = "|".join(
        re.escape(term) + ("" if prefix else "(?![A-Za-z0-9])") for term, prefix in terms
    )
    return re.compile(f"(?<![A-Za-z0-9])(?:{either})", re.IGNORECASE | re.ASCII)


def _first_match(text: str, terms: list[Term]) -> int | None:
    """Where the first word the terms match starts (found in C in ASCII text, which is most:
    the words before it are not each folded in Python)."""
    search = _ascii_search(terms) if text.isascii() else None
    if search is not None:
        found = search.search(text)
        return found.start() if found else None
    match = _matcher(terms)
    return next((word.start() for word in words(text) if match(word.group(0))), None)


def _region(text: str, at: int) -> tuple[int, int]:
    """Up to REGION_CHARS either side of `at`, widened to whole lines where they are short."""
    start, end = max(0, at - REGION_CHARS), min(len(text), at + REGION_CHARS)
    line_start = text.rfind("\n", max(0, start - REGION_CHARS // 2), at) + 1
    if line_start and line_start < start:
        start = line_start
    elif start and text.find("\n", start, at) >= 0:
        start = text.find("\n", start, at) + 1
    line_end = text.find("\n", at, min(len(text), end + REGION_CHARS // 2))
    if line_end >= 0 and line_end > end:
        end = line_end
    elif end < len(text) and text.rfind("\n", at, end) >= 0:
        end = text.rfind("\n", at, end)
    return start, end


def _marked(passage: str, terms: list[Term]) -> tuple[str, bool, bool] | None:
    """The words around the passage's first match, matches marked, with the punctuation that
    clings to the outer words; and whether anything was left out before and after."""
    match = _matcher(terms)
    found: list[re.Match[str]] = []
    hit: int | None = None
    for word in words(passage):  # up to the last word shown, not to the passage's end
        found.append(word)
        if hit is None and match(word.group(0)):
            hit = len(found) - 1
        if hit is not None and len(found) > hit + CONTEXT_WORDS:
            break
    if hit is None:
        return None
    first = max(0, hit - CONTEXT_WORDS)
    last = min(len(found) - 1, hit + CONTEXT_WORDS)
    start = _CLINGING_BEFORE.search(
        passage, max(0, found[first].start() - 20), found[first].start()
    )
    end = _CLINGING_AFTER.match(passage, found[last].end(), found[last].end() + 20)
    begin, finish = start.start() if start else found[first].start(), end.end() if end else 0
    pieces, position = [], begin
    for index in range(first, last + 1):
        word = found[index]
        if match(word.group(0)):
            pieces.append(passage[position : word.start()])
            pieces.append(f"{MARK_START}{word.group(0)}{MARK_END}")
            position = word.end()
    pieces.append(passage[position:finish])
    pieces = [_RUN.sub(r"\1\1\1", piece) for piece in pieces]
    cut_before, cut_after = begin > 0, finish < len(passage)
    if len(pieces[0]) > EDGE_CHARS:
        pieces[0], cut_before = pieces[0][-EDGE_CHARS:], True
    if len(pieces[-1]) > EDGE_CHARS:
        pieces[-1], cut_after = pieces[-1][:EDGE_CHARS], True
    body = " ".join("".join(pieces).split())
    return body, cut_before, cut_after


def make_snippet(texts: list[str], terms: list[Term], width: int = 200) -> str:
    """The first passage holding a term, matched words marked and Markdown taken out; else the
    start of the text."""
    for text in texts:
        if not text or not terms:
            continue
        at = _first_match(text, terms)
        if at is None:
            continue
        start, end = _region(text, at)
        raw = text[start:end]
        found = _marked(strip_markdown(raw), terms) or _marked(raw, terms)
        if found is None:
            continue
        body, cut_before, cut_after = found
        before = "…" if start > 0 or cut_before else ""
        after = "…" if end < len(text) or cut_after else ""
        return before + body + after
    plain = strip_markdown(" ".join(t[: width * 4] for t in texts))
    joined = " ".join(_RUN.sub(r"\1\1\1", plain).split())
    return joined[:width] + ("…" if len(joined) > width else "")
