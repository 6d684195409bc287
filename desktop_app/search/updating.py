"""Bringing the index up to date with its history, whatever the format.

The unit is the session. A reader with a `ChangeFeed` says which sessions may have changed since
the token the index stored (or that it cannot tell), and gives each session's revision; a reader
without one is listed whole and each session's revision derived from its listing. A session
whose revision differs is brought up to date: when its old positions are still its first
positions and its lineage is the same (`domain.source.with_lineage`: messages were only
appended) the new ones are indexed, with those of its last
`CHANGES_NEAR_THE_END` that read differently now (a message an agent is still writing);
otherwise all of its documents are replaced. Sessions that are gone are dropped. A first build
of a large history reads in bulk, in worker processes when it is worth it.
"""

import logging
import os
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from desktop_app.domain.message import MessageCursor, encode_position
from desktop_app.domain.reading import CHANGES_NEAR_THE_END, EVERY_SESSION, iter_sessions
from desktop_app.domain.source import ChangeFeed, SessionState, Source, lineage
from desktop_app.search.documents import (
    ROW_POSITION,
    ROW_SESSION,
    TEXT_FIELDS,
    DocumentRow,
    document_row,
)
from desktop_app.search.parallel import (
    Piece,
    SourceFactory,
    Work,
    documents_in_parallel,
    messages_of,
)
from desktop_app.search.storage import IndexedSession, IndexStorage

log = logging.getLogger(__name__)

FOLLOWED = 1_000
PARALLEL_FROM = 50_000
"""Messages to index from which a first build is worth starting worker processes for."""
SESSION_CHUNK = 200
"""Sessions read and committed together, at most."""
CHUNK_MESSAGES = 5_000
"""Messages read and committed together, about: a chunk of sessions closes once it holds this
many. One transaction's new postings then fit FTS5's buffer (`storage.PENDING_BYTES`), and a
worker's result stays small to unpickle (50,000 documents in one held the interpreter lock long
enough to stall the window for 130 ms)."""
BATCH_CHARS = 8_000_000
"""Characters of text a first build holds in memory before it writes them to the index."""
SESSION_PIECE = 2_000
"""A session of more messages is indexed this many at a time, each piece in a transaction of
its own (and, in a large build, read in a worker process and sent back piece by piece)."""

Progress = Callable[[int, int], None]
"""(messages indexed so far, messages to index in all)."""


@dataclass(frozen=True, slots=True)
class UpdateReport:
    added: int
    """Documents written."""
    reindexed_sessions: int
    """Sessions indexed before whose documents were replaced (rewritten conversations)."""
    removed_sessions: int
    rebuilt: bool
    elapsed_s: float


def listed_states(source: Source) -> dict[str, SessionState]:
    """Every session with a revision made from its listing, for readers without a feed."""
    return {
        session.id: SessionState(
            session=session,
            revision=f"{session.updated_at}|{session.last_message_at}|{session.message_count}",
        )
        for session in iter_sessions(source, EVERY_SESSION)
    }


@dataclass(slots=True)
class _Plan:
    """What one update has to do."""

    targets: dict[str, tuple[str, int]]
    """Each changed session's revision and message total (0 when unknown): plain tuples, not
    the `SessionState`s — twenty thousand of those, each holding a `Session`, made every full
    garbage collection during a first build walk their fields (a 20–60 ms pause of every
    thread, the window's included)."""
    whole: list[str]
    """Sessions indexed from scratch."""
    appended: dict[str, tuple[IndexedSession, Sequence[MessageCursor], Sequence[MessageCursor]]]
    """Sessions that only gained messages (or only changed their row): how far they were
    indexed, their last positions indexed (`CHANGES_NEAR_THE_END`), and their new ones."""
    replaced: set[str] = field(default_factory=set)
    """Sessions of `whole` the index knew: their old documents go first."""


class IndexUpdater:
    def __init__(
        self, storage: IndexStorage, source: Source, reopen: SourceFactory | None = None
    ) -> None:
        self.storage = storage
        self.source = source
        self.reopen = reopen
        self._recent: OrderedDict[str, dict[str, int]] = OrderedDict()
        """The last documents this process indexed of the sessions it followed, by position:
        a hash of each, so one that reads differently now is indexed again and one that does
        not is left alone (every document forgotten stays an orphan in the full-text table,
        and orphans enough rebuild the index). At most `FOLLOWED` sessions."""

    def update(self, progress: Progress | None = None, *, full_check: bool = False) -> UpdateReport:
        started = time.perf_counter()
        storage = self.storage
        if storage.too_many_orphans():
            storage.empty()
        rebuilt = storage.rebuilt
        full_check = full_check or rebuilt
        feed = self.source if isinstance(self.source, ChangeFeed) else None
        token = feed.change_token() if feed is not None else None
        stored = storage.meta("token")
        if not full_check and token is not None and token == stored:
            return UpdateReport(0, 0, 0, False, time.perf_counter() - started)
        candidates = (
            feed.changed_since(stored) if feed is not None and stored and not full_check else None
        )
        if feed is None:
            states = listed_states(self.source)
        else:
            states = feed.session_states(None if candidates is None else sorted(candidates))
        known = storage.indexed(None if candidates is None else candidates)
        gone = [sid for sid in (known if candidates is None else candidates) if sid in known]
        gone = [sid for sid in gone if sid not in states]
        changed = [
            sid
            for sid, state in states.items()
            if sid not in known or known[sid].revision != state.revision
        ]
        storage.conn.execute("BEGIN IMMEDIATE")
        for session_id in gone:
            storage.drop_session(session_id)
        storage.put_sessions([states[sid].session for sid in changed])
        storage.conn.execute("COMMIT")
        plan = self._plan(
            {sid: (states[sid].revision, states[sid].message_total or 0) for sid in changed},
            known,
        )
        del states  # the build can take minutes: its `Session`s are not kept through it
        added = self._index(plan, progress)
        if token is not None:
            storage.set_meta("token", token)
        storage.rebuilt = False
        return UpdateReport(
            added=added,
            reindexed_sessions=sum(1 for sid in plan.whole if sid in known),
            removed_sessions=len(gone),
            rebuilt=rebuilt,
            elapsed_s=time.perf_counter() - started,
        )

    def _append(
        self,
        session_id: str,
        before: IndexedSession,
        revision: str,
        recent: Sequence[MessageCursor],
        new: Sequence[MessageCursor],
    ) -> None:
        """The new messages indexed, and those of the last ones indexed that read differently
        now (unknown to this process: indexed again, once)."""
        span = [*recent, *new]
        rows = (
            [document_row(m) for m in self.source.messages_between(session_id, span[0], span[-1])]
            if span
            else []
        )
        known = self._recent.pop(session_id, {})
        again = {encode_position(p) for p in recent}
        changed = [
            row
            for row in rows
            if row[ROW_POSITION] not in again or known.get(row[ROW_POSITION]) != hash(row)
        ]
        self.storage.conn.execute("BEGIN IMMEDIATE")
        forgotten = self.storage.forget_positions(
            session_id, [row[ROW_POSITION] for row in changed if row[ROW_POSITION] in again]
        )
        self.storage.insert_rows(changed)
        self.storage.mark_indexed(
            session_id,
            revision,
            before.indexed_count - forgotten + len(changed),
            rows[-1][ROW_POSITION] if rows else before.last_position,
        )
        self.storage.conn.execute("COMMIT")
        self._recent[session_id] = {
            row[ROW_POSITION]: hash(row) for row in rows[-CHANGES_NEAR_THE_END:]
        }
        while len(self._recent) > FOLLOWED:
            self._recent.popitem(last=False)

    def _plan(self, targets: dict[str, tuple[str, int]], known: dict[str, IndexedSession]) -> _Plan:
        plan = _Plan(targets=targets, whole=[], appended={})
        plan.replaced = {sid for sid in targets if sid in known}
        for session_id in targets:
            before = known.get(session_id)
            rewritten = before is not None and lineage(before.revision) != lineage(
                targets[session_id][0]
            )
            if before is None or before.indexed_count == 0 or rewritten:
                plan.whole.append(session_id)
                continue
            positions = self.source.positions(session_id)
            count = before.indexed_count
            if len(positions) >= count and encode_position(positions[count - 1]) == (
                before.last_position
            ):
                recent = positions[max(0, count - CHANGES_NEAR_THE_END) : count]
                plan.appended[session_id] = (before, recent, positions[count:])
            else:
                plan.whole.append(session_id)
        return plan

    def _index(self, plan: _Plan, progress: Progress | None) -> int:
        total = sum(plan.targets[sid][1] for sid in plan.whole) + sum(
            len(new) for _, _, new in plan.appended.values()
        )
        done = 0
        for session_id, (before, recent, new) in plan.appended.items():
            self._append(session_id, before, plan.targets[session_id][0], recent, new)
            done += len(new)
            if progress is not None:
                progress(done, max(total, done))
        targets = plan.targets
        long = sorted(
            (sid for sid in plan.whole if targets[sid][1] > SESSION_PIECE),
            key=lambda sid: targets[sid][1],
            reverse=True,
        )
        in_pieces = set(long)
        chunks = _chunks([sid for sid in plan.whole if sid not in in_pieces], targets)
        pieced: dict[str, tuple[int, str | None]] = {}
        for work, batches in self._documents(chunks, long, targets, total):
            if isinstance(work, Piece):
                rows = [row for batch in batches for row in batch]
                self._write_piece(work, rows, plan, pieced)
                done += len(rows)
                if progress is not None:
                    progress(done, max(total, done))
                continue
            for written in self._write_chunk(work, batches, plan):
                done += written
                if progress is not None:
                    progress(done, max(total, done))
        return done

    def _write_chunk(
        self, chunk: list[str], batches: Iterable[list[DocumentRow]], plan: _Plan
    ) -> Iterator[int]:
        """A chunk of sessions in one transaction, its documents written a batch at a time as
        they are read (yielding how many each time): six messages of 20 MB read whole before
        any was written took the window's process from 211 MB to 464 MB."""
        counts = dict.fromkeys(chunk, 0)
        lasts: dict[str, str | None] = dict.fromkeys(chunk)
        self.storage.conn.execute("BEGIN IMMEDIATE")
        try:
            self.storage.forget_docs(*(sid for sid in chunk if sid in plan.replaced))
            for batch in batches:
                rows = [row for row in batch if row[ROW_SESSION] in counts]
                if len(rows) < len(batch):  # a reader's slip: a message filed under no session
                    log.warning("%d messages of no session asked for", len(batch) - len(rows))
                self.storage.insert_rows(rows)
                for row in rows:
                    counts[row[ROW_SESSION]] += 1
                    lasts[row[ROW_SESSION]] = row[ROW_POSITION]
                yield len(rows)
            self.storage.mark_all_indexed(
                [(sid, plan.targets[sid][0], counts[sid], lasts[sid]) for sid in chunk]
            )
        except BaseException:
            self.storage.conn.execute("ROLLBACK")
            raise
        self.storage.conn.execute("COMMIT")

    def _write_piece(
        self,
        piece: Piece,
        rows: list[DocumentRow],
        plan: _Plan,
        pieced: dict[str, tuple[int, str | None]],
    ) -> None:
        """A piece of a long session, in a transaction of its own: its old documents go with
        the first piece and it is marked indexed with the last, so a piece left half-way (a
        crash) leaves the session unmarked, and the next update starts it afresh. `pieced`
        holds each session's documents so far and its last position, between its pieces."""
        session_id = piece.session_id
        count, last = pieced.pop(session_id, (0, None))
        self.storage.conn.execute("BEGIN IMMEDIATE")
        if piece.start == 0:
            self.storage.forget_docs(session_id)
        self.storage.insert_rows(rows)
        count += len(rows)
        last = rows[-1][ROW_POSITION] if rows else last
        if piece.stop is None:
            self.storage.mark_indexed(session_id, plan.targets[session_id][0], count, last)
        else:
            pieced[session_id] = (count, last)
        self.storage.conn.execute("COMMIT")

    def _documents(
        self,
        chunks: list[list[str]],
        long: list[str],
        targets: dict[str, tuple[str, int]],
        total: int,
    ) -> Iterator[tuple[Work, Iterable[list[DocumentRow]]]]:
        """The chunks' documents, and the long sessions' a piece at a time: in worker
        processes for a large build (the pieces cut by the sessions' message totals, the last
        to the session's end), else read here (cut by the positions read), a chunk's in
        batches of at most `BATCH_CHARS` characters of text as they are read."""
        workers = min(2, os.cpu_count() or 1)
        if self.reopen is not None and total >= PARALLEL_FROM and workers > 1:
            works: list[tuple[Work, int]] = [
                (chunk, sum(targets[sid][1] for sid in chunk)) for chunk in chunks
            ]
            for session_id in long:
                pieces = -(-targets[session_id][1] // SESSION_PIECE)
                works += [
                    (
                        Piece(
                            session_id,
                            n * SESSION_PIECE,
                            None if n == pieces - 1 else (n + 1) * SESSION_PIECE,
                        ),
                        SESSION_PIECE,
                    )
                    for n in range(pieces)
                ]
            for work, rows in documents_in_parallel(self.reopen, works, workers):
                yield work, [rows]
            return
        for chunk in chunks:
            yield chunk, _batches(document_row(m) for m in messages_of(self.source, chunk))
        for session_id in long:
            positions = self.source.positions(session_id)
            for start in range(0, max(len(positions), 1), SESSION_PIECE):
                span = positions[start : start + SESSION_PIECE]
                stop = None if start + SESSION_PIECE >= len(positions) else start + SESSION_PIECE
                messages = (
                    self.source.messages_between(session_id, span[0], span[-1]) if span else []
                )
                yield Piece(session_id, start, stop), [[document_row(m) for m in messages]]


def _chunks(sessions: list[str], targets: dict[str, tuple[str, int]]) -> list[list[str]]:
    """Sessions read and committed together: `SESSION_CHUNK` of them, or fewer that hold
    `CHUNK_MESSAGES` messages."""
    chunks: list[list[str]] = []
    messages = 0
    for session_id in sessions:
        if not chunks or len(chunks[-1]) >= SESSION_CHUNK or messages >= CHUNK_MESSAGES:
            chunks.append([])
            messages = 0
        chunks[-1].append(session_id)
        messages += targets[session_id][1]
    return chunks


def _batches(rows: Iterable[DocumentRow]) -> Iterator[list[DocumentRow]]:
    """`rows` in lists of at most `BATCH_CHARS` characters of text (or of one document)."""
    batch: list[DocumentRow] = []
    size = 0
    for row in rows:
        length = sum(len(text) for text in row[-len(TEXT_FIELDS) :])
        if batch and size + length > BATCH_CHARS:
            yield batch
            batch, size = [], 0
        batch.append(row)
        size += length
    if batch:
        yield batch
