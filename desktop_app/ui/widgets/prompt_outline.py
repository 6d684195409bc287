"""View ▸ Prompts…: a list of the open session's prompts with a filter box; Enter or a click
shows that prompt at the top of the transcript (claude-code-history-viewer's navigator)."""

from PySide6.QtCore import QModelIndex, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QDialog, QLabel, QLineEdit, QListView, QVBoxLayout, QWidget

from desktop_app.domain.message import MessageCursor
from desktop_app.ui.models.prompt_outline import CURSOR_ROLE, PromptOutlineModel


class PromptOutlineDialog(QDialog):
    chosen = Signal(object)
    """The `MessageCursor` of the prompt the user picked."""

    def __init__(self, model: PromptOutlineModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Prompts")
        self.resize(560, 420)
        self.filter = QLineEdit(self)
        self.filter.setPlaceholderText("Filter the prompts")
        self.filter.setClearButtonEnabled(True)
        self._proxy = QSortFilterProxyModel(self)
        self._proxy.setSourceModel(model)
        self._proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.filter.textChanged.connect(self._proxy.setFilterFixedString)
        self.list = QListView(self)
        self.list.setModel(self._proxy)
        self.list.setUniformItemSizes(True)
        self.list.activated.connect(self._choose)
        self.list.clicked.connect(self._choose)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.status.hide()
        model.failed.connect(self._say)
        layout = QVBoxLayout(self)
        layout.addWidget(self.filter)
        layout.addWidget(self.list)
        layout.addWidget(self.status)

    def open_outline(self) -> None:
        self.filter.clear()
        self.status.hide()
        self.show()
        self.activateWindow()
        self.filter.setFocus()
        if self._proxy.rowCount() > 0:
            self.list.setCurrentIndex(self._proxy.index(0, 0))

    def _say(self, sentence: str) -> None:
        self.status.setText(sentence)
        self.status.show()

    def _choose(self, index: QModelIndex) -> None:
        cursor = index.data(CURSOR_ROLE)
        if isinstance(cursor, MessageCursor):
            self.chosen.emit(cursor)
            self.accept()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Up, Down and Enter reach the list while the filter box has the keyboard."""
        key = event.key()
        if key in (Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_PageUp, Qt.Key.Key_PageDown):
            self.list.setFocus()
            self.list.keyPressEvent(event)
            self.filter.setFocus()
            return
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            current = self.list.currentIndex()
            if not current.isValid() and self._proxy.rowCount() > 0:
                current = self._proxy.index(0, 0)
            if current.isValid():
                self._choose(current)
            return
        super().keyPressEvent(event)
