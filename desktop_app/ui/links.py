"""Links followed from the transcript and the header: a sub-agent's session opens in the window
(Back returns to the card), a web link only after the user has seen it whole and said Yes."""

from collections.abc import Callable

from PySide6.QtCore import QObject, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMessageBox, QWidget

from desktop_app.domain.combined import origin_of
from desktop_app.domain.source import Source
from desktop_app.rendering.links import safe_link
from desktop_app.rendering.transcript_blocks import SESSION_SCHEME
from desktop_app.ui.history_navigation import HistoryNavigation
from desktop_app.ui.widgets.session_header import SessionHeader
from desktop_app.ui.widgets.transcript_view import TranscriptView


class LinkOpener(QObject):
    def __init__(
        self,
        source: Source,
        view: TranscriptView,
        header: SessionHeader,
        history: HistoryNavigation,
        *,
        open_session: Callable[[str], None],
        say: Callable[[str], None],
        window: QWidget,
    ) -> None:
        """Links clicked in `view`'s transcript and the `header`'s parent link; `say` puts a
        sentence in the status bar; the question is asked over `window`."""
        super().__init__(window)
        self._source = source
        self._transcript = view.model
        self._header = header
        self._history = history
        self._open_session = open_session
        self._say = say
        self._window = window
        self.prompt: QMessageBox | None = None
        """The last "Open link" question asked (None before any)."""
        view.actions_for_qml.link_clicked.connect(self.open_link)
        header.open_requested.connect(self.open_parent)

    def open_link(self, row: int, link: str) -> None:
        """Show the full target first; only an explicit Yes hands it to the system browser.
        Only http, https and mailto links are ever offered (the renderer makes no others); a
        link to another session of the same history (a sub-agent's) opens it here, and Back
        returns to the card at `row`."""
        scheme, _, native = link.partition(":")
        if scheme == SESSION_SCHEME and native and self._transcript.session_id is not None:
            _info, _native, tag = origin_of(self._source, self._transcript.session_id)
            target = f"{tag}:{native}" if tag else native
            self._history.follow_link(target, row)
            self._open_session(target)
            return
        if safe_link(link) is None:
            self._say(f"Gander does not open links like this one: {link[:200]}")
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Open link",
            f"Open this link in your browser?\n\n{link}",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self._window,
        )
        box.setDefaultButton(QMessageBox.StandardButton.No)
        box.finished.connect(lambda result: _link_answered(link, result))
        if self.prompt is not None:
            self.prompt.deleteLater()
        self.prompt = box
        box.open()

    def open_parent(self, native_parent: str) -> None:
        """The header's "Sub-agent of" link: the parent session opens, Back returns here."""
        session = self._header.session
        if session is not None and session.parent_session_id:
            self._history.follow_link(session.parent_session_id)
            self._open_session(session.parent_session_id)
        del native_parent


def _link_answered(link: str, result: int) -> None:
    if result == QMessageBox.StandardButton.Yes:
        QDesktopServices.openUrl(QUrl(link))
