"""Several histories as one: what the window and the CLI read when more than one is open.

Each history gets a tag — its kind, numbered when two are of the same kind (`goose`,
`goose-2`, `toolnexus`) — and a session's id becomes `tag:id`, unique across them. The session
list is a merge of every history's own list by last activity: a page takes the newest sessions
across histories and remembers, per history, where it stopped (each reader's keyset cursor,
made from `Session.list_key`). Capabilities are those of the histories underneath, session by
session: a goose session can be renamed beside a read-only toolnexus one.
"""

import json
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from datetime import date
from functools import partial
from pathlib import PurePath
from typing import TYPE_CHECKING

from desktop_app.domain.errors import SourceError, UnknownSession, WriteRefused
from desktop_app.domain.message import Message, MessageCursor
from desktop_app.domain.reading import (
    Facets,
    count_sessions,
    find_in_session,
    find_steps,
    list_facets,
    session_totals,
    trees_totals,
)
from desktop_app.domain.session import Session
from desktop_app.domain.source import (
    READ_ONLY,
    ChangeFeed,
    FindHit,
    FindStep,
    Interruptible,
    Resumable,
    Resume,
    SessionCursor,
    SessionFiles,
    SessionPage,
    SessionQuery,
    SessionState,
    SessionTotals,
    Source,
    SourceInfo,
    UsageHistory,
    Writable,
    WriteAccess,
)
from desktop_app.domain.usage import DayUsage, UsagePoint

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

SEPARATOR = ":"


def history_tags(sources: Sequence[Source]) -> list[str]:
    """`goose`, `goose-2`, `toolnexus`…: the kind, numbered from the second of a kind on."""
    tags: list[str] = []
    seen: dict[str, int] = {}
    for source in sources:
        kind = source.info().kind
        seen[kind] = seen.get(kind, 0) + 1
        tags.append(kind if seen[kind] == 1 else f"{kind}-{seen[kind]}")
    return tags


class CombinedHistory:
    def __init__(self, sources: Sequence[Source]) -> None:
        self.sources = list(sources)
        self.tags = history_tags(self.sources)
        self._by_tag = dict(zip(self.tags, self.sources, strict=True))
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    # ---- ids --------------------------------------------------------------------------------

    def qualify(self, tag: str, session_id: str) -> str:
        return f"{tag}{SEPARATOR}{session_id}"

    def resolve(self, qualified: str) -> tuple[str, Source, str]:
        """The history tag, its reader and the native id of a `tag:id`."""
        tag, separator, native = qualified.partition(SEPARATOR)
        source = self._by_tag.get(tag)
        if not separator or source is None:
            raise UnknownSession(f"There is no session with id {qualified!r}.")
        return tag, source, native

    def _tagged(self, tag: str, session: Session) -> Session:
        parent = session.parent_session_id
        return replace(
            session,
            id=self.qualify(tag, session.id),
            parent_session_id=self.qualify(tag, parent) if parent else None,
            history=tag,
        )

    # ---- the reader contract ------------------------------------------------------------------

    def info(self) -> SourceInfo:
        return SourceInfo(
            kind="+".join(self.tags),
            location="; ".join(s.info().location for s in self.sources),
        )

    def list_sessions(
        self, query: SessionQuery, *, after: SessionCursor | None = None, limit: int = 100
    ) -> SessionPage:
        if query.parent_session_id is not None:
            tag, source, native = self.resolve(query.parent_session_id)
            page = source.list_sessions(replace(query, parent_session_id=native), limit=limit)
            return SessionPage(
                sessions=tuple(self._tagged(tag, s) for s in page.sessions), next_cursor=None
            )
        state = _decode_state(after)
        asked: list[tuple[str, Callable[[], SessionPage]]] = []
        for tag, source in self._by_tag.items():
            if query.history is not None and query.history != tag:
                continue
            if tag in state and state[tag] is None:
                continue
            position = state.get(tag)
            cursor = SessionCursor(position[0], position[1]) if position else None
            asked.append((tag, partial(source.list_sessions, query, after=cursor, limit=limit)))
        candidates: list[tuple[str, Session]] = []
        more: dict[str, bool] = {}
        pages = self._together([ask for _, ask in asked])
        failed = [page for page in pages if isinstance(page, SourceError)]
        if failed and len(failed) == len(pages):
            raise failed[0]
        for (tag, _), got in zip(asked, pages, strict=True):
            if isinstance(got, SourceError):  # listed on without it, its sentence said
                more[tag] = False
                continue
            candidates.extend((tag, s) for s in got.sessions)
            more[tag] = got.next_cursor is not None
        candidates.sort(
            key=lambda item: (_key(item[1]), self.qualify(*_native(item))), reverse=True
        )
        taken = candidates[:limit]
        new_state: dict[str, tuple[float, str] | None] = dict(state)
        for tag, has_more in more.items():
            mine = [session for t, session in taken if t == tag]
            offered = [session for t, session in candidates if t == tag]
            if mine:
                last = mine[-1]
                new_state[tag] = (_key(last), last.id)
            if len(mine) == len(offered) and not has_more:
                new_state[tag] = None
        if not taken or all(tag in new_state and new_state[tag] is None for tag in more):
            next_cursor = None
        else:
            last_tag, last = taken[-1]
            next_cursor = SessionCursor(
                _key(last),
                _order_key(self.qualify(last_tag, last.id)) + _STATE + _encode_state(new_state),
            )
        return SessionPage(
            sessions=tuple(self._tagged(tag, s) for tag, s in taken),
            next_cursor=next_cursor,
            unread=tuple(str(error) for error in failed),
        )

    def _together(
        self, calls: Sequence[Callable[[], SessionPage]]
    ) -> list[SessionPage | SourceError]:
        """Each history's page at the same time (an SQLite query runs while a folder's catalog
        is read): the merged list waits for the slowest history, not for their sum. A history
        that cannot be read gives its error in its page's place."""
        if len(calls) <= 1:
            return [_page_or_error(call) for call in calls]
        from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415 - one history needs none

        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(
                    max_workers=min(len(self.sources), 8), thread_name_prefix="gander-history"
                )
            futures = [self._pool.submit(_page_or_error, call) for call in calls]
        return [future.result() for future in futures]

    def get_session(self, session_id: str, *, with_message_count: bool = True) -> Session:
        tag, source, native = self.resolve(session_id)
        return self._tagged(tag, source.get_session(native, with_message_count=with_message_count))

    def positions(self, session_id: str) -> Sequence[MessageCursor]:
        _, source, native = self.resolve(session_id)
        return source.positions(native)

    def messages_between(
        self, session_id: str, first: MessageCursor, last: MessageCursor
    ) -> Sequence[Message]:
        _, source, native = self.resolve(session_id)
        return source.messages_between(native, first, last)

    def messages_at(self, session_id: str, positions: Sequence[MessageCursor]) -> Sequence[Message]:
        _, source, native = self.resolve(session_id)
        return source.messages_at(native, positions)

    def close(self) -> None:
        """Reads waiting on a network are cut first, so the pool's threads end at once."""
        for source in self.sources:
            if isinstance(source, Interruptible):
                source.interrupt()
        with self._pool_lock:
            if self._pool is not None:
                self._pool.shutdown(wait=True)
                self._pool = None
        for source in self.sources:
            source.close()

    # ---- capabilities, session by session ----------------------------------------------------

    def write_access(self, session_id: str | None = None) -> WriteAccess:
        if session_id is None:
            writable = [s.write_access() for s in self.sources if isinstance(s, Writable)]
            best = [a for a in writable if a.can_rename or a.can_archive]
            return best[0] if best else (writable[0] if writable else READ_ONLY)
        _, source, native = self.resolve(session_id)
        return source.write_access(native) if isinstance(source, Writable) else READ_ONLY

    def _writer(self, session_id: str) -> tuple[Writable, str]:
        _, source, native = self.resolve(session_id)
        if not isinstance(source, Writable):
            raise WriteRefused(f"{source.info().kind} histories are read-only in Gander.")
        return source, native

    def rename(self, session_id: str, name: str, *, user_set: bool = True) -> None:
        writer, native = self._writer(session_id)
        writer.rename(native, name, user_set=user_set)

    def archive(self, session_id: str) -> None:
        writer, native = self._writer(session_id)
        writer.archive(native)

    def unarchive(self, session_id: str) -> None:
        writer, native = self._writer(session_id)
        writer.unarchive(native)

    def resume(self, session: Session) -> Resume | None:
        """The command of the session's own history, given the session as that history has it
        (its own id: the command names it)."""
        _, source, native = self.resolve(session.id)
        if not isinstance(source, Resumable):
            return None
        parent = session.parent_session_id
        own_parent = parent.partition(SEPARATOR)[2] if parent else None
        own = replace(session, id=native, parent_session_id=own_parent, history=None)
        return source.resume(own)

    def session_file(self, session_id: str) -> str | None:
        _, source, native = self.resolve(session_id)
        return source.session_file(native) if isinstance(source, SessionFiles) else None

    def change_token(self) -> str:
        """Every history's own token (`None` for one without a feed), as one JSON array; one
        that cannot be read now is `UNREADABLE`, so the others are still watched (the token
        changes once as it fails and once as it comes back: the list is read again then)."""
        return json.dumps(
            [_token_of(s) if isinstance(s, ChangeFeed) else None for s in self.sources]
        )

    def changed_since(self, token: str) -> frozenset[str] | None:
        try:
            tokens = json.loads(token)
        except ValueError:
            return None
        if not isinstance(tokens, list) or len(tokens) != len(self.sources):
            return None
        changed: set[str] = set()
        for (tag, source), old in zip(self._by_tag.items(), tokens, strict=True):
            if not isinstance(source, ChangeFeed) or not isinstance(old, str) or old == UNREADABLE:
                return None
            found = source.changed_since(old)
            if found is None:
                return None
            changed.update(self.qualify(tag, native) for native in found)
        return frozenset(changed)

    def session_states(self, session_ids: Sequence[str] | None) -> dict[str, SessionState]:
        wanted: dict[str, list[str]] | None = None
        if session_ids is not None:
            wanted = {}
            for qualified in session_ids:
                tag, _, native = qualified.partition(SEPARATOR)
                wanted.setdefault(tag, []).append(native)
        states: dict[str, SessionState] = {}
        for tag, source in self._by_tag.items():
            if not isinstance(source, ChangeFeed) or (wanted is not None and tag not in wanted):
                continue
            mine = source.session_states(None if wanted is None else wanted[tag])
            for native, state in mine.items():
                states[self.qualify(tag, native)] = replace(
                    state, session=self._tagged(tag, state.session)
                )
        return states

    def usage_series(self, session_id: str) -> Sequence[UsagePoint]:
        _, source, native = self.resolve(session_id)
        return source.usage_series(native) if isinstance(source, UsageHistory) else []

    def usage_by_day(self, since: date) -> Sequence[DayUsage]:
        days: dict[date, tuple[int, float | None]] = {}
        for source in self.sources:
            if not isinstance(source, UsageHistory):
                continue
            for day in source.usage_by_day(since):
                tokens, cost = days.get(day.day, (0, None))
                if day.cost is not None:
                    cost = (cost or 0.0) + day.cost
                days[day.day] = (tokens + day.tokens, cost)
        return [DayUsage(day=d, tokens=t, cost=c) for d, (t, c) in sorted(days.items())]

    def top_sessions_by_cost(self, limit: int) -> Sequence[Session]:
        found = [
            self._tagged(tag, session)
            for tag, source in self._by_tag.items()
            if isinstance(source, UsageHistory)
            for session in source.top_sessions_by_cost(limit)
        ]
        return sorted(found, key=lambda s: s.cost or 0.0, reverse=True)[:limit]

    def session_totals(self, session_id: str) -> SessionTotals:
        _, source, native = self.resolve(session_id)
        return session_totals(source, source.get_session(native, with_message_count=False))

    def trees_totals(self, sessions: Sequence[Session]) -> dict[str, SessionTotals]:
        """Each history asked once for its own sessions (goose in one read, not one a session)."""
        natives: dict[str, list[Session]] = {}
        for session in sessions:
            tag, _, native = self.resolve(session.id)
            parent = session.parent_session_id
            natives.setdefault(tag, []).append(
                replace(
                    session,
                    id=native,
                    parent_session_id=parent.partition(SEPARATOR)[2] if parent else None,
                    history=None,
                )
            )
        found: dict[str, SessionTotals] = {}
        for tag, mine in natives.items():
            totals = trees_totals(self._by_tag[tag], mine)
            found.update((self.qualify(tag, native), t) for native, t in totals.items())
        return found

    def count_sessions(self, query: SessionQuery) -> int:
        return sum(
            count_sessions(source, query)
            for tag, source in self._by_tag.items()
            if query.history is None or query.history == tag
        )

    def working_dirs(self) -> Sequence[str]:
        return self._facets().folders

    def session_types(self) -> Sequence[str]:
        return self._facets().types

    def _facets(self) -> Facets:
        folders: dict[str, None] = {}
        types: set[str] = set()
        for source in self.sources:
            facets = list_facets(source)
            folders.update(dict.fromkeys(facets.folders))
            types.update(facets.types)
        return Facets(list(folders), sorted(types))

    def labels(self) -> dict[str, str]:
        """Each history's badge: the agent's name (`Claude Code`), and only when two histories
        of one agent are open, the name of the folder that tells them apart (`goose · work`),
        never `sessions.db` twice."""
        infos = {tag: source.info() for tag, source in self._by_tag.items()}
        names = {tag: info.agent or info.kind for tag, info in infos.items()}
        labels = dict(names)
        for name in set(names.values()):
            tags = [tag for tag in names if names[tag] == name]
            if len(tags) > 1:
                apart = distinguishing([infos[tag].location for tag in tags])
                labels.update(
                    (tag, f"{name} · {short}") for tag, short in zip(tags, apart, strict=True)
                )
        return labels

    def locations(self) -> dict[str, str]:
        """Where each history is, by tag (a badge's tooltip)."""
        return {tag: source.info().location for tag, source in self._by_tag.items()}

    def find_in_session(self, session_id: str, needle: str) -> Sequence[FindHit]:
        _, source, native = self.resolve(session_id)
        return find_in_session(source, native, needle)

    def find_steps(self, session_id: str, needle: str) -> Iterator[FindStep]:
        _, source, native = self.resolve(session_id)
        return find_steps(source, native, needle)

    def readers(self) -> Iterator[tuple[str, Source]]:
        """Each open history with its tag (one search index each)."""
        yield from self._by_tag.items()

    def candidates(self, text: str) -> list[str]:
        """Every `tag:id` the user may mean by `text`: `ID` in any history, or `TAG:ID` /
        `KIND:ID` naming one (a kind names each history of that kind)."""
        prefix, separator, rest = text.partition(SEPARATOR)
        found: list[str] = []
        for tag, source in self._by_tag.items():
            natives = [text]
            if separator and prefix in (tag, source.info().kind):
                natives.insert(0, rest)
            for native in natives:
                if _exists(source, native) and self.qualify(tag, native) not in found:
                    found.append(self.qualify(tag, native))
        return found


UNREADABLE = "\x00unreadable"
"""A history's change token while it cannot be read: no reader's token, so its own
`changed_since` takes it for unknown."""


def _token_of(feed: ChangeFeed) -> str:
    try:
        return feed.change_token()
    except SourceError:
        return UNREADABLE


def _page_or_error(call: Callable[[], SessionPage]) -> SessionPage | SourceError:
    try:
        return call()
    except SourceError as error:
        return error


def distinguishing(locations: Sequence[str]) -> list[str]:
    """For each location, the nearest name in its path (from its end) that no other location's
    path holds: `~/work/.local/share/goose/sessions.db` and `~/play/…/sessions.db` are `work`
    and `play`. The whole location when no name tells it apart."""
    parts = [PurePath(location).parts for location in locations]
    found = []
    for index, mine in enumerate(parts):
        others = {name for n, theirs in enumerate(parts) if n != index for name in theirs}
        found.append(next((name for name in reversed(mine) if name not in others), None))
    return [name or location for name, location in zip(found, locations, strict=True)]


def _exists(source: Source, session_id: str) -> bool:
    try:
        source.get_session(session_id, with_message_count=False)
    except UnknownSession:
        return False
    return True


def origin_of(source: Source, session_id: str) -> tuple[SourceInfo, str, str | None]:
    """The history a session id belongs to, the id within it, and the history's tag when
    several are open."""
    if isinstance(source, CombinedHistory):
        tag, reader, native = source.resolve(session_id)
        return reader.info(), native, tag
    return source.info(), session_id, None


def session_reference(source: Source, text: str) -> str:
    """The id `source` knows for what the user typed: `ID` when one open history has it,
    `KIND:ID` (or `TAG:ID`) otherwise; a sentence naming the candidates when it is ambiguous."""
    if not isinstance(source, CombinedHistory):
        kind = source.info().kind + SEPARATOR
        if text.startswith(kind) and not _exists(source, text):
            return text[len(kind) :]
        return text
    found = source.candidates(text)
    if len(found) == 1:
        return found[0]
    if not found:
        raise UnknownSession(f"There is no session with id {text!r} in the open histories.")
    raise UnknownSession(
        f"Session id {text!r} is in more than one open history; say which: {', '.join(found)}."
    )


def _key(session: Session) -> float:
    return session.list_key if session.list_key is not None else float("-inf")


def _native(item: tuple[str, Session]) -> tuple[str, str]:
    return item[0], item[1].id


_STATE = "\x00"
"""Ends the last session's id in a combined cursor; each history's position follows it."""
_ESCAPES = str.maketrans({"\x00": "\x01\x01", "\x01": "\x01\x02"})


def _order_key(qualified: str) -> str:
    """`qualified` with no NUL in it, ordered as the id itself: a session id may hold any
    character (a NUL too), so NUL becomes `\\x01\\x01` and `\\x01` becomes `\\x01\\x02`. What
    follows, from `_STATE` on, then sorts below any longer id, as the id's own end does, and
    cursors compare (`SessionPage.advances_from`) as the sessions they stand for."""
    return qualified.translate(_ESCAPES)


def _encode_state(state: dict[str, tuple[float, str] | None]) -> str:
    """JSON, which writes every control character escaped: never a raw `_STATE`."""
    return json.dumps({tag: list(value) if value else None for tag, value in state.items()})


def _decode_state(cursor: SessionCursor | None) -> dict[str, tuple[float, str] | None]:
    if cursor is None or _STATE not in cursor.session_id:
        return {}
    raw = json.loads(cursor.session_id.split(_STATE, 1)[1])
    return {tag: (value[0], value[1]) if value else None for tag, value in raw.items()}
