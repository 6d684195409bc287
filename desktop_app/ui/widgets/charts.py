"""Two small painted charts (Qt Charts is not part of PySide6-Essentials, and these need little):
a sparkline of context growth and a bar chart of tokens per day."""

import math
from collections.abc import Sequence

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QHelpEvent, QPainter, QPaintEvent, QPalette, QPen, QPolygonF
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from desktop_app.rendering import formatting


def _finite(value: float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


class Sparkline(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._values: list[float] = []
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        return QSize(200, 48)

    def set_values(self, values: Sequence[float]) -> None:
        """Values that are not finite numbers (a damaged history's) are left out."""
        self._values = [float(v) for v in values if _finite(v)]
        self.setToolTip(
            f"{len(self._values)} calls; peak {max(self._values):,.0f} tokens"
            if self._values
            else ""
        )
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        del event
        if len(self._values) < 2:
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        area = QRectF(self.rect()).adjusted(2, 4, -2, -4)
        top = max(self._values) or 1.0
        step = area.width() / (len(self._values) - 1)
        points = QPolygonF(
            [
                QPointF(area.left() + i * step, area.bottom() - value / top * area.height())
                for i, value in enumerate(self._values)
            ]
        )
        painter.setPen(QPen(self.palette().color(QPalette.ColorRole.Highlight), 1.5))
        painter.drawPolyline(points)
        painter.end()


class DayBars(QWidget):
    """One bar per day; hovering a bar shows its day, tokens and cost."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._bars: list[tuple[str, float, str]] = []
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMouseTracking(True)

    def sizeHint(self) -> QSize:
        return QSize(200, 90 + 2 * self.fontMetrics().height())

    def set_bars(self, bars: Sequence[tuple[str, float, str]]) -> None:
        self._bars = [(day, float(value), tip) for day, value, tip in bars if _finite(value)]
        self.update()

    def _bar_rect(self, index: int) -> QRectF:
        area = self._plot_area()
        top = max((value for _, value, _ in self._bars), default=0.0) or 1.0
        width = area.width() / max(1, len(self._bars))
        height = self._bars[index][1] / top * area.height()
        return QRectF(
            area.left() + index * width + 1, area.bottom() - height, max(1.0, width - 2), height
        )

    empty_text = ""
    """Said in the chart's place when no bar has a value."""
    axis_labels: tuple[str, str] | None = None
    """The first and last day, written under the bars."""

    def paintEvent(self, event: QPaintEvent) -> None:
        del event
        painter = QPainter(self)
        if not any(value > 0 for _, value, _ in self._bars) and self.empty_text:
            painter.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
            flags = Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap
            painter.drawText(self.rect().adjusted(6, 0, -6, 0), int(flags), self.empty_text)
            painter.end()
            return
        colour = QColor(self.palette().color(QPalette.ColorRole.Highlight))
        for index in range(len(self._bars)):
            painter.fillRect(self._bar_rect(index), colour)
        axis = self._plot_area().bottom()
        painter.setPen(self.palette().color(QPalette.ColorRole.Mid))
        painter.drawLine(QPointF(0, axis), QPointF(self.width(), axis))
        painter.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
        top = max((value for _, value, _ in self._bars), default=0.0)
        painter.drawText(
            QRectF(self.rect()).adjusted(2, 0, -2, 0),
            int(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft),
            f"{formatting.tokens(int(top))} tokens",
        )
        if self.axis_labels is not None:
            below = QRectF(0, axis + 1, self.width(), self.height() - axis - 1)
            first, last = self.axis_labels
            painter.drawText(below, int(Qt.AlignmentFlag.AlignLeft), first)
            painter.drawText(below, int(Qt.AlignmentFlag.AlignRight), last)
        painter.end()

    def _plot_area(self) -> QRectF:
        """Room above for the scale and below for the dates."""
        line = self.fontMetrics().height()
        return QRectF(self.rect()).adjusted(2, line + 2, -2, -(line + 2))

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            for index, (_, _, tip) in enumerate(self._bars):
                rect = self._bar_rect(index)
                if rect.left() <= event.pos().x() <= rect.right():
                    QToolTip.showText(event.globalPos(), tip, self)
                    return True
            QToolTip.hideText()
            return True
        return super().event(event)
