"""Reaching the end of a long session list by keyboard and wheel (#20 item 7): every way to the
bottom loads the next page, and End goes to the true end. Before, the view asked whether to
fetch before it painted the last rows, so End, Page Down, Down and the wheel stopped at every
200-session page."""

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from functools import partial

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from desktop_app.domain.source import SessionQuery
from desktop_app.sources.goose import GooseSource
from desktop_app.ui.models.session_tree import PAGE_SIZE, SessionTreeModel
from desktop_app.ui.roles import SessionRole
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.widgets.session_list import SessionListView
from tests.fixtures.goose_db import GooseDb

SESSIONS = PAGE_SIZE * 4 + 17
NOW = datetime(2026, 11, 30, 15, 0, tzinfo=UTC)


@pytest.fixture
def listed(
    make_db: Callable[..., GooseDb], tasks: TaskRunner, qtbot: QtBot
) -> Iterator[tuple[SessionListView, SessionTreeModel]]:
    db = make_db()
    for n in range(SESSIONS):
        when = (NOW - timedelta(hours=n)).strftime("%Y-%m-%d %H:%M:%S")
        db.add_session(f"s{n:05d}", name=f"session {n}", updated_at=when)
    source = GooseSource(db.path)
    model = SessionTreeModel(source, tasks, SessionQuery(), clock=lambda: NOW)
    view = SessionListView()
    qtbot.addWidget(view)
    view.setModel(model)
    view.resize(360, 500)
    view.show()
    with qtbot.waitSignal(model.populated, timeout=5000):
        model.reload()
    view.setCurrentIndex(model.first_session())
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    yield view, model
    source.close()


def _current_session(view: SessionListView) -> str:
    session = view.currentIndex().data(SessionRole.SESSION)
    return session.id if session is not None else ""


def test_end_goes_to_the_true_end(
    listed: tuple[SessionListView, SessionTreeModel], qtbot: QtBot
) -> None:
    view, model = listed
    assert model.session_count == PAGE_SIZE
    QTest.keyClick(view, Qt.Key.Key_End)
    qtbot.waitUntil(lambda: model.complete, timeout=20_000)
    qtbot.waitUntil(lambda: _current_session(view) == f"s{SESSIONS - 1:05d}", timeout=5000)
    assert model.session_count == SESSIONS
    # The last row is on screen.
    assert view.viewport().rect().intersects(view.visualRect(view.currentIndex()))


@pytest.mark.parametrize("key", [Qt.Key.Key_PageDown, Qt.Key.Key_Down])
def test_page_down_and_down_keep_loading(
    listed: tuple[SessionListView, SessionTreeModel], qtbot: QtBot, key: Qt.Key
) -> None:
    """Held down (pressed many times), each key walks on past the end of a page."""
    view, model = listed
    target = f"s{PAGE_SIZE + 5:05d}"
    presses = 0
    while _current_session(view) < target and presses < SESSIONS * 3:
        QTest.keyClick(view, key)
        presses += 1
        qtbot.wait(1)
    assert _current_session(view) >= target
    assert model.session_count > PAGE_SIZE


def _more_than(model: SessionTreeModel, count: int) -> bool:
    return model.session_count > count


def test_the_wheel_at_the_bottom_loads_the_next_page(
    listed: tuple[SessionListView, SessionTreeModel], qtbot: QtBot
) -> None:
    view, model = listed
    bar = view.verticalScrollBar()
    for _ in range(3):
        before = model.session_count
        bar.setValue(bar.maximum())
        qtbot.waitUntil(partial(_more_than, model, before), timeout=5000)
    assert model.session_count >= PAGE_SIZE * 4
