"""The contract between a stored history and everything that shows or indexes it.

The window, the CLI and the search index talk only to a `Source`. goose's database is the first
implementation; every other format is another. Write actions are optional: a source says whether it
can take them and, if not, why (`write_access`).
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from enum import Enum
from typing import Protocol

from desktop_app.domain.message import Message, MessageCursor
from desktop_app.domain.session import DEFAULT_LIST_TYPES, Session
from desktop_app.domain.usage import DayUsage, LedgerEntry, TokenUsage, UsagePoint


class ArchivedFilter(Enum):
    EXCLUDE = "exclude"
    INCLUDE = "include"
    ONLY = "only"


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionQuery:
    """Which sessions a list shows. `session_types=None` means every type."""

    session_types: tuple[str, ...] | None = DEFAULT_LIST_TYPES
    archived: ArchivedFilter = ArchivedFilter.EXCLUDE
    working_dir: str | None = None
    parent_session_id: str | None = None
    """List the children of this session instead of top-level sessions."""


@dataclass(frozen=True, order=True, slots=True)
class SessionCursor:
    """Keyset position in a session list: the sort time exactly as the query computed it (an
    integer, or a REAL when goose stored fractional timestamps), then id (both descending).
    Never rounded: a rounded cursor skips the sessions between the two values."""

    sort_at: float
    session_id: str


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionPage:
    sessions: tuple[Session, ...]
    next_cursor: SessionCursor | None
    """Where the next page starts; `None` when this was the last page."""

    def advances_from(self, cursor: SessionCursor | None) -> bool:
        """Whether paging on from this page makes progress (lists run newest first, so the
        next cursor must come strictly before the one this page started after). Every paging
        loop checks it, so a source that repeats a page fails instead of looping forever."""
        return cursor is None or self.next_cursor is None or self.next_cursor < cursor


@dataclass(frozen=True, kw_only=True, slots=True)
class MessagePage:
    messages: tuple[Message, ...]
    """Always in conversation order, oldest first, whichever end it was read from."""
    has_older: bool
    has_newer: bool


@dataclass(frozen=True, kw_only=True, slots=True)
class WriteAccess:
    """Whether rename/archive can be offered, and the sentence shown when not."""

    can_rename: bool
    can_archive: bool
    reason: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class SourceInfo:
    kind: str
    """A short format name, e.g. `goose`."""
    location: str
    schema_version: int | None = None
    details: dict[str, str] = field(default_factory=dict)


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


class Source(Protocol):
    def info(self) -> SourceInfo: ...

    def list_sessions(
        self, query: SessionQuery, *, after: SessionCursor | None = None, limit: int = 100
    ) -> SessionPage: ...

    def get_session(self, session_id: str, *, with_message_count: bool = True) -> Session:
        """One session; counting its visible messages reads them all, so callers that only
        need the name (opening a transcript) skip it."""
        ...

    def read_messages(
        self,
        session_id: str,
        *,
        before: MessageCursor | None = None,
        after: MessageCursor | None = None,
        from_end: bool = False,
        limit: int = 200,
    ) -> MessagePage:
        """A page of messages. `after`/`before` continue from a cursor; with neither, the page
        starts at the beginning, or at the end when `from_end` is set."""
        ...

    def message_cursors(
        self, session_id: str, *, user_visible_only: bool = False
    ) -> Sequence[MessageCursor]:
        """Every message's position, oldest first: cheap enough for a 50,000-message session."""
        ...

    def messages_between(
        self, session_id: str, first: MessageCursor, last: MessageCursor
    ) -> Sequence[Message]: ...

    def find_in_session(self, session_id: str, needle: str) -> Sequence[FindHit]:
        """The messages whose text contains `needle` (case-insensitive), in order."""
        ...

    def messages_after(self, row_id: int, limit: int) -> Sequence[Message]:
        """Messages of every session with a row id above `row_id`, in row-id order: how an index
        catches up with what was written since it last looked."""
        ...

    def session_digests(self) -> dict[str, str]:
        """Session id → a value that changes whenever goose rewrites the session's row (goose:
        `updated_at`). Cheap enough to ask on every index update."""
        ...

    def sessions_by_ids(self, session_ids: Sequence[str]) -> Sequence[Session]:
        """These sessions without message-derived figures (no counts, no last-message time)."""
        ...

    def messages_by_ids(self, row_ids: Sequence[int]) -> Sequence[Message]:
        """The messages with these row ids (any session), in row-id order."""
        ...

    def session_fingerprints(
        self, session_ids: Sequence[str] | None = None
    ) -> dict[str, tuple[int, int]]:
        """Session id → (highest message row id, message count), for all or the given sessions."""
        ...

    def usage_ledger(self, session_id: str) -> Sequence[LedgerEntry]: ...

    def usage_series(self, session_id: str) -> Sequence[UsagePoint]:
        """Per-call usage in order: the ledger where there is one, else message metadata."""
        ...

    def usage_by_day(self, since: date) -> Sequence[DayUsage]:
        """Tokens and cost per UTC day across all sessions, oldest first."""
        ...

    def top_sessions_by_cost(self, limit: int) -> Sequence[Session]: ...

    def working_dirs(self) -> Sequence[str]:
        """Every project folder sessions ran in, most recently used first."""
        ...

    def session_totals(self, session_id: str) -> SessionTotals: ...

    def change_marker(self) -> tuple[int, ...]:
        """A value that differs whenever anything listed or read could have changed."""
        ...

    def write_access(self) -> WriteAccess: ...

    def rename(self, session_id: str, name: str) -> None: ...

    def archive(self, session_id: str) -> None: ...

    def unarchive(self, session_id: str) -> None: ...

    def close(self) -> None: ...
