"""Open sub-agent shows its transcript in place, with a way back to the card it was opened from
(#19 item 3): on the session Claude Code 2.1.47 wrote, its `Task` call and its sub-agent's file
(`tests/fixtures/agents/claude_code/written/2.1.47`, see the folder's README)."""

from argparse import Namespace
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QPointF, QSettings, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_app.app import build_window
from desktop_app.rendering.transcript_blocks import SESSION_SCHEME
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.roles import MessageRole
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from tests.fixtures.goose_db import GooseDb
from tests.gui.conftest import render_all

WRITTEN = Path(__file__).resolve().parents[1] / "fixtures" / "agents" / "claude_code" / "written"
VERSION = "2.1.47"
PARENT = "9900a45f-f488-45fe-911f-5c40ddaabd3c"
SUB_AGENT = "agent-a2007cb"


def _window(folder: Path, tmp_path: Path, tasks: TaskRunner, qtbot: QtBot) -> MainWindow:
    """The parent session open in a window short enough that it does not fit."""
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(db=[f"claude-code={folder}"], demo=False, session=PARENT)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.resize(1100, 560)
    window.show()
    qtbot.waitUntil(lambda: window.transcript.rowCount() > 0, timeout=10_000)
    return window


def _task_card(window: MainWindow, qtbot: QtBot) -> tuple[int, list[dict[str, object]]]:
    """The row of the Task's result, which holds the sub-agent's link, and its blocks."""
    render_all(window.transcript, qtbot)
    model = window.transcript
    for row in range(model.rowCount()):
        blocks = model.index(row).data(MessageRole.BLOCKS)
        if any(f"{SESSION_SCHEME}:{SUB_AGENT}" in str(block["html"]) for block in blocks):
            return row, blocks
    raise AssertionError("no link to the sub-agent")


def _in_view(window: MainWindow, row: int) -> bool:
    view = window.transcript_view
    return view.top_row() <= row <= view.bottom_row()


def _open_sub_agent(window: MainWindow, qtbot: QtBot) -> int:
    """Scroll the parent to the Task's result and follow its link, as a reader does."""
    row, _blocks = _task_card(window, qtbot)
    model, view = window.transcript, window.transcript_view
    root = view.rootObject()
    assert root is not None
    root.showRowAtTop(row - 1)  # type: ignore[attr-defined]  # the Task call's row at the top
    qtbot.waitUntil(lambda: _in_view(window, row), timeout=5000)
    assert view.bottom_row() < model.rowCount() - 1  # the session's end is not in view
    view.actions_for_qml.linkActivated(row, 0, f"{SESSION_SCHEME}:{SUB_AGENT}")
    qtbot.waitUntil(lambda: window.back_bar.isVisibleTo(window), timeout=5000)
    return row


def _parent_back_at(window: MainWindow, qtbot: QtBot, row: int) -> None:
    """The parent is shown again with the card that was clicked in view, not at the session's
    end."""
    qtbot.waitUntil(lambda: window.transcript.session_id == PARENT, timeout=5000)
    qtbot.waitUntil(lambda: _in_view(window, row), timeout=5000)
    view, model = window.transcript_view, window.transcript
    assert view.bottom_row() < model.rowCount() - 1


def test_the_task_card_names_the_sub_agent_it_opens_and_shows_its_final_answer(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """The link is a line of its own, in view without opening the result, and says which
    session it opens; the result below it is the sub-agent's final answer."""
    window = _window(WRITTEN / VERSION, tmp_path, tasks, qtbot)
    _row, blocks = _task_card(window, qtbot)
    link, result = blocks[0], blocks[1]
    assert not link["collapsible"]
    assert f"Open the sub-agent's transcript ({SUB_AGENT})</a>" in str(link["html"])
    assert str(result["title"]).startswith("Result · Sub-agent: Count the handlers")
    assert str(result["preview"]).startswith("There are 2 handlers in app/handlers.py.")
    window.close()


def test_open_sub_agent_then_alt_left_returns_to_the_card_and_alt_right_goes_forward(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    window = _window(WRITTEN / VERSION, tmp_path, tasks, qtbot)
    row = _open_sub_agent(window, qtbot)
    assert window.transcript.session_id == SUB_AGENT
    assert window.transcript.rowCount() > 0  # its transcript, in place
    assert window.link_prompt is None
    # The list follows (header, usage and actions follow the selection).
    qtbot.waitUntil(
        lambda: (
            window.session_list.currentIndex().data(Qt.ItemDataRole.DisplayRole) is not None
            and window.header.session is not None
            and window.header.session.id == SUB_AGENT
        ),
        timeout=5000,
    )
    bar = window.back_bar
    assert bar.isVisibleTo(window)
    assert bar.full_text.startswith("← Back to “")
    assert window.history.back_action.isEnabled()
    view = window.transcript_view
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    QTest.keyClick(view, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    _parent_back_at(window, qtbot, row)
    assert not bar.isVisibleTo(window)  # the parent was opened by hand, not by a link
    assert window.history.forward_action.isEnabled()
    QTest.keyClick(view, Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: window.transcript.session_id == SUB_AGENT, timeout=5000)
    qtbot.waitUntil(lambda: bar.isVisibleTo(window), timeout=5000)
    window.close()


def test_the_back_line_and_the_mouse_back_button_return_to_the_card(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    window = _window(WRITTEN / VERSION, tmp_path, tasks, qtbot)
    row = _open_sub_agent(window, qtbot)
    window.back_bar.button.click()
    _parent_back_at(window, qtbot, row)
    row = _open_sub_agent(window, qtbot)
    view = window.transcript_view
    middle = QPointF(view.width() / 2, view.height() / 2)
    for kind in (QMouseEvent.Type.MouseButtonPress, QMouseEvent.Type.MouseButtonRelease):
        press = QMouseEvent(
            kind,
            middle,
            view.mapToGlobal(middle),
            Qt.MouseButton.BackButton,
            Qt.MouseButton.BackButton
            if kind == QMouseEvent.Type.MouseButtonPress
            else Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier,
        )
        QApplication.sendEvent(view, press)
    _parent_back_at(window, qtbot, row)
    window.close()


def test_a_session_chosen_in_the_list_is_a_place_back_returns_from(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """Back works like a browser's: the sub-agent chosen by hand in the list, then Back."""
    window = _window(WRITTEN / VERSION, tmp_path, tasks, qtbot)
    sessions = window.sessions
    qtbot.waitUntil(lambda: sessions.find_session(PARENT).isValid(), timeout=5000)
    window.session_list.expand(sessions.find_session(PARENT))
    qtbot.waitUntil(lambda: sessions.find_session(SUB_AGENT).isValid(), timeout=5000)
    window.session_list.setCurrentIndex(sessions.find_session(SUB_AGENT))
    qtbot.waitUntil(window.history.back_action.isEnabled, timeout=5000)
    assert window.transcript.session_id == SUB_AGENT
    assert not window.back_bar.isVisibleTo(window)  # not reached by a link: the keys only
    window.history.back_action.trigger()
    qtbot.waitUntil(lambda: window.transcript.session_id == PARENT, timeout=5000)
    qtbot.waitUntil(
        lambda: window.session_list.currentIndex() == sessions.find_session(PARENT), timeout=5000
    )
    window.close()


def test_a_place_whose_session_is_gone_is_skipped_with_one_sentence(
    make_db: Callable[..., GooseDb], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """goose deleted the session Back would go to: it is skipped, and the status bar says so
    in one sentence."""
    goose = make_db()
    for session_id, name in (("a", "The first chat"), ("b", "The second chat")):
        goose.add_session(session_id, name=name)
        goose.add_message(session_id, content=f"hello from {name}")
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(db=[str(goose.path)], demo=False, session="a")
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.transcript.rowCount() > 0, timeout=10_000)
    window.open_session("b")
    qtbot.waitUntil(window.history.back_action.isEnabled, timeout=5000)
    goose.execute("DELETE FROM messages WHERE session_id = 'a'")
    goose.execute("DELETE FROM sessions WHERE id = 'a'")
    window.history.back_action.trigger()
    qtbot.waitUntil(
        lambda: "no longer in the history" in window.statusBar().currentMessage(), timeout=5000
    )
    assert window.statusBar().currentMessage() == (
        "Skipped “The first chat”: it is no longer in the history."
    )
    qtbot.waitUntil(lambda: window.transcript.rowCount() > 0, timeout=5000)
    assert window.transcript.session_id == "b"
    assert not window.history.back_action.isEnabled()
    window.close()


def _goose_window(
    make_db: Callable[..., GooseDb], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, rows: int
) -> tuple[MainWindow, GooseDb]:
    """Three goose chats of `rows` messages each, "a" open."""
    goose = make_db()
    for session_id in ("a", "b", "c"):
        goose.add_session(session_id, name=f"Chat {session_id}")
        for number in range(rows):
            goose.add_message(
                session_id,
                "user" if number % 2 == 0 else "assistant",
                f"message {number} of {session_id}",
                created=1767323045 + number,
            )
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(db=[str(goose.path)], demo=False, session="a")
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.resize(1100, 560)
    window.show()
    qtbot.waitUntil(lambda: window.transcript.rowCount() > 0, timeout=10_000)
    return window, goose


def _go_to(window: MainWindow, qtbot: QtBot, session_id: str) -> None:
    window.open_session(session_id)
    qtbot.waitUntil(
        lambda: (
            (current := window.history.history.current) is not None
            and current.session_id == session_id
        ),
        timeout=5000,
    )


def test_back_twice_at_once_keeps_where_the_middle_session_was_left(
    make_db: Callable[..., GooseDb], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """Back pressed again before the session Back went to has opened: Forward later returns
    to it where it was left (its top), not to its end."""
    window, _goose = _goose_window(make_db, tmp_path, tasks, qtbot, rows=40)
    _go_to(window, qtbot, "b")
    view = window.transcript_view
    root = view.rootObject()
    assert root is not None
    root.showRowAtTop(0)  # type: ignore[attr-defined]
    qtbot.waitUntil(lambda: view.top_row() == 0, timeout=5000)
    _go_to(window, qtbot, "c")
    window.history.back_action.trigger()
    window.history.back_action.trigger()  # b has not opened yet
    qtbot.waitUntil(
        lambda: (
            (current := window.history.history.current) is not None
            and current.session_id == "a"
            and window.transcript.rowCount() > 0
        ),
        timeout=5000,
    )
    window.history.forward_action.trigger()
    qtbot.waitUntil(lambda: window.transcript.session_id == "b", timeout=5000)
    qtbot.waitUntil(lambda: window.transcript.rowCount() > 0, timeout=5000)
    qtbot.waitUntil(lambda: view.top_row() == 0 and view.bottom_row() > 0, timeout=5000)
    assert view.bottom_row() < window.transcript.rowCount() - 1
    window.close()
