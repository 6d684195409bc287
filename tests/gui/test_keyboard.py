"""The transcript by keyboard (#10 item 13): Tab moves between blocks and out past the last,
Enter and Space open and close the block that has the keyboard, View ▸ Expand all / Collapse
all act on every message, and N / P jump between prompts — also to ones not yet read."""

from argparse import Namespace
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from desktop_app.app import build_window, wait_until_idle
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.roles import MessageRole
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from tests.fixtures.goose_db import GooseDb

FILLER = 260
"""Messages between the two prompts: far more than one rendered page (40)."""


def _call(call_id: str) -> dict[str, Any]:
    return {
        "type": "toolRequest",
        "id": call_id,
        "toolCall": {
            "status": "success",
            "value": {"name": "developer__shell", "arguments": {"command": "ls"}},
        },
    }


def _result(call_id: str) -> dict[str, Any]:
    items = [{"type": "text", "text": "file1.py\nfile2.py"}]
    return {
        "type": "toolResponse",
        "id": call_id,
        "toolResult": {"status": "success", "value": {"content": items, "isError": False}},
    }


def _db(make_db: Callable[..., GooseDb]) -> GooseDb:
    """One session: a prompt, a long run of tool calls and results, a second prompt, a reply.
    Tool results are `user` messages in goose; N and P must pass over them."""
    db = make_db()
    db.add_session("s1", name="Long tool run")
    at = 1767323000
    db.add_message("s1", "user", "first prompt", created=at)
    for n in range(FILLER // 2):
        db.add_message("s1", "assistant", [_call(f"c{n}")], created=at + 1 + 2 * n)
        db.add_message("s1", "user", [_result(f"c{n}")], created=at + 2 + 2 * n)
    db.add_message("s1", "user", "second prompt", created=at + FILLER + 1)
    db.add_message("s1", "assistant", "done", created=at + FILLER + 2)
    return db


def _window(db: GooseDb, tmp_path: Path, tasks: TaskRunner, qtbot: QtBot) -> MainWindow:
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    # Block by block: the run of tool calls is not folded into one line here (that is
    # tests/gui/test_transcript_shaping.py's).
    settings.group_tools = False
    args = Namespace(db=[str(db.path)], demo=False, session="s1", screenshot=None)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.resize(1200, 800)
    window.show()
    qtbot.waitUntil(lambda: window.transcript.rowCount() == FILLER + 3, timeout=10_000)
    wait_until_idle(window, tasks, 5)
    return window


def _focused_item(window: MainWindow) -> Any:
    root = window.transcript_view.rootObject()
    assert root is not None
    return root.focusedBlock()  # type: ignore[attr-defined]


def test_tab_moves_between_blocks_and_enter_and_space_fold_them(
    make_db: Callable[..., GooseDb], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    window = _window(_db(make_db), tmp_path, tasks, qtbot)
    view, navigator, model = (
        window.transcript_view,
        window.transcript_view.navigator,
        window.transcript,
    )
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    top = view.top_row()
    QTest.keyClick(view, Qt.Key.Key_Tab)
    assert navigator.focus == (top, 0)
    assert view.hasFocus()
    # Walk to the next tool result (collapsed by default) with Tab alone.
    for _ in range(6):
        if model.collapsible(*navigator.focus):
            break
        QTest.keyClick(view, Qt.Key.Key_Tab)
    row, block = navigator.focus
    assert model.collapsible(row, block)
    qtbot.waitUntil(lambda: _focused_item(window) is not None)
    assert _focused_item(window).property("expanded") is False
    QTest.keyClick(view, Qt.Key.Key_Return)
    assert model.index(row).data(MessageRole.EXPANDED)[block] is True
    qtbot.waitUntil(lambda: _focused_item(window).property("expanded") is True)
    QTest.keyClick(view, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: _focused_item(window).property("expanded") is False)
    # Shift+Tab goes back one block.
    QTest.keyClick(view, Qt.Key.Key_Backtab)
    assert navigator.focus < (row, block)
    # The state is the model's: re-rendering the rows (another theme) keeps it.
    QTest.keyClick(view, Qt.Key.Key_Tab)
    QTest.keyClick(view, Qt.Key.Key_Return)
    model.set_dark(not window.themes.theme.dark)
    qtbot.waitUntil(lambda: bool(model.index(row).data(MessageRole.LOADED)), timeout=5000)
    assert model.index(row).data(MessageRole.EXPANDED)[block] is True
    window.close()


def test_tab_past_the_last_block_leaves_the_transcript(
    make_db: Callable[..., GooseDb], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    window = _window(_db(make_db), tmp_path, tasks, qtbot)
    view, navigator = window.transcript_view, window.transcript_view.navigator
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    last = window.transcript.rowCount() - 1
    count = window.transcript.block_count(last)
    assert count is not None
    navigator.set_focus(last, count - 1)
    QTest.keyClick(view, Qt.Key.Key_Tab)
    assert not view.hasFocus()
    window.close()


def test_expand_all_and_collapse_all(
    make_db: Callable[..., GooseDb], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    window = _window(_db(make_db), tmp_path, tasks, qtbot)
    actions = {a.text().replace("&", ""): a for a in window.transcript_view.actions()}
    model = window.transcript
    top = window.transcript_view.top_row()
    on_screen = [r for r in range(top, top + 4) if model.index(r).data(MessageRole.LOADED)]
    assert on_screen
    result_row = next(r for r in on_screen if model.collapsible(r, 0))
    root = window.transcript_view.rootObject()
    assert root is not None

    def expanded() -> object:
        block = root.blockAt(result_row, 0)  # type: ignore[attr-defined]
        return block.property("expanded") if block is not None else None

    assert expanded() is False
    actions["Expand all blocks"].trigger()
    for row in on_screen:
        assert all(state is True for state in model.index(row).data(MessageRole.EXPANDED))
    qtbot.waitUntil(lambda: expanded() is True)
    actions["Collapse all blocks"].trigger()
    for row in on_screen:
        assert all(state is False for state in model.index(row).data(MessageRole.EXPANDED))
    qtbot.waitUntil(lambda: expanded() is False)
    # Rows rendered later follow the choice too: the first message was never on screen.
    assert model.index(0).data(MessageRole.EXPANDED) in ([], [False])
    # A block toggled afterwards has its own state; the rest stay collapsed.
    model.toggleBlock(result_row, 0, False)
    assert model.index(result_row).data(MessageRole.EXPANDED)[0] is True
    qtbot.waitUntil(lambda: expanded() is True)
    other = next(r for r in on_screen if r != result_row)
    assert model.index(other).data(MessageRole.EXPANDED) == [False]
    window.close()


def test_n_and_p_jump_between_prompts_even_far_away(
    make_db: Callable[..., GooseDb], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """The window opens at the end; P goes to the second prompt, P again to the first (rows
    that were never rendered, read in the worker), N back to the second."""
    window = _window(_db(make_db), tmp_path, tasks, qtbot)
    view, navigator = window.transcript_view, window.transcript_view.navigator
    second = FILLER + 1
    assert window.transcript.message(FILLER // 2) is None  # never rendered: P reads it
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    with qtbot.waitSignal(navigator.prompt_found, timeout=5000) as found:
        QTest.keyClick(view, Qt.Key.Key_P)
    assert found.args == [second]
    with qtbot.waitSignal(navigator.prompt_found, timeout=5000) as found:
        QTest.keyClick(view, Qt.Key.Key_P)
    assert found.args == [0]
    assert navigator.focus == (0, 0)
    qtbot.waitUntil(lambda: view.top_row() == 0, timeout=5000)
    with qtbot.waitSignal(navigator.no_prompt, timeout=5000) as nothing:
        QTest.keyClick(view, Qt.Key.Key_P)
    assert nothing.args == [False]
    with qtbot.waitSignal(navigator.prompt_found, timeout=5000) as found:
        QTest.keyClick(view, Qt.Key.Key_N)
    assert found.args == [second]
    qtbot.waitUntil(lambda: view.top_row() <= second <= view.bottom_row(), timeout=5000)
    window.close()


def test_n_typed_in_the_search_field_is_text(
    make_db: Callable[..., GooseDb], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    window = _window(_db(make_db), tmp_path, tasks, qtbot)
    window.search_field.setFocus()
    qtbot.waitUntil(window.search_field.hasFocus)
    QTest.keyClicks(window.search_field, "np")
    assert window.search_field.text() == "np"
    assert window.transcript_view.navigator.focus is None
    window.close()
