"""What can be derived from the reader contract alone, once for every reader: whole listings,
whole transcripts, find in a session, project folders, totals. A reader with a faster way
(`SessionFinder`, `ListFacets`, `UsageHistory`) is asked that way instead."""

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, fields

from desktop_app.domain.errors import GanderError, UnknownSession
from desktop_app.domain.message import Message, MessageCursor
from desktop_app.domain.session import Session
from desktop_app.domain.source import (
    ArchivedFilter,
    BulkTotals,
    FindHit,
    FindStep,
    ListFacets,
    SessionCounter,
    SessionCursor,
    SessionFinder,
    SessionQuery,
    SessionTotals,
    Source,
    SteppedFinder,
    UsageHistory,
    WholeListing,
)
from desktop_app.domain.text import contains
from desktop_app.domain.usage import TokenUsage, amount, count

PAGE = 500
CHANGES_NEAR_THE_END = 16
"""How many of a session's last messages may still change in place while the agent writes (a
Claude Code reply whose later blocks follow its tool's result, a Codex command's output held for
its poll): when the session changes, the window renders them again and the index reads them
again, beside what was appended."""
EVERY_SESSION = SessionQuery(session_types=None, archived=ArchivedFilter.INCLUDE, with_empty=True)


def iter_sessions(
    source: Source, query: SessionQuery, limit: int | None = None, unread: list[str] | None = None
) -> Iterator[Session]:
    """Every session the query selects (the first `limit` of them): in one pass when the
    reader can, else page by page, no page longer than what is still wanted, failing rather
    than looping when a page does not advance. The sentence of each history listed without
    (`SessionPage.unread`) goes to `unread`."""
    if limit is None and isinstance(source, WholeListing):
        yield from source.every_session(query)
        return
    cursor: SessionCursor | None = None
    produced = 0
    while True:
        wanted = PAGE if limit is None else max(1, min(PAGE, limit - produced))
        page = source.list_sessions(query, after=cursor, limit=wanted)
        if unread is not None:
            unread.extend(said for said in page.unread if said not in unread)
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


FIND_STEP = 20_000
"""Messages looked at per step of a find (`find_steps`): one step is one job of the worker."""


def find_steps(source: Source, session_id: str, needle: str) -> Iterator[FindStep]:
    """`find_in_session`'s hits a step of `FIND_STEP` messages at a time, from the session's
    end (where a transcript opens) back to its start, each step's hits in order: a find in a
    1.85-million-message log is some ninety jobs, each short, the first hit near the end shown
    after the first, and the transcript pages between them. A history that finds by itself
    (goose's SQL) finds in one step."""
    if not needle.strip():
        yield FindStep((), last=True)
        return
    if isinstance(source, SteppedFinder):
        yield from source.find_steps(session_id, needle)
        return
    if isinstance(source, SessionFinder):
        yield FindStep(source.find_in_session(session_id, needle), last=True)
        return
    positions = source.positions(session_id)
    end = len(positions)
    while True:  # ends: `end` falls by `FIND_STEP` each turn, and the turn at 0 or below is last
        start = max(0, end - FIND_STEP)
        hits = []
        for part in chunks(positions[start:end]):
            for message in source.messages_between(session_id, part[0], part[len(part) - 1]):
                if contains(message.parts, needle):
                    hits.append(FindHit(message.cursor, message.visibility.user))
        yield FindStep(hits, last=start == 0)
        if start == 0:
            return
        end = start


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


TREE_LIMIT = 10_000
"""Sessions one tree's totals add up at most (a damaged history could nest without end)."""


def session_totals(source: Source, session: Session) -> SessionTotals:
    """The session with its sub-agents at any depth: the reader's own figure when it has one
    (goose's `get_session_usage_totals`), else `tree_totals`. What the usage panel's "With
    sub-agents" and `list --json`'s `tree_usage` show."""
    if isinstance(source, UsageHistory):
        return source.session_totals(session.id)
    return tree_totals(source, session)


def trees_totals(source: Source, sessions: Sequence[Session]) -> dict[str, SessionTotals]:
    """`session_totals` of each session, by id, in one read where the reader can; a session
    the history no longer has is left out."""
    if isinstance(source, BulkTotals):
        return dict(source.trees_totals(sessions))
    found: dict[str, SessionTotals] = {}
    for session in sessions:
        try:
            found[session.id] = session_totals(source, session)
        except UnknownSession:
            continue
    return found


def tree_totals(source: Source, session: Session) -> SessionTotals:
    """Each session's own figures added up over the session and its sub-agents, found as the
    list finds them (`has_children`, then the children's listing). A sub-agent listed twice,
    or a parent loop, counts once; more than `TREE_LIMIT` sessions are not walked."""
    seen = {session.id}
    tree = [session]
    pending = [session]
    while pending and len(tree) < TREE_LIMIT:
        current = pending.pop()
        if not current.has_children:
            continue
        for child in iter_sessions(source, _children_of(current.id), TREE_LIMIT - len(tree)):
            if child.id not in seen:
                seen.add(child.id)
                tree.append(child)
                pending.append(child)
    return SessionTotals(
        tokens=TokenUsage(
            **{
                name: _added(getattr(s.accumulated_usage, name) for s in tree)
                for name in (figure.name for figure in fields(TokenUsage))
            }
        ),
        cost=_added_amounts(s.cost for s in tree),
        session_count=len(tree),
    )


def _children_of(session_id: str) -> SessionQuery:
    return SessionQuery(
        session_types=None,
        archived=ArchivedFilter.INCLUDE,
        parent_session_id=session_id,
        with_empty=True,
    )


def _added(values: Iterable[int | None]) -> int | None:
    """The sum of the figures recorded; `None` when none was (not zero); a sum no database
    could hold is not a count."""
    known = [v for v in values if v is not None]
    return count(sum(known)) if known else None


def _added_amounts(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return amount(sum(known)) if known else None


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
