"""What a search returns: hits on messages, grouped by session, with highlighted snippets; and
the words of a text as the index splits and folds them, so snippets and the transcript mark
what the index matched."""

import functools
import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from desktop_app.domain.message import MessageCursor

CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
"""Chinese, Japanese and Korean: written without spaces, so each character is a word (the index
is given them spaced out, `search.tokens`)."""
_RUN = re.compile("(?:[^\\W_]+|[\u0300-\u036f]+)+")
"""A word as FTS5's unicode61 tokenizer splits text: letters and digits (and accents written
as combining marks); every other character, the underscore included, separates words. (Runs
of each inside the run, not one character at a time: the same words, found twice as fast.)"""


@functools.cache
def _cjk_split() -> re.Pattern[str]:
    """A character of CJK, or a run of anything else. Compiled when the first word that is not
    ASCII comes: the two character classes take 3–4 ms to compile, which the window's start-up
    and every `gander search` paid at import."""
    return re.compile(f"[{CJK}]|[^{CJK}]+")


Term = tuple[str, bool]
"""A query's word, folded, and whether it is a prefix (`deploy*`)."""


def words(text: str) -> Iterator[re.Match[str]]:
    """The words of `text`, where the index's tokenizer finds them (a run of CJK characters
    is a word a character)."""
    for run in _RUN.finditer(text):
        if run.group(0).isascii():
            yield run
        else:
            yield from _cjk_split().finditer(text, run.start(), run.end())


def _latin(char: str) -> bool:
    return ord(char) < 0x250 or 0x1E00 <= ord(char) <= 0x1EFF


def fold(word: str) -> str:
    """A word as the index stores it (`remove_diacritics 2`): lower case, and Latin letters
    without their accents ("Café" → "cafe"); Greek and Cyrillic keep theirs, as there."""
    if word.isascii():
        return word.lower()
    kept: list[str] = []
    for char in unicodedata.normalize("NFD", word):
        if unicodedata.combining(char) and kept and _latin(kept[-1][0]):
            continue
        kept.append(char)
    return unicodedata.normalize("NFC", "".join(kept)).lower()


def matches(word: str, terms: Sequence[Term]) -> bool:
    """The word is one the query's terms match: equal, or starting with a prefix term."""
    folded = fold(word)
    return any(folded.startswith(t) if prefix else folded == t for t, prefix in terms)


MARK_START = "\x02"
MARK_END = "\x03"
"""Snippets mark the matched words with these control characters; each view turns them into its
own highlight (HTML spans, terminal bold, or nothing for JSON)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class SearchHit:
    session_id: str
    row_id: int
    message_id: str | None
    role: str
    cursor: MessageCursor | None
    """Where the message is in its session; `None` when it vanished since it was indexed."""
    snippet: str
    rank: float
    """Lower is better (bm25); tool-output-only hits come after every prose hit."""
    in_tool_output_only: bool = False
    agent_only: bool = False
    """The message is agent-only: opening the hit shows agent-only messages, or it would be
    folded away."""


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionResult:
    session_id: str
    name: str
    working_dir: str | None
    archived: bool
    hits: tuple[SearchHit, ...]
    match_count: int
    """Matching messages in this session among those considered (see `SearchResults.capped`)."""
    name_matched: bool = False
    last_active: int | None = None
    """Unix seconds of the session's last activity, as the index knows it."""
    history: str | None = None
    """The badge of the history it is in, when several are open."""


@dataclass(frozen=True, kw_only=True, slots=True)
class SearchResults:
    query: str
    sessions: tuple[SessionResult, ...]
    total_hits: int
    capped: bool
    """True when the words matched more messages than were ranked (every match is counted;
    sessions are ordered by the newest ranked ones)."""
    elapsed_ms: float
    total_sessions: int = 0
    """Sessions with a match (not only the page shown)."""
    offset: int = 0
    """How many sessions came on the pages before this one."""
    all_counted: bool = True
    """False when more messages matched than were counted (the newest were): the figures are
    lower bounds, and older sessions are not listed."""

    @property
    def more(self) -> bool:
        """More sessions match than this page and those before it hold."""
        return self.offset + len(self.sessions) < self.total_sessions

    @property
    def hits(self) -> tuple[SearchHit, ...]:
        return tuple(hit for session in self.sessions for hit in session.hits)


def summary_line(results: SearchResults) -> str:
    """The one-line account of a search, the same in the window and the CLI, whatever the page
    size: "1 matching message in 1 session", "3 matching messages in 2 sessions"."""
    messages = results.total_hits
    sessions = results.total_sessions
    if not results.all_counted:
        return (
            f"over {messages:,} matching messages; the newest {messages:,} are in "
            f"{sessions:,} session{'' if sessions == 1 else 's'} (narrow the search to reach "
            "older ones)"
        )
    line = (
        f"{messages} matching message{'' if messages == 1 else 's'} in "
        f"{sessions} session{'' if sessions == 1 else 's'}"
    )
    return line + (" (the newest matches were ranked)" if results.capped else "")


def match_label(session: SessionResult) -> str:
    """ "3 matches", "1 match · title match", or "title match" for a session found by name."""
    if session.match_count == 0 and session.name_matched:
        return "title match"
    count = session.match_count
    label = f"{count} match{'' if count == 1 else 'es'}"
    return label + (" · title match" if session.name_matched else "")
