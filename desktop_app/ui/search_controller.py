"""Keeps the search index current and answers queries, without ever blocking the window.

Every open history has its own index, searched together (`HistoriesIndex`). Building or
updating the indexes runs on a thread of its own (a first build of a large history
also spreads parsing over worker processes), reporting progress by signal; queries run on the
shared worker with the index's read connection, so searching works while the index is built.
"""

import threading
from contextlib import suppress
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from desktop_app.domain.errors import sentence
from desktop_app.domain.search import SearchResults
from desktop_app.domain.source import Source
from desktop_app.search.histories import HistoriesIndex, ReopenFor
from desktop_app.search.index import SearchIndexRebuilt
from desktop_app.sources.files.background import quick_switches
from desktop_app.ui.tasks import TaskRunner


class SearchController(QObject):
    progress = Signal(int, int)
    """Messages indexed so far, messages to index."""
    ready = Signal()
    """The index is current (after a build or an update)."""
    results = Signal(object)
    failed = Signal(str)
    _update_finished = Signal(object)

    def __init__(
        self,
        source: Source,
        tasks: TaskRunner,
        data_dir: Path,
        reopen_for: ReopenFor | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._source = source
        self._tasks = tasks
        self._data_dir = data_dir
        self._reopen_for = reopen_for
        self._index: HistoriesIndex | None = None
        self._updating = False
        self._again = False
        self._checked = False
        """The first update after opening compares every session with the history."""
        self._latest_query = ""
        self._update_finished.connect(self._finished)

    @property
    def updating(self) -> bool:
        return self._updating

    def update(self) -> None:
        """Bring the index up to date on its own thread (one update at a time)."""
        if self._updating:
            self._again = True
            return
        self._updating = True
        thread = threading.Thread(target=self._run_update, name="gander-index", daemon=True)
        thread.start()

    def _run_update(self) -> None:
        try:
            if self._index is None:
                self._index = HistoriesIndex(self._data_dir, self._source, self._reopen_for)
            with quick_switches():
                self._index.update(self.progress.emit, full_check=not self._checked)
            self._checked = True
            outcome: BaseException | None = None
        except Exception as error:
            # Any failure (a damaged history, a full disk) is reported; it must not end Gander.
            outcome = error
        # The window may have closed while the index was updating: nobody is left to tell.
        with suppress(RuntimeError):
            self._update_finished.emit(outcome)

    def _finished(self, error: BaseException | None) -> None:
        self._updating = False
        if isinstance(error, SearchIndexRebuilt):
            self._checked = False
            self._again = True
            self.failed.emit(str(error))
        elif error is not None:
            self.failed.emit(f"Search index: {sentence(error)}")
        else:
            self.ready.emit()
        if self._again:
            self._again = False
            self.update()

    def search(self, query: str, limit: int = 100, offset: int = 0) -> None:
        """The page of sessions from `offset` (the next page, past those shown)."""
        if offset == 0:
            self._latest_query = query
        elif query != self._latest_query:
            return
        index = self._index
        if index is None or not query.strip():
            self.results.emit(None)
            return
        self._tasks.run(
            lambda: index.search(query, limit=limit, offset=offset),
            lambda found: self._deliver(query, found),
            self._refused,
            wanted=lambda: query == self._latest_query,
        )

    def _refused(self, error: BaseException) -> None:
        """A malformed query (or a failing index) clears the results and says why; a damaged
        index was started afresh and is built again."""
        self.results.emit(None)
        self.failed.emit(sentence(error))
        if isinstance(error, SearchIndexRebuilt):
            self._checked = False
            self.update()

    def _deliver(self, query: str, found: SearchResults) -> None:
        if query == self._latest_query:
            self.results.emit(found)

    def close(self) -> None:
        if self._index is not None and not self._updating:
            self._index.close()
