"""What a search returns: hits on messages, grouped by session, with highlighted snippets."""

from dataclasses import dataclass

from desktop_app.domain.message import MessageCursor

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


@dataclass(frozen=True, kw_only=True, slots=True)
class SearchResults:
    query: str
    sessions: tuple[SessionResult, ...]
    total_hits: int
    capped: bool
    """True when the words matched more messages than were ranked; the newest were ranked."""
    elapsed_ms: float
    total_sessions: int = 0
    """Sessions with a match among all those considered (not only the page shown)."""

    @property
    def hits(self) -> tuple[SearchHit, ...]:
        return tuple(hit for session in self.sessions for hit in session.hits)


def summary_line(results: SearchResults) -> str:
    """The one-line account of a search, the same in the window and the CLI, whatever the page
    size: "1 matching message in 1 session", "3 matching messages in 2 sessions"."""
    messages = results.total_hits
    sessions = results.total_sessions
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
