"""The window's status bar: which histories are open, the open session and its figures, how
many sessions are listed, the search index's progress, whether the history can be written,
and the Undo button beside what a rename or an archive just did."""

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel, QStatusBar, QToolButton, QWidget

from desktop_app.domain.session import Session
from desktop_app.domain.source import Source, WriteAccess
from desktop_app.ui.history_names import histories_tip, histories_title, open_readers
from desktop_app.ui.reading_meter import ReadingMeter
from desktop_app.ui.widgets.elided_label import ElidedLabel
from desktop_app.ui.widgets.search_box import IndexMeter
from desktop_app.ui.widgets.session_header import message_figures

SAID_MS = 15_000
"""How long a sentence stays: what failed, or what an export or a save wrote."""
UNDO_SHOWN_MS = 15_000
"""How long the status bar says what a rename or an archive did, beside its Undo button."""
STATUS_NAME_CHARS = 60
"""A session's name in the status bar is cut to this many characters (whole in its tooltip)."""
SESSION_MAX_WIDTH = 420


class StatusBar(QStatusBar):
    def __init__(
        self,
        source: Source,
        note: str | None,
        access: WriteAccess,
        undo: QAction,
        parent: QWidget,
    ) -> None:
        """Labels that end in an ellipsis rather than widen the window: the histories (`note`,
        else where they are; each path whole in the tooltip) and the open session. `access` is
        the best the open histories allow; `undo` the action the Undo button triggers. Each
        widget is made in `parent` and moved here as it is added, in the order added (the
        order of their children, so of the keyboard's focus)."""
        super().__init__(parent)
        self.index_meter = IndexMeter(parent)
        text = note or histories_title(source)
        self.source_label = ElidedLabel(text, parent, tip=histories_tip(source))
        self.session_label = ElidedLabel("", parent)
        self.session_label.setMaximumWidth(SESSION_MAX_WIDTH)
        self.count_label = QLabel("Loading sessions…")
        self.reading_label = QLabel("")
        self.reading_label.hide()
        self.reading = ReadingMeter(open_readers(source), self)
        self.reading.changed.connect(self._show_reading)
        self.write_label = QLabel("" if access.can_rename or access.can_archive else "read-only")
        if access.reason:
            self.write_label.setToolTip(access.reason)
        self.undo_button = QToolButton(parent)
        self.undo_button.setDefaultAction(undo)
        self.undo_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.undo_button.hide()
        self._undo_hide = QTimer(self)
        self._undo_hide.setSingleShot(True)
        self._undo_hide.setInterval(UNDO_SHOWN_MS)
        self._undo_hide.timeout.connect(self.undo_button.hide)
        self.addPermanentWidget(self.undo_button)
        self.addWidget(self.source_label, 1)
        self.addPermanentWidget(self.index_meter)
        self.addPermanentWidget(self.session_label)
        self.addPermanentWidget(self.reading_label)
        self.addPermanentWidget(self.count_label)
        self.addPermanentWidget(self.write_label)

    def show_count(self, text: str) -> None:
        """How many sessions are listed; the first count means the list's first page came, so
        a reading of files behind the listing (if any) has started and is counted from now."""
        self.count_label.setText(text)
        self.reading.start()

    def _show_reading(self, sentence: str) -> None:
        self.reading_label.setText(sentence)
        self.reading_label.setVisible(bool(sentence))

    def say(self, message: str) -> None:
        """A sentence for 15 s: what failed, or what an export or a save wrote."""
        self.showMessage(message, SAID_MS)

    def say_applied(self, sentence: str) -> None:
        """ "Renamed “a” to “b”." with an Undo button beside it while it shows."""
        self.showMessage(sentence, UNDO_SHOWN_MS)
        self.undo_button.show()
        self._undo_hide.start()

    def show_session(self, session: Session, count: int) -> None:
        """The open session, a long name shortened (whole in the tooltip), and its figures:
        `count` is how many messages the transcript holds."""
        name = " ".join((session.name or session.id).split())
        short = name if len(name) <= STATUS_NAME_CHARS else name[: STATUS_NAME_CHARS - 1] + "…"
        # An isolate keeps a right-to-left name from reordering the text after it.
        self.session_label.set_full_text(
            f"\u2068{short}\u2069 · {message_figures(session.message_count, count)}", tip=name
        )
