"""The menus and the toolbar are made from one table (`ui/actions.py`, #21 item 4): every row
is in its menu with its text, its shortcuts and whether it is checkable, the rows of other
objects' actions too, and the Sessions toolbar has the table's actions in its order."""

from argparse import Namespace
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QToolBar
from pytestqt.qtbot import QtBot

from desktop_app.app import build_window
from desktop_app.ui.actions import ACTIONS, TOOLBAR
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner


def _window(tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, *, can_open: bool) -> MainWindow:
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    callbacks = (
        {"open_database": lambda _path: None, "add_history": lambda _window, _path: None}
        if can_open
        else {}
    )
    window = build_window(
        Namespace(db=None, demo=True, session=None, screenshot=None),
        tmp_path / "data",
        settings,
        tasks,
        **callbacks,  # type: ignore[arg-type]
    )
    qtbot.addWidget(window)
    return window


def _menu(window: MainWindow, path: str) -> QMenu:
    """The menu at `path` (`&View/&Theme`), found by the titles a user sees."""
    actions = window.menuBar().actions()
    menu = None
    for title in path.split("/"):
        menu = next(a.menu() for a in actions if a.text() == title)
        assert isinstance(menu, QMenu), path
        actions = menu.actions()
    assert isinstance(menu, QMenu)
    return menu


def _keys(action: QAction) -> list[str]:
    return [key.toString() for key in action.shortcuts()]


def test_every_action_is_in_its_menu_with_its_shortcuts(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    window = _window(tmp_path, tasks, qtbot, can_open=True)
    assert set(window.actions_by_id) == {row.id for row in ACTIONS}
    for row in ACTIONS:
        action = window.actions_by_id[row.id]
        assert action in _menu(window, row.menu).actions(), row.id
        if row.text:
            assert (action.text(), action.isCheckable()) == (row.text, row.checkable), row.id
        if row.made_by and not row.keys:
            continue  # the shortcuts of the object that made it (checked below for some)
        expected = [QKeySequence(key).toString() for key in row.keys]
        assert _keys(action) == [key for key in expected if key], row.id
    window.close()


def test_menus_have_the_texts_and_shortcuts_people_know(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """What the help page and the tests name, read off the menus as a user sees them."""
    window = _window(tmp_path, tasks, qtbot, can_open=True)
    bar = [a.text() for a in window.menuBar().actions()]
    assert bar == ["&File", "&Edit", "&View", "&Help"]
    found = {
        a.text(): _keys(a)
        for title in bar
        for a in _menu(window, title).actions()
        if not a.isSeparator()
    }
    assert found["&Export session…"] == ["Ctrl+Shift+S"]
    assert found["&Search all sessions"] == ["Ctrl+K"]
    assert found["&Find in transcript…"] == ["Ctrl+F"]
    assert found["Show &agent-only messages"] == ["Ctrl+Shift+H"]
    assert found["Token usage"] == ["Ctrl+Shift+U"]
    assert found["&Rename…"] == ["F2"]
    assert found["&Back"] == ["Alt+Left", "Back"]
    assert found["&Prompts…"] == ["Ctrl+Shift+P"]
    focus = ("session &list", "&transcript", "token &usage")
    assert [found[f"Focus {name}"] for name in focus] == [["Ctrl+1"], ["Ctrl+2"], ["Ctrl+3"]]
    theme = [a.text() for a in _menu(window, "&View/&Theme").actions()]
    assert theme == ["&System", "&Light", "&Dark"]
    window.close()


def test_a_window_that_cannot_open_has_no_open_entries_and_no_leading_separator(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    window = _window(tmp_path, tasks, qtbot, can_open=False)
    file_menu = _menu(window, "&File")
    first = file_menu.actions()[0]
    assert not first.isSeparator()
    assert first.text() == "Coding &agents on this computer"
    assert not any(row.when and row.id in window.actions_by_id for row in ACTIONS)
    window.close()


def test_the_sessions_toolbar_has_the_search_field_then_the_tables_actions(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    window = _window(tmp_path, tasks, qtbot, can_open=True)
    toolbar = window.findChild(QToolBar, "sessions-toolbar")
    assert isinstance(toolbar, QToolBar)
    actions = toolbar.actions()
    assert toolbar.widgetForAction(actions[0]) is window.search_field
    assert actions[1:] == [window.actions_by_id[name] for name in TOOLBAR]
    window.close()
