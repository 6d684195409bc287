"""The usage panel's charts without pyqtgraph: a painted sparkline of context growth, and what
the day chart (`day_chart.py`, drawn with pyqtgraph) shares with the panel — its colours,
periods, date ticks and legend — so the panel imports pyqtgraph only when the chart is built
(`ui/chart_import.py`)."""

import html
import math
from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta

from PySide6.QtCore import QPointF, QRectF, QSize
from PySide6.QtGui import QPainter, QPaintEvent, QPalette, QPen, QPolygonF
from PySide6.QtWidgets import QSizePolicy, QWidget

DAY_SECONDS = 86_400
COLOURS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2", "#edc948", "#9c755f")
"""Tableau 10's first eight: told apart in light and dark, and by most colour-blind eyes."""
OTHERS = "others"
MOST_SERIES = len(COLOURS) - 1
"""Series drawn each in its colour; the rest go together under `OTHERS`."""


def finite(value: float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


SPARK_POINTS = 400
"""Points of the context-growth line at most: more than the pixels of a usage panel."""


def peaks(values: Sequence[float], most: int) -> list[float]:
    """`values` as at most `most` of them: each the largest of a run of consecutive ones, so
    every peak stays and the line keeps its shape."""
    if len(values) <= most:
        return list(values)
    step = len(values) / most
    return [max(values[round(n * step) : round((n + 1) * step)]) for n in range(most)]


class Sparkline(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._values: list[float] = []
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        return QSize(200, 48)

    def minimumSizeHint(self) -> QSize:
        """Narrower than its hint in a narrow panel (else the panel scrolled sideways)."""
        return QSize(60, 48)

    def set_values(self, values: Sequence[float]) -> None:
        """Values that are not finite numbers (a damaged history's) are left out. More than
        `SPARK_POINTS` are drawn as the peak of each of that many runs of them: a line of
        25,000 points (a long session's calls) took 6–12 ms to draw at every update."""
        kept = [float(v) for v in values if finite(v)]
        self._values = peaks(kept, SPARK_POINTS)
        self.setToolTip(f"{len(kept)} calls; peak {max(kept):,.0f} tokens" if kept else "")
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


def legend_html(series: Sequence[str]) -> str:
    """The series' names, each after a square of its colour (a label under the chart: the
    plot's own legend covered the bars of a narrow panel)."""
    return " ".join(
        f'<span style="color:{COLOURS[i % len(COLOURS)]}">■</span>&nbsp;'
        + html.escape(name).replace(" ", "&nbsp;")
        for i, name in enumerate(series)
    )


def epoch(day: date) -> float:
    return datetime.combine(day, time(12), UTC).timestamp()


TICK_ROOM = 80
"""Pixels a date under the bars takes, with room to spare ("02 Nov", "Mar 2026")."""


def period_start(day: date, period: int) -> date:
    """The first day of the bar `day` falls in: the day itself, or the Monday of its week."""
    return day - timedelta(days=(day.toordinal() - 1) % period)


def day_ticks(first: date, last: date, room: int) -> list[tuple[float, str]]:
    """As many dates as `room` pixels hold, each in the middle of its share of the range
    ("02 Nov"; the month and year over a long range): a date axis of its own, as pyqtgraph's
    wrote no date at all in a 250-px-wide panel, and one at either end is not drawn."""
    span = max(0, (last - first).days) + 1
    count = max(1, min(span, room // TICK_ROOM))
    shape = "%b %Y" if span > 180 else "%d %b"
    days = dict.fromkeys(
        first + timedelta(days=int(span * (i + 0.5) / count)) for i in range(count)
    )
    return [(epoch(day), day.strftime(shape)) for day in days]
