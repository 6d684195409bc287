"""The token-usage panel: the open session's figures, and every open history's tokens and cost.

Fed by `UsageLoader` with value objects; it never reads a history itself. What it groups on
the GUI thread are the loader's buckets (a day × agent × model × folder each), never sessions.
"""

from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_app.domain.session import Session
from desktop_app.domain.source import SessionTotals
from desktop_app.domain.usage import TokenUsage, UsageBucket, UsagePoint, added
from desktop_app.rendering import formatting
from desktop_app.sources.common.pricing import Cost
from desktop_app.ui.chart_import import CHARTS
from desktop_app.ui.usage_loader import SessionFigures, UsageOverview
from desktop_app.ui.widgets.charts import Sparkline, legend_html, period_start

if TYPE_CHECKING:
    from desktop_app.ui.widgets.day_chart import DayChart

METER_STEPS = 1000
TABLE_ROWS = 8
MODELS_IN_TIP = 20
CHART_HEIGHT = 200
"""The chart's height (`DayChart.sizeHint`): its slot keeps it while pyqtgraph loads."""
WEEKLY_AFTER = 120
"""Days beyond which the chart has a bar a week (a day's bar would be a hairline)."""
RANGES = (("Last 7 days", 7), ("Last 30 days", 30), ("Last 90 days", 90), ("All time", None))
SPLITS = (("by agent", "agent"), ("by model", "model"))
MEASURES = (("Tokens", "tokens"), ("Cost", "cost"))


def _tokens_line(usage: TokenUsage) -> str:
    if usage.is_empty:
        return "not recorded"
    parts = [
        f"{formatting.tokens(usage.input_tokens)} in",
        f"{formatting.tokens(usage.output_tokens)} out",
        f"{formatting.tokens(usage.total_tokens)} total",
    ]
    return " · ".join(parts)


def _cache_line(usage: TokenUsage) -> str:
    if usage.cache_read_tokens is None and usage.cache_write_tokens is None:
        return "–"
    return (
        f"{formatting.tokens(usage.cache_read_tokens)} read · "
        f"{formatting.tokens(usage.cache_write_tokens)} written"
    )


def cost_text(cost: Cost) -> str:
    """ "$0.13 recorded", "≈ $0.13 estimated", or why there is no figure."""
    if cost.amount is None:
        return f"– ({cost.note})" if cost.note else "–"
    if cost.estimated:
        return f"≈ {formatting.cost(cost.amount)} estimated"
    return f"{formatting.cost(cost.amount)} recorded"


def _costs_text(recorded: float | None, estimated: float | None) -> str:
    parts = []
    if recorded is not None:
        parts.append(f"{formatting.cost(recorded)} recorded")
    if estimated is not None:
        parts.append(f"≈ {formatting.cost(estimated)} estimated")
    return " + ".join(parts) or "–"


class SortItem(QTableWidgetItem):
    """A cell shown as text and sorted by its number (a cost, a count)."""

    def __init__(self, text: str, key: float | str) -> None:
        super().__init__(text)
        self.key = key

    def __lt__(self, other: QTableWidgetItem) -> bool:
        if isinstance(other, SortItem) and type(self.key) is type(other.key):
            return self.key < other.key  # type: ignore[operator]
        return super().__lt__(other)


def _table(first: str) -> QTableWidget:
    table = QTableWidget(0, 3)
    table.setHorizontalHeaderLabels([first, "Tokens", "Cost"])
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
    table.setWordWrap(False)
    table.setTabKeyNavigation(False)  # Tab leaves the table; the arrows move in it
    # A folder's end and a model's date tell them apart: the middle goes.
    table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
    table.horizontalHeader().setSortIndicator(2, Qt.SortOrder.DescendingOrder)  # costliest first
    table.setSortingEnabled(True)
    table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
    header = table.horizontalHeader()
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    for column in (1, 2):
        header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
    return table


class UsagePanel(QScrollArea):
    session_activated = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # No Tab stop of its own (it showed none): Tab goes to its controls, each scrolled to
        # (Qt scrolls only for Tab between them, not for Tab in from another pane).
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        application = QApplication.instance()
        if isinstance(application, QApplication):
            application.focusChanged.connect(self._show_focused)
        body = QWidget()
        layout = QVBoxLayout(body)

        self._session_box = QGroupBox("This session")
        self._build_session_form(QFormLayout(self._session_box))
        layout.addWidget(self._session_box)

        layout.addWidget(self._build_overview())
        layout.addStretch(1)
        self.setWidget(body)
        self._overview: UsageOverview | None = None

    def _show_focused(self, _old: QWidget | None, now: QWidget | None) -> None:
        body = self.widget()
        if now is not None and body is not None and body.isAncestorOf(now):
            self.ensureWidgetVisible(now)

    def _build_overview(self) -> QGroupBox:
        """All sessions: the range and split, the chart's slot, the cost tables, the top list."""
        overview = QGroupBox("All sessions")
        self.overview_box = overview
        overview_layout = QVBoxLayout(overview)
        # Two rows: three boxes side by side made a 240-px panel scroll sideways.
        days, split = QHBoxLayout(), QHBoxLayout()
        self.range_box = self._choice(days, RANGES, 1, "Which days the view covers")
        self.measure_box = self._choice(split, MEASURES, 0, "What the chart shows per day")
        self.split_box = self._choice(split, SPLITS, 0, "What the bars are split by")
        overview_layout.addLayout(days)
        overview_layout.addLayout(split)
        self.days: DayChart | None = None
        """The chart, once pyqtgraph is imported (`ui/chart_import.py`); until then
        `chart_slot` holds its place, as tall as the chart."""
        self.chart_slot = QLabel("Loading the chart…")
        self.chart_slot.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.chart_slot.setFixedHeight(CHART_HEIGHT)
        self.chart_slot.setWordWrap(True)
        self._overview_layout = overview_layout
        self.days_label = QLabel("Loading…")
        self.days_label.setWordWrap(True)
        self.days_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        overview_layout.addWidget(self.chart_slot)
        self.legend = QLabel()
        self.legend.setWordWrap(True)
        overview_layout.addWidget(self.legend)
        overview_layout.addWidget(self.days_label)
        self.by_project = _table("Project")
        self.by_model = _table("Model")
        self._breakdown = (
            QLabel("Cost by project"),
            self.by_project,
            QLabel("Cost by model"),
            self.by_model,
        )
        """The cost tables and their titles: shown only when the range has usage to list."""
        for widget in self._breakdown:
            overview_layout.addWidget(widget)
        self.top = QListWidget()
        self.top.setMinimumHeight(160)
        # Long names end in an ellipsis (whole in the tooltip); the list never scrolls sideways.
        self.top.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.top.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.top.setWordWrap(False)
        self.top.itemActivated.connect(self._activated)
        self.top.itemClicked.connect(self._activated)
        self.top_label = QLabel("Top sessions by cost")
        overview_layout.addWidget(self.top_label)
        overview_layout.addWidget(self.top)
        return overview

    def _choice(
        self, row: QHBoxLayout, options: Iterable[tuple[str, object]], chosen: int, tip: str
    ) -> QComboBox:
        box = QComboBox()
        for text, value in options:
            box.addItem(text, value)
        box.setCurrentIndex(chosen)
        box.setToolTip(tip)
        # Shrinks with a narrow panel (its text elided) rather than widening the panel.
        box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        box.setMinimumContentsLength(4)
        box.currentIndexChanged.connect(self._regroup)
        row.addWidget(box)
        return box

    def _build_session_form(self, form: QFormLayout) -> None:
        """The open session's rows; a value too long for the panel goes below its label."""
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.model_label = QLabel("–")
        self.context_label = QLabel("–")
        self.context_cache_label = QLabel("–")
        self.accumulated_label = QLabel("–")
        self.accumulated_cache_label = QLabel("–")
        self.cost_label = QLabel("–")
        self.tree_label = QLabel("–")
        self.meter = QProgressBar()
        self.meter.setTextVisible(True)
        self.sparkline = Sparkline()
        for label in (
            self.model_label,
            self.context_label,
            self.context_cache_label,
            self.accumulated_label,
            self.accumulated_cache_label,
            self.cost_label,
            self.tree_label,
        ):
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form.addRow("Model", self.model_label)
        form.addRow("Context now", self.context_label)
        form.addRow("  cache", self.context_cache_label)
        form.addRow("Window", self.meter)
        form.addRow("All calls", self.accumulated_label)
        form.addRow("  cache", self.accumulated_cache_label)
        form.addRow("Cost", self.cost_label)
        form.addRow("With sub-agents", self.tree_label)
        form.addRow("Context growth", self.sparkline)

    def show_session(
        self,
        session: Session,
        totals: SessionTotals | None,
        series: Sequence[UsagePoint],
        figures: SessionFigures,
    ) -> None:
        """`figures`: the session's cost and, with `totals`, its tree's (recorded or
        estimated), and its replies' models."""
        # The name is the header's, above the transcript: here in the tooltip only, as a
        # group box's title sets its width (a 32-character name made the panel 360 px wide).
        self._session_box.setToolTip(" ".join((session.name or session.id).split()))
        model = " · ".join(x for x in (session.provider, session.model) if x) or "unknown"
        others = [m for m in figures.models if m != session.model]
        if others:  # a model switched mid-session, a sub-agent's own
            more = f" and {len(others) - 3} more" if len(others) > 3 else ""
            model += f" (also {', '.join(others[:3])}{more})"
        self.model_label.setText(model)
        self.model_label.setToolTip("\n".join(figures.models[:MODELS_IN_TIP]))
        self.context_label.setText(_tokens_line(session.usage))
        self.context_cache_label.setText(_cache_line(session.usage))
        self.accumulated_label.setText(_tokens_line(session.accumulated_usage))
        self.accumulated_cache_label.setText(_cache_line(session.accumulated_usage))
        own, tree = figures.own_cost, figures.tree_cost
        self.cost_label.setText(cost_text(own))
        self.cost_label.setToolTip(own.note)
        if totals is not None and totals.session_count > 1:
            cost = "" if tree is None or tree.amount is None else f"; {cost_text(tree)}"
            self.tree_label.setText(
                f"{_tokens_line(totals.tokens)}{cost} over {totals.session_count} sessions"
            )
        else:
            self.tree_label.setText("no sub-agents")
        used = session.usage.input_tokens
        limit = session.context_limit
        if used is not None and limit is not None and limit > 0:
            # QProgressBar holds 32-bit values: show the share in per-mille, whatever the sizes.
            share = max(0.0, min(1.0, used / limit))
            self.meter.setEnabled(True)
            self.meter.setRange(0, METER_STEPS)
            self.meter.setValue(round(share * METER_STEPS))
            self.meter.setFormat(
                f"{formatting.tokens(used)} of {formatting.tokens(limit)} ({share:.0%})"
            )
        else:
            self.meter.setEnabled(False)
            self.meter.setRange(0, 1)
            self.meter.setValue(0)
            self.meter.setFormat("limit unknown")
        self.sparkline.set_values([p.input_tokens or 0 for p in series])
        # The open session's figures come once its transcript is drawn (`settled`): the chart
        # is imported then, not beside the transcript's first rows, which it slowed (a 20 MB
        # message drawn with a 62-123 ms stall beside it, 37-70 ms without).
        CHARTS.when_ready(self._chart_imported)

    def show_overview(self, overview: UsageOverview) -> None:
        """Every open history's sessions, as the range and split chosen show them."""
        first_time = self._overview is None
        self._overview = overview
        if first_time:
            self._range_with_usage(overview)
        self.top.clear()
        for session, cost in overview.top:
            when = session.sort_at.strftime("%d %b %Y") if session.sort_at else "–"
            name = " ".join((session.name or session.id).split())
            shown = ("≈ " if cost.estimated else "") + formatting.cost(cost.amount)
            item = QListWidgetItem(f"{shown:>10}  {when}  {name}")
            item.setData(Qt.ItemDataRole.UserRole, session.id)
            item.setToolTip(
                f"{name}\n{session.id} · {session.session_type} · last active {when}\n"
                f"{cost_text(cost)}"
            )
            self.top.addItem(item)
        self._regroup()

    def _chart_imported(self) -> None:
        """The chart in its slot, drawn with what the panel shows; or why there is none."""
        if self.days is not None:
            return
        module = CHARTS.module
        if module is None:
            self.chart_slot.setText(CHARTS.failure)
            return
        self.days = module.DayChart()
        self._overview_layout.replaceWidget(self.chart_slot, self.days)
        self.chart_slot.hide()
        self._regroup()

    def _range_with_usage(self, overview: UsageOverview) -> None:
        """A quiet month says nothing: the first time, the shortest range from the one chosen
        on that has usage is chosen instead (shown in the range box)."""
        today = datetime.now(UTC).date()
        newest = max((b.day for b in overview.buckets if b.day is not None), default=None)
        for index in range(self.range_box.currentIndex(), self.range_box.count()):
            days = self.range_box.itemData(index)
            if newest is None or days is None or newest >= today - timedelta(days=days - 1):
                with QSignalBlocker(self.range_box):
                    self.range_box.setCurrentIndex(index)
                return

    def _regroup(self) -> None:
        overview = self._overview
        if overview is None:
            return
        days = self.range_box.currentData()
        today = datetime.now(UTC).date()
        start = None if days is None else today - timedelta(days=days - 1)
        shown = [
            b for b in overview.buckets if start is None or (b.day is not None and b.day >= start)
        ]
        dated = [b.day for b in shown if b.day is not None]
        first = start if start is not None else min(dated, default=today)
        period = 7 if (today - first).days > WEEKLY_AFTER else 1
        first = period_start(first, period)
        split = str(self.split_box.currentData())
        by_cost = self.measure_box.currentData() == "cost"
        per_day: dict[date, dict[str, float]] = {}
        for bucket in shown:
            if bucket.day is None:
                continue
            value = (bucket.cost or 0.0) if by_cost else float(bucket.tokens)
            series = per_day.setdefault(period_start(bucket.day, period), {})
            name = bucket.agent if split == "agent" else bucket.model
            series[name] = series.get(name, 0.0) + value
        self._fill(self.by_project, shown, lambda b: b.project)
        self._fill(self.by_model, shown, lambda b: b.model)
        self.days_label.setText(self._summary(shown, overview, days))
        # No usage is said once, above; empty tables and an empty list below it said nothing.
        for widget in self._breakdown:
            widget.setVisible(bool(shown))
        self.top_label.setVisible(bool(overview.top))
        self.top.setVisible(bool(overview.top))
        if self.days is None:
            return
        if by_cost:
            self.days.set_days(
                per_day,
                first,
                today,
                unit="cost (USD)",
                tick=formatting.cost,
                tip=formatting.cost,
                period=period,
            )
        else:
            self.days.set_days(
                per_day,
                first,
                today,
                unit="tokens",
                tick=lambda v: formatting.tokens(int(v)),
                tip=lambda v: f"{formatting.tokens(int(v))} tokens",
                period=period,
            )
        self.legend.setText(legend_html(self.days.series))
        # Nothing to draw is said below, not drawn: an empty axis read "1, 0, 0, 0, 0, 0".
        self.days.setVisible(any(per_day.values()))

    @staticmethod
    def _summary(shown: Sequence[UsageBucket], overview: UsageOverview, days: int | None) -> str:
        if not overview.buckets:
            return "No token usage recorded in any open history."
        span = f"in the last {days} days" if days else "in all"
        if not shown:
            return f"No token usage recorded {span}; choose a longer range."
        tokens = sum(b.tokens for b in shown)
        sessions = sum(b.sessions for b in shown)
        recorded = estimated = None
        for bucket in shown:
            recorded = added(recorded, bucket.recorded_cost)
            estimated = added(estimated, bucket.estimated_cost)
        text = (
            f"{formatting.tokens(tokens)} tokens over {sessions} sessions {span}; "
            f"cost {_costs_text(recorded, estimated)}"
        )
        if estimated is not None:
            text += " (estimates from genai-prices' price table)"
        if overview.unpriced:
            text += f"; {overview.unpriced} sessions' models have no known price"
        return text + "."

    @staticmethod
    def _fill(
        table: QTableWidget, buckets: Sequence[UsageBucket], key: Callable[[UsageBucket], str]
    ) -> None:
        rows: dict[str, tuple[int, int, float | None, float | None]] = {}
        for bucket in buckets:
            sessions, tokens, recorded, estimated = rows.get(key(bucket), (0, 0, None, None))
            rows[key(bucket)] = (
                sessions + bucket.sessions,
                tokens + bucket.tokens,
                added(recorded, bucket.recorded_cost),
                added(estimated, bucket.estimated_cost),
            )
        table.setSortingEnabled(False)
        table.setRowCount(len(rows))
        for row, (name, (sessions, tokens, recorded, estimated)) in enumerate(rows.items()):
            cost = added(recorded, estimated)
            shown = ("≈ " if estimated is not None else "") + formatting.cost(cost)
            cells = (
                SortItem(name, name),
                SortItem(formatting.tokens(tokens), float(tokens)),
                SortItem(shown, -1.0 if cost is None else cost),
            )
            cells[0].setToolTip(f"{name}\n{sessions} sessions")
            cells[2].setToolTip(_costs_text(recorded, estimated))
            for column, cell in enumerate(cells):
                if column:
                    cell.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                table.setItem(row, column, cell)
        table.setSortingEnabled(True)  # sorted again by the user's column
        # As tall as its rows, up to TABLE_ROWS of them (then it scrolls): no empty box.
        shown_rows = max(1, min(TABLE_ROWS, len(rows)))
        table.setFixedHeight(
            table.horizontalHeader().sizeHint().height()
            + shown_rows * table.verticalHeader().defaultSectionSize()
            + 2 * table.frameWidth()
        )

    def _activated(self, item: QListWidgetItem) -> None:
        self.session_activated.emit(str(item.data(Qt.ItemDataRole.UserRole)))
