"""everruns' event envelopes from a file: the embedded local mode's `events.jsonl` (its canonical
event log, many sessions, appended to) and exports of the events API — a JSON array of
envelopes, `{"data": [...]}`, or JSONL. Same kind (`everruns`) and the same rebuilding rule as
the server (`events.py`); opened read-only, never written.

An envelope is `{id, type, ts, session_id, context, data, sequence?}` (bare UUIDs in older
versions, `session_…`/`event_…` ids in newer ones). Without `sequence`, the file's order is the
order. A session's title is its latest `session.title.updated`; else, when the local mode's
`local.db` is beside the log, the title any of its tables with both `session_id` and `title`
columns gives; else its first prompt. A session a task links (`task.links.child_session_id`
of a `task.created`/`task.updated`) is a sub-agent's, nested under the session of the task.
Whether a file is an export at all is told by `sniff.py`.

The log is read once, in a streaming pass (one line at a time, each line bounded), and again
only from where it ended when it grows — what an append-only log allows — so the change poll
is a `stat` and an update reads only the new lines.
"""

import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from stat import S_ISREG
from typing import Any, BinaryIO

from desktop_app.domain.errors import SourceUnreadable, UnknownSession
from desktop_app.domain.jsontext import loads
from desktop_app.domain.message import CursorList, Message, MessageCursor
from desktop_app.domain.session import Session
from desktop_app.domain.source import (
    SessionCursor,
    SessionPage,
    SessionQuery,
    SessionState,
    SourceInfo,
)
from desktop_app.domain.usage import MAX_COUNT, TokenUsage
from desktop_app.sources.everruns.events import (
    SPOKEN_TYPES,
    TASK_SNAPSHOT_TYPES,
    StoredEvent,
    latest_title,
    message_of,
    shown_events,
    title_from,
)
from desktop_app.sources.files.following import ReadMark
from desktop_app.sources.files.values import iso_time, whole

KIND = "everruns"
LOG_NAME = "events.jsonl"
MAX_LINE_BYTES = 64_000_000
MAX_DOCUMENT_BYTES = 256_000_000
"""A JSON export (not line by line) larger than this is refused with a sentence."""


@dataclass
class _Log:
    """What has been read of the file: events by session, in file order, and where it ended."""

    events: dict[str, list[StoredEvent]] = field(default_factory=dict)
    offset: int = 0
    token: str = ""
    mark: ReadMark = field(default_factory=ReadMark)
    """What the JSON-lines log held where it was read (a rewritten log is read afresh)."""
    next_sequence: dict[str, int] = field(default_factory=dict)


def _open_regular(path: Path) -> BinaryIO:
    """The log, opened without waiting and checked to be a file: a named pipe put in its place
    (or named as the log) never blocks the reader, and a device is never read on and on."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    handle = os.fdopen(descriptor, "rb")
    if not S_ISREG(os.fstat(descriptor).st_mode):
        handle.close()
        raise SourceUnreadable(f"{path} is not a file (a named pipe, a socket or a device).")
    return handle


def _id_key(session_id: str) -> str:
    """A session id compared by its UUID: `session_0195…` and `0195…-…` name one session."""
    return session_id.removeprefix("session_").replace("-", "").lower()


class EverrunsEvents:
    def __init__(self, path: Path) -> None:
        self.path = path / LOG_NAME if path.is_dir() else path
        self.location = os.path.abspath(self.path)
        self._lock = threading.RLock()
        self._log = _Log()
        self._titles = self._read_titles()
        self._jsonl = self.path.suffix == ".jsonl"
        self._listed: tuple[int, list[Session]] = (-1, [])
        """The sessions in list order, for the log as read up to that offset."""
        self._nesting: tuple[int, dict[str, str]] = (-1, {})
        """Each task session's parent, for the log as read up to that offset."""
        with self._lock:
            self._read_more()

    # ---- reading the file ---------------------------------------------------------------

    def _stat_token(self) -> str:
        try:
            stat = self.path.stat()
        except OSError as error:
            raise SourceUnreadable(f"{self.path} cannot be read: {error.strerror}.") from error
        return f"{stat.st_size}:{stat.st_mtime_ns}:{stat.st_ino}"

    def _add(self, envelope: Any) -> str | None:
        if not isinstance(envelope, dict) or not isinstance(envelope.get("type"), str):
            return None
        session = envelope.get("session_id")
        if not isinstance(session, str):
            return None
        sequence = whole(envelope.get("sequence"))
        following = self._log.next_sequence.get(session, 1)
        if sequence is None:
            sequence = following
        self._log.next_sequence[session] = min(max(following, sequence + 1), MAX_COUNT)
        self._log.events.setdefault(session, []).append(
            StoredEvent(
                sequence=sequence,
                event_type=envelope["type"],
                data=envelope.get("data"),
                ts=iso_time(envelope.get("ts")),
                event_id=envelope.get("id") if isinstance(envelope.get("id"), str) else None,
                context=envelope.get("context"),
            )
        )
        return session

    def _read_more(self) -> set[str]:
        """Read what the file holds beyond what was read; the sessions that got events. A log
        that shrank, was replaced or was rewritten (`ReadMark`) is read again from the start."""
        token = self._stat_token()
        size = int(token.split(":", 1)[0])
        if size < self._log.offset or (not self._jsonl and token != self._log.token):
            self._log = _Log()
        touched: set[str] = set()
        try:
            with _open_regular(self.path) as handle:
                if self._jsonl:
                    inode = os.fstat(handle.fileno()).st_ino
                    if not self._log.mark.holds(handle, inode, self._log.offset):
                        self._log = _Log(mark=ReadMark(inode))
                    handle.seek(self._log.offset)
                    touched = self._read_lines(handle)
                elif not self._log.token:
                    touched = self._read_document(handle, size)
        except OSError as error:
            raise SourceUnreadable(f"{self.path} cannot be read: {error.strerror}.") from error
        self._log.token = token
        return touched

    def _read_lines(self, handle: Any) -> set[str]:
        touched: set[str] = set()
        while True:
            line = handle.readline(MAX_LINE_BYTES + 1)
            if not line or not line.endswith(b"\n"):
                if line and len(line) > MAX_LINE_BYTES:  # one huge line: skipped, bounded
                    self._log.mark.advance(line)
                    self._log.mark.advance(handle.readline())
                    self._log.offset = handle.tell()
                    continue
                return touched  # the end, or a line still being written: read it next time
            self._log.offset = handle.tell()
            self._log.mark.advance(line)
            try:
                envelope = loads(line)
            except (ValueError, RecursionError):
                continue
            session = self._add(envelope)
            if session is not None:
                touched.add(session)

    def _read_document(self, handle: Any, size: int) -> set[str]:
        if size > MAX_DOCUMENT_BYTES:
            raise SourceUnreadable(
                f"{self.path} is {size:,} bytes, too large to read as one JSON document."
            )
        try:
            document = loads(handle.read())
        except (ValueError, RecursionError) as error:
            raise SourceUnreadable(f"{self.path} is not valid JSON ({error}).") from error
        items = document.get("data") if isinstance(document, dict) else document
        touched = set()
        for envelope in items if isinstance(items, list) else []:
            session = self._add(envelope)
            if session is not None:
                touched.add(session)
        self._log.offset = size
        return touched

    def _read_titles(self) -> dict[str, str]:
        """Titles from the local mode's catalog beside the log, when it has them."""
        catalog = self.path.parent / "local.db"
        if not catalog.is_file():
            return {}
        titles: dict[str, str] = {}
        try:
            conn = sqlite3.connect(f"{catalog.as_uri()}?mode=ro", uri=True)
        except sqlite3.Error:
            return {}
        try:
            tables = [
                r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
            ]
            for table in tables:
                quoted = '"' + str(table).replace('"', '""') + '"'
                columns = {r[1] for r in conn.execute(f"PRAGMA table_info({quoted})")}
                if {"session_id", "title"} <= columns:
                    for sid, title in conn.execute(f"SELECT session_id, title FROM {quoted}"):
                        if isinstance(sid, str) and isinstance(title, str) and title.strip():
                            titles.setdefault(sid, title.strip())
        except sqlite3.Error:
            return titles
        finally:
            conn.close()
        return titles

    # ---- the reader contract ----------------------------------------------------------------

    def info(self) -> SourceInfo:
        return SourceInfo(kind=KIND, location=self.location, agent="everruns")

    def close(self) -> None:
        return None

    def _parents(self) -> dict[str, str]:
        """Each task session's parent: the session whose `task.created`/`task.updated` links
        it (`task.links.child_session_id`), as everruns nests a sub-agent's session under the
        session that started it. Ids compare in either form (a bare UUID or `session_…`).
        Worked out once for what has been read of the log."""
        read = self._log.offset + len(self._log.events)
        if self._nesting[0] != read:
            self._nesting = (read, self._linked())
        return self._nesting[1]

    def _linked(self) -> dict[str, str]:
        known = {_id_key(sid): sid for sid in self._log.events}
        parents: dict[str, str] = {}
        for sid, events in self._log.events.items():
            for event in events:
                if event.event_type not in TASK_SNAPSHOT_TYPES or not isinstance(event.data, dict):
                    continue
                task = event.data.get("task")
                links = task.get("links") if isinstance(task, dict) else None
                child = links.get("child_session_id") if isinstance(links, dict) else None
                found = known.get(_id_key(child)) if isinstance(child, str) else None
                if found is not None and found != sid:
                    parents.setdefault(found, sid)
        return parents

    def _session(self, session_id: str, parents: Mapping[str, str]) -> Session:
        events = self._log.events[session_id]
        times = [e.ts for e in events if e.ts is not None]
        shown = shown_events(events)
        spoken = [e for e in shown if e.event_type in SPOKEN_TYPES]
        sums = [0, 0, 0, 0]
        counted = cached = False
        model = None
        current = TokenUsage()  # the latest reply's: the context now, as the server reads it
        for event in spoken:
            message = message_of(event, session_id)
            if message.inference is not None and message.inference.requested_model:
                model = message.inference.requested_model  # the latest reply's model
            if message.usage is None:
                continue
            tokens = current = message.usage.tokens
            figures = (
                tokens.input_tokens,
                tokens.output_tokens,
                tokens.cache_read_tokens,
                tokens.cache_write_tokens,
            )
            counted = True
            cached |= figures[2] is not None or figures[3] is not None
            sums = [total + (figure or 0) for total, figure in zip(sums, figures, strict=True)]
        last = max(times) if times else None
        parent = parents.get(session_id)
        given, produced, read, written = sums
        return Session(
            id=session_id,
            name=(
                latest_title(events)
                or self._titles.get(session_id)
                or title_from(events)
                or "(untitled)"
            ),
            session_type="sub_agent" if parent else "user",
            parent_session_id=parent,
            has_children=session_id in parents.values(),
            created_at=min(times) if times else None,
            updated_at=last,
            message_count=len(shown),  # every message the window shows, as for every kind
            model=model,
            usage=current,
            accumulated_usage=(
                TokenUsage(
                    input_tokens=given,
                    output_tokens=produced,
                    total_tokens=given + produced,
                    cache_read_tokens=read if cached else None,
                    cache_write_tokens=written if cached else None,
                )
                if counted
                else TokenUsage()
            ),
            list_key=last.timestamp() if last else 0.0,
        )

    def _ordered(self) -> list[Session]:
        read = self._log.offset + len(self._log.events)
        if self._listed[0] != read:
            parents = self._parents()
            sessions = [self._session(sid, parents) for sid in self._log.events]
            ordered = sorted(sessions, key=lambda s: (s.list_key or 0.0, s.id), reverse=True)
            self._listed = (read, ordered)
        return self._listed[1]

    def list_sessions(
        self, query: SessionQuery, *, after: SessionCursor | None = None, limit: int = 100
    ) -> SessionPage:
        with self._lock:
            listed = [s for s in self._ordered() if query.matches(s)]
        if after is not None:
            bound = (after.sort_at, after.session_id)
            listed = [s for s in listed if (s.list_key or 0.0, s.id) < bound]
        page = listed[:limit]
        cursor = None
        if len(listed) > limit and page:
            cursor = SessionCursor(page[-1].list_key or 0.0, page[-1].id)
        return SessionPage(sessions=tuple(page), next_cursor=cursor)

    def count_sessions(self, query: SessionQuery) -> int:
        with self._lock:
            return sum(1 for s in self._ordered() if query.matches(s))

    def get_session(self, session_id: str, *, with_message_count: bool = True) -> Session:
        del with_message_count
        with self._lock:
            if session_id not in self._log.events:
                raise UnknownSession(f"There is no session with id {session_id!r}.")
            return self._session(session_id, self._parents())

    def _shown(self, session_id: str) -> list[StoredEvent]:
        with self._lock:
            return shown_events(self._log.events.get(session_id, ()))

    def positions(self, session_id: str) -> Sequence[MessageCursor]:
        return CursorList((e.sequence, e.sequence) for e in self._shown(session_id))

    def messages_between(
        self, session_id: str, first: MessageCursor, last: MessageCursor
    ) -> Sequence[Message]:
        return [
            message_of(e, session_id)
            for e in self._shown(session_id)
            if first.row_id <= e.sequence <= last.row_id
        ]

    def messages_at(self, session_id: str, positions: Sequence[MessageCursor]) -> Sequence[Message]:
        wanted = {p.row_id for p in positions}
        return [message_of(e, session_id) for e in self._shown(session_id) if e.sequence in wanted]

    def messages_at_each(self, wanted: Mapping[str, Sequence[MessageCursor]]) -> Iterator[Message]:
        for session_id, positions in wanted.items():
            yield from self.messages_at(session_id, positions)

    # ---- change feed ------------------------------------------------------------------------

    def change_token(self) -> str:
        return self._stat_token()

    def changed_since(self, token: str) -> frozenset[str] | None:
        with self._lock:
            if token == self._stat_token():
                return frozenset()
            known = self._log.token == token
            log = self._log
            touched = self._read_more()
            if known and self._jsonl and self._log is log:  # read on, not afresh
                return frozenset(touched)
            return None

    def session_states(self, session_ids: Sequence[str] | None) -> dict[str, SessionState]:
        with self._lock:
            self._read_more()
            ids = list(self._log.events) if session_ids is None else session_ids
            parents = self._parents()
            states = {}
            for sid in ids:
                events = self._log.events.get(sid)
                if events is None:
                    continue
                session = self._session(sid, parents)
                states[sid] = SessionState(
                    session=session, revision=f"{len(events)}:{events[-1].sequence}:{session.name}"
                )
            return states
