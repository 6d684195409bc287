"""Rename, archive and unarchive from the window, undoable.

Each change is written in the worker first; only when the database took it is a command pushed on
the `QUndoStack`, so the stack never holds a change that did not happen. Undo and redo write the
inverse or the same change the same way (goose's own statements, through the source). A refused or
failed write changes nothing and is reported with its one sentence.
"""

from collections.abc import Callable, Sequence

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from desktop_app.domain.errors import sentence
from desktop_app.domain.session import Session
from desktop_app.domain.source import SeveralHistories, Source, Writable, WriteAccess
from desktop_app.ui.tasks import TaskRunner

Write = Callable[[], None]


class _WrittenCommand(QUndoCommand):
    """A change already applied when pushed: the first `redo()` (Qt calls it on push) is a no-op."""

    def __init__(self, text: str, editor: "SessionEditor", do: Write, undo: Write, ids: list[str]):
        super().__init__(text)
        self._editor = editor
        self._do = do
        self._undo = undo
        self._ids = ids
        self._applied = True

    def redo(self) -> None:
        if self._applied:
            self._applied = False
            return
        text = self.text()
        self._editor.write(
            self._do, self._ids, lambda: self._editor.applied.emit(f"Redid: {text}.")
        )

    def undo(self) -> None:
        text = self.text()
        self._editor.write(
            self._undo, self._ids, lambda: self._editor.applied.emit(f"Undid: {text}.")
        )


class SessionEditor(QObject):
    changed = Signal(list)
    """The ids of sessions whose rows must be re-read."""
    refused = Signal(str)
    applied = Signal(str)
    """What a change did, in a sentence, once the history took it (and when it was undone or
    redone): the status bar says it, beside an Undo button."""

    def __init__(self, source: Source, tasks: TaskRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._writer = source if isinstance(source, Writable) else None
        self._tasks = tasks
        self.undo_stack = QUndoStack(self)
        access = self._writer.write_access() if self._writer is not None else _read_only(source)
        self.access = access
        """The best any open history allows (what the status bar says)."""
        self._by_history: dict[str | None, WriteAccess] = {None: access}
        if isinstance(source, SeveralHistories):
            for tag, reader in source.readers():
                self._by_history[tag] = (
                    reader.write_access() if isinstance(reader, Writable) else _read_only(reader)
                )

    def access_for(self, session: Session) -> WriteAccess:
        """What may be done to this session: it depends on the history it is from."""
        return self._by_history.get(session.history, self.access)

    def can_rename(self, session: Session) -> bool:
        return self.access_for(session).can_rename

    def write(self, change: Write, ids: list[str], then: Callable[[], None] | None = None) -> None:
        def done(_: object) -> None:
            self.changed.emit(ids)
            if then is not None:
                then()

        def failed(error: BaseException) -> None:
            self.refused.emit(sentence(error))
            self.changed.emit(ids)

        self._tasks.run(change, done, failed)

    def rename(self, session: Session, name: str) -> None:
        new = name.strip()
        old, old_user_set = session.name, session.user_set_name
        source, sid = self._writer, session.id
        if not new or new == old or source is None or not self.can_rename(session):
            return
        command = _WrittenCommand(
            f"Rename “{old}” to “{new}”",
            self,
            lambda: source.rename(sid, new),
            # Exactly what was there: a name goose gave stays goose's to change.
            lambda: source.rename(sid, old, user_set=old_user_set),
            [sid],
        )
        self.write(lambda: source.rename(sid, new), [sid], lambda: self._done(command, "Renamed"))

    def set_archived(self, sessions: Sequence[Session], archived: bool) -> None:
        targets = [s for s in sessions if s.archived != archived and self.access_for(s).can_archive]
        if not targets:
            return
        ids = [s.id for s in targets]
        source = self._writer
        if source is None:
            return

        def apply(flag: bool) -> Write:
            def run() -> None:
                for session_id in ids:
                    if flag:
                        source.archive(session_id)
                    else:
                        source.unarchive(session_id)

            return run

        verb = "Archive" if archived else "Unarchive"
        label = f"“{targets[0].name}”" if len(targets) == 1 else f"{len(targets)} sessions"
        command = _WrittenCommand(
            f"{verb} {label}", self, apply(archived), apply(not archived), ids
        )
        self.write(
            apply(archived),
            ids,
            lambda: self._done(command, "Archived" if archived else "Unarchived"),
        )

    def _done(self, command: _WrittenCommand, verb: str) -> None:
        self.undo_stack.push(command)
        _, _, what = command.text().partition(" ")
        self.applied.emit(f"{verb} {what}.")


def _read_only(source: Source) -> WriteAccess:
    return WriteAccess(
        can_rename=False,
        can_archive=False,
        reason=f"{source.info().kind} histories are read-only in Gander.",
    )
