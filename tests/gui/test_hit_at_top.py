"""A search hit opens AT its message: found driving the demo (Ctrl+K, "webhook retry", Enter on
"One failure…"), the words in a 416-line pytest output above the hit opened that output, and
the view landed inside it instead of on the hit. The hit's row is the view's top row once the
view has settled, at 1280×800 and 800×600, whether its session was open already or not."""

from argparse import Namespace
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, QSettings, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_app.app import build_window
from desktop_app.domain.search import SearchHit
from desktop_app.domain.session import Session
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.roles import MessageRole, SessionRole
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.widgets.search_results import HIT_ROLE

QUERY = "webhook retry"
MARK = "ffe066"


def _window(tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, size: tuple[int, int]) -> MainWindow:
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(db=None, demo=True, session=None, screenshot=None)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    with qtbot.waitSignal(window.search.ready, timeout=30_000):
        pass
    qtbot.waitUntil(lambda: window.transcript.rowCount() > 0, timeout=10_000)
    return window


def _hits(window: MainWindow, qtbot: QtBot) -> list[SearchHit]:
    window.search_field.focus_and_select()
    with qtbot.waitSignal(window.search.results, timeout=5000):
        QTest.keyClicks(window.search_field, QUERY)
    model = window.search_results.results_model
    found: list[SearchHit] = []
    for group in range(model.rowCount()):
        parent = model.index(group, 0)
        for row in range(model.rowCount(parent)):
            hit = model.index(row, 0, parent).data(HIT_ROLE)
            if isinstance(hit, SearchHit):
                found.append(hit)
    return found


def _one_failure(window: MainWindow, qtbot: QtBot) -> SearchHit:
    return next(h for h in _hits(window, qtbot) if h.snippet.startswith("One failure"))


def _row_of(window: MainWindow, qtbot: QtBot, hit: SearchHit) -> int:
    cursor = hit.cursor
    assert cursor is not None
    qtbot.waitUntil(lambda: window.transcript.session_id == hit.session_id, timeout=5000)
    qtbot.waitUntil(lambda: window.transcript.row_of(cursor) >= 0, timeout=5000)
    return window.transcript.row_of(cursor)


def _below_top(window: MainWindow) -> int:
    """How far the top row's card starts above the view's top edge (0: at it or below)."""
    root = window.transcript_view.rootObject()
    assert root is not None
    return int(root.topOffset())  # type: ignore[attr-defined]


def _settled_at_top(window: MainWindow, qtbot: QtBot, row: int) -> None:
    view = window.transcript_view
    qtbot.waitUntil(lambda: view.top_row() == row, timeout=5000)
    qtbot.wait(500)  # rows around it render and grow meanwhile
    assert view.top_row() == row, (row, view.top_row(), view.bottom_row())
    assert _below_top(window) == 0, "the hit's card starts at the view's top edge"


def _tall_output_above(window: MainWindow, row: int) -> tuple[int, int]:
    """The tool output above the hit that holds the words: (row, block)."""
    model = window.transcript
    for above in range(row - 1, -1, -1):
        blocks = model.index(above).data(MessageRole.BLOCKS) or []
        for number, block in enumerate(blocks):
            if (
                block["collapsible"]
                and MARK in block["html"]
                and "test session starts" in block["html"]
            ):
                return above, number
    raise AssertionError("the demo's pytest output above the hit")


@pytest.mark.parametrize("size", [(1280, 800), (800, 600)])
def test_a_hit_opens_at_its_message_not_in_the_output_above_it(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, size: tuple[int, int]
) -> None:
    window = _window(tmp_path, tasks, qtbot, size)
    hit = _one_failure(window, qtbot)
    model = window.sessions
    listed = [model.index(r, 0).data(SessionRole.SESSION) for r in range(model.rowCount())]
    other = next(s for s in listed if isinstance(s, Session) and s.id != hit.session_id)
    window.open_session(other.id)  # the hit's session is not open: it opens at the hit
    qtbot.waitUntil(lambda: window.transcript.session_id == other.id, timeout=5000)
    window.searching.open_hit(hit)
    row = _row_of(window, qtbot, hit)
    _settled_at_top(window, qtbot, row)
    qtbot.waitUntil(
        lambda: bool(window.transcript.index(row).data(MessageRole.LOADED)), timeout=5000
    )
    own = window.transcript.index(row).data(MessageRole.BLOCKS)
    assert any(MARK in b["html"] for b in own), "the hit's own words are highlighted"
    above, number = _tall_output_above(window, row)
    output = window.transcript.index(above).data(MessageRole.BLOCKS)[number]
    assert output["collapsed"], "the output above stays closed"
    assert "matches</span>" in output["title_html"], "its title says it holds the words"

    window.searching.open_hit(hit)  # again, its session open: the repro's own path
    _settled_at_top(window, qtbot, row)
    window.close()


def test_a_hit_whose_words_are_in_its_closed_output_opens_that_output(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    window = _window(tmp_path, tasks, qtbot, (1280, 800))
    hit = next(h for h in _hits(window, qtbot) if h.role == "tool" and "PASSED" in h.snippet)
    window.searching.open_hit(hit)
    row = _row_of(window, qtbot, hit)
    _settled_at_top(window, qtbot, row)
    blocks = window.transcript.index(row).data(MessageRole.BLOCKS)
    marked = [b for b in blocks if MARK in b["html"] and b["collapsible"]]
    assert marked
    assert not any(b["collapsed"] for b in marked)
    window.close()


def test_the_wheel_lets_the_hit_go(tmp_path: Path, tasks: TaskRunner, qtbot: QtBot) -> None:
    """Pinned, the hit would come back each time a row rendered while the reader scrolled."""
    window = _window(tmp_path, tasks, qtbot, (1280, 800))
    hit = _one_failure(window, qtbot)
    window.searching.open_hit(hit)
    row = _row_of(window, qtbot, hit)
    _settled_at_top(window, qtbot, row)
    view = window.transcript_view
    root = view.rootObject()
    assert root is not None
    assert root.property("pinnedRow") == row
    pinned_at = float(root.property("contentY"))
    centre = QPointF(view.width() / 2, view.height() / 2)
    for _ in range(3):
        wheel = QWheelEvent(
            centre,
            view.mapToGlobal(centre),
            QPoint(0, 0),
            QPoint(0, -120),
            Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier,
            Qt.ScrollPhase.NoScrollPhase,
            False,
        )
        QApplication.sendEvent(view, wheel)
        qtbot.wait(50)
    qtbot.waitUntil(lambda: float(root.property("contentY")) > pinned_at + 10, timeout=5000)
    assert root.property("pinnedRow") == -1
    window.transcript.set_all_expanded(True)  # the rows change height: nothing pulls it back
    qtbot.wait(300)
    assert float(root.property("contentY")) > pinned_at + 10
    window.close()


def test_a_find_in_a_long_output_shows_the_match_not_only_the_outputs_top(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """Ctrl+F "test_webhook_retry", 1 of 2: the match is on line 414 of the opened output, far
    below the view when the message's top is at the top of it."""
    window = _window(tmp_path, tasks, qtbot, (1280, 800))
    window.find_bar.open_bar()
    with qtbot.waitSignal(window.finder.show_row, timeout=5000):
        window.find_bar.field.setText("test_webhook_retry")
    with qtbot.waitSignal(window.finder.show_row, timeout=5000) as shown:
        window.finder.previous()
    assert window.find_bar.status.text() == "1 of 2 messages"
    row = shown.args[0]
    view = window.transcript_view
    qtbot.waitUntil(lambda: _below_top(window) > view.height(), timeout=5000)
    qtbot.wait(300)
    assert view.top_row() == row
    assert _below_top(window) > view.height()
    window.close()
