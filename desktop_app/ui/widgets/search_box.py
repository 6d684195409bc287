"""The search field (debounced, so a query runs when typing pauses) and the indexing meter."""

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QLineEdit, QProgressBar, QWidget

DEBOUNCE_MS = 200


class SearchBox(QLineEdit):
    query_changed = Signal(str)
    """The text, once typing paused (or Enter was pressed)."""
    active_changed = Signal(bool)
    """True while there is a query (the list shows results instead of sessions)."""
    down_pressed = Signal()
    """Down: the keyboard moves on into the results (or the list)."""
    escaped = Signal()
    """Esc: the search is to be cleared and the list shown again."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setPlaceholderText("Search all sessions (Ctrl+K)")
        self.setClearButtonEnabled(True)
        self.setMinimumWidth(200)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(lambda: self.query_changed.emit(self.text()))
        self.textChanged.connect(self._edited)
        self.returnPressed.connect(self._submit)

    def _edited(self, text: str) -> None:
        self.active_changed.emit(bool(text.strip()))
        self._timer.start()

    def _submit(self) -> None:
        self._timer.stop()
        self.query_changed.emit(self.text())

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Down:
            self.down_pressed.emit()
        elif event.key() == Qt.Key.Key_Escape:
            self.escaped.emit()
        else:
            super().keyPressEvent(event)

    def focus_and_select(self) -> None:
        self.setFocus()
        self.selectAll()


class IndexMeter(QProgressBar):
    """Shown in the status bar only while the search index is being built or updated."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMaximumWidth(220)
        self.setTextVisible(True)
        self.setVisible(False)

    def progress(self, done: int, total: int) -> None:
        self.setVisible(True)
        self.setRange(0, max(total, 1))
        self.setValue(done)
        self.setFormat(f"Indexing {done:,} of {total:,}")

    def finished(self) -> None:
        self.setVisible(False)
