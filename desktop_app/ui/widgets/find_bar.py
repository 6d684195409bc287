"""The find-in-transcript bar: a field, the hit count, previous and next."""

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget

DEBOUNCE_MS = 250


class FindBar(QWidget):
    find_requested = Signal(str)
    next_requested = Signal()
    previous_requested = Signal()
    closed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        self.field = QLineEdit()
        self.field.setPlaceholderText("Find in this session")
        self.field.setClearButtonEnabled(True)
        self.status = QLabel("")
        previous = QToolButton()
        previous.setText("▲")
        previous.setToolTip("Previous match (Shift+Enter, Shift+F3)")
        following = QToolButton()
        following.setText("▼")
        following.setToolTip("Next match (Enter, F3)")
        close = QToolButton()
        close.setText("✕")
        close.setToolTip("Close (Esc)")
        for widget in (self.field, self.status, previous, following, close):
            layout.addWidget(widget)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(lambda: self.find_requested.emit(self.field.text()))
        self.field.textChanged.connect(lambda _text: self._debounce.start())
        self.field.returnPressed.connect(self._enter)
        previous.clicked.connect(self.previous_requested)
        following.clicked.connect(self.next_requested)
        close.clicked.connect(self.close_bar)

    def open_bar(self) -> None:
        self.show()
        self.field.setFocus()
        self.field.selectAll()

    def close_bar(self) -> None:
        self.hide()
        self.closed.emit()

    def _enter(self) -> None:
        if self._debounce.isActive():
            self._debounce.stop()
            self.find_requested.emit(self.field.text())
        else:
            self.next_requested.emit()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.close_bar()
        elif event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and (
            event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        ):
            self.previous_requested.emit()
        else:
            super().keyPressEvent(event)
