"""Search over every open history: one index per history (each in its own file, kept current
by that history's change feed), queried together and merged by rank. Sessions of a combined
history come back with their `tag:id`, as the combined history names them.
"""

import dataclasses
import functools
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from desktop_app.domain.combined import CombinedHistory
from desktop_app.domain.errors import GanderError
from desktop_app.domain.search import SearchResults
from desktop_app.domain.source import Source
from desktop_app.search.index import SearchIndex, merge_results, open_index
from desktop_app.search.parallel import SourceFactory
from desktop_app.search.updating import Progress, UpdateReport

ReopenFor = Callable[[Source], SourceFactory | None]
"""How to open a reader again in another process (for a parallel first build), if at all."""


def _qualified(results: SearchResults, qualify: Callable[[str], str]) -> SearchResults:
    return dataclasses.replace(
        results,
        sessions=tuple(
            dataclasses.replace(
                session,
                session_id=qualify(session.session_id),
                hits=tuple(
                    dataclasses.replace(hit, session_id=qualify(hit.session_id))
                    for hit in session.hits
                ),
            )
            for session in results.sessions
        ),
    )


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

    def search(self, text: str, limit: int = 50) -> SearchResults:
        """Every index at once (SQLite searches while another index's results are read back),
        merged by rank."""
        if len(self._parts) == 1:
            return self._parts[0][1].search(text, limit=limit)
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(
                    max_workers=min(len(self._parts), 8), thread_name_prefix="gander-search"
                )
            futures = [
                (tag, self._pool.submit(index.search, text, limit)) for tag, index in self._parts
            ]
        answers: list[SearchResults] = []
        for tag, future in futures:
            found = future.result()
            if tag is not None and isinstance(self._source, CombinedHistory):
                found = _qualified(found, functools.partial(self._source.qualify, tag))
            answers.append(found)
        merged = merge_results(answers, limit)
        return dataclasses.replace(merged, elapsed_ms=max(a.elapsed_ms for a in answers))

    def close(self) -> None:
        with self._pool_lock:
            if self._pool is not None:
                self._pool.shutdown(wait=True)
                self._pool = None
        for _, index in self._parts:
            index.close()
