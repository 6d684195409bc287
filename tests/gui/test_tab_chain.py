"""The whole Tab chain, from the search box round to it again (#20 item 6): every stop is on
screen, big enough to see, enabled and something keys act on — no stop that shows nothing
(the usage panel's scroll area and its chart took one each), no table that keeps Tab for its
cells (the cost tables held it for good), and Tab into the transcript outlines a block on
screen (it showed none, or a few pixels of one scrolled away under the header) — at 1280×800
and at 800×600, on a genuine Claude Code session with a 190-character title."""

from argparse import Namespace
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QPointF, QSettings, Qt
from PySide6.QtGui import QImage
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QComboBox,
    QLineEdit,
    QWidget,
)
from pytestqt.qtbot import QtBot

from desktop_app.app import build_window, wait_until_idle
from desktop_app.rendering.transcript_blocks import SESSION_SCHEME
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.widgets.transcript_view import TranscriptView
from tests.fixtures.goose_db import GooseDb
from tests.gui.conftest import day_chart

CLAUDE_PROJECT = Path(__file__).resolve().parents[1] / "fixtures/agents/claude_code/project"
LONG_TITLED = "edge_cases"
MOST_STOPS = 100
"""More presses than the chain has stops (about 60 at 1280×800): past them, Tab is held."""
LEAST = 8
"""A stop's least visible width and height in pixels."""
ACTING = (QLineEdit, QComboBox, QAbstractButton, QAbstractItemView, TranscriptView)
"""What keys act on: typing, choosing, pressing, moving in a list, reading blocks."""


def _window(tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, size: tuple[int, int]) -> MainWindow:
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(db=[str(CLAUDE_PROJECT)], demo=False, session=LONG_TITLED, screenshot=None)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    wait_until_idle(window, tasks, 10)
    qtbot.waitUntil(lambda: window.header.native_id == LONG_TITLED, timeout=10_000)
    qtbot.waitUntil(lambda: window.transcript.rowCount() > 10, timeout=10_000)
    day_chart(window.usage_panel, qtbot)  # in the chain once pyqtgraph is imported
    wait_until_idle(window, tasks, 10)
    return window


def _describe(widget: QWidget) -> str:
    box = widget.visibleRegion().boundingRect()
    return f"{type(widget).__name__} {widget.objectName()!r} shown {box.width()}×{box.height()}"


def _outlined_block_shown(view: TranscriptView) -> bool:
    """The block that has the keyboard is outlined, and at least `LEAST` pixels of it are in
    the view."""
    chosen = view.navigator.focus
    root = view.rootObject()
    if chosen is None or root is None:
        return False
    block = root.blockAt(*chosen)  # type: ignore[attr-defined]
    if block is None:
        return False
    top = float(block.mapToItem(root, QPointF(0, 0)).y())
    return min(top + float(block.height()), root.height()) - max(top, 0.0) >= LEAST


def _stop_problem(widget: QWidget) -> str | None:
    """Why this Tab stop does nothing a person can see or use, or None."""
    if not widget.isVisible() or not widget.isEnabled():
        return "hidden or disabled"
    box = widget.visibleRegion().boundingRect()
    if box.width() < LEAST or box.height() < LEAST:
        return "too small on screen"
    if not isinstance(widget, ACTING):
        return "nothing acts on its keys"
    if isinstance(widget, QAbstractItemView) and widget.tabKeyNavigation():
        return "keeps Tab for its cells"
    if isinstance(widget, TranscriptView) and not _outlined_block_shown(widget):
        return "no block outlined on screen"
    return None


def _walk(window: MainWindow, qtbot: QtBot) -> tuple[list[str], list[QWidget]]:
    """Tab from the search box until it is back there: what is wrong with each stop, and the
    stops."""
    window.activateWindow()
    start = window.search_field
    start.setFocus(Qt.FocusReason.ShortcutFocusReason)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is start, timeout=5000)
    problems: list[str] = []
    seen: list[QWidget] = []
    for _ in range(MOST_STOPS):
        focused = QApplication.focusWidget()
        assert focused is not None
        QTest.keyClick(focused, Qt.Key.Key_Tab)
        QApplication.processEvents()
        now = QApplication.focusWidget()
        assert now is not None
        if now is start:
            return problems, seen
        seen.append(now)
        problem = _stop_problem(now)
        if problem is not None:
            problems.append(f"{_describe(now)}: {problem}")
    names = [type(widget).__name__ for widget in seen[-5:]]
    pytest.fail(f"Tab never came back to the search box; the last stops: {names}")


@pytest.mark.parametrize("size", [(1280, 800), (800, 600)])
def test_every_tab_stop_shows_and_does_something(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, size: tuple[int, int]
) -> None:
    window = _window(tmp_path, tasks, qtbot, size)
    problems, seen = _walk(window, qtbot)
    assert problems == []
    # The chain reaches every pane: the filters, the list, the transcript, the header, the
    # usage panel's controls.
    names = {type(widget).__name__ for widget in seen}
    for name in ("QComboBox", "SessionListView", "TranscriptView", "_Title", "QTableWidget"):
        assert name in names
    window.close()


WRITTEN = CLAUDE_PROJECT.parent / "written" / "2.1.47"
"""Claude Code 2.1.47's own session with a `Task` call, and its sub-agent's file."""


def test_the_way_back_from_a_sub_agent_is_a_tab_stop(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """A sub-agent opened from its parent's card: the Back line above its transcript is in the
    chain, and every stop still shows and does something."""
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    parent = "9900a45f-f488-45fe-911f-5c40ddaabd3c"
    args = Namespace(db=[f"claude-code={WRITTEN}"], demo=False, session=parent, screenshot=None)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    qtbot.waitUntil(lambda: window.transcript.rowCount() > 0, timeout=10_000)
    link = f"{SESSION_SCHEME}:agent-a2007cb"
    window.transcript_view.actions_for_qml.linkActivated(0, 0, link)
    qtbot.waitUntil(lambda: window.back_bar.isVisibleTo(window), timeout=5000)
    qtbot.waitUntil(lambda: window.transcript.rowCount() > 0, timeout=10_000)
    day_chart(window.usage_panel, qtbot)
    wait_until_idle(window, tasks, 10)
    problems, seen = _walk(window, qtbot)
    assert problems == []
    assert window.back_bar.button in seen
    window.close()


def test_shift_tab_into_the_transcript_outlines_a_block_on_screen(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """Back from the header's title, the last block on screen has the keyboard."""
    window = _window(tmp_path, tasks, qtbot, (1280, 800))
    title = window.header.title
    title.setFocus(Qt.FocusReason.ShortcutFocusReason)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is title, timeout=5000)
    QTest.keyClick(title, Qt.Key.Key_Backtab)
    QApplication.processEvents()
    view = window.transcript_view
    assert QApplication.focusWidget() is view
    assert _outlined_block_shown(view)
    window.close()


def test_the_session_list_shows_it_has_the_keyboard(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """Tab from the filters to the list changed nothing on screen: the current row looked the
    same with the keyboard and without. It is outlined now, as the transcript's block is."""
    window = _window(tmp_path, tasks, qtbot, (1280, 800))
    view = window.session_list
    row = view.visualRect(view.currentIndex())
    assert row.height() > LEAST

    def current_row() -> QImage:
        QApplication.processEvents()
        return view.viewport().grab(row).toImage()

    window.search_field.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(lambda: not view.hasFocus(), timeout=5000)
    without = current_row()
    view.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(view.hasFocus, timeout=5000)
    assert current_row() != without
    window.close()


def test_an_empty_transcript_is_no_tab_stop(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, make_db: Callable[..., GooseDb]
) -> None:
    """A session with no messages shows a sentence where its transcript would be: Tab stopped
    on it all the same, with nothing to outline. It goes on past, both ways."""
    db = make_db()
    db.add_session("blank", name="Nothing yet", updated_at="2026-01-02 00:00:00")
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(db=str(db.path), demo=False, session="blank", screenshot=None)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    qtbot.waitUntil(lambda: window.header.native_id == "blank", timeout=10_000)
    wait_until_idle(window, tasks, 10)
    assert window.transcript.rowCount() == 0
    problems, seen = _walk(window, qtbot)
    assert problems == []
    assert window.transcript_view not in seen
    title = window.header.title
    title.setFocus(Qt.FocusReason.ShortcutFocusReason)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is title, timeout=5000)
    QTest.keyClick(title, Qt.Key.Key_Backtab)
    QApplication.processEvents()
    assert QApplication.focusWidget() not in (None, window.transcript_view)
    window.close()


def test_tab_back_into_the_transcript_shows_the_block_it_left(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """The 4-px outline over the header: a block chosen, then scrolled up until one pixel of
    it is left under the header; Tab back into the transcript outlined it there, a strip
    along the header's edge. It is scrolled into view now."""
    window = _window(tmp_path, tasks, qtbot, (1280, 800))
    view = window.transcript_view
    root = view.rootObject()
    assert root is not None
    row = view.top_row() + 1
    qtbot.waitUntil(lambda: root.blockAt(row, 0) is not None, timeout=5000)  # type: ignore[attr-defined]
    block = root.blockAt(row, 0)  # type: ignore[attr-defined]
    bottom = block.mapToItem(root.property("contentItem"), QPointF(0, 0)).y() + block.height()
    view.navigator.choose(row, 0)
    root.setProperty("stickToEnd", False)
    root.setProperty("contentY", bottom - 1)
    QApplication.processEvents()
    assert not _outlined_block_shown(view)
    window.session_list.setFocus(Qt.FocusReason.ShortcutFocusReason)
    QTest.keyClick(window.session_list, Qt.Key.Key_Tab)
    QApplication.processEvents()
    assert QApplication.focusWidget() is view
    assert view.navigator.focus == (row, 0)  # the block it left, not another
    assert _outlined_block_shown(view)
    window.close()
