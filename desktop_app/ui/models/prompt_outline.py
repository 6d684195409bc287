"""View ▸ Prompts: every prompt of the open session, one line each, read in the worker a
chunk of messages at a time and appended as each chunk arrives, so a 50,000-message session's
first prompts show at once and the window never waits for the last."""

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)

from desktop_app.domain.errors import GanderError
from desktop_app.domain.message import MessageCursor
from desktop_app.domain.source import Source
from desktop_app.rendering.outline import OutlineEntry, outline_entries
from desktop_app.ui.tasks import TaskRunner

CHUNK = 500
"""Messages read per worker job: small enough that a transcript page asked for meanwhile
waits for at most one of them."""

AnyIndex = QModelIndex | QPersistentModelIndex
CURSOR_ROLE = Qt.ItemDataRole.UserRole + 1


class PromptOutlineModel(QAbstractListModel):
    failed = Signal(str)
    """The sentence when the prompts could not be read (the history went away)."""

    def __init__(self, source: Source, tasks: TaskRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._source = source
        self._tasks = tasks
        self._entries: list[OutlineEntry] = []
        self._generation = 0
        self.complete = True
        """Every chunk has been read (False while the outline is still growing)."""

    def load(self, session_id: str | None, cursors: Sequence[MessageCursor], hidden: bool) -> None:
        """Read the prompts of `session_id` (whose messages are at `cursors`) afresh; what an
        earlier load still had queued is dropped."""
        self.beginResetModel()
        self._entries = []
        self._generation += 1
        self.endResetModel()
        self.complete = session_id is None or not cursors
        if not self.complete and session_id is not None:
            self._read(session_id, cursors, 0, hidden, self._generation)

    def _read(
        self,
        session_id: str,
        cursors: Sequence[MessageCursor],
        first: int,
        hidden: bool,
        generation: int,
    ) -> None:
        last = min(first + CHUNK, len(cursors)) - 1
        low, high = cursors[first], cursors[last]

        def work() -> list[OutlineEntry]:
            return outline_entries(
                self._source.messages_between(session_id, low, high), hidden=hidden
            )

        def done(entries: list[OutlineEntry]) -> None:
            if generation != self._generation:
                return
            if entries:
                start = len(self._entries)
                self.beginInsertRows(QModelIndex(), start, start + len(entries) - 1)
                self._entries.extend(entries)
                self.endInsertRows()
            if last + 1 < len(cursors):
                self._read(session_id, cursors, last + 1, hidden, generation)
            else:
                self.complete = True

        def failed(error: BaseException) -> None:
            if generation == self._generation:
                self.complete = True
                why = f" {error}" if isinstance(error, GanderError) else ""
                self.failed.emit(f"The prompts could not all be read.{why}")

        self._tasks.run(work, done, failed, wanted=lambda: generation == self._generation)

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._entries)

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._entries):
            return None
        entry = self._entries[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return entry.text
        if role == Qt.ItemDataRole.ToolTipRole:
            return entry.time_label
        if role == CURSOR_ROLE:
            return entry.cursor
        return None

    def cursor(self, row: int) -> MessageCursor | None:
        return self._entries[row].cursor if 0 <= row < len(self._entries) else None
