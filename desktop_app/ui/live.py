"""Notices when goose (or anything else) commits to the database while Gander is open.

Every second the worker asks `PRAGMA data_version` on a dedicated read-only connection: an O(1)
question that takes no lock and no read transaction, and whose answer changes with every commit
made by another connection. Only a change triggers re-reading the list and the open transcript.
"""

from PySide6.QtCore import QObject, QTimer, Signal

from desktop_app.domain.source import Source
from desktop_app.ui.tasks import TaskRunner

POLL_MS = 1000


class LiveWatcher(QObject):
    changed = Signal()

    def __init__(self, source: Source, tasks: TaskRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._source = source
        self._tasks = tasks
        self._marker: tuple[int, ...] | None = None
        self._asking = False
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self.poll)

    def start(self) -> None:
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def poll(self) -> None:
        if self._asking:
            return
        self._asking = True
        self._tasks.run(self._source.change_marker, self._answered, self._failed, background=True)

    def _answered(self, marker: tuple[int, ...]) -> None:
        self._asking = False
        previous, self._marker = self._marker, marker
        if previous is not None and marker != previous:
            self.changed.emit()

    def _failed(self, _error: BaseException) -> None:
        self._asking = False
