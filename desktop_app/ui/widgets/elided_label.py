"""A one-line label that never widens what holds it: its text ends in an ellipsis at the width
it is given, whole in its tooltip. A `QLabel` asks for its whole text's width, and a long
session name or a list of histories in the status bar pushed the panes apart."""

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

MINIMUM_WIDTH = 40


class ElidedLabel(QLabel):
    def __init__(self, text: str = "", parent: QWidget | None = None, *, tip: str = "") -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.full_text = ""
        self.set_full_text(text, tip=tip)

    def set_full_text(self, text: str, *, tip: str = "") -> None:
        """`text` shown as far as it fits; the tooltip is `tip`, else the whole text."""
        self.full_text = text
        self.setToolTip(tip or text)
        self.updateGeometry()
        self._elide()

    def sizeHint(self) -> QSize:
        """The whole text's width (within the maximum width), to shrink from."""
        width = self.fontMetrics().horizontalAdvance(self.full_text) + 4
        return QSize(min(width, self.maximumWidth()), super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        return QSize(min(MINIMUM_WIDTH, self.sizeHint().width()), super().sizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        shown = self.fontMetrics().elidedText(
            self.full_text, Qt.TextElideMode.ElideRight, max(self.width(), 1)
        )
        if shown != self.text():
            super().setText(shown)
