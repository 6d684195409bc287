"""The contract between a stored history and everything that shows or indexes it.

A reader (`Source`) does six things every format can do: list sessions (keyset pages in the
order the format's own tool uses, else last activity first), get one session, give the
positions of a session's messages, and give the messages between two positions or at some
positions. Everything else is a capability a reader may have, discovered at run time with
`isinstance` and shown in the window only when present:

- `Writable`: rename, archive and unarchive (and the reason when they cannot be done);
- `ChangeFeed`: a token that changes when anything does, what changed since a token, and each
  session's revision — what live updates and the search index run on;
- `UsageHistory`: per-call usage, tokens per day, the costliest sessions, totals with sub-agents;
- `ListFacets`, `BulkMessages`, `SessionFinder`: faster ways to do what `reading.py` also
  derives from the required methods;
- `Interruptible`: reads that wait on a network, cut at once when the history closes;
- `Resumable`, `SessionFiles`: the agent's command that resumes a session, and a session's file;
- `Cataloguing`: a first reading of many files that runs behind the listing, with its progress;
- `SeveralHistories`: several histories shown as one (`combined.py`), each with its tag and badge.

Positions are `MessageCursor`s: opaque, ordered, meaningful only to the reader that made them.
"""

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from enum import Enum
from pathlib import PurePath
from typing import Protocol, runtime_checkable

from desktop_app.domain.message import Message, MessageCursor
from desktop_app.domain.session import DEFAULT_LIST_TYPES, Session
from desktop_app.domain.usage import DayUsage, TokenUsage, UsagePoint


class ArchivedFilter(Enum):
    EXCLUDE = "exclude"
    INCLUDE = "include"
    ONLY = "only"


def folder_matches(folder: str, working_dir: str | None) -> bool:
    """The one meaning of "sessions in this folder", for the list's project filter and for
    search's `in:DIR`: an absolute path selects that folder and everything below it; any other
    text selects working folders whose path contains it (case ignored)."""
    if not working_dir:
        return False
    if PurePath(folder).is_absolute():
        base = folder.rstrip("/\\") or folder
        return working_dir == base or working_dir.startswith(base.rstrip("/\\") + "/")
    return folder.casefold() in working_dir.casefold()


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionQuery:
    """Which sessions a list shows — the one filter of the list, the CLI and search.
    `session_types=None` means every type; `history` selects one of several open histories
    (by its tag); `text` is a case-insensitive part of the name."""

    session_types: tuple[str, ...] | None = DEFAULT_LIST_TYPES
    archived: ArchivedFilter = ArchivedFilter.EXCLUDE
    working_dir: str | None = None
    parent_session_id: str | None = None
    """List the children of this session instead of top-level sessions."""
    history: str | None = None
    active_after: datetime | None = None
    active_before: datetime | None = None
    text: str | None = None
    with_empty: bool = True
    """Whether sessions with no messages are listed: goose's own list does, goose Desktop's
    does not (its query joins the messages), and neither does the window by default."""
    with_counts: bool = True
    """Whether each listed session's visible message count is read. Figures that add
    sessions up (the usage overview) need none, and counting reads every message of the
    page's sessions (goose: 50,000 metadata values for one long session)."""

    def matches(self, session: Session, *, history: str | None = None) -> bool:
        """The filter in Python, for readers that hold their sessions in memory (SQL readers
        translate the same fields into their queries)."""
        if self.session_types is not None and session.session_type not in self.session_types:
            return False
        if self.archived is ArchivedFilter.EXCLUDE and session.archived:
            return False
        if self.archived is ArchivedFilter.ONLY and not session.archived:
            return False
        if self.working_dir is not None and not folder_matches(
            self.working_dir, session.working_dir
        ):
            return False
        if (
            self.parent_session_id is not None
            and session.parent_session_id != self.parent_session_id
        ):
            return False
        if self.history is not None and history is not None and self.history != history:
            return False
        if not self.with_empty and session.message_count == 0:
            return False
        when = session.sort_at
        if self.active_after is not None and (when is None or when < self.active_after):
            return False
        if self.active_before is not None and (when is None or when >= self.active_before):
            return False
        return self.text is None or self.text.casefold() in session.name.casefold()


@dataclass(frozen=True, order=True, slots=True)
class SessionCursor:
    """Keyset position in a session list: the sort value exactly as the reader computed it (an
    integer, or a REAL when goose stored fractional timestamps), then id (both descending).
    Never rounded: a rounded cursor skips the sessions between the two values."""

    sort_at: float
    session_id: str


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionPage:
    sessions: tuple[Session, ...]
    next_cursor: SessionCursor | None
    """Where the next page starts; `None` when this was the last page."""
    unread: tuple[str, ...] = ()
    """Of several histories listed together, the sentence of each one that failed: the list
    goes on without it (a stalled server never hides the histories beside it)."""

    def advances_from(self, cursor: SessionCursor | None) -> bool:
        """Whether paging on from this page makes progress (lists run newest first, so the
        next cursor must come strictly before the one this page started after). Every paging
        loop checks it, so a source that repeats a page fails instead of looping forever."""
        return cursor is None or self.next_cursor is None or self.next_cursor < cursor


@dataclass(frozen=True, kw_only=True, slots=True)
class WriteAccess:
    """Whether rename/archive can be offered, and the sentence shown when not."""

    can_rename: bool
    can_archive: bool
    reason: str | None = None


READ_ONLY = WriteAccess(
    can_rename=False, can_archive=False, reason="This kind of history is read-only in Gander."
)


@dataclass(frozen=True, kw_only=True, slots=True)
class SourceInfo:
    kind: str
    """The format's name: `goose`, `goose-export`, `goose-legacy`, `toolnexus`, `glean-json`…"""
    location: str
    """Where the history is (an absolute path, or a database URL)."""
    schema_version: int | None = None
    details: dict[str, str] = field(default_factory=dict)
    agent: str = ""
    """What people call the agent or program whose history it is (`Claude Code`, `goose`):
    its badge. The kind when empty."""


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionTotals:
    """A session with all its sub-agent descendants (goose `get_session_usage_totals`)."""

    tokens: TokenUsage
    cost: float | None
    session_count: int


@dataclass(frozen=True, slots=True)
class FindHit:
    cursor: MessageCursor
    user_visible: bool


@dataclass(frozen=True, slots=True)
class FindStep:
    """A step of a find (`reading.find_steps`): its hits, in order, and whether it was the
    last (the session's start reached)."""

    hits: Sequence[FindHit]
    last: bool


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionState:
    """A session as the search index keeps it, and a revision that changes whenever anything
    of the session the index holds changes (its row, its messages)."""

    session: Session
    revision: str
    message_total: int | None = None
    """Every message, agent-only ones included, when the reader knows it cheaply."""


LINEAGE_MARK = "\x1e"


def with_lineage(lineage: str, revision: str) -> str:
    """A revision that names its session's lineage: a value kept while the session is only
    appended to and changed when what it held before may have changed (a file rewritten with
    as many lines). The index then reads such a session whole, not only its new messages."""
    return f"{LINEAGE_MARK}{lineage}{LINEAGE_MARK}{revision}"


def lineage(revision: str) -> str | None:
    """The lineage a revision names (`with_lineage`), else None."""
    if not revision.startswith(LINEAGE_MARK):
        return None
    return revision[1:].partition(LINEAGE_MARK)[0]


class Source(Protocol):
    """What every reader does. See the module docstring for the optional capabilities."""

    def info(self) -> SourceInfo: ...

    def list_sessions(
        self, query: SessionQuery, *, after: SessionCursor | None = None, limit: int = 100
    ) -> SessionPage: ...

    def get_session(self, session_id: str, *, with_message_count: bool = True) -> Session:
        """One session; `UnknownSession` when there is none. Counting messages may read them
        all, so callers that only need the name (opening a transcript) skip it."""
        ...

    def positions(self, session_id: str) -> Sequence[MessageCursor]:
        """Every message's position, in order: cheap enough for a 50,000-message session."""
        ...

    def messages_between(
        self, session_id: str, first: MessageCursor, last: MessageCursor
    ) -> Sequence[Message]:
        """The messages from `first` to `last`, both included, in order."""
        ...

    def messages_at(self, session_id: str, positions: Sequence[MessageCursor]) -> Sequence[Message]:
        """The messages at these positions (those that still exist), in order."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class Writable(Protocol):
    def write_access(self, session_id: str | None = None) -> WriteAccess:
        """Whether sessions (this one, when given) can be renamed and archived."""
        ...

    def rename(self, session_id: str, name: str, *, user_set: bool = True) -> None:
        """`user_set`: a person named it (the default); False writes a name back as the
        agent's own (an undo of a rename of a session the agent had named)."""
        ...

    def archive(self, session_id: str) -> None: ...

    def unarchive(self, session_id: str) -> None: ...


@dataclass(frozen=True, kw_only=True, slots=True)
class Resume:
    """How a person takes a session up again in the agent that wrote it: the shell line that
    agent documents, to copy (Gander never runs it), and what to know before running it."""

    command: str | None
    """`None` when the agent cannot resume this session (`note` says why)."""
    note: str = ""


@runtime_checkable
class Resumable(Protocol):
    def resume(self, session: Session) -> Resume | None:
        """The command that resumes `session` (one of this history's); `None` when the
        history's agent has no such command (an export, a chat log)."""
        ...


@runtime_checkable
class SessionFiles(Protocol):
    def session_file(self, session_id: str) -> str | None:
        """The file the session is kept in, to reveal in a file manager; `None` when it is
        not a file of its own (a database row) or not known."""
        ...


@runtime_checkable
class ChangeFeed(Protocol):
    def change_token(self) -> str:
        """A value that differs whenever anything listed or read could have changed, and that
        means the same in another process later (the search index keeps it)."""
        ...

    def changed_since(self, token: str) -> frozenset[str] | None:
        """The sessions that may have changed since `token`; `None` when that cannot be told
        (anything may have changed)."""
        ...

    def session_states(self, session_ids: Sequence[str] | None) -> dict[str, SessionState]:
        """These sessions (or all, of every type) with their revisions; an id missing from
        the answer is a session that no longer exists."""
        ...


@runtime_checkable
class UsageHistory(Protocol):
    def usage_series(self, session_id: str) -> Sequence[UsagePoint]:
        """Per-call usage in order, for a context-growth chart."""
        ...

    def usage_by_day(self, since: date) -> Sequence[DayUsage]:
        """Tokens and cost per UTC day across all sessions, oldest first."""
        ...

    def top_sessions_by_cost(self, limit: int) -> Sequence[Session]: ...

    def session_totals(self, session_id: str) -> SessionTotals: ...


@runtime_checkable
class BulkTotals(Protocol):
    def trees_totals(self, sessions: Sequence[Session]) -> Mapping[str, SessionTotals]:
        """`session_totals` of many sessions in one read, by session id (a whole list's
        `tree_usage`: one query per session would double `list --json`); a session the history
        no longer has is left out."""
        ...


@runtime_checkable
class ListFacets(Protocol):
    """What the list filter offers, from the whole history rather than a sample."""

    def working_dirs(self) -> Sequence[str]:
        """Every project folder sessions ran in, most recently used first."""
        ...

    def session_types(self) -> Sequence[str]:
        """Every session type the history holds."""
        ...


@runtime_checkable
class BulkMessages(Protocol):
    def messages_of(self, session_ids: Sequence[str]) -> Iterator[Message]:
        """Every message of these sessions, session by session, each in order: how the search
        index reads a large history fast."""
        ...

    def messages_at_each(self, wanted: Mapping[str, Sequence[MessageCursor]]) -> Iterator[Message]:
        """The messages at these positions of these sessions, in any order: a search page's
        hits from many sessions in one read."""
        ...


@runtime_checkable
class WholeListing(Protocol):
    def every_session(self, query: SessionQuery) -> Iterator[Session]:
        """Every session `query` lists, in list order, in one pass: the CLI's whole list,
        without a round trip (and a sort of everything) per page."""
        ...


@runtime_checkable
class SessionCounter(Protocol):
    def count_sessions(self, query: SessionQuery) -> int:
        """How many sessions `query` lists, all pages together (the status bar's total)."""
        ...


@runtime_checkable
class SessionFinder(Protocol):
    def find_in_session(self, session_id: str, needle: str) -> Sequence[FindHit]:
        """The messages whose text contains `needle` (case-insensitive), in order."""
        ...


@runtime_checkable
class SteppedFinder(Protocol):
    def find_steps(self, session_id: str, needle: str) -> Iterator[FindStep]:
        """`find_in_session`'s hits a step at a time (`reading.find_steps`)."""
        ...


@runtime_checkable
class Interruptible(Protocol):
    def interrupt(self) -> None:
        """Make every read in flight fail at once (and any later one): a history that waits
        on a network lets the window close without waiting for it."""
        ...


@runtime_checkable
class SeveralHistories(Protocol):
    """Several histories shown as one (`domain/combined.py`): the window offers a History
    filter, badges and each history's place, and reads each one's own facts."""

    def readers(self) -> Iterator[tuple[str, Source]]:
        """Each open history with its tag (a session's `history`)."""
        ...

    def labels(self) -> dict[str, str]:
        """Each history's badge, by tag."""
        ...

    def locations(self) -> dict[str, str]:
        """Where each history is, by tag."""
        ...


@runtime_checkable
class Cataloguing(Protocol):
    """A history that reads many files to list them: a first reading may run behind the
    listing, which then shows the sessions read so far (newest files first) and grows."""

    def catalogue_in_background(self) -> None:
        """Let a first opening of many files list at once, while they are read."""
        ...

    def cataloguing(self) -> tuple[int, int] | None:
        """While files are read behind the listing: how many are read, of how many."""
        ...
