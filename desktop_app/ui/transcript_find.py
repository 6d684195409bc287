"""Find in the open transcript: hits found in the worker a step at a time, shown one at a time,
all highlighted."""

from collections.abc import Callable, Iterator

from PySide6.QtCore import QObject, Signal

from desktop_app.domain.errors import sentence
from desktop_app.domain.reading import find_steps
from desktop_app.domain.source import FindStep, Source
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
        self._search = 0
        """Bumped by each find: an earlier one's steps stop."""
        model.opened.connect(self._reopened)

    def _reopened(self, *_: object) -> None:
        """A new session keeps the find bar's words (a search hit sets its own highlight)."""
        if self._needle:
            self.find(self._needle)

    def find(self, needle: str) -> None:
        """The hits found a step at a time from the session's end (`find_steps`), one worker
        job each: the nearest to the end is shown as soon as its step is read, and the count
        grows as the earlier steps are."""
        self._needle = needle
        self._model.set_needle(needle)
        self._rows, self._current = [], -1
        self._search += 1
        session_id = self._model.session_id
        if not needle.strip() or session_id is None:
            self.status.emit("")
            return
        self.status.emit("searching…")
        source, search = self._source, self._search
        steps: list[Iterator[FindStep]] = []

        def step() -> FindStep:
            if not steps:
                steps.append(find_steps(source, session_id, needle))
            return next(steps[0], FindStep((), last=True))

        self._next_step(search, step)

    def _next_step(self, search: int, step: Callable[[], FindStep]) -> None:
        self._tasks.run(
            step,
            lambda found: self._found(search, step, found),
            lambda error: self.status.emit(sentence(error)),
            wanted=lambda: search == self._search,
        )

    def _found(self, search: int, step: Callable[[], FindStep], found: FindStep) -> None:
        if search != self._search:
            return  # another find, or another session, since
        shown = [h for h in found.hits if h.user_visible or self._model.show_hidden]
        earlier = [row for h in shown if (row := self._model.row_of(h.cursor)) >= 0]
        self._rows = earlier + self._rows  # each step is before the last
        searching = not found.last
        if self._current >= 0:
            self._current += len(earlier)  # the same hit
            self._tell(searching=searching)
        elif self._rows:
            self._current = len(self._rows) - 1  # the nearest to the end, where it opened
            self._go(searching=searching)
        elif not searching:
            self.status.emit("no matches")
        if searching:
            self._next_step(search, step)

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

    def _go(self, *, searching: bool = False) -> None:
        self._tell(searching=searching)
        self.show_row.emit(self._rows[self._current])

    def _tell(self, *, searching: bool = False) -> None:
        count = len(self._rows)
        more = " · searching…" if searching else ""
        self.status.emit(f"{self._current + 1} of {count} message{'s' if count != 1 else ''}{more}")
