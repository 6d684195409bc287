"""What an empty pane says: a sentence and the next useful action, drawn in the middle of the
view when it has nothing to show."""

from PySide6.QtCore import Qt
from PySide6.QtGui import QPainter, QPalette
from PySide6.QtWidgets import QAbstractItemView


def paint_placeholder(view: QAbstractItemView, text: str) -> None:
    """Called from a view's `paintEvent` after its own painting."""
    model = view.model()
    if not text or model is None or model.rowCount() > 0:
        return
    painter = QPainter(view.viewport())
    painter.setPen(view.palette().color(QPalette.ColorRole.PlaceholderText))
    area = view.viewport().rect().adjusted(16, 16, -16, -16)
    flags = Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap
    painter.drawText(area, int(flags), text)
    painter.end()
