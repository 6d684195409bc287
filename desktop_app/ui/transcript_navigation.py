"""The transcript by keyboard: which block has the keyboard (Tab, Shift+Tab), and the jumps to
the next or previous prompt (N, P).

Block moves use what is rendered and ask for the rest: a row not yet rendered counts as one
block until it is. A jump reads the session in chunks in the worker until it finds a prompt,
so it costs the distance travelled, never the session's length, and a newer jump (or another
session) abandons an older one.
"""

from PySide6.QtCore import Property, QObject, Signal, Slot

from desktop_app.domain.errors import sentence
from desktop_app.domain.message import Message
from desktop_app.domain.source import Source
from desktop_app.ui.models.transcript import TranscriptModel
from desktop_app.ui.tasks import TaskRunner

CHUNK = 200
"""Messages read per worker job while looking for the next prompt."""


class TranscriptNavigator(QObject):
    focus_changed = Signal()
    prompt_found = Signal(int)
    """The row of the prompt a jump arrived at (it also has the keyboard)."""
    no_prompt = Signal(bool)
    """A jump found no prompt in its direction (True: forward)."""

    def __init__(
        self,
        model: TranscriptModel,
        source: Source,
        tasks: TaskRunner,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._model = model
        self._source = source
        self._tasks = tasks
        self._row = -1
        self._block = -1
        self._jump = 0
        """Each jump's number: a chunk read for an older jump (or session) is dropped."""
        model.modelReset.connect(self._forget)

    def _get_row(self) -> int:
        return self._row

    def _get_block(self) -> int:
        return self._block

    focusRow = Property(int, _get_row, notify=focus_changed)
    focusBlock = Property(int, _get_block, notify=focus_changed)

    @property
    def focus(self) -> tuple[int, int] | None:
        return (self._row, self._block) if self._row >= 0 else None

    def set_focus(self, row: int, block: int) -> None:
        if (row, block) != (self._row, self._block):
            self._row, self._block = row, block
            self.focus_changed.emit()

    @Slot(int, int)
    def choose(self, row: int, block: int) -> None:
        """A click on a block gives it the keyboard."""
        self.set_focus(row, block)

    def _forget(self) -> None:
        self._jump += 1
        self.set_focus(-1, -1)

    def move(self, forward: bool, top_row: int) -> bool:
        """Tab / Shift+Tab: the next or previous block, skipping rows folded away; with no block
        chosen yet, the first block of the row at the top of the view. False past the first or
        last block, so the keyboard can leave the transcript."""
        rows = self._model.rowCount()
        if rows == 0:
            return False
        if self._row < 0 or self._row >= rows:
            row = min(max(top_row, 0), rows - 1)
            found = self._first_in(row, forward, step=1)
            if found is None:
                return False
            self.set_focus(*found)
            return True
        row, block = self._row, self._block
        count = self._count(row)
        if forward and block + 1 < count:
            self.set_focus(row, block + 1)
            return True
        if not forward and block > 0:
            self.set_focus(row, min(block, count) - 1)
            return True
        found = self._first_in(row + (1 if forward else -1), forward, step=1 if forward else -1)
        if found is None:
            return False
        self.set_focus(*found)
        return True

    def _count(self, row: int) -> int:
        count = self._model.block_count(row)
        return 1 if count is None else count

    def _first_in(self, row: int, forward: bool, *, step: int) -> tuple[int, int] | None:
        """The first block (going forward) or the last (going back) of the nearest row from
        `row` in the direction of `step` that shows any; each row is looked at once."""
        rows = self._model.rowCount()
        while 0 <= row < rows:
            count = self._count(row)
            if count > 0:
                return row, 0 if forward else count - 1
            row += step
        return None

    def jump_to_prompt(self, forward: bool, seen: tuple[int, int]) -> None:
        """N / P: the next or previous message a person wrote (shown ones only, unless the
        agent-only messages are shown), from the block that has the keyboard; without one,
        N looks below the top row on screen and P at the bottom row and above (`seen`: the top
        and bottom rows), so P at the end of a session finds its last prompt."""
        rows = self._model.rowCount()
        session_id = self._model.session_id
        if rows == 0 or session_id is None:
            return
        self._jump += 1
        if self._row >= 0:
            start = self._row
        else:
            top, bottom = (min(max(r, 0), rows - 1) for r in seen)
            start = top if forward else bottom + 1
        step = 1 if forward else -1
        row = start + step
        while 0 <= row < rows:  # what is already parsed answers at once
            message = self._model.message(row)
            if message is None:
                self._read_from(row, forward, session_id, self._jump)
                return
            if self._is_stop(message):
                self._arrive(row)
                return
            row += step
        self.no_prompt.emit(forward)

    def _is_stop(self, message: Message) -> bool:
        return message.is_prompt and (message.visibility.user or self._model.show_hidden)

    def _read_from(self, row: int, forward: bool, session_id: str, jump: int) -> None:
        cursors = self._model.cursors
        first, last = (
            (row, min(row + CHUNK, len(cursors)) - 1)
            if forward
            else (
                max(row - CHUNK + 1, 0),
                row,
            )
        )
        low, high = cursors[first], cursors[last]
        show_hidden = self._model.show_hidden

        def work() -> list[Message]:
            messages = self._source.messages_between(session_id, low, high)
            return [m for m in messages if m.is_prompt and (m.visibility.user or show_hidden)]

        def done(prompts: list[Message]) -> None:
            if jump != self._jump or self._model.session_id != session_id:
                return
            rows = [self._model.row_of(m.cursor) for m in prompts]
            rows = [r for r in rows if r >= 0]
            if rows:
                self._arrive(min(rows) if forward else max(rows))
            elif (forward and last + 1 < len(cursors)) or (not forward and first > 0):
                self._read_from(last + 1 if forward else first - 1, forward, session_id, jump)
            else:
                self.no_prompt.emit(forward)

        self._tasks.run(
            work,
            done,
            lambda error: self._model.failed.emit(sentence(error)),
            wanted=lambda: jump == self._jump,
        )

    def _arrive(self, row: int) -> None:
        self.set_focus(row, 0)
        self.prompt_found.emit(row)

    def show_row(self, row: int) -> None:
        """Go to `row` as N and P go to a prompt (View ▸ Prompts… picks one)."""
        if 0 <= row < self._model.rowCount():
            self._jump += 1
            self._arrive(row)
