"""View ▸ Theme while running restyles everything (#20 item 2): the header's title, a widget
with a style sheet, kept the palette it was polished with and stayed dark on dark."""

from argparse import Namespace
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.app import build_window, wait_until_idle
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner


def _lightness(widget: QWidget) -> tuple[int, int]:
    """The mean and the brightest lightness of what the widget paints."""
    image = widget.grab().toImage()
    values = [
        image.pixelColor(x, y).lightness()
        for x in range(0, image.width(), 2)
        for y in range(0, image.height(), 2)
    ]
    return sum(values) // len(values), max(values)


def test_switching_theme_restyles_the_header_title(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(db=None, demo=True, session=None, screenshot=None, theme="light")
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    wait_until_idle(window, tasks, 10)
    title = window.header.title
    qtbot.waitUntil(lambda: bool(title.text()), timeout=10_000)
    mean, _ = _lightness(title)
    assert mean > 160  # dark text on a light background
    window.choose_theme("dark")
    QApplication.processEvents()
    mean, brightest = _lightness(title)
    assert mean < 100  # the background went dark…
    assert brightest > 180  # …and the text light
    styled = [w for w in window.findChildren(QWidget) if w.styleSheet() and w.isVisible()]
    assert title in styled
    text = QApplication.palette().color(QPalette.ColorRole.ButtonText)
    for widget in styled:
        assert widget.palette().color(QPalette.ColorRole.ButtonText) == text, widget
    window.choose_theme("light")
    QApplication.processEvents()
    assert _lightness(title)[0] > 160
    window.close()
