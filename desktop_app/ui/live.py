"""Notices when the history changes while Gander is open.

Every second the worker asks the reader's change token (goose: `PRAGMA data_version` on a
connection of its own, free to ask; a folder: its files' sizes and times). Only a change
triggers re-reading the list and the open transcript. A reader without a change feed is not
watched.
"""

from PySide6.QtCore import QObject, QTimer, Signal

from desktop_app.domain.source import ChangeFeed, Source
from desktop_app.ui.tasks import TaskRunner

POLL_MS = 1000


class LiveWatcher(QObject):
    changed = Signal()

    def __init__(self, source: Source, tasks: TaskRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._feed = source if isinstance(source, ChangeFeed) else None
        self._tasks = tasks
        self._marker: str | None = None
        self._asking = False
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self.poll)

    def start(self) -> None:
        """Take the first reading now, ahead of everything else queued: a change made while
        the window loads must differ from it (a first reading taken a second later would
        already include that change, and it would never be shown)."""
        if self._feed is not None:
            self._timer.start()
            self.poll(first=True)

    def stop(self) -> None:
        self._timer.stop()

    def poll(self, *, first: bool = False) -> None:
        if self._asking or self._feed is None:
            return
        self._asking = True
        self._tasks.run(self._feed.change_token, self._answered, self._failed, background=not first)

    def _answered(self, marker: str) -> None:
        self._asking = False
        previous, self._marker = self._marker, marker
        if previous is not None and marker != previous:
            self.changed.emit()

    def _failed(self, _error: BaseException) -> None:
        self._asking = False
