"""GUI fixtures: a task runner that is always shut down, and the demo history."""

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from PySide6.QtCore import QCoreApplication, QEvent
from pytestqt.qtbot import QtBot

from desktop_app.demo.generator import ensure_demo_database
from desktop_app.domain.session import Session
from desktop_app.sources.common.pricing import session_cost
from desktop_app.sources.goose import GooseSource
from desktop_app.ui.models.transcript import TranscriptModel
from desktop_app.ui.roles import MessageRole
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.usage_loader import SessionFigures
from desktop_app.ui.widgets.usage_panel import UsagePanel

if TYPE_CHECKING:  # imported by the panel, off the GUI thread, as in the application
    from desktop_app.ui.widgets.day_chart import DayChart


def render_all(model: TranscriptModel, qtbot: QtBot) -> list[dict[str, object]]:
    """Ask for every row, wait for each page to be rendered, return all blocks in order."""
    blocks: list[dict[str, object]] = []
    for row in range(model.rowCount()):
        index = model.index(row)
        if not index.data(MessageRole.LOADED):
            with qtbot.waitSignal(model.rows_rendered, timeout=5000):
                index.data(MessageRole.BLOCKS)
        assert index.data(MessageRole.LOADED)
        blocks.extend(index.data(MessageRole.BLOCKS))
    return blocks


def show_a_session(panel: UsagePanel) -> None:
    """The open session's figures, as the window gives them once its transcript is drawn:
    what has the panel import its chart."""
    session = Session(id="s", name="s", model="m")
    panel.show_session(session, None, [], SessionFigures(session_cost(session), None))


def day_chart(panel: UsagePanel, qtbot: QtBot) -> "DayChart":
    """The panel's chart, once pyqtgraph is imported (off the GUI thread, after the panel's
    first figures: `ui/chart_import.py`)."""
    qtbot.waitUntil(lambda: panel.days is not None, timeout=20_000)
    assert panel.days is not None
    return panel.days


@pytest.fixture
def tasks(qapp: object) -> Iterator[TaskRunner]:
    del qapp
    runner = TaskRunner()
    yield runner
    runner.shutdown()


@pytest.fixture
def demo_source(tmp_path: Path) -> Iterator[GooseSource]:
    path = ensure_demo_database(tmp_path / "demo", datetime.now(UTC))
    source = GooseSource(path)
    yield source
    source.close()


@pytest.fixture(autouse=True)
def _windows_gone(qapp: object) -> Iterator[None]:
    """The widgets a test closed are deleted before the next test starts: a main window left
    to be deleted later, still animating, made the next test's Qt Quick view warn
    "QUnifiedTimer::stopAnimationDriver: driver is not running" (which fails a test), now and
    then, whichever test came next."""
    del qapp
    yield
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
