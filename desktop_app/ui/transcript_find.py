"""Find in the open transcript: hits found in the worker, shown one at a time, all highlighted."""

from collections.abc import Sequence

from PySide6.QtCore import QObject, Signal

from desktop_app.domain.errors import sentence
from desktop_app.domain.reading import find_in_session
from desktop_app.domain.source import FindHit, Source
from desktop_app.ui.models.transcript import TranscriptModel
from desktop_app.ui.tasks import TaskRunner


class TranscriptFinder(QObject):
    status = Signal(str)
    show_row = Signal(int)

    def __init__(
        self,
        source: Source,
        tasks: TaskRunner,
        model: TranscriptModel,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._source = source
        self._tasks = tasks
        self._model = model
        self._rows: list[int] = []
        self._current = -1
        self._needle = ""
        model.opened.connect(self._reopened)

    def _reopened(self, *_: object) -> None:
        """A new session keeps the find bar's words (a search hit sets its own highlight)."""
        if self._needle:
            self.find(self._needle)

    def find(self, needle: str) -> None:
        self._needle = needle
        self._model.set_needle(needle)
        self._rows, self._current = [], -1
        session_id = self._model.session_id
        if not needle.strip() or session_id is None:
            self.status.emit("")
            return
        self.status.emit("searching…")
        self._tasks.run(
            lambda: find_in_session(self._source, session_id, needle),
            lambda hits: self._found(session_id, needle, hits),
            lambda error: self.status.emit(sentence(error)),
            wanted=lambda: (needle, session_id) == (self._needle, self._model.session_id),
        )

    def _found(self, session_id: str, needle: str, hits: Sequence[FindHit]) -> None:
        if (needle, session_id) != (self._needle, self._model.session_id):
            return
        shown = [h for h in hits if h.user_visible or self._model.show_hidden]
        self._rows = [row for h in shown if (row := self._model.row_of(h.cursor)) >= 0]
        if not self._rows:
            self.status.emit("no matches")
            return
        self._current = len(self._rows) - 1
        self._go()

    def next(self) -> None:
        if self._rows:
            self._current = (self._current + 1) % len(self._rows)
            self._go()

    def previous(self) -> None:
        if self._rows:
            self._current = (self._current - 1) % len(self._rows)
            self._go()

    def clear(self) -> None:
        self.find("")

    def _go(self) -> None:
        count = len(self._rows)
        self.status.emit(f"{self._current + 1} of {count} message{'s' if count != 1 else ''}")
        self.show_row.emit(self._rows[self._current])
