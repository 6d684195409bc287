"""What a window shows first is asked for before the window is built: the worker reads the
change token and the list's first page while the GUI thread builds the window (the first rows
took 455–622 ms in `benchmarks.window` when they were asked for after it)."""

import gc
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from desktop_app import app
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.models.session_tree import SessionTreeModel
from desktop_app.ui.search_controller import SearchController
from desktop_app.ui.tasks import TaskRunner
from tests.gui.test_window import demo_window


def test_the_first_page_is_asked_for_before_the_window_is_built(
    tmp_path: Any, tasks: TaskRunner, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    request = SessionTreeModel._request_page

    def requesting(model: SessionTreeModel) -> None:
        asked.append("first page")
        request(model)

    build = MainWindow.__init__

    def building(window: MainWindow, *args: Any, **kwargs: Any) -> None:
        asked.append("window")
        build(window, *args, **kwargs)

    monkeypatch.setattr(SessionTreeModel, "_request_page", requesting)
    monkeypatch.setattr(MainWindow, "__init__", building)
    window, _settings = demo_window(tmp_path, tasks, qtbot)
    qtbot.waitUntil(lambda: window.sessions.rowCount() > 0, timeout=10_000)
    assert asked[:2] == ["first page", "window"]
    window.close()


def test_what_start_up_made_is_frozen_before_the_index_first_updates(
    tmp_path: Any, tasks: TaskRunner, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index's build triggers full collections on its thread, which walked every object
    start-up made (30–45 ms stalls, #19): they are frozen first, before the first update —
    and only once, so later updates (every live change) keep nothing more from collection."""
    events: list[str] = []

    def freeze() -> None:
        events.append("freeze")

    def updating(controller: SearchController) -> None:
        events.append("update")
        update(controller)

    monkeypatch.setattr(gc, "freeze", freeze)
    app._freeze_start_up.cache_clear()
    app._freeze_settled.cache_clear()
    update = SearchController.update
    monkeypatch.setattr(SearchController, "update", updating)
    monkeypatch.setattr(app, "INDEX_START_DELAY_MS", 0)
    window, _settings = demo_window(tmp_path, tasks, qtbot)
    qtbot.waitUntil(lambda: "update" in events, timeout=10_000)
    window.search.update()
    assert events[:4] == ["freeze", "freeze", "update", "update"]
    assert events.count("freeze") == 2
    qtbot.waitUntil(lambda: not window.search.updating, timeout=20_000)
    window.close()
