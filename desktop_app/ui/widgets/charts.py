"""The usage panel's charts: a painted sparkline of context growth, and tokens or cost per day
drawn with pyqtgraph (dated axis, units, stacked bars by agent or model, values on hover).

pyqtgraph is a maintained plotting library for Qt that works with PySide6 and offscreen; Qt's
own charts module is not part of PySide6-Essentials.
"""

import html
import math
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, date, datetime, time, timedelta

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, QRectF, QSize
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette, QPen, QPolygonF, QResizeEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

DAY_SECONDS = 86_400
COLOURS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2", "#edc948", "#9c755f")
"""Tableau 10's first eight: told apart in light and dark, and by most colour-blind eyes."""
OTHERS = "others"
MOST_SERIES = len(COLOURS) - 1
"""Series drawn each in its colour; the rest go together under `OTHERS`."""


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

    def minimumSizeHint(self) -> QSize:
        """Narrower than its hint in a narrow panel (else the panel scrolled sideways)."""
        return QSize(60, 48)

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


class _ValueAxis(pg.AxisItem):  # type: ignore[misc]  # pyqtgraph has no type hints
    """The left axis in the chart's unit: "12k", "$0.40", never "30000" or "1e6"."""

    format_value: Callable[[float], str] = staticmethod(lambda v: f"{v:,.0f}")

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        del spacing
        return [self.format_value(v * scale) for v in values]


def legend_html(series: Sequence[str]) -> str:
    """The series' names, each after a square of its colour (a label under the chart: the
    plot's own legend covered the bars of a narrow panel)."""
    return " ".join(
        f'<span style="color:{COLOURS[i % len(COLOURS)]}">■</span>&nbsp;'
        + html.escape(name).replace(" ", "&nbsp;")
        for i, name in enumerate(series)
    )


def _epoch(day: date) -> float:
    return datetime.combine(day, time(12), UTC).timestamp()


TICK_ROOM = 80
"""Pixels a date under the bars takes, with room to spare ("02 Nov", "Mar 2026")."""


def period_start(day: date, period: int) -> date:
    """The first day of the bar `day` falls in: the day itself, or the Monday of its week."""
    return day - timedelta(days=(day.toordinal() - 1) % period)


def _day_ticks(first: date, last: date, room: int) -> list[tuple[float, str]]:
    """As many dates as `room` pixels hold, each in the middle of its share of the range
    ("02 Nov"; the month and year over a long range): a date axis of its own, as pyqtgraph's
    wrote no date at all in a 250-px-wide panel, and one at either end is not drawn."""
    span = max(0, (last - first).days) + 1
    count = max(1, min(span, room // TICK_ROOM))
    shape = "%b %Y" if span > 180 else "%d %b"
    days = dict.fromkeys(
        first + timedelta(days=int(span * (i + 0.5) / count)) for i in range(count)
    )
    return [(_epoch(day), day.strftime(shape)) for day in days]


class DayChart(pg.PlotWidget):  # type: ignore[misc]  # pyqtgraph has no type hints
    """Stacked bars, one a day: `set_days({day: {series: value}})`. Hovering a day shows its
    date and each series' value in the chart's unit (`tip_at` gives that text)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        values = _ValueAxis("left")
        super().__init__(parent, axisItems={"bottom": pg.AxisItem("bottom"), "left": values})
        self._values = values
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMenuEnabled(False)
        self.setMouseEnabled(x=False, y=False)
        self.hideButtons()
        self.getPlotItem().showGrid(y=True, alpha=0.25)
        self._days: dict[date, dict[str, float]] = {}
        self._span = (date.today(), date.today())
        self._period = 1
        self._format: Callable[[float], str] = str
        self.series: list[str] = []
        """The series drawn, in stacking order (bottom first)."""
        self.scene().sigMouseMoved.connect(self._hovered)
        self.restyle()

    def sizeHint(self) -> QSize:
        return QSize(240, 200)

    def restyle(self) -> None:
        """The palette's colours for the background, axes and text (light or dark)."""
        palette = self.palette()
        self.setBackground(palette.color(QPalette.ColorRole.Base))
        text = palette.color(QPalette.ColorRole.Text)
        for name in ("left", "bottom"):
            axis = self.getPlotItem().getAxis(name)
            axis.setPen(pg.mkPen(palette.color(QPalette.ColorRole.Mid)))
            axis.setTextPen(pg.mkPen(text))

    def changeEvent(self, event: QEvent) -> None:
        """A theme switched while running restyles the chart at once."""
        changed = (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange)
        if event.type() in changed and hasattr(self, "series"):
            self.restyle()  # not while pyqtgraph builds the view (no plot yet)
        super().changeEvent(event)

    def set_days(
        self,
        days: Mapping[date, Mapping[str, float]],
        first: date,
        last: date,
        *,
        unit: str,
        tick: Callable[[float], str],
        tip: Callable[[float], str],
        period: int = 1,
    ) -> None:
        """`unit` names the left axis ("tokens", "cost (USD)"), `tick` writes its values
        ("12k"), `tip` a value on hover ("12k tokens"). `period`: days a bar stands for (7: a
        week, its key the Monday, `period_start`), so a year's bars are not hairlines."""
        plot = self.getPlotItem()
        plot.clear()
        self._span = (first, last)
        self._period = period
        self._format = tip
        self._values.format_value = tick
        totals: dict[str, float] = {}
        for values in days.values():
            for name, value in values.items():
                if _finite(value):
                    totals[name] = totals.get(name, 0.0) + value
        ranked = sorted(totals, key=lambda n: (-totals[n], n))
        kept = ranked[:MOST_SERIES] if len(ranked) > MOST_SERIES + 1 else ranked
        self._days = {}
        for day, values in days.items():
            merged: dict[str, float] = {}
            for name, value in values.items():
                if _finite(value):
                    key = name if name in kept else OTHERS
                    merged[key] = merged.get(key, 0.0) + value
            self._days[day] = merged
        self.series = kept + ([OTHERS] if len(kept) < len(ranked) else [])
        ordered = sorted(self._days)
        middle = (period - 1) * DAY_SECONDS / 2
        xs = [_epoch(d) + middle for d in ordered]
        base = [0.0] * len(ordered)
        for index, name in enumerate(self.series):
            heights = [self._days[d].get(name, 0.0) for d in ordered]
            colour = QColor(COLOURS[index % len(COLOURS)])
            bars = pg.BarGraphItem(
                x=xs,
                y0=base,
                height=heights,
                width=period * DAY_SECONDS * 0.8,
                brush=colour,
                pen=colour,
            )
            plot.addItem(bars)
            base = [b + h for b, h in zip(base, heights, strict=True)]
        plot.setLabel("left", unit)
        self._place_ticks()
        end = _epoch(period_start(last, period)) + (period - 0.5) * DAY_SECONDS  # its bar whole
        plot.setXRange(_epoch(first) - DAY_SECONDS / 2, end, padding=0)
        plot.setYRange(0, max(base, default=0.0) or 1.0, padding=0.05)

    def _place_ticks(self) -> None:
        first, last = self._span
        room = int(self.getPlotItem().vb.width()) or self.width()
        self.getPlotItem().getAxis("bottom").setTicks([_day_ticks(first, last, room)])

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if hasattr(self, "series"):  # not while pyqtgraph builds the view
            self._place_ticks()

    def tip_at(self, day: date) -> str:
        start = period_start(day, self._period)
        values = self._days.get(start, {})
        lines = [f"{day:%a %d %b %Y}" if self._period == 1 else f"week of {start:%d %b %Y}"]
        lines += [f"{name}: {self._format(values[name])}" for name in self.series if name in values]
        if len(lines) == 1:
            lines.append("nothing recorded")
        elif len(values) > 1:
            lines.append(f"total: {self._format(sum(values.values()))}")
        return "\n".join(lines)

    def _hovered(self, position: QPointF) -> None:
        plot = self.getPlotItem()
        if not plot.sceneBoundingRect().contains(position):
            self.setToolTip("")
            return
        seconds = plot.vb.mapSceneToView(position).x()
        if not _finite(seconds) or not -(2**40) < seconds < 2**40:
            return
        self.setToolTip(self.tip_at(datetime.fromtimestamp(seconds, UTC).date()))
