"""A window shown the first time gets its pane widths at once (#19's stalls): the usage dock's
width, asked with `resizeDocks`, took effect at the next layout request — after the first
session's messages had come, so the transcript's Qt Quick view was resized and rendered again
(33–50 ms on a 20 MB message in `benchmarks.window`'s huge runs)."""

from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QSplitter
from pytestqt.qtbot import QtBot

from desktop_app.ui import window_geometry
from desktop_app.ui.settings import Settings


def test_the_first_layout_is_done_when_it_returns(tmp_path: Path, qtbot: QtBot) -> None:
    window = QMainWindow()
    qtbot.addWidget(window)
    splitter = QSplitter(window)
    splitter.addWidget(QLabel("list"))
    transcript = QLabel("transcript")
    splitter.addWidget(transcript)
    window.setCentralWidget(splitter)
    dock = QDockWidget("Token usage", window)
    dock.setWidget(QLabel("usage"))
    window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    window_geometry._first_layout(window, settings, splitter, dock)
    laid_out = (dock.width(), transcript.width())
    qtbot.wait(50)  # any layout request left is handled
    assert (dock.width(), transcript.width()) == laid_out
    assert dock.width() == window.width() * 24 // 100  # a quarter, less a little
