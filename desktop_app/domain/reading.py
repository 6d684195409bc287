"""What can be derived from the reader contract alone, once for every reader: whole listings,
whole transcripts, find in a session, project folders, totals. A reader with a faster way
(`SessionFinder`, `ListFacets`, `UsageHistory`) is asked that way instead."""

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from desktop_app.domain.errors import GanderError
from desktop_app.domain.message import Message, MessageCursor
from desktop_app.domain.session import Session
from desktop_app.domain.source import (
    ArchivedFilter,
    FindHit,
    ListFacets,
    SessionCounter,
    SessionCursor,
    SessionFinder,
    SessionQuery,
    SessionTotals,
    Source,
    UsageHistory,
    WholeListing,
)
from desktop_app.domain.text import contains

PAGE = 500
EVERY_SESSION = SessionQuery(session_types=None, archived=ArchivedFilter.INCLUDE, with_empty=True)


def iter_sessions(
    source: Source, query: SessionQuery, limit: int | None = None
) -> Iterator[Session]:
    """Every session the query selects (the first `limit` of them): in one pass when the
    reader can, else page by page, no page longer than what is still wanted, failing rather
    than looping when a page does not advance."""
    if limit is None and isinstance(source, WholeListing):
        yield from source.every_session(query)
        return
    cursor: SessionCursor | None = None
    produced = 0
    while True:
        wanted = PAGE if limit is None else max(1, min(PAGE, limit - produced))
        page = source.list_sessions(query, after=cursor, limit=wanted)
        for session in page.sessions:
            if limit is not None and produced >= limit:
                return
            produced += 1
            yield session
        if page.next_cursor is None or (limit is not None and produced >= limit):
            return
        if not page.advances_from(cursor):
            raise GanderError("The session list stopped advancing; please report this history.")
        cursor = page.next_cursor


def chunks(
    positions: Sequence[MessageCursor], size: int = PAGE
) -> Iterator[Sequence[MessageCursor]]:
    for start in range(0, len(positions), size):
        yield positions[start : start + size]


def iter_messages(source: Source, session_id: str) -> Iterator[Message]:
    """A whole transcript, a page of positions at a time (never all in memory)."""
    for part in chunks(source.positions(session_id)):
        yield from source.messages_between(session_id, part[0], part[len(part) - 1])


def find_in_session(source: Source, session_id: str, needle: str) -> Sequence[FindHit]:
    """The messages whose text holds `needle`, case ignored."""
    if not needle.strip():
        return []
    if isinstance(source, SessionFinder):
        return source.find_in_session(session_id, needle)
    return [
        FindHit(message.cursor, message.visibility.user)
        for message in iter_messages(source, session_id)
        if contains(message.parts, needle)
    ]


FACETS_SCANNED = 5_000


@dataclass(frozen=True, slots=True)
class Facets:
    """What the list filter offers: project folders (most recently used first) and session
    types."""

    folders: list[str]
    types: list[str]


def list_facets(source: Source) -> Facets:
    """From the reader when it knows them all, else from its newest 5,000 sessions."""
    if isinstance(source, ListFacets):
        return Facets(list(source.working_dirs()), sorted(set(source.session_types())))
    folders: dict[str, None] = {}
    types: set[str] = set()
    for session in iter_sessions(source, EVERY_SESSION, FACETS_SCANNED):
        if session.working_dir:
            folders.setdefault(session.working_dir)
        types.add(session.session_type)
    return Facets(list(folders), sorted(types))


def working_dirs(source: Source) -> list[str]:
    """Project folders, most recently used first."""
    return list_facets(source).folders


def session_totals(source: Source, session: Session) -> SessionTotals:
    """With sub-agents where the reader knows them; else the session's own figures."""
    if isinstance(source, UsageHistory):
        return source.session_totals(session.id)
    return SessionTotals(tokens=session.accumulated_usage, cost=session.cost, session_count=1)


def count_sessions(source: Source, query: SessionQuery) -> int:
    """How many sessions `query` lists: the reader's count when it has one, else the listing
    paged through to its end."""
    if isinstance(source, SessionCounter):
        return source.count_sessions(query)
    return sum(1 for _ in iter_sessions(source, query))


def lineage(source: Source, session: Session, limit: int = 64) -> list[Session]:
    """The session and the sessions it is a sub-agent of, outermost first. Ends at `limit`
    levels, at a parent the history no longer has, and at a parent seen before (a loop)."""
    chain = [session]
    seen = {session.id}
    while (parent := chain[-1].parent_session_id) is not None and len(chain) < limit:
        if parent in seen:
            break
        try:
            chain.append(source.get_session(parent, with_message_count=False))
        except GanderError:
            break
        seen.add(parent)
    return chain[::-1]


def visible_count(messages: Sequence[Message]) -> int:
    """Messages the user saw: what every list shows as a session's message count."""
    return sum(1 for message in messages if message.visibility.user)
