"""The token-usage panel: the open session's figures, and all sessions' tokens and cost.

Fed by `UsageLoader` with value objects; it never reads the database itself.
"""

from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from desktop_app.domain.session import Session
from desktop_app.domain.source import SessionTotals
from desktop_app.domain.usage import DayUsage, TokenUsage, UsagePoint
from desktop_app.rendering import formatting
from desktop_app.ui.widgets.charts import DayBars, Sparkline

METER_STEPS = 1000


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


class UsagePanel(QScrollArea):
    session_activated = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        body = QWidget()
        layout = QVBoxLayout(body)

        self._session_box = QGroupBox("This session")
        self._build_session_form(QFormLayout(self._session_box))
        layout.addWidget(self._session_box)

        overview = QGroupBox("All sessions, last 30 days")
        self.overview_box = overview
        overview_layout = QVBoxLayout(overview)
        self.days = DayBars()
        self.days_label = QLabel("–")
        self.days_label.setWordWrap(True)
        self.top = QListWidget()
        self.top.setMinimumHeight(160)
        # Long names end in an ellipsis (whole in the tooltip); the list never scrolls sideways.
        self.top.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.top.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.top.setWordWrap(False)
        self.top.itemActivated.connect(self._activated)
        self.top.itemClicked.connect(self._activated)
        overview_layout.addWidget(self.days)
        overview_layout.addWidget(self.days_label)
        self.top_label = QLabel("Top sessions by cost")
        overview_layout.addWidget(self.top_label)
        overview_layout.addWidget(self.top)
        layout.addWidget(overview)
        layout.addStretch(1)
        self.setWidget(body)

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
        self, session: Session, totals: SessionTotals | None, series: Sequence[UsagePoint]
    ) -> None:
        # The name is the header's, above the transcript: here in the tooltip only, as a
        # group box's title sets its width (a 32-character name made the panel 360 px wide).
        self._session_box.setToolTip(" ".join((session.name or session.id).split()))
        model = " · ".join(x for x in (session.provider, session.model) if x) or "unknown"
        self.model_label.setText(model)
        self.context_label.setText(_tokens_line(session.usage))
        self.context_cache_label.setText(_cache_line(session.usage))
        self.accumulated_label.setText(_tokens_line(session.accumulated_usage))
        self.accumulated_cache_label.setText(_cache_line(session.accumulated_usage))
        self.cost_label.setText(formatting.cost(session.cost))
        if totals is not None and totals.session_count > 1:
            # A kind that records no prices says nothing of cost here (not "–").
            cost = "" if totals.cost is None else f"; {formatting.cost(totals.cost)}"
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

    def show_overview(
        self,
        days: Sequence[DayUsage],
        top: Sequence[Session],
        span: tuple[date, date] | None = None,
    ) -> None:
        """Tokens and cost per day over `span`, and the costliest sessions. No span and no
        days: the history keeps no usage per day (a kind without `UsageHistory`), which is
        said as such rather than as a quiet month."""
        if span is None and not days:
            self._no_overview()
            return
        self._show_figures(shown=True)
        first, last = span if span is not None else (None, None)
        today = datetime.now(UTC).date()
        if first is not None and last is not None and last != today:
            self.overview_box.setTitle(f"All sessions, {first:%d %b} – {last:%d %b %Y}")
            quiet = f"No token usage recorded from {first:%d %b} to {last:%d %b %Y}."
        else:
            self.overview_box.setTitle("All sessions, last 30 days")
            quiet = "No token usage recorded in the last 30 days."
        self.days.empty_text = f"{quiet} Tokens appear here as sessions run."
        by_day = {day.day: day for day in days}
        bars = []
        if first is not None and last is not None:
            current = first
            while current <= last:  # every day of the range, quiet ones as empty bars
                day = by_day.get(current)
                tokens = day.tokens if day else 0
                cost = formatting.cost(day.cost) if day else formatting.cost(None)
                tip = f"{current:%a %d %b}: {formatting.tokens(tokens)} tokens, {cost}"
                bars.append((current.isoformat(), float(tokens), tip))
                current += timedelta(days=1)
        else:
            bars = [
                (
                    day.day.isoformat(),
                    float(day.tokens),
                    f"{day.day:%a %d %b}: {formatting.tokens(day.tokens)} tokens, "
                    f"{formatting.cost(day.cost)}",
                )
                for day in days
            ]
        self.days.set_bars(bars)
        self.days.axis_labels = (
            (f"{first:%d %b}", f"{last:%d %b}") if first is not None and last is not None else None
        )
        total_tokens = sum(day.tokens for day in days)
        costs = [day.cost for day in days if day.cost is not None]
        self.days_label.setText(
            f"{formatting.tokens(total_tokens)} tokens · "
            f"{formatting.cost(sum(costs)) if costs else '–'} in {len(days)} active days"
        )
        self.top.clear()
        for session in top:
            when = session.sort_at.strftime("%d %b %Y") if session.sort_at else "–"
            name = " ".join((session.name or session.id).split())
            item = QListWidgetItem(f"{formatting.cost(session.cost):>8}  {when}  {name}")
            item.setData(Qt.ItemDataRole.UserRole, session.id)
            item.setToolTip(f"{name}\n{session.id} · {session.session_type} · last active {when}")
            self.top.addItem(item)

    def _no_overview(self) -> None:
        self.overview_box.setTitle("All sessions")
        self.days.empty_text = (
            "This kind of history keeps no usage per day; each session's own figures are above."
        )
        self.days.set_bars([])
        self.days.axis_labels = None
        self.days_label.setText("–")
        self.top.clear()
        self._show_figures(shown=False)

    def _show_figures(self, *, shown: bool) -> None:
        """The day total and the top sessions, only for a history that keeps them: else a
        stray "–" and an empty list stood under the sentence saying it keeps none."""
        for widget in (self.days_label, self.top_label, self.top):
            widget.setVisible(shown)

    def _activated(self, item: QListWidgetItem) -> None:
        self.session_activated.emit(str(item.data(Qt.ItemDataRole.UserRole)))
