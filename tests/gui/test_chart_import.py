"""pyqtgraph is imported off the GUI thread, after the window is up (`ui/chart_import.py`): its
import was a third of the cold start (0.35–0.55 s), and on the GUI thread it would freeze the
window as long."""

import os
from datetime import UTC, datetime

import pytest
from pytestqt.qtbot import QtBot

from desktop_app.ui import chart_import
from desktop_app.ui.chart_import import ChartImport
from desktop_app.ui.widgets import usage_panel
from desktop_app.ui.widgets.usage_panel import UsagePanel
from tests.fixtures.processes import run_python
from tests.gui.conftest import show_a_session
from tests.gui.test_usage_every_agent import _overview

FRESH_PROCESS = """
import gc, sys, threading, time
from PySide6.QtWidgets import QApplication
import desktop_app.app  # everything the window is built from
assert "pyqtgraph" not in sys.modules, "the window's modules import pyqtgraph"
from datetime import UTC, datetime
from desktop_app.ui import chart_import
from desktop_app.domain.session import Session
from desktop_app.sources.common.pricing import session_cost
from desktop_app.ui.usage_loader import SessionFigures
from desktop_app.ui.widgets.usage_panel import UsagePanel
from tests.gui.test_usage_every_agent import _overview

threads = []
collecting = []
imported = chart_import.ChartImport._import
from PySide6 import QtCore, QtGui, QtWidgets
unmade = []
def recording(self):
    threads.append((threading.current_thread().name, threading.current_thread().daemon))
    collecting.append(gc.isenabled())
    # PySide6 makes a class when first asked for: every one pyqtgraph copies is made already,
    # on the GUI thread (made here while the GUI thread used Qt, it crashed the window).
    unmade.extend(n for m in (QtCore, QtGui, QtWidgets) for n in set(dir(m)) - set(vars(m)))
    imported(self)
chart_import.ChartImport._import = recording

app = QApplication([])
panel = UsagePanel()
panel.show()
assert panel.days is None and "pyqtgraph" not in sys.modules
panel.show_overview(_overview(datetime.now(UTC).date()))  # figures, no chart yet
time.sleep(0.2)
app.processEvents()
assert panel.days is None and "pyqtgraph" not in sys.modules
# The open session's figures come once its transcript is drawn: the chart is imported then.
session = Session(id="s", name="s", model="m")
panel.show_session(session, None, [], SessionFigures(session_cost(session), None))
deadline = time.monotonic() + 60
while panel.days is None and time.monotonic() < deadline:
    app.processEvents()
    time.sleep(0.005)
assert panel.days is not None, "the chart never came"
# Not a daemon: one stopped at exit in the middle of PySide6 creating classes crashed
# `gander --screenshot` (SIGSEGV in 5 runs of 20).
assert threads == [("gander-chart-import", False)], threads
assert not unmade, unmade[:10]
# Its collections of what the import made held the interpreter lock 46–98 ms: paused for the
# import, which is frozen after it (it lives as long as the process).
assert collecting == [False] and gc.isenabled()
assert gc.get_freeze_count() > 0
assert not panel.chart_slot.isVisible()
print(panel.days.series)
"""


def test_the_chart_is_imported_in_a_thread_after_the_open_sessions_figures() -> None:
    done = run_python(FRESH_PROCESS, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "['goose', 'Codex CLI']"


def test_a_chart_that_cannot_be_imported_is_one_sentence_in_its_place(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chart_import, "MODULE", "desktop_app.ui.widgets.no_such_chart")
    monkeypatch.setattr(usage_panel, "CHARTS", ChartImport())
    panel = UsagePanel()
    qtbot.addWidget(panel)
    panel.show()
    panel.show_overview(_overview(datetime.now(UTC).date()))
    show_a_session(panel)
    qtbot.waitUntil(lambda: panel.chart_slot.text().startswith("The chart cannot be drawn"))
    assert panel.days is None
    assert "sessions in the last 30 days" in panel.days_label.text()  # the figures are shown
