"""Renames and archives as the window asks for them and answers: a rename typed in the list or
asked from the header's title goes to the editor; what the history took is said in the status
bar beside an Undo button, what it refused in a warning that does not block the window."""

from collections.abc import Callable

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from desktop_app.domain.session import Session
from desktop_app.ui.models.session_tree import SessionTreeModel
from desktop_app.ui.models.transcript import TranscriptModel
from desktop_app.ui.roles import SessionRole
from desktop_app.ui.session_editing import SessionEditor
from desktop_app.ui.usage_loader import UsageLoader
from desktop_app.ui.widgets.session_header import SessionHeader
from desktop_app.ui.widgets.session_list import SessionListView
from desktop_app.ui.widgets.status_bar import StatusBar


class SessionWrites(QObject):
    def __init__(
        self,
        editor: SessionEditor,
        *,
        sessions: SessionTreeModel,
        session_list: SessionListView,
        transcript: TranscriptModel,
        header: SessionHeader,
        usage: UsageLoader,
        status: StatusBar,
        update_actions: Callable[[], None],
        window: QWidget,
    ) -> None:
        """`update_actions` enables the session actions anew after a change."""
        super().__init__(window)
        self._editor = editor
        self._sessions = sessions
        self._list = session_list
        self._transcript = transcript
        self._header = header
        self._usage = usage
        self._status = status
        self._window = window
        self.last_message: str | None = None
        """The last refusal shown (what the user read)."""
        sessions.rename_requested.connect(self._rename_requested)
        header.rename_requested.connect(self._rename_open_session)
        editor.changed.connect(sessions.refresh_sessions)
        editor.changed.connect(self._sessions_edited)
        editor.changed.connect(update_actions)
        editor.refused.connect(self.refused)
        editor.applied.connect(status.say_applied)

    def refused(self, message: str) -> None:
        """Nothing was changed (a write, an export, a save): window-modal but not blocking,
        so the event loop (and goose's updates) keep running."""
        box = QMessageBox(
            QMessageBox.Icon.Warning, "Nothing was changed", message, parent=self._window
        )
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        self.last_message = message

    def _rename_requested(self, session_id: str, name: str) -> None:
        index = self._sessions.find_session(session_id)
        session = index.data(SessionRole.SESSION) if index.isValid() else None
        if isinstance(session, Session):
            self._editor.rename(session, name)

    def _rename_open_session(self) -> None:
        """The header's title was clicked: rename the session in the list, in place."""
        session = self._header.session
        if session is None or not self._editor.can_rename(session):
            if session is not None:
                self._status.say(self._editor.access_for(session).reason or "")
            return
        index = self._sessions.find_session(session.id)
        if index.isValid():
            self._list.setCurrentIndex(index)
            self._list.edit(index)

    def _sessions_edited(self, session_ids: list[str]) -> None:
        """A rename or archive of the open session shows everywhere: the usage panel reloads
        it, and the status bar follows when it arrives."""
        current = self._transcript.session_id
        if current is not None and current in session_ids:
            self._usage.load_session(current)
        self._usage.load_overview()  # its top sessions by cost show names too
