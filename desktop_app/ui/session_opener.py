"""Opening a session, wherever it is asked for — `--session`, the last one viewed, the list's
selection, a search hit, a link — and what follows once its transcript opens or fails: the
list selects it, the header and the status bar show it, a hit's message is shown.

One controller with the models and widgets it drives injected, so it is tested without a
window (tests/gui/test_session_opener.py); the window only wires its signals."""

from collections.abc import Callable
from dataclasses import replace

from PySide6.QtCore import QItemSelection, QModelIndex, QObject, Signal
from PySide6.QtGui import QAction

from desktop_app.domain.combined import origin_of
from desktop_app.domain.search import SearchHit
from desktop_app.domain.session import Session
from desktop_app.domain.source import Resumable, SessionFiles, Source
from desktop_app.ui.models.session_tree import SessionTreeModel
from desktop_app.ui.models.transcript import TranscriptModel
from desktop_app.ui.roles import SessionRole
from desktop_app.ui.settings import Settings
from desktop_app.ui.usage_loader import UsageLoader
from desktop_app.ui.widgets.session_header import SessionHeader
from desktop_app.ui.widgets.session_list import SessionListView
from desktop_app.ui.widgets.status_bar import SAID_MS

HINT_MS = 10_000
AGENT_ONLY_HINT = (
    "Showing agent-only messages: the hit is in one (View ▸ Show agent-only messages)."
)


class SessionOpener(QObject):
    initial_session_missing = Signal(str)
    """`--session ID` named a session the history does not have (the sentence to show)."""
    said = Signal(str, int)
    """A sentence for the status bar, and how many milliseconds it stays."""
    shown = Signal(object, int)
    """The open session (its figures as best known) and how many messages the transcript
    holds: for the status bar."""
    opened = Signal(str)
    """A session's transcript opened (its id), after the list selected it."""

    def __init__(
        self,
        source: Source,
        settings: Settings,
        *,
        sessions: SessionTreeModel,
        transcript: TranscriptModel,
        session_list: SessionListView,
        header: SessionHeader,
        usage: UsageLoader,
        show_hidden: QAction,
        show_row: Callable[[int], None],
        parent: QObject | None = None,
    ) -> None:
        """`show_hidden` is View ▸ Show agent-only messages (ticked when a hit is in such a
        message); `show_row` brings a transcript row into view."""
        super().__init__(parent)
        self._source = source
        self._settings = settings
        self._sessions = sessions
        self._transcript = transcript
        self._list = session_list
        self._header = header
        self._usage = usage
        self._show_hidden = show_hidden
        self._show_row = show_row
        self._initial_pending = False
        self._initial_asked: str | None = None
        self._pending_hit: SearchHit | None = None
        self._scroll_before_reset = 0
        transcript.opened.connect(self._transcript_opened)
        transcript.failed.connect(self._transcript_failed)
        sessions.rowsInserted.connect(self._rows_inserted)
        sessions.modelAboutToBeReset.connect(self._remember_scroll)
        sessions.modelReset.connect(self._restore_scroll)
        session_list.selectionModel().selectionChanged.connect(self._selection_changed)
        usage.session_loaded.connect(self._session_figures)

    def open_initial(self, session_id: str | None) -> None:
        """Open `session_id`, else the last session viewed, else the newest one once listed.
        `session_id` was looked up before the window was built (`app.build_window`); one gone
        by the time it opens is said (status bar and signal) before the newest session is
        opened instead; a remembered one that is gone is silently skipped."""
        self._initial_asked = session_id
        wanted = session_id or self._settings.last_session_id
        if wanted:
            self._initial_pending = True
            self._transcript.open_session(wanted)

    def open_session(self, session_id: str) -> None:
        if session_id != self._transcript.session_id:
            self._transcript.open_session(session_id)

    def open_hit(self, hit: object) -> None:
        """Open a search hit's session at the message (a session's id: the session)."""
        if isinstance(hit, str):
            self.open_session(hit)
            return
        if not isinstance(hit, SearchHit):
            return
        self._pending_hit = hit
        if hit.session_id == self._transcript.session_id:
            self._show_pending_hit()
        else:
            self._transcript.open_session(hit.session_id, around=hit.cursor)

    def source_changed(self) -> None:
        """The history changed: the list, the transcript and the open session's figures are
        read again."""
        self._sessions.refresh_all()
        self._transcript.refresh()
        if self._transcript.session_id is not None:
            self._usage.load_session(self._transcript.session_id)

    def _show_pending_hit(self) -> None:
        hit, self._pending_hit = self._pending_hit, None
        if hit is None or hit.session_id != self._transcript.session_id:
            return
        row = self._transcript.row_of(hit.cursor) if hit.cursor is not None else -1
        if row < 0:
            return
        if hit.agent_only and not self._show_hidden.isChecked():
            self._show_hidden.setChecked(True)
            self.said.emit(AGENT_ONLY_HINT, HINT_MS)
        self._show_row(row)

    def _remember_scroll(self) -> None:
        self._scroll_before_reset = self._list.verticalScrollBar().value()

    def _restore_scroll(self) -> None:
        self._sync_selection()
        self._list.verticalScrollBar().setValue(self._scroll_before_reset)

    def _rows_inserted(self, parent: QModelIndex, _first: int, _last: int) -> None:
        if not parent.isValid():
            self._sync_selection()

    def _sync_selection(self) -> None:
        """Select the open session in the list, or open the newest when nothing is open."""
        if self._initial_pending:
            return
        current = self._transcript.session_id
        if current is None:
            newest = self._sessions.first_session()
            if newest.isValid():
                self._list.setCurrentIndex(newest)
            return
        index = self._sessions.find_session(current)
        # Selected is enough: the keyboard may be elsewhere (End following the pages moves it
        # to each page's last row, and moving it back at each page cost 0.4 s a page).
        if index.isValid() and not self._list.selectionModel().isSelected(index):
            self._list.setCurrentIndex(index)

    def _selection_changed(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        indexes = selected.indexes()
        if not indexes:
            return
        session = indexes[0].data(SessionRole.SESSION)
        if isinstance(session, Session) and session.id != self._transcript.session_id:
            self._initial_pending = False
            self._transcript.open_session(session.id)

    def _transcript_opened(self, session: Session, count: int) -> None:
        self._initial_pending = False
        if self._pending_hit is not None:
            self._show_pending_hit()
        self._settings.last_session_id = session.id
        self._show(self._with_listed_count(session), count)
        self._sync_selection()
        self.opened.emit(session.id)

    def _with_listed_count(self, session: Session) -> Session:
        """A transcript opens without counting its messages (a goose session's count reads
        every message's metadata); the list row has counted them, and the header shows that
        same figure until the usage loader's own count arrives."""
        if session.message_count is not None:
            return session
        listed = self._sessions.find_session(session.id).data(SessionRole.SESSION)
        if isinstance(listed, Session) and listed.message_count is not None:
            return replace(session, message_count=listed.message_count)
        return session

    def _session_figures(self, session: Session, *_: object) -> None:
        if session.id == self._transcript.session_id:
            self._show(session)

    def _show(self, session: Session, count: int | None = None) -> None:
        """The header and the status bar show `session`; resuming it and its own file are
        offered when its reader has those capabilities."""
        if count is None:
            count = self._transcript.rowCount()
        self.shown.emit(session, count)
        _info, native, _tag = origin_of(self._source, session.id)
        source = self._source
        self._header.show_session(
            session,
            count,
            native_id=native,
            resume=source.resume(session) if isinstance(source, Resumable) else None,
            file=source.session_file(session.id) if isinstance(source, SessionFiles) else None,
        )

    def _transcript_failed(self, message: str) -> None:
        if self._initial_pending:
            self._initial_pending = False
            if self._initial_asked is not None:
                self.said.emit(message, SAID_MS)
                self.initial_session_missing.emit(message)
            self._transcript.open_session(None)
            self._sync_selection()
            return
        self.said.emit(message, SAID_MS)
