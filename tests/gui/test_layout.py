"""The window's panes in a real layout (#20 item 1): no label's text widens a pane, the panes
keep their widths from session to session, the usage panel takes a quarter of the window at
most, the filters never hide behind the toolbar's "»", and the status bar's labels end in an
ellipsis rather than overlap — at 1280×800 and at 800×600."""

import itertools
import os
import re
import shutil
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, QRect, QSettings, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtQuick import QQuickItem
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.app import build_window, wait_until_idle
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.roles import MessageRole
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner

CLAUDE_PROJECT = Path(__file__).resolve().parents[1] / "fixtures/agents/claude_code/project"
LONG_TITLED = "edge_cases"
"""A genuine Claude Code summary of 190 characters as the session's title."""


def _window(tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, size: tuple[int, int]) -> MainWindow:
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(db=[str(CLAUDE_PROJECT)], demo=False, session=None, screenshot=None)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    wait_until_idle(window, tasks, 10)
    return window


def _in_window(window: MainWindow, widget: QWidget) -> QRect:
    return QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())


def _open(window: MainWindow, tasks: TaskRunner, session_id: str) -> None:
    window.session_list.setCurrentIndex(window.sessions.find_session(session_id))
    wait_until_idle(window, tasks, 10)
    QApplication.processEvents()


@pytest.mark.parametrize("size", [(1280, 800), (800, 600)])
def test_panes_hold_their_widths_and_everything_stays_in_the_window(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, size: tuple[int, int]
) -> None:
    window = _window(tmp_path, tasks, qtbot, size)
    width = size[0]
    qtbot.waitUntil(lambda: window.sessions.find_session(LONG_TITLED).isValid(), timeout=10_000)
    before = window.splitter.sizes()
    assert before[0] >= 200  # the list is a list, not a 60-pixel sliver
    dock = window.usage_dock
    assert dock.width() <= max(width * 26 // 100, 240)
    for session_id in (LONG_TITLED, "7f3c2a10-0000-4000-8000-000000000001", LONG_TITLED):
        _open(window, tasks, session_id)
        assert window.splitter.sizes() == before, session_id
        assert _in_window(window, dock).right() < width
        title = window.header.title
        assert _in_window(window, title).right() <= _in_window(window, window.splitter).right()
    # The filters have a row of their own, all on screen.
    bar = window.filter_bar
    assert bar.isVisible()
    assert window.rect().contains(_in_window(window, bar))
    # The status bar's labels share its width; none runs over another.
    status = window.status
    labels = [status.source_label, status.session_label, status.count_label]
    shown = [_in_window(window, label) for label in labels if label.isVisible()]
    assert len(shown) == 3
    for first, second in itertools.pairwise(shown):
        assert first.right() < second.left()
    assert shown[-1].right() <= width
    assert status.session_label.text().endswith("…") or status.session_label.width() < 420
    window.close()


def test_the_user_s_widths_are_kept(tmp_path: Path, tasks: TaskRunner, qtbot: QtBot) -> None:
    """The first layout is in proportion to the window; one the user made is restored."""
    window = _window(tmp_path, tasks, qtbot, (1280, 800))
    window.splitter.setSizes([420, window.splitter.width() - 420])
    chosen = window.splitter.sizes()
    window.close()
    again = _window(tmp_path, tasks, qtbot, (1280, 800))
    assert again.splitter.sizes() == chosen
    again.close()


def test_the_title_and_status_bar_name_the_histories(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Several histories: "Gander — 2 histories", each path whole (under `~`) in the status
    bar's tooltip, never a clipped list joined by semicolons."""
    home = tmp_path / "home"  # the histories under it; nothing is written among the fixtures
    shutil.copytree(CLAUDE_PROJECT, home / "agents/claude_code/project")
    shutil.copytree(CLAUDE_PROJECT.parents[1] / "codex/sessions", home / "agents/codex/sessions")
    monkeypatch.setenv("HOME", str(home))
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    claude, codex = home / "agents/claude_code/project", home / "agents/codex/sessions"
    args = Namespace(db=[str(claude), str(codex)], demo=False, session=None, screenshot=None)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    assert window.windowTitle() == "Gander — 2 histories"
    label = window.status.source_label
    assert label.full_text == "2 histories"
    assert label.toolTip().splitlines() == [
        "claude-code: ~/agents/claude_code/project",
        "codex: ~/agents/codex/sessions",
    ]
    assert ";" not in label.full_text
    window.close()


def test_one_history_is_named_by_where_it_is(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    shutil.copytree(CLAUDE_PROJECT, home / "claude_code/project")
    monkeypatch.setenv("HOME", str(home))
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(
        db=[str(home / "claude_code/project")], demo=False, session=None, screenshot=None
    )
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    assert window.windowTitle() == "Gander — ~/claude_code/project"
    window.close()


CLAUDE_TOOLS = Path(__file__).resolve().parents[1] / "fixtures/agents/claude_code/tools/2.1.110"
"""Claude Code 2.1.110's own log of a prompt, eleven tool calls and an answer."""


def test_folded_rows_take_no_space(tmp_path: Path, tasks: TaskRunner, qtbot: QtBot) -> None:
    """Eleven tool calls folded into one line left a gap of the rows' spacing below it, 6 px
    for each folded row: the rows are spaced inside themselves now."""
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(db=[f"claude-code={CLAUDE_TOOLS}"], demo=False, session=None, screenshot=None)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    wait_until_idle(window, tasks, 10)
    model = window.transcript
    qtbot.waitUntil(lambda: model.rowCount() > 10, timeout=10_000)
    hidden = [r for r in range(model.rowCount()) if model.index(r).data(MessageRole.HIDDEN)]
    assert len(hidden) > 10  # the group's rows
    root = window.transcript_view.rootObject()
    assert root is not None

    def rows() -> dict[int, QQuickItem]:
        return {
            item.property("messageRow"): item
            for item in root.property("contentItem").childItems()
            if item.property("hiddenRow") is not None
        }

    # Every row is on screen (a short session) once the view has laid them out.
    qtbot.waitUntil(lambda: set(rows()) == set(range(model.rowCount())), timeout=5000)
    laid_out = rows()
    for row in hidden:
        assert laid_out[row].height() == 0
    shown = sum(item.height() for item in laid_out.values())
    assert root.property("contentHeight") <= shown + 1
    window.close()


def test_a_group_opened_by_a_click_stays_in_view(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """The view followed the session's end, so opening the group of tool calls near the top
    of a short session scrolled it out of sight, to the last message."""
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(db=[f"claude-code={CLAUDE_TOOLS}"], demo=False, session=None, screenshot=None)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    wait_until_idle(window, tasks, 10)
    view, model = window.transcript_view, window.transcript
    root = view.rootObject()
    assert root is not None
    group = next(
        r
        for r in range(model.rowCount())
        if [b["kind"] for b in model.index(r).data(MessageRole.BLOCKS)] == ["group"]
    )
    qtbot.waitUntil(lambda: root.blockAt(group, 0) is not None, timeout=5000)  # type: ignore[attr-defined]
    title = root.blockAt(group, 0).childItems()[0]  # type: ignore[attr-defined]
    point = title.mapToScene(QPointF(20, title.height() / 2)).toPoint()
    QTest.mouseClick(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
    qtbot.waitUntil(lambda: model.index(group).data(MessageRole.EXPANDED)[0] is True, timeout=5000)
    wait_until_idle(window, tasks, 10)
    QApplication.processEvents()
    block = root.blockAt(group, 0)  # type: ignore[attr-defined]
    top = block.mapToItem(root, QPointF(0, 0)).y()
    assert 0 <= top < root.height()  # the group's line is still on screen
    window.close()


def _header_at(
    size: tuple[int, int], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> tuple[int, int, list[str]]:
    """The header's height, where the transcript begins and what "⋯" offers, on `edge_cases`
    (its genuine 190-character title) in a window of `size`."""
    window = _window(tmp_path / f"{size[0]}", tasks, qtbot, size)
    qtbot.waitUntil(lambda: window.sessions.find_session(LONG_TITLED).isValid(), timeout=10_000)
    _open(window, tasks, LONG_TITLED)
    header = window.header
    qtbot.waitUntil(lambda: header.title.text().endswith("…"), timeout=5000)
    assert header.title.toolTip().startswith("Tested various edge cases")
    assert _in_window(window, header).right() <= _in_window(window, window.splitter).right()
    if size[0] < 1000:  # the facts are cut to two lines in the narrow pane, whole in the tooltip
        assert header.facts.toolTip().startswith(header.facts.text())
    menu = header.more.menu()
    offered = [a.text() for a in menu.actions() if a.isVisible()] if header.more.isVisible() else []
    found = (header.height(), _in_window(window, window.transcript_view).top(), offered)
    window.close()
    return found


def test_the_header_is_no_taller_at_800_than_at_1280(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """#20 item 1: at 800×600 the header's buttons had a row of their own and its facts a third
    line, so the transcript began 14 px lower than at 1280×800. The buttons share the title's
    row, folded into one "⋯" menu when it is narrow, and the facts take two lines at most."""
    wide_height, wide_top, wide_menu = _header_at((1280, 800), tmp_path, tasks, qtbot)
    narrow_height, narrow_top, narrow_menu = _header_at((800, 600), tmp_path, tasks, qtbot)
    assert narrow_height <= wide_height
    assert narrow_top <= wide_top
    assert wide_menu == []  # the buttons themselves, beside the title
    assert narrow_menu == ["Copy id", "Copy resume command", "Reveal in file manager"]


def test_a_window_shrunk_to_800_keeps_a_transcript_to_read(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """A window laid out at 1280 and shrunk to 800×600 (a window manager fitting the first
    window to a small screen does it) took the whole loss from the transcript: 180 px once the
    header's buttons no longer held it. It keeps a reading width of its own."""
    window = _window(tmp_path, tasks, qtbot, (1280, 800))
    _open(window, tasks, LONG_TITLED)
    window.resize(800, 600)
    qtbot.waitUntil(lambda: window.width() == 800, timeout=5000)
    QApplication.processEvents()
    sizes = window.splitter.sizes()
    assert sizes[1] >= 320
    assert _in_window(window, window.usage_dock).right() < 800
    window.close()


WRITTEN = CLAUDE_PROJECT.parent / "written"
"""Sessions Claude Code 2.1.110 wrote itself, one of them a sub-agent's."""


@pytest.mark.parametrize(
    ("session", "resumes"),
    [("6a74d8d7-f3d6-4aa8-b090-76b2e97fea9e", True), ("agent-6880a13f", False)],
)
def test_the_folded_menu_does_what_the_buttons_do(
    session: str, resumes: bool, *, tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """At 800×600 "⋯" holds Copy id, Copy resume command (disabled, saying why, for a
    sub-agent its agent cannot resume) and Reveal in file manager."""
    QGuiApplication.clipboard().setText("before")
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(db=[str(WRITTEN)], demo=False, session=session, screenshot=None)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.resize(800, 600)
    window.show()
    header = window.header
    qtbot.waitUntil(lambda: header.native_id == session, timeout=10_000)
    qtbot.waitUntil(header.more.isVisible, timeout=5000)
    assert not header.copy_id.isVisible()
    header.copy_resume_action.trigger()
    assert header.copy_resume_action.isEnabled() is resumes
    assert QGuiApplication.clipboard().text().endswith(session) is resumes
    assert header.copy_resume_action.toolTip() == header.copy_resume.toolTip()
    header.copy_id_action.trigger()
    assert QGuiApplication.clipboard().text() == session
    assert header.reveal_action.isVisible()
    parent = header.session.parent_session_id if header.session else None
    assert (parent is None) is resumes  # the sub-agent has a parent
    if parent is not None:  # named by its title, cut at its end to the pane, still a link to it
        link = header.parent_link
        qtbot.waitUntil(lambda: link.parent_title is not None, timeout=5000)
        title = link.parent_title or ""

        def shown() -> str:
            found = re.search(r'">([^<]*)</a>', link.text())
            assert found is not None
            return found.group(1)

        def fits() -> bool:
            """Whole when the pane has room for it, else cut at its end — never wider than the
            pane (the header lays out again after the window's resize)."""
            text = shown()
            whole = text == title or (text.endswith("…") and title.startswith(text[:-1]))
            width = link.fontMetrics().horizontalAdvance(f"Sub-agent of {text}")
            return whole and width <= link.width()

        qtbot.waitUntil(fits, timeout=5000)
        assert f'href="{parent}"' in link.text()
        link.resize(link.width() // 2, link.height())  # a narrower pane: cut, still the link
        assert "…" in shown()
        assert f'href="{parent}"' in link.text()
        assert parent in link.toolTip()
    window.close()


def _first_window(tmp_path: Path, tasks: TaskRunner, qtbot: QtBot) -> MainWindow:
    """A window as a first run opens it: no saved geometry, and no resize by the caller."""
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(db=[str(CLAUDE_PROJECT)], demo=False, session=None, screenshot=None)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.show()
    wait_until_idle(window, tasks, 10)
    QApplication.processEvents()
    return window


def test_a_first_window_fits_a_screen_smaller_than_its_default(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """The offscreen screen (800×800) is narrower than the default 1280×800: the first window
    opens inside the screen's free area, its panes laid out for that width — it opened at
    1280 and a window manager shrank it afterwards, the layout worked out for 1280."""
    window = _first_window(tmp_path, tasks, qtbot)
    screen = window.screen().availableGeometry()
    assert screen.width() < 1280  # what this test is about: a screen smaller than the default
    assert window.width() <= screen.width()
    assert window.height() <= screen.height()
    list_width, transcript_width = window.splitter.sizes()
    assert list_width >= 200
    assert transcript_width >= 320
    assert _in_window(window, window.usage_dock).right() < window.width()
    assert window.usage_dock.width() <= max(screen.width() * 26 // 100, 240)
    window.close()


FIRST_WINDOW = """
import sys
from argparse import Namespace
from pathlib import Path
from PySide6.QtCore import QSettings
from desktop_app.app import _application, build_window, wait_until_idle
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
app = _application()
folder = Path(sys.argv[1])
settings = Settings(QSettings(str(folder / "s.ini"), QSettings.Format.IniFormat))
tasks = TaskRunner()
args = Namespace(db=[sys.argv[2]], demo=False, session=None, screenshot=None)
window = build_window(args, folder / "data", settings, tasks)
window.show()
wait_until_idle(window, tasks, 10)
print(window.width(), window.height())
window.close()
tasks.shutdown()
"""


@pytest.mark.parametrize(
    ("screen_size", "first_size"), [((1920, 1080), (1280, 800)), ((1280, 800), (1264, 752))]
)
def test_a_first_window_is_1280_by_800_where_that_fits_with_its_frame(
    tmp_path: Path, screen_size: tuple[int, int], first_size: tuple[int, int]
) -> None:
    """Where the default fits with room for a frame (a 1920×1080 screen), the first window
    keeps it; on a 1280×800 screen it leaves room for the title bar — 1280×800 and a title bar
    put the status bar under the screen's edge."""
    screen = tmp_path / "screen.json"
    width, height = screen_size
    screen.write_text(
        f'{{"screens": [{{"name": "s", "x": 0, "y": 0, "width": {width}, "height": {height},'
        ' "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}'
    )
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={screen}"}
    shown = subprocess.run(
        [sys.executable, "-c", FIRST_WINDOW, str(tmp_path), str(CLAUDE_PROJECT)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert shown.stdout.split()[-2:] == [str(first_size[0]), str(first_size[1])]


def _descendants(item: QQuickItem) -> list[QQuickItem]:
    found = []
    pending = list(item.childItems())
    while pending:
        child = pending.pop()
        found.append(child)
        pending.extend(child.childItems())
    return found


def test_a_message_s_labels_stay_inside_a_narrow_card(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """At 800×600 a reply's heading (role, time, model) was wider than its card: the model's
    name ran past the card's right edge, cut off ("claude-sonnet-4-5-202"). What does not fit
    goes on the next line."""
    window = _window(tmp_path, tasks, qtbot, (800, 600))
    _open(window, tasks, "7f3c2a10-0000-4000-8000-000000000001")
    root = window.transcript_view.rootObject()
    assert root is not None
    cards = [
        item
        for item in root.property("contentItem").childItems()
        if item.property("hiddenRow") is not None and item.property("modelLabel")
    ]
    assert cards  # replies with their model's name, on screen
    for card in cards:
        label = card.property("modelLabel")
        texts = [t for t in _descendants(card) if t.property("text") == label]
        assert texts
        for text in texts:
            right = text.mapToItem(card, QPointF(text.width(), 0)).x()
            assert right <= card.width(), label
    window.close()
