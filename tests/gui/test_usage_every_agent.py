"""The usage panel for every kind that records tokens (#20 items 11–13), on the genuine and
client-written logs under tests/fixtures/agents: cost estimated where the agent records none,
and All sessions over every open history."""

import shutil
from argparse import Namespace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, QSettings, Qt
from PySide6.QtGui import QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QTableWidget, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.app import build_window
from desktop_app.domain.session import Session
from desktop_app.domain.usage import TokenUsage, UsageBucket
from desktop_app.sources.common.pricing import Cost, session_cost
from desktop_app.sources.goose import GooseSource
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.usage_loader import (
    OVERVIEW_PAGE,
    SessionFigures,
    UsageLoader,
    UsageOverview,
)
from desktop_app.ui.widgets.charts import DAY_SECONDS
from desktop_app.ui.widgets.usage_panel import SortItem, UsagePanel
from tests.fixtures.goose_db import GooseDb
from tests.gui.conftest import day_chart, show_a_session

AGENTS = Path(__file__).resolve().parents[1] / "fixtures" / "agents"
CLAUDE = "claude-code:7f3c2a10-0000-4000-8000-000000000001"
"""A genuine-shaped Claude Code session with one sub-agent (tests/fixtures/agents/README.md)."""


def _cell(table: QTableWidget, row: int, column: int) -> SortItem:
    item = table.item(row, column)
    assert isinstance(item, SortItem)
    return item


@pytest.fixture
def window(tmp_path: Path, tasks: TaskRunner, qtbot: QtBot) -> MainWindow:
    """Claude Code, Codex (written by codex-cli), Gemini CLI (written by its library) and pi."""
    copies = {
        "claude-code": AGENTS / "claude_code" / "project",
        "codex": AGENTS / "codex" / "cli",
        "gemini-cli": AGENTS / "gemini_cli" / "library",
        "pi": AGENTS / "pi" / "pi-mono",
    }
    locations = []
    for kind, folder in copies.items():
        shutil.copytree(folder, tmp_path / kind)
        locations.append(f"{kind}={tmp_path / kind}")
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(db=locations, demo=False, session=CLAUDE, screenshot=None)
    shown = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(shown)
    shown.resize(1280, 800)
    shown.show()
    return shown


def test_a_claude_code_session_shows_an_estimated_cost_for_itself_and_its_sub_agents(
    window: MainWindow, qtbot: QtBot
) -> None:
    """Claude Code records no cost: the panel said "–" for it and its tree."""
    panel = window.usage_panel
    qtbot.waitUntil(lambda: "over 2 sessions" in panel.tree_label.text(), timeout=10_000)
    # The session switched model (/model): both are named.
    assert panel.model_label.text() == (
        "anthropic · claude-opus-4-1-20250805 (also claude-sonnet-4-5-20250929)"
    )
    assert panel.context_label.text().startswith("9.0k in")
    assert panel.context_cache_label.text() == "9.0k read · – written"
    assert panel.accumulated_cache_label.text() == "41k read · 2.0k written"
    # claude-opus-4-1 at genai-prices' rates: 25 uncached in, 41k cache read, 2k written, 395 out.
    assert panel.cost_label.text() == "≈ $0.13 estimated"
    assert "genai-prices (claude-opus-4-1)" in panel.cost_label.toolTip()
    assert "estimated over 2 sessions" in panel.tree_label.text()
    # Context growth from each reply's usage in the log (it was goose's and everruns' only).
    assert len(panel.sparkline._values) >= 2


def test_a_model_without_a_price_says_there_is_no_estimate(qtbot: QtBot) -> None:
    panel = UsagePanel()
    qtbot.addWidget(panel)
    session = Session(
        id="s", name="", model="synthetic-model", accumulated_usage=TokenUsage(input_tokens=5)
    )
    panel.show_session(session, None, [], SessionFigures(session_cost(session), None))
    assert panel.cost_label.text() == "– (no price known for synthetic-model: no estimate)"


def test_all_sessions_covers_every_open_history_split_by_agent_or_model(
    window: MainWindow, qtbot: QtBot
) -> None:
    """A Claude-only (or any non-goose) window said "keeps no usage per day"."""
    panel = window.usage_panel
    qtbot.waitUntil(lambda: bool(day_chart(panel, qtbot).series), timeout=20_000)
    panel.range_box.setCurrentIndex(panel.range_box.findText("All time"))
    chart = day_chart(panel, qtbot)
    assert set(chart.series) == {"Claude Code", "Codex CLI", "Gemini CLI", "pi"}
    assert "Claude&nbsp;Code" in panel.legend.text()
    panel.split_box.setCurrentIndex(panel.split_box.findData("model"))
    assert "claude-opus-4-1-20250805" in chart.series
    assert "gpt-5.1-codex" in chart.series
    models = [_cell(panel.by_model, r, 0).text() for r in range(panel.by_model.rowCount())]
    assert "claude-sonnet-4-5" in models  # pi's, with its recorded cost
    summary = panel.days_label.text()
    assert "recorded" in summary
    assert "estimated" in summary
    top = panel.top.item(0)
    assert top.text().strip().startswith("$0.60")  # pi's recorded cost, no "≈"
    assert any(panel.top.item(r).text().lstrip().startswith("≈") for r in range(panel.top.count()))


def test_the_cost_tables_sort_by_a_clicked_column(window: MainWindow, qtbot: QtBot) -> None:
    panel = window.usage_panel
    qtbot.waitUntil(lambda: bool(day_chart(panel, qtbot).series), timeout=20_000)
    panel.range_box.setCurrentIndex(panel.range_box.findText("All time"))
    table = panel.by_project
    assert table.rowCount() >= 3

    def costs() -> list[float]:
        return [float(_cell(table, r, 2).key) for r in range(table.rowCount())]

    assert costs() == sorted(costs(), reverse=True)  # costliest first
    header = table.horizontalHeader()
    middle = header.height() // 2
    cost_column = QPoint(header.sectionViewportPosition(2) + 5, middle)
    QTest.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=cost_column)
    assert costs() == sorted(costs())
    name_column = QPoint(header.sectionViewportPosition(0) + 5, middle)
    QTest.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=name_column)
    names = [_cell(table, r, 0).text() for r in range(table.rowCount())]
    assert names in (sorted(names), sorted(names, reverse=True))


def _overview(today: date) -> UsageOverview:
    def bucket(days_ago: int, agent: str, tokens: int, cost: float | None) -> UsageBucket:
        return UsageBucket(
            day=today - timedelta(days=days_ago),
            agent=agent,
            model="m",
            project="/p",
            tokens=tokens,
            recorded_cost=cost,
            estimated_cost=None,
            sessions=1,
        )

    buckets = [bucket(1, "goose", 1_500, 0.5), bucket(1, "Codex CLI", 500, None)]
    buckets += [bucket(40, "goose", 9_000, 2.0), bucket(200, "pi", 7, None)]
    session = Session(id="s", name="A very long session name " * 20, cost=1.5)
    return UsageOverview(buckets, [(session, Cost(amount=1.5, basis="recorded"))], 4, 0)


def test_the_range_picks_the_days_and_hover_says_each_agents_value(qtbot: QtBot) -> None:
    panel = UsagePanel()
    qtbot.addWidget(panel)
    panel.resize(320, 900)
    panel.show()
    today = datetime.now(UTC).date()
    panel.show_overview(_overview(today))
    show_a_session(panel)
    chart = day_chart(panel, qtbot)
    assert panel.range_box.currentText() == "Last 30 days"
    assert chart.series == ["goose", "Codex CLI"]
    assert "2.0k tokens over 2 sessions in the last 30 days" in panel.days_label.text()
    tip = chart.tip_at(today - timedelta(days=1))
    assert "goose: 1.5k tokens" in tip
    assert "Codex CLI: 500 tokens" in tip
    assert "total: 2.0k tokens" in tip
    # The mouse over that day's bar gives the same text as the chart's tooltip.
    plot = chart.getPlotItem()
    noon = datetime.combine(today - timedelta(days=1), datetime.min.time(), UTC).timestamp()
    scene_point = plot.vb.mapViewToScene(QPointF(noon + DAY_SECONDS / 2, 100.0))
    chart.scene().sigMouseMoved.emit(scene_point)
    assert chart.toolTip() == tip
    panel.range_box.setCurrentIndex(panel.range_box.findText("Last 90 days"))
    assert "11k tokens over 3 sessions" in panel.days_label.text()
    panel.measure_box.setCurrentIndex(panel.measure_box.findData("cost"))
    assert plot.getAxis("left").labelText == "cost (USD)"
    assert chart.tip_at(today - timedelta(days=40)) == (
        f"{today - timedelta(days=40):%a %d %b %Y}\ngoose: $2.00"
    )
    panel.range_box.setCurrentIndex(panel.range_box.findText("All time"))
    assert set(chart.series) == {"goose", "Codex CLI", "pi"}
    # Over 200 days a bar is a week (a day's would be a hairline in a 250-px panel).
    assert chart.tip_at(today - timedelta(days=40)).startswith("week of ")
    assert panel.top.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    assert panel.top.item(0).toolTip().startswith("A very long session name")


def test_a_quiet_month_opens_on_the_shortest_range_with_usage(qtbot: QtBot) -> None:
    """#10 item 19's rule kept: thirty empty days say nothing."""
    panel = UsagePanel()
    qtbot.addWidget(panel)
    today = datetime.now(UTC).date()
    overview = _overview(today)
    old = [b for b in overview.buckets if b.day is not None and b.day < today - timedelta(39)]
    panel.show_overview(UsageOverview(old, [], 2, 0))
    assert panel.range_box.currentText() == "Last 90 days"
    panel.show()
    show_a_session(panel)
    chart = day_chart(panel, qtbot)
    assert chart.isVisible()
    panel.range_box.setCurrentIndex(panel.range_box.findText("Last 7 days"))
    assert "No token usage recorded in the last 7 days" in panel.days_label.text()
    # Nothing to draw: no chart, whose empty axis read "1, 0, 0, 0, 0, 0".
    assert not chart.isVisible()
    panel.range_box.setCurrentIndex(panel.range_box.findText("Last 90 days"))
    assert chart.isVisible()


def test_a_panel_narrower_than_its_choices_never_scrolls_sideways(qtbot: QtBot) -> None:
    panel = UsagePanel()
    qtbot.addWidget(panel)
    panel.resize(240, 700)
    panel.show()
    panel.show_overview(_overview(datetime.now(UTC).date()))
    qtbot.waitExposed(panel)
    show_a_session(panel)
    chart = day_chart(panel, qtbot)
    body = panel.widget()
    assert isinstance(body, QWidget)
    assert body.width() <= panel.viewport().width()
    assert chart.geometry().right() <= body.width()


def test_a_large_history_is_added_up_a_page_per_background_job(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One job over the whole history held the one worker for 2.5 s on 20,000 goose sessions:
    a session opened meanwhile waited for all of it. A page is one job; what the user asked
    for runs between pages."""
    db = GooseDb(tmp_path / "sessions.db")
    rows = [
        {
            "id": f"s{i:05}",
            "name": f"chat {i}",
            "working_dir": f"/p/{i % 3}",
            "updated_at": f"2026-11-{1 + i % 28:02} 10:00:00",
            "created_at": "2026-11-01 09:00:00",
            "accumulated_total_tokens": 100,
            "accumulated_input_tokens": 80,
            "accumulated_output_tokens": 20,
            "cost": 0.01,
        }
        for i in range(OVERVIEW_PAGE * 2 + 10)
    ]
    db.insert_many("sessions", rows)
    db.close()
    source = GooseSource(tmp_path / "sessions.db")
    jobs: list[bool] = []
    run = tasks.run

    def counted(*args: object, **kwargs: object) -> None:
        jobs.append(bool(kwargs.get("background")))
        run(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(tasks, "run", counted)
    loader = UsageLoader(source, tasks)
    with qtbot.waitSignal(loader.overview_loaded, timeout=20_000) as arrived:
        loader.load_overview()
    overview = arrived.args[0]
    assert isinstance(overview, UsageOverview)
    assert overview.sessions == len(rows)
    assert sum(b.tokens for b in overview.buckets) == 100 * len(rows)
    assert jobs == [True, True, True]  # three pages, three background jobs
    source.close()


def test_many_models_are_named_three_at_a_time(qtbot: QtBot) -> None:
    panel = UsagePanel()
    qtbot.addWidget(panel)
    session = Session(id="s", name="", model="m0")
    models = tuple(f"m{i}" for i in range(50))
    panel.show_session(session, None, [], SessionFigures(session_cost(session), None, models))
    assert panel.model_label.text() == "m0 (also m1, m2, m3 and 46 more)"
    assert len(panel.model_label.toolTip().splitlines()) == 20


def test_the_chart_follows_a_theme_switched_while_running(window: MainWindow, qtbot: QtBot) -> None:
    """#20 item 2 for the chart: its background and axis text take the new palette at once."""
    chart = day_chart(window.usage_panel, qtbot)

    def background() -> str:
        return str(chart.backgroundBrush().color().name())

    window.choose_theme("light")
    qtbot.waitUntil(lambda: background() == "#ffffff", timeout=5000)
    window.choose_theme("dark")
    qtbot.waitUntil(lambda: background() != "#ffffff", timeout=5000)
    assert background() == chart.palette().color(QPalette.ColorRole.Base).name()
    axis = chart.getPlotItem().getAxis("left")
    assert axis.textPen().color().name() == chart.palette().color(QPalette.ColorRole.Text).name()


def test_no_usage_is_said_once_without_empty_tables(qtbot: QtBot) -> None:
    """Histories that record no tokens (a Gemini CLI recording without them): the sentence
    says so, and the cost tables and the top list are not drawn as empty boxes below it."""
    panel = UsagePanel()
    qtbot.addWidget(panel)
    panel.show()
    panel.show_overview(UsageOverview([], [], 0, 0))
    assert panel.days_label.text() == "No token usage recorded in any open history."
    assert not panel.by_project.isVisible()
    assert not panel.by_model.isVisible()
    assert not panel.top.isVisible()
    assert not panel.top_label.isVisible()
    panel.show_overview(_overview(datetime.now(UTC).date()))
    assert panel.by_project.isVisible()
    assert panel.by_model.isVisible()
    assert panel.top.isVisible()


def test_the_chart_has_no_menu_and_never_built_one(window: MainWindow, qtbot: QtBot) -> None:
    """A right click does nothing on the chart; pyqtgraph's view menu, built and then turned
    off, cost the window's thread 8–19 ms when the chart came in."""
    chart = day_chart(window.usage_panel, qtbot)
    assert not chart.getPlotItem().menuEnabled()
    assert chart.getViewBox().menu is None
