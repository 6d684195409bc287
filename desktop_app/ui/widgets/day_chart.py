"""Tokens or cost per day drawn with pyqtgraph: a dated axis, units, stacked bars by agent or
model, values on hover.

pyqtgraph is a maintained plotting library for Qt that works with PySide6 and offscreen; Qt's
own charts module is not part of PySide6-Essentials. Importing it takes a third of a second
(it copies every class of QtCore, QtGui and QtWidgets, which makes PySide6 create each), so
this module is imported off the GUI thread once the window is up (`ui/chart_import.py`).
"""

from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, QSize, Qt
from PySide6.QtGui import QColor, QPalette, QResizeEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

from desktop_app.ui.widgets.charts import (
    COLOURS,
    DAY_SECONDS,
    MOST_SERIES,
    OTHERS,
    day_ticks,
    epoch,
    finite,
    period_start,
)


class _ValueAxis(pg.AxisItem):  # type: ignore[misc]  # pyqtgraph has no type hints
    """The left axis in the chart's unit: "12k", "$0.40", never "30000" or "1e6"."""

    format_value: Callable[[float], str] = staticmethod(lambda v: f"{v:,.0f}")

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        del spacing
        return [self.format_value(v * scale) for v in values]


class DayChart(pg.PlotWidget):  # type: ignore[misc]  # pyqtgraph has no type hints
    """Stacked bars, one a day: `set_days({day: {series: value}})`. Hovering a day shows its
    date and each series' value in the chart's unit (`tip_at` gives that text)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        values = _ValueAxis("left")
        # No menu from the start: built and then turned off, pyqtgraph's view menu cost the
        # window's thread 8–19 ms of the chart's 20–32 when it first came in.
        super().__init__(
            parent,
            enableMenu=False,
            axisItems={"bottom": pg.AxisItem("bottom"), "left": values},
        )
        self._values = values
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMouseEnabled(x=False, y=False)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # no key does anything here
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
                if finite(value):
                    totals[name] = totals.get(name, 0.0) + value
        ranked = sorted(totals, key=lambda n: (-totals[n], n))
        kept = ranked[:MOST_SERIES] if len(ranked) > MOST_SERIES + 1 else ranked
        self._days = {}
        for day, values in days.items():
            merged: dict[str, float] = {}
            for name, value in values.items():
                if finite(value):
                    key = name if name in kept else OTHERS
                    merged[key] = merged.get(key, 0.0) + value
            self._days[day] = merged
        self.series = kept + ([OTHERS] if len(kept) < len(ranked) else [])
        ordered = sorted(self._days)
        middle = (period - 1) * DAY_SECONDS / 2
        xs = [epoch(d) + middle for d in ordered]
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
        end = epoch(period_start(last, period)) + (period - 0.5) * DAY_SECONDS  # its bar whole
        plot.setXRange(epoch(first) - DAY_SECONDS / 2, end, padding=0)
        plot.setYRange(0, max(base, default=0.0) or 1.0, padding=0.05)

    def _place_ticks(self) -> None:
        first, last = self._span
        room = int(self.getPlotItem().vb.width()) or self.width()
        self.getPlotItem().getAxis("bottom").setTicks([day_ticks(first, last, room)])

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
        if not finite(seconds) or not -(2**40) < seconds < 2**40:
            return
        self.setToolTip(self.tip_at(datetime.fromtimestamp(seconds, UTC).date()))
