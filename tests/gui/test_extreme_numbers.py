"""Numbers no real session has — a 10^12 context window, counts at 2^63, an infinite cost,
ledger sums past SQLite's integer range — still give a readable usage panel, list and export
(issue #8, point 12)."""

import json
import math
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from desktop_app.app import build_window
from desktop_app.cli import main
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from tests.fixtures.goose_db import GooseDb
from tests.gui.conftest import day_chart
from tests.gui.test_window import _args

HUGE = 2**63 - 1


@pytest.fixture
def extreme_db(make_db: Callable[..., GooseDb]) -> GooseDb:
    db = make_db()
    now = int(datetime.now(UTC).timestamp())
    db.add_session(
        "x",
        name="extreme",
        model_config_json={"model_name": "m", "context_limit": 10**12},
        input_tokens=HUGE,
        output_tokens=HUGE,
        total_tokens=HUGE,
        accumulated_total_tokens=HUGE,
        accumulated_cost=math.inf,
        updated_at=datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S"),
    )
    for _ in range(3):
        db.add_ledger(
            "x", created_timestamp=now, total_tokens=2**62, input_tokens=2**62, cost=1e308
        )
    db.add_message(
        "x",
        "assistant",
        "hello",
        created=now,
        metadata={"userVisible": True, "usage": {"inputTokens": 10**40, "cost": 1e308}},
    )
    return db


def test_usage_panel_shows_extreme_numbers(
    extreme_db: GooseDb, tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    window = build_window(
        _args(db=extreme_db.path, demo=False, session="x"), tmp_path / "data", settings, tasks
    )
    qtbot.addWidget(window)
    window.show()
    panel = window.usage_panel
    qtbot.waitUntil(lambda: panel.model_label.text() != "–", timeout=10_000)
    chart = day_chart(panel, qtbot)
    qtbot.waitUntil(lambda: bool(chart.series), timeout=10_000)
    assert panel.meter.isEnabled()
    assert panel.meter.value() == panel.meter.maximum() == 1000
    assert panel.meter.format() == "9.22e+18 of 1.0T (100%)"
    assert panel.cost_label.text().startswith("–")  # an infinite cost is none
    assert all(math.isfinite(v) for day in chart._days.values() for v in day.values())
    assert "9.22e+18" in panel.context_label.text()
    qtbot.waitUntil(lambda: panel.tree_label.text() != "–", timeout=10_000)
    assert "overflow" not in window.statusBar().currentMessage()
    window.close()


def test_cli_lists_and_exports_extreme_numbers(
    extreme_db: GooseDb, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["list", "--db", str(extreme_db.path), "--json"]) == 0
    (session,) = json.loads(capsys.readouterr().out)
    assert session["usage"]["input_tokens"] == HUGE
    assert session["cost"] is None
    assert main(["show", "x", "--db", str(extreme_db.path), "--format", "json"]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert exported["messages"][0]["usage"]["tokens"]["input_tokens"] is None
