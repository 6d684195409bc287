"""Rename, archive and undo through the window change the database row exactly as goose would."""

from argparse import Namespace
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QItemSelectionModel, QSettings, Qt
from PySide6.QtGui import QUndoCommand
from PySide6.QtWidgets import QApplication, QToolBar
from pytestqt.qtbot import QtBot

from desktop_app.app import build_window
from desktop_app.domain.session import Session
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.roles import SessionRole
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from tests.fixtures.goose_db import GooseDb
from tests.unit.test_writes import changed_columns, snapshot


@pytest.fixture
def goose(make_db: Callable[..., GooseDb]) -> GooseDb:
    db = make_db()
    for i, sid in enumerate(("a", "b", "c")):
        db.add_session(sid, name=f"name {sid}", updated_at=f"2026-01-0{i + 1} 00:00:00")
        db.add_message(sid, content=f"hello {sid}", created=1767323045 + i * 100)
    return db


@pytest.fixture
def window(goose: GooseDb, tmp_path: Path, tasks: TaskRunner, qtbot: QtBot) -> Iterator[MainWindow]:
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(db=goose.path, demo=False, session=None, screenshot=None)
    built = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(built)
    built.show()
    qtbot.waitUntil(lambda: built.transcript.session_id is not None, timeout=10_000)
    yield built
    built.close()


def row_of(window: MainWindow, session_id: str) -> Session:
    session = window.sessions.find_session(session_id).data(SessionRole.SESSION)
    assert isinstance(session, Session)
    return session


def select(window: MainWindow, *session_ids: str) -> None:
    selection = window.session_list.selectionModel()
    selection.clearSelection()
    for session_id in session_ids:
        selection.select(
            window.sessions.find_session(session_id), QItemSelectionModel.SelectionFlag.Select
        )


def test_inline_rename_and_undo(window: MainWindow, goose: GooseDb, qtbot: QtBot) -> None:
    before = snapshot(goose.path)
    index = window.sessions.find_session("b")
    assert window.sessions.flags(index) & Qt.ItemFlag.ItemIsEditable
    window.sessions.setData(index, "  Better name ")
    qtbot.waitUntil(lambda: row_of(window, "b").name == "Better name", timeout=5000)
    after = snapshot(goose.path)
    assert changed_columns(before, after) == {
        ("sessions", 1): {"name", "user_set_name", "updated_at"}
    }
    assert after["sessions"][1]["name"] == "Better name"
    assert window.session_actions.undo.isEnabled()
    assert after["sessions"][1]["user_set_name"] == 1
    # The status bar says what was done, beside an Undo button.
    qtbot.waitUntil(
        lambda: window.statusBar().currentMessage() == "Renamed “name b” to “Better name”.",
        timeout=5000,
    )
    assert window.status.undo_button.isVisible()
    assert window.status.undo_button.defaultAction() is window.session_actions.undo
    window.status.undo_button.click()
    qtbot.waitUntil(lambda: row_of(window, "b").name == "name b", timeout=5000)
    undone = snapshot(goose.path)
    assert undone["sessions"][1]["name"] == "name b"
    qtbot.waitUntil(
        lambda: window.statusBar().currentMessage().startswith("Undid: Rename “name b”"),
        timeout=5000,
    )
    # Exactly what was there: goose had named it, and goose goes on naming it (`user_set_name`
    # stayed 1 before, so goose's auto-naming stopped for good after an undone rename).
    assert undone["sessions"][1]["user_set_name"] == before["sessions"][1]["user_set_name"] == 0
    assert changed_columns(before, undone) == {("sessions", 1): {"updated_at"}}
    window.session_actions.redo.trigger()
    qtbot.waitUntil(lambda: row_of(window, "b").name == "Better name", timeout=5000)
    assert snapshot(goose.path)["sessions"][1]["user_set_name"] == 1


def test_undoing_a_rename_of_a_name_a_person_gave_keeps_it_theirs(
    make_db: Callable[..., GooseDb], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    db = make_db()
    db.add_session("p", name="mine", user_set_name=1)
    db.add_message("p", content="hello")
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(db=db.path, demo=False, session="p", screenshot=None)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.sessions.find_session("p").isValid(), timeout=10_000)
    window.sessions.setData(window.sessions.find_session("p"), "other")
    qtbot.waitUntil(lambda: row_of(window, "p").name == "other", timeout=5000)
    window.session_actions.undo.trigger()
    qtbot.waitUntil(lambda: row_of(window, "p").name == "mine", timeout=5000)
    assert snapshot(db.path)["sessions"][0]["user_set_name"] == 1
    window.close()


def test_bulk_archive_hides_rows_and_undo_brings_them_back(
    window: MainWindow, goose: GooseDb, qtbot: QtBot
) -> None:
    before = snapshot(goose.path)
    select(window, "a", "c")
    assert window.session_actions.archive.isEnabled()
    assert not window.session_actions.unarchive.isEnabled()
    window.session_actions.archive.trigger()
    qtbot.waitUntil(lambda: not window.sessions.find_session("a").isValid(), timeout=5000)
    qtbot.waitUntil(lambda: not window.sessions.find_session("c").isValid(), timeout=5000)
    assert window.sessions.find_session("b").isValid()
    changes = changed_columns(before, snapshot(goose.path))
    assert changes == {
        ("sessions", 0): {"archived_at", "updated_at"},
        ("sessions", 2): {"archived_at", "updated_at"},
    }
    assert window.statusBar().currentMessage() == "Archived 2 sessions."
    window.session_actions.undo.trigger()
    qtbot.waitUntil(lambda: window.sessions.find_session("a").isValid(), timeout=5000)
    qtbot.waitUntil(lambda: window.sessions.find_session("c").isValid(), timeout=5000)
    rows = snapshot(goose.path)["sessions"]
    assert rows[0]["archived_at"] is None
    assert rows[2]["archived_at"] is None


def test_read_only_database_disables_writes_with_the_reason(
    goose: GooseDb, tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    goose.close()
    goose.path.chmod(0o444)
    try:
        settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
        args = Namespace(db=goose.path, demo=False, session=None, screenshot=None)
        window = build_window(args, tmp_path / "data", settings, tasks)
        qtbot.addWidget(window)
        qtbot.waitUntil(lambda: window.transcript.session_id is not None, timeout=10_000)
        select(window, "a")
        actions = window.session_actions
        assert not actions.rename.isEnabled()
        assert not actions.archive.isEnabled()
        assert "read-only" in actions.archive.toolTip()
        index = window.sessions.find_session("a")
        assert not window.sessions.flags(index) & Qt.ItemFlag.ItemIsEditable
        window.close()
    finally:
        goose.path.chmod(0o644)


def test_lock_held_too_long_reports_and_changes_nothing(
    window: MainWindow, goose: GooseDb, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = window.editor._writer  # the real GooseSource behind the window
    monkeypatch.setattr(source, "_busy_timeout_s", 0.2)
    before = snapshot(goose.path)
    goose.conn.execute("BEGIN IMMEDIATE")
    try:
        select(window, "b")
        window.session_actions.archive.trigger()
        qtbot.waitUntil(lambda: window.writes.last_message is not None, timeout=10_000)
    finally:
        goose.conn.execute("ROLLBACK")
    assert (
        window.writes.last_message
        == "goose kept the database locked; nothing was changed. Try again."
    )
    assert snapshot(goose.path) == before
    assert window.sessions.find_session("b").isValid()
    assert not window.session_actions.undo.isEnabled()


def test_a_rename_shows_in_the_status_bar_and_the_usage_panel(
    window: MainWindow, qtbot: QtBot
) -> None:
    """#10 item 7 (the status bar and the usage panel kept the old name), and item 8: a
    300-character name neither floods the status bar nor widens the usage panel."""
    opened = window.transcript.session_id
    assert opened is not None
    index = window.sessions.find_session(opened)
    session = index.data(SessionRole.SESSION)
    assert isinstance(session, Session)
    panel_width = window.usage_panel.sizeHint().width()
    long_name = "A very long name " * 17 + "שלום"  # 300+ characters, right-to-left at the end
    window.editor.rename(session, long_name)
    qtbot.waitUntil(
        lambda: "A very long name" in window.status.session_label.full_text, timeout=5000
    )
    label = window.status.session_label.full_text
    assert len(label) < 100
    assert window.status.session_label.toolTip() == long_name.strip()
    qtbot.waitUntil(
        lambda: "A very long name" in window.usage_panel._session_box.toolTip(),
        timeout=5000,
    )
    assert window.usage_panel.sizeHint().width() <= panel_width + 40
    window.editor.rename(
        window.sessions.find_session(opened).data(SessionRole.SESSION), "Short and new"
    )
    qtbot.waitUntil(lambda: "Short and new" in window.status.session_label.full_text, timeout=5000)
    qtbot.waitUntil(
        lambda: "Short and new" in window.usage_panel._session_box.toolTip(),
        timeout=5000,
    )


def test_toolbar_buttons_are_icons_with_shortcut_tooltips(window: MainWindow, qtbot: QtBot) -> None:
    """#10 item 6: the Undo button named what it would undo and pushed the filters out."""
    toolbar = window.findChild(QToolBar, "sessions-toolbar")
    assert toolbar is not None
    assert toolbar.toolButtonStyle() == Qt.ToolButtonStyle.ToolButtonIconOnly
    actions = window.session_actions
    assert all(not a.icon().isNull() for a in (actions.archive, actions.unarchive, actions.undo))
    assert "Ctrl+E" in actions.archive.toolTip()
    undo_button = toolbar.widgetForAction(actions.undo)
    width = undo_button.sizeHint().width()
    opened = window.transcript.session_id
    assert opened is not None
    session = window.sessions.find_session(opened).data(SessionRole.SESSION)
    window.editor.rename(session, "A rather long new name for this session " * 3)
    qtbot.waitUntil(actions.undo.isEnabled, timeout=5000)
    assert "Undo Rename" in actions.undo.toolTip()
    assert "Ctrl+Z" in actions.undo.toolTip()
    assert undo_button.sizeHint().width() == width
    assert window.filter_bar.isVisible()


def test_deleting_the_window_raises_nothing(
    make_db: Callable[..., GooseDb], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """The undo stack says its text changed while the window is deleted, after the Undo
    action is gone: its tooltip was set on a deleted action (a RuntimeError at every exit)."""
    db = make_db()
    db.add_session("s1", name="one")
    db.add_message("s1", "user", "hi")
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(db=[str(db.path)], demo=False, session="s1", screenshot=None)
    window = build_window(args, tmp_path / "data", settings, tasks)
    window.show()
    window.editor.undo_stack.push(QUndoCommand("rename"))
    window.close()
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QApplication.processEvents()
