"""The actions on sessions (rename, archive, unarchive, undo, redo), their shortcuts and when
they are enabled; shared by the menu bar, the toolbar and the list's context menu."""

import shiboken6
from PySide6.QtCore import QObject, QPoint, Qt
from PySide6.QtGui import QAction, QGuiApplication, QIcon, QKeySequence
from PySide6.QtWidgets import QMenu, QWidget

from desktop_app.domain.session import Session
from desktop_app.ui.resources import resource_path
from desktop_app.ui.roles import SessionRole
from desktop_app.ui.session_editing import SessionEditor
from desktop_app.ui.widgets.session_list import SessionListView


def _with_shortcut(text: str, action: QAction) -> str:
    keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
    return f"{text} ({keys})" if keys else text


class SessionActions(QObject):
    def __init__(self, view: SessionListView, editor: SessionEditor, parent: QWidget) -> None:
        super().__init__(parent)
        self._view = view
        self._editor = editor
        self.rename = QAction("&Rename…", parent)
        self.rename.setShortcut("F2")
        self.rename.triggered.connect(self._rename)
        self.archive = QAction("&Archive", parent)
        self.archive.setShortcut("Ctrl+E")
        self.archive.triggered.connect(lambda: self._set_archived(True))
        self.unarchive = QAction("U&narchive", parent)
        self.unarchive.setShortcut("Ctrl+Shift+E")
        self.unarchive.triggered.connect(lambda: self._set_archived(False))
        self.undo = editor.undo_stack.createUndoAction(parent, "&Undo")
        self.undo.setShortcut(QKeySequence.StandardKey.Undo)
        self.redo = editor.undo_stack.createRedoAction(parent, "&Redo")
        self.redo.setShortcut(QKeySequence.StandardKey.Redo)
        self.copy_id = QAction("Copy session &id", parent)
        self.copy_id.triggered.connect(self._copy_id)
        for action in (self.rename, self.archive, self.unarchive, self.copy_id):
            parent.addAction(action)
        for action, icon in (
            (self.archive, "archive.svg"),
            (self.unarchive, "unarchive.svg"),
            (self.undo, "undo.svg"),
            (self.redo, "redo.svg"),
        ):
            action.setIcon(QIcon(str(resource_path("icons", icon))))
        self._purpose = {
            self.rename: "Rename the session",
            self.archive: "Archive the selected sessions",
            self.unarchive: "Unarchive the selected sessions",
        }
        editor.undo_stack.undoTextChanged.connect(self._undo_tip)
        self._undo_tip(editor.undo_stack.undoText())
        view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        view.customContextMenuRequested.connect(self._context_menu)
        view.selectionModel().selectionChanged.connect(self.update_enabled)
        self.update_enabled()

    def _undo_tip(self, text: str) -> None:
        """The toolbar shows only the icon; what would be undone is in the tooltip. The text
        comes with the signal: the stack also says it changed while the window is being
        deleted, when asking it (or the action, deleted first) would raise."""
        if not shiboken6.isValid(self.undo):
            return
        self.undo.setToolTip(_with_shortcut(f"Undo {text}" if text else "Undo", self.undo))

    def selected(self) -> list[Session]:
        sessions = []
        for index in self._view.selectionModel().selectedIndexes():
            session = index.data(SessionRole.SESSION)
            if isinstance(session, Session):
                sessions.append(session)
        return sessions

    def update_enabled(self) -> None:
        """Enabled for the selected sessions whose history allows it; otherwise the tooltip
        says why not."""
        chosen = self.selected()
        allowed = [(s, self._editor.access_for(s)) for s in chosen]
        can_rename = len(chosen) == 1 and allowed[0][1].can_rename
        can_archive = any(a.can_archive and not s.archived for s, a in allowed)
        can_unarchive = any(a.can_archive and s.archived for s, a in allowed)
        reason = next((a.reason for _, a in allowed if a.reason), None) or ""
        for action, enabled in (
            (self.rename, can_rename),
            (self.archive, can_archive),
            (self.unarchive, can_unarchive),
        ):
            action.setEnabled(enabled)
            tip = _with_shortcut(self._purpose[action], action)
            action.setToolTip(tip if enabled or not chosen or not reason else f"{tip} — {reason}")
        self.copy_id.setEnabled(len(chosen) == 1)

    def _rename(self) -> None:
        index = self._view.currentIndex()
        if index.isValid() and isinstance(index.data(SessionRole.SESSION), Session):
            self._view.edit(index)

    def _set_archived(self, archived: bool) -> None:
        self._editor.set_archived(self.selected(), archived)

    def _copy_id(self) -> None:
        chosen = self.selected()
        if chosen:
            QGuiApplication.clipboard().setText(chosen[0].id)

    def _context_menu(self, position: QPoint) -> None:
        self.update_enabled()
        menu = QMenu(self._view)
        for action in (self.rename, self.archive, self.unarchive, None, self.copy_id):
            if action is None:
                menu.addSeparator()
            else:
                menu.addAction(action)
        menu.exec(self._view.viewport().mapToGlobal(position))
