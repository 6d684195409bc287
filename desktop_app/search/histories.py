"""Search over every open history: one index per history (each in its own file, kept current
by that history's change feed), queried together. Each index ranks its matching sessions; the
rankings are merged, a page of sessions is cut from the merged order, and each index reads the
hits of its sessions on that page. Sessions of a combined history come back with their
`tag:id`, as the combined history names them, and their history's badge. The merged order of the
latest query is kept for its next pages, until the indexes are updated.
"""

import dataclasses
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from desktop_app.domain.combined import CombinedHistory
from desktop_app.domain.errors import GanderError
from desktop_app.domain.search import SearchResults, SessionResult
from desktop_app.domain.source import Source
from desktop_app.search.index import SearchIndex, open_index
from desktop_app.search.parallel import SourceFactory
from desktop_app.search.query import ParsedQuery, parse_query
from desktop_app.search.querying import RankedSession, page_of
from desktop_app.search.updating import Progress, UpdateReport

_T = TypeVar("_T")

ReopenFor = Callable[[Source], SourceFactory | None]
"""How to open a reader again in another process (for a parallel first build), if at all."""


@dataclass(frozen=True, slots=True)
class _Merged:
    text: str
    sessions: list[RankedSession]
    """Qualified ids, in the merged order."""
    origin: dict[str, tuple[int, RankedSession]]
    """Each qualified id's index (by position) and its session as that index ranked it."""
    total_hits: int
    capped: bool
    all_counted: bool


class HistoriesIndex:
    def __init__(self, data_dir: Path, source: Source, reopen_for: ReopenFor | None = None) -> None:
        """Opens (or starts) the index of each history `source` is made of."""
        readers: Sequence[tuple[str | None, Source]] = (
            list(source.readers()) if isinstance(source, CombinedHistory) else [(None, source)]
        )
        self._source = source
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        self._parts: list[tuple[str | None, SearchIndex]] = []
        self._merged: _Merged | None = None
        try:
            for tag, reader in readers:
                reopen = reopen_for(reader) if reopen_for is not None else None
                self._parts.append((tag, open_index(data_dir, reader, reopen)))
        except BaseException:
            self.close()
            raise

    @property
    def rebuilt(self) -> bool:
        return any(index.rebuilt for _, index in self._parts)

    def update(self, progress: Progress | None = None, *, full_check: bool = False) -> UpdateReport:
        """Each history's index in turn; progress counts across all of them. One that fails
        (its folder deleted, another Gander updating it) is said after the others are brought
        up to date, not instead of them."""
        self._merged = None
        reports: list[UpdateReport] = []
        failure: GanderError | None = None
        done_before = 0
        for _, index in self._parts:
            offset = done_before

            def shifted(done: int, total: int, offset: int = offset) -> None:
                if progress is not None:
                    progress(offset + done, offset + total)

            try:
                report = index.update(shifted, full_check=full_check)
            except GanderError as error:
                failure = failure or error
                continue
            reports.append(report)
            done_before += report.added
        if failure is not None:
            raise failure
        return UpdateReport(
            added=sum(r.added for r in reports),
            reindexed_sessions=sum(r.reindexed_sessions for r in reports),
            removed_sessions=sum(r.removed_sessions for r in reports),
            rebuilt=any(r.rebuilt for r in reports),
            elapsed_s=sum(r.elapsed_s for r in reports),
        )

    def search(self, text: str, limit: int = 50, *, offset: int = 0) -> SearchResults:
        """A page of sessions from `offset` over every index, with at most `limit` hits; the
        indexes are asked at once (SQLite searches one while another's hits are read back)."""
        if len(self._parts) == 1:
            return self._parts[0][1].search(text, limit, offset=offset)
        started = time.perf_counter()
        parsed = parse_query(text)
        merged = self._merged
        if merged is None or merged.text != text or offset == 0:
            merged = self._merged = self._merge(text, parsed)
        chosen = page_of(merged.sessions, offset, limit)
        wanted: dict[int, list[tuple[RankedSession, int]]] = {}
        for session, shown in chosen:
            part, native = merged.origin[session.session_id]
            wanted.setdefault(part, []).append((native, shown))
        pages = self._each(lambda part, index: index.page(parsed, wanted.get(part, [])))
        found: dict[str, SessionResult] = {}
        labels = self._source.labels() if isinstance(self._source, CombinedHistory) else {}
        for (tag, _), results in zip(self._parts, pages, strict=True):
            for result in results:
                qualified = self._qualify(tag, result)
                found[qualified.session_id] = dataclasses.replace(
                    qualified, history=labels.get(tag or "")
                )
        return SearchResults(
            query=text,
            sessions=tuple(found[s.session_id] for s, _ in chosen if s.session_id in found),
            total_hits=merged.total_hits,
            total_sessions=len(merged.sessions),
            capped=merged.capped,
            all_counted=merged.all_counted,
            elapsed_ms=(time.perf_counter() - started) * 1000,
            offset=offset,
        )

    def _merge(self, text: str, parsed: ParsedQuery) -> _Merged:
        rankings = self._each(lambda _, index: index.rank(parsed))
        origin: dict[str, tuple[int, RankedSession]] = {}
        sessions: list[RankedSession] = []
        for part, ((tag, _), ranking) in enumerate(zip(self._parts, rankings, strict=True)):
            for native in ranking.sessions:
                qualified = native._replace(session_id=self._id(tag, native.session_id))
                origin[qualified.session_id] = (part, native)
                sessions.append(qualified)
        sessions.sort(key=lambda s: (s.order, s.session_id))
        return _Merged(
            text=text,
            sessions=sessions,
            origin=origin,
            total_hits=sum(r.total_hits for r in rankings),
            capped=any(r.capped for r in rankings),
            all_counted=all(r.all_counted for r in rankings),
        )

    def _each(self, ask: Callable[[int, SearchIndex], _T]) -> list[_T]:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(
                    max_workers=min(len(self._parts), 8), thread_name_prefix="gander-search"
                )
            futures = [
                self._pool.submit(ask, part, index) for part, (_, index) in enumerate(self._parts)
            ]
        return [future.result() for future in futures]

    def _id(self, tag: str | None, session_id: str) -> str:
        if tag is not None and isinstance(self._source, CombinedHistory):
            return self._source.qualify(tag, session_id)
        return session_id

    def _qualify(self, tag: str | None, result: SessionResult) -> SessionResult:
        return dataclasses.replace(
            result,
            session_id=self._id(tag, result.session_id),
            hits=tuple(
                dataclasses.replace(hit, session_id=self._id(tag, hit.session_id))
                for hit in result.hits
            ),
        )

    def close(self) -> None:
        with self._pool_lock:
            if self._pool is not None:
                self._pool.shutdown(wait=True)
                self._pool = None
        for _, index in self._parts:
            index.close()
