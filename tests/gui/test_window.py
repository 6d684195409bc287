"""The window end to end: it opens the demo, selects a session, and its screenshot is not blank."""

import os
import re
import subprocess
from argparse import Namespace
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPalette
from PySide6.QtWidgets import QApplication, QDialog, QMenu, QMessageBox
from pytestqt.qtbot import QtBot

from desktop_app.app import Windows, build_window, wait_until_idle
from desktop_app.domain.errors import UnknownSession
from desktop_app.domain.search import SearchResults
from desktop_app.domain.session import Session
from desktop_app.rendering import formatting
from desktop_app.sources.registry import open_history
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.roles import MessageRole, SessionRole
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from tests.fixtures.goose_db import GooseDb
from tests.fixtures.processes import run_gander
from tests.gui.conftest import day_chart, render_all

ROOT = Path(__file__).resolve().parents[2]


def _args(**overrides: object) -> Namespace:
    values: dict[str, object] = {"db": None, "demo": True, "session": None, "screenshot": None}
    values.update(overrides)
    return Namespace(**values)


def demo_window(tmp_path: Path, tasks: TaskRunner, qtbot: QtBot) -> tuple[MainWindow, Settings]:
    """The demo history in a shown window, with settings of its own."""
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    window = build_window(_args(), tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.show()
    return window, settings


def test_window_opens_latest_session_and_toggles_hidden(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    window, settings = demo_window(tmp_path, tasks, qtbot)
    qtbot.waitUntil(lambda: window.transcript.rowCount() > 0, timeout=10_000)
    assert window.session_list.currentIndex() == window.sessions.first_session()
    assert window.sessions.index(0, 0).data(SessionRole.IS_GROUP)
    assert settings.last_session_id == window.transcript.session_id
    visible = window.transcript.rowCount()
    window.show_hidden_action.setChecked(True)
    qtbot.waitUntil(lambda: window.transcript.rowCount() >= visible, timeout=10_000)
    assert settings.show_hidden
    wait_until_idle(window, tasks, 5)
    window.close()


def test_session_option_and_last_session_are_honoured(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    window = build_window(_args(), tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: window.transcript.session_id is not None, timeout=10_000)
    wanted = next(s for s in _listed(window) if s.id != window.transcript.session_id)
    assert isinstance(wanted, Session)
    window.close()

    chosen = build_window(_args(session=wanted.id), tmp_path / "data", settings, tasks)
    qtbot.addWidget(chosen)
    qtbot.waitUntil(lambda: settings.last_session_id == wanted.id, timeout=10_000)
    assert chosen.transcript.session_id == wanted.id
    chosen.close()

    restored = build_window(_args(), tmp_path / "data", settings, tasks)
    qtbot.addWidget(restored)
    qtbot.waitUntil(lambda: restored.transcript.session_id == wanted.id, timeout=10_000)
    restored.close()


def screenshot(out: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """`gander --demo [options] --screenshot OUT` in a fresh offscreen process."""
    return run_gander("--demo", *options, "--screenshot", str(out))


def test_screenshot_command_writes_a_real_picture(tmp_path: Path) -> None:
    out = tmp_path / "shot.png"
    result = screenshot(out)
    assert result.returncode == 0, result.stderr
    image = QImage(str(out))
    assert image.width() >= 800
    assert image.height() >= 500
    colours = {
        image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)
    }
    assert len(colours) > 50


def test_screenshot_on_a_bad_file_fails_with_one_sentence(tmp_path: Path) -> None:
    bad = tmp_path / "nope.db"
    result = run_gander("--db", str(bad), "--screenshot", str(tmp_path / "x.png"))
    assert result.returncode == 1
    assert result.stderr == f"gander: There is no file or folder at {bad}.\n"
    assert not (tmp_path / "x.png").exists()


def test_usage_panel_shows_the_open_session_and_the_overview(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    window, _settings = demo_window(tmp_path, tasks, qtbot)
    panel = window.usage_panel
    qtbot.waitUntil(lambda: panel.model_label.text() != "–", timeout=10_000)
    qtbot.waitUntil(lambda: panel.top.count() == 10, timeout=10_000)
    assert panel.model_label.text() == "anthropic · claude-sonnet-4-5"
    assert panel.meter.isEnabled()
    assert panel.meter.maximum() == 1000
    assert "of 200k" in panel.meter.format()
    assert len(panel.sparkline._values) >= 5
    assert day_chart(panel, qtbot).series == ["goose"]
    assert "sessions in the last 30 days" in panel.days_label.text()
    costliest = panel.top.item(0)
    assert costliest.text().strip().startswith("$")
    target = str(costliest.data(Qt.ItemDataRole.UserRole))
    panel.top.itemClicked.emit(costliest)
    qtbot.waitUntil(lambda: window.transcript.session_id == target, timeout=5000)
    qtbot.waitUntil(
        lambda: window.sessions.find_session(target) == window.session_list.currentIndex(),
        timeout=10_000,
    )
    window.close()


def _listed(window: object) -> list[Session]:
    model = window.sessions  # type: ignore[attr-defined]
    rows = [model.index(r, 0).data(SessionRole.SESSION) for r in range(model.rowCount())]
    return [s for s in rows if isinstance(s, Session)]


def test_filters_by_type_archive_state_and_project(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    window, _settings = demo_window(tmp_path, tasks, qtbot)
    qtbot.waitUntil(lambda: window.filter_bar.project.count() > 2, timeout=10_000)
    qtbot.waitUntil(lambda: len(_listed(window)) > 20, timeout=10_000)
    default = _listed(window)
    assert not any(s.archived for s in default)
    assert {s.session_type for s in default} <= {"user", "scheduled", "acp"}

    bar = window.filter_bar
    bar.archived.setCurrentIndex(bar.archived.findText("Only archived"))
    qtbot.waitUntil(
        lambda: bool(_listed(window)) and all(s.archived for s in _listed(window)), timeout=5000
    )

    bar.archived.setCurrentIndex(bar.archived.findText("Hide archived"))
    bar.types.setCurrentIndex(bar.types.findText("Sub-agents"))
    qtbot.waitUntil(
        lambda: (
            bool(_listed(window)) and all(s.session_type == "sub_agent" for s in _listed(window))
        ),
        timeout=5000,
    )
    bar.types.setCurrentIndex(bar.types.findText("Chats"))
    folder = str(bar.project.itemData(1))
    bar.project.setCurrentIndex(1)
    qtbot.waitUntil(
        lambda: bool(_listed(window)) and all(s.working_dir == folder for s in _listed(window)),
        timeout=5000,
    )
    window.close()


def test_find_in_transcript_highlights_and_opens_collapsed_blocks(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    window, _settings = demo_window(tmp_path, tasks, qtbot)
    qtbot.waitUntil(lambda: window.transcript.rowCount() > 0, timeout=10_000)
    assert window.transcript.session_id is not None
    window.find_bar.open_bar()
    assert window.find_bar.isVisible()
    with qtbot.waitSignal(window.finder.show_row, timeout=5000) as shown:
        window.find_bar.field.setText("test_webhook_retry")
    row = shown.args[0]
    assert window.find_bar.status.text() == "2 of 2 messages"
    index = window.transcript.index(row)
    qtbot.waitUntil(lambda: bool(index.data(MessageRole.LOADED)), timeout=5000)
    blocks = index.data(MessageRole.BLOCKS)
    marked = [b for b in blocks if "background-color:#ffe066" in b["html"]]
    assert marked
    with qtbot.waitSignal(window.finder.show_row, timeout=5000) as previous:
        window.finder.previous()
    assert window.find_bar.status.text() == "1 of 2 messages"
    first = window.transcript.index(previous.args[0])
    qtbot.waitUntil(lambda: bool(first.data(MessageRole.LOADED)), timeout=5000)
    hit_blocks = [b for b in first.data(MessageRole.BLOCKS) if "ffe066" in b["html"]]
    assert hit_blocks
    assert all(not b["collapsed"] for b in hit_blocks), "a hit inside a tool result opens it"
    assert any(b["kind"] == "tool_result" for b in hit_blocks)
    window.find_bar.close_bar()
    assert not any("ffe066" in b["html"] for b in first.data(MessageRole.BLOCKS))
    window.close()


def test_copy_message_as_markdown_and_open_image(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    window, _settings = demo_window(tmp_path, tasks, qtbot)
    qtbot.waitUntil(lambda: window.transcript.rendered_count > 0, timeout=10_000)
    latency = next(s for s in _listed(window) if s.name.startswith("Latency spike"))
    window.open_session(latency.id)
    qtbot.waitUntil(lambda: window.transcript.session_id == latency.id, timeout=5000)
    model = window.transcript
    qtbot.waitUntil(lambda: model.rowCount() == 8, timeout=5000)
    render_all(model, qtbot)
    actions = window.transcript_view.actions_for_qml
    first = actions.markdown(0)
    assert first is not None
    assert first.startswith("### User · ")
    assert "**Image:** image/png" in first
    assert (
        actions.plain_text(0)
        == "Here is the p95 latency for the last two weeks. What happened at the end?"
    )
    actions.openImage(0, 0)
    viewers = [
        w for w in window.findChildren(QDialog) if w.windowTitle().startswith("Image — image/png")
    ]
    assert len(viewers) == 1
    qtbot.waitUntil(lambda: "320×180" in viewers[0].windowTitle(), timeout=5000)
    viewers[0].close()
    window.close()


def test_file_open_adds_a_window_remembers_it_and_refuses_bad_files(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, make_db: Callable[..., GooseDb]
) -> None:
    other = make_db(7, fresh=False, name="other.db")
    other.add_session("x", name="In the other file")
    other.add_message("x", content="hello")
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    windows = Windows(tmp_path / "data", settings, tasks)
    first = windows.open(_args())
    qtbot.addWidget(first)
    windows.open_path(other.path)
    assert len(windows.open_windows) == 2
    second = windows.open_windows[1]
    qtbot.addWidget(second)
    qtbot.waitUntil(lambda: second.transcript.session_id == "x", timeout=10_000)
    assert settings.recent_files[0] == str(other.path)
    assert not second.session_actions.archive.isEnabled()
    assert "before schema v12" in second.session_actions.archive.toolTip()
    windows.open_path(tmp_path / "missing.db")
    assert windows.last_error == f"There is no file or folder at {tmp_path / 'missing.db'}."
    assert len(windows.open_windows) == 2
    for window in list(windows.open_windows):
        window.close()


def test_dark_theme_palette_and_transcript_tokens(tmp_path: Path) -> None:
    out = tmp_path / "dark.png"
    result = screenshot(out, "--theme", "dark")
    assert result.returncode == 0, result.stderr
    image = QImage(str(out))
    dark_pixels = sum(
        1
        for x in range(0, image.width(), 11)
        for y in range(0, image.height(), 11)
        if QColor(image.pixel(x, y)).lightness() < 60
    )
    total = len(range(0, image.width(), 11)) * len(range(0, image.height(), 11))
    assert dark_pixels / total > 0.6


def test_code_copy_links_and_other_links_ask_first(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    window, _settings = demo_window(tmp_path, tasks, qtbot)
    model = window.transcript
    qtbot.waitUntil(lambda: model.rowCount() == 12, timeout=10_000)
    render_all(model, qtbot)
    row, block = next(
        (r, b)
        for r in range(model.rowCount())
        for b, item in enumerate(model.index(r).data(MessageRole.BLOCKS))
        if "gander-copy:0" in item["html"] and item["kind"] == "text"
    )
    actions = window.transcript_view.actions_for_qml
    actions.linkActivated(row, block, "gander-copy:0")
    copied = QGuiApplication.clipboard().text()
    assert copied.startswith("def deliver(event, send, attempts=3, backoff=0.2):")
    assert window.link_prompt is None, "a copy link asks nothing"
    actions.linkActivated(row, block, "https://example.com/x")
    prompt = _prompt(window)
    assert "https://example.com/x" in prompt.text()
    assert prompt.isVisible()
    assert prompt.defaultButton() == prompt.button(QMessageBox.StandardButton.No)
    prompt.reject()
    window.close()


def _prompt(window: MainWindow) -> QMessageBox:
    """Read after an action, so the type checker does not carry an earlier narrowing over."""
    assert window.link_prompt is not None
    return window.link_prompt


def test_unknown_session_option_is_refused_before_a_window_opens(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """`--session` with an id the history lacks used to open another session silently (issue
    #8, point 15), then to say so and open the newest; now it is refused as the CLI refuses
    it, and no window is built (issue #17, item 19)."""
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))

    def windows() -> set[int]:
        return {id(w) for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)}

    before = windows()
    with pytest.raises(UnknownSession, match=r"^There is no session with id 'no-such-id'\.$"):
        build_window(_args(session="no-such-id"), tmp_path / "data", settings, tasks)
    assert windows() <= before


def test_screenshot_needs_no_display_and_an_unknown_session_exits_non_zero(
    tmp_path: Path,
) -> None:
    out = tmp_path / "shot.png"
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY")}
    env.pop("WAYLAND_DISPLAY", None)
    result = run_gander("--demo", "--session", "nope", "--screenshot", str(out), env=env)
    assert result.returncode == 1, result.stderr
    assert result.stderr == "gander: There is no session with id 'nope'.\n"
    assert not out.exists()
    result = run_gander("--demo", "--screenshot", str(out), env=env)
    assert result.returncode == 0, result.stderr
    assert QImage(str(out)).width() >= 800


def test_recent_files_are_absolute(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = GooseDb(tmp_path / "mine.db")
    db.add_session("a", name="a")
    db.close()
    monkeypatch.chdir(tmp_path)
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    window = build_window(_args(db=Path("mine.db"), demo=False), tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    assert settings.recent_files == [str(tmp_path / "mine.db")]
    settings.remember_file("other/../x.db")
    assert settings.recent_files[0] == str(tmp_path / "x.db")
    window.close()


def test_sessions_without_messages_are_hidden_until_asked_for(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, make_db: Callable[..., GooseDb]
) -> None:
    """#10 item 20: goose Desktop leaves empty sessions out of its list (its query joins the
    messages); the filter bar's "Empty" box shows them."""
    db = make_db()
    db.add_session("full", name="Has messages", updated_at="2026-01-01 00:00:00")
    db.add_message("full", content="hello")
    db.add_session("empty", name="Never used", updated_at="2026-01-02 00:00:00")
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    window = build_window(_args(db=db.path, demo=False), tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: [s.id for s in _listed(window)] == ["full"], timeout=5000)
    window.filter_bar.empty.setChecked(True)
    qtbot.waitUntil(lambda: {s.id for s in _listed(window)} == {"empty", "full"}, timeout=5000)
    window.close()


def test_help_menu_lists_shortcuts_search_syntax_and_about(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """#10 item 18."""
    window, _settings = demo_window(tmp_path, tasks, qtbot)
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    assert isinstance(help_menu, QMenu)
    texts = {}
    for action in help_menu.actions():
        if action.text() == "Open &log folder":  # opens a file manager, no text of its own
            continue
        action.trigger()
        box = window.help.box
        assert box is not None
        texts[action.text()] = box.text()
        box.close()
    assert "Ctrl+K" in texts["&Keyboard shortcuts"]
    assert (
        "&quot;retry loop&quot;" in texts["&Search syntax"]
        or '"retry loop"' in texts["&Search syntax"]
    )
    about = texts["&About Gander"]
    assert "MIT" in about
    assert "schema v" in about
    assert "sessions.db" in about
    window.close()


@pytest.mark.parametrize(
    "case",
    [
        ("out.md", "Markdown (*.md)", False, "# "),
        ("page", "HTML page (*.html)", False, "<!doctype html>"),
        ("all.json", "Markdown (*.md)", True, '{"session"'),
    ],
)
def test_file_export_writes_the_open_session(
    tmp_path: Path,
    tasks: TaskRunner,
    qtbot: QtBot,
    monkeypatch: pytest.MonkeyPatch,
    case: tuple[str, str, bool, str],
) -> None:
    """#10 item 17: File ▸ Export… in each format, and without secrets."""
    name, chosen, redact, starts = case
    window, _settings = demo_window(tmp_path, tasks, qtbot)
    qtbot.waitUntil(lambda: window.transcript.session_id is not None, timeout=10_000)
    target = tmp_path / "exports" / name
    target.parent.mkdir()
    monkeypatch.setattr(
        "desktop_app.ui.export_dialog.QFileDialog.getSaveFileName",
        lambda *_args, **_kw: (str(target), chosen),
    )
    with qtbot.waitSignal(window.exporter.finished, timeout=10_000):
        window.exports.ask(redact=redact)
    assert target.read_text(encoding="utf-8").startswith(starts)
    assert list(target.parent.iterdir()) == [target], "written whole, no temporary left"
    window.close()


def test_file_export_refuses_to_overwrite_the_history(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    window, _settings = demo_window(tmp_path, tasks, qtbot)
    qtbot.waitUntil(lambda: window.transcript.session_id is not None, timeout=10_000)
    history = Path(window.locations[0])
    before = history.read_bytes()
    monkeypatch.setattr(
        "desktop_app.ui.export_dialog.QFileDialog.getSaveFileName",
        lambda *_args, **_kw: (str(history), "Markdown (*.md)"),
    )
    with qtbot.waitSignal(window.exporter.failed, timeout=10_000):
        window.exports.ask(redact=False)
    assert history.read_bytes() == before
    window.close()


def test_transcript_header_shows_the_session_and_its_actions(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, make_db: Callable[..., GooseDb]
) -> None:
    """#10 item 16: title (click to rename), id and its copy button, folder, model, times,
    counts, the parent of a sub-agent (click to open), badges, the resume command."""
    db = make_db()
    db.add_session(
        "parent", name="The parent", provider_name="anthropic", updated_at="2026-01-01 00:00:00"
    )
    db.add_message("parent", content="hello")
    db.add_session(
        "kid",
        name="A helper",
        session_type="sub_agent",
        parent_session_id="parent",
        updated_at="2026-01-02 00:00:00",
    )
    db.add_message("kid", content="working")
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    window = build_window(
        _args(db=db.path, demo=False, session="kid"), tmp_path / "data", settings, tasks
    )
    qtbot.addWidget(window)
    window.show()
    header = window.header
    qtbot.waitUntil(lambda: header.title.text() == "A helper", timeout=5000)
    assert header.id_label.text() == "kid"
    assert "sub-agent" in header.badges.text()
    assert "/home/me/project" in header.facts.text()
    qtbot.waitUntil(lambda: "1\u00a0message\u00a0shown" in header.facts.text(), timeout=5000)
    header.copy_id.click()
    assert QGuiApplication.clipboard().text() == "kid"
    header.copy_resume.click()
    assert QGuiApplication.clipboard().text() == "goose session --resume --session-id kid"
    qtbot.waitUntil(lambda: ">The parent</a>" in header.parent_link.text(), timeout=5000)
    assert 'href="parent"' in header.parent_link.text()
    header.parent_link.linkActivated.emit("parent")
    qtbot.waitUntil(lambda: window.transcript.session_id == "parent", timeout=5000)
    qtbot.waitUntil(lambda: header.title.text() == "The parent", timeout=5000)
    assert "anthropic" in header.facts.text()
    assert not header.parent_link.isVisible()
    header.title.click()
    qtbot.waitUntil(
        lambda: window.session_list.state() == window.session_list.State.EditingState, timeout=5000
    )
    window.close()


def test_theme_switches_at_run_time_and_is_remembered(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """#10 item 9: View ▸ Theme applies at once (palette, transcript colours) and is kept."""
    window, settings = demo_window(tmp_path, tasks, qtbot)
    qtbot.waitUntil(lambda: window.transcript.rowCount() > 0, timeout=10_000)
    window.actions_by_id["theme_dark"].trigger()
    assert settings.theme == "dark"
    assert window.themes.theme.dark
    application = QGuiApplication.instance()
    assert isinstance(application, QGuiApplication)
    assert application.palette().color(QPalette.ColorRole.Window).lightness() < 60
    index = window.transcript.index(window.transcript.rowCount() - 1)
    qtbot.waitUntil(lambda: bool(index.data(MessageRole.LOADED)), timeout=5000)
    assert window.transcript._renderer.dark
    window.actions_by_id["theme_light"].trigger()
    assert application.palette().color(QPalette.ColorRole.Window).lightness() > 200
    window.close()
    again = build_window(_args(), tmp_path / "data", settings, tasks)
    qtbot.addWidget(again)
    assert again.actions_by_id["theme_light"].isChecked()
    again.choose_theme("system")
    assert settings.theme == "system"
    again.close()


def test_empty_states_say_so_with_the_next_action(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, make_db: Callable[..., GooseDb]
) -> None:
    """#10 item 15: an empty list, an empty session, a chart with nothing in range and a search
    with no hits each say so in their pane."""
    db = make_db()
    db.add_session("empty", name="Never used", updated_at="2026-01-02 00:00:00")
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    window = build_window(_args(db=db.path, demo=False), tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: "No sessions to show" in window.session_list.placeholder, timeout=5000)
    assert "Choose a session" in window.transcript_view.empty_text
    window.filter_bar.empty.setChecked(True)
    qtbot.waitUntil(lambda: window.transcript.session_id == "empty", timeout=5000)
    assert window.session_list.placeholder == ""
    qtbot.waitUntil(lambda: "no messages yet" in window.transcript_view.empty_text, timeout=5000)
    label = window.usage_panel.days_label
    qtbot.waitUntil(lambda: "No token usage" in label.text(), timeout=5000)
    window.search_results.show_results(
        SearchResults(query="zebra", sessions=(), total_hits=0, capped=False, elapsed_ms=1.0)
    )
    assert "No messages match “zebra”" in window.search_results.placeholder
    window.close()


CLAUDE_PROJECT = ROOT / "tests" / "fixtures" / "agents" / "claude_code" / "project"
CLAUDE_SESSION = "7f3c2a10-0000-4000-8000-000000000001"


def test_with_sub_agents_adds_up_a_genuine_claude_code_tree(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """The usage panel's "With sub-agents" is `list --json`'s `tree_usage`: for a kind without
    goose's own figure, the session's and its sub-agents' own figures added up (issue #17,
    item 2)."""
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = _args(db=CLAUDE_PROJECT, demo=False, session=CLAUDE_SESSION)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.show()
    label = window.usage_panel.tree_label
    qtbot.waitUntil(lambda: "over 2 sessions" in label.text(), timeout=10_000)
    source = open_history(CLAUDE_PROJECT)
    own = [source.get_session(i) for i in (CLAUDE_SESSION, "agent-ci0001")]
    source.close()
    added = sum(s.accumulated_usage.total_tokens or 0 for s in own)
    # Claude Code records no cost: the tree's is estimated (#20 item 12).
    assert f"{formatting.tokens(added)} total; ≈ $0.15 estimated over 2 sessions" in label.text()
    # All sessions covers Claude Code logs too (#20 item 13; they "kept no usage per day").
    panel = window.usage_panel
    chart = day_chart(panel, qtbot)
    qtbot.waitUntil(lambda: chart.series == ["Claude Code"], timeout=10_000)
    window.close()


@pytest.mark.parametrize(
    ("history", "wanted"),
    [((CLAUDE_PROJECT,), CLAUDE_SESSION), ((), "Q3 report and build clean-up")],
    ids=["claude-code", "goose-demo"],
)
def test_the_list_row_the_header_and_list_json_count_the_same_messages(
    tmp_path: Path,
    tasks: TaskRunner,
    qtbot: QtBot,
    history: tuple[Path, ...],
    wanted: str,
) -> None:
    """One message count everywhere, and the header says what it counts: "14 messages shown
    · 15 stored" beside the row's "14 msgs" (issue #17, item 21; it said "15 messages stored"
    beside "5 msgs", and "22 messages stored" beside the demo's "20 msgs"). The demo's ids
    follow today's date, so its session is found by name."""
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = _args(db=list(history) or None, demo=not history)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.show()

    def listed() -> Session | None:
        model = window.sessions
        rows = [model.index(r, 0).data(SessionRole.SESSION) for r in range(model.rowCount())]
        return next((s for s in rows if isinstance(s, Session) and wanted in (s.id, s.name)), None)

    qtbot.waitUntil(lambda: listed() is not None, timeout=10_000)
    found_session = listed()
    assert found_session is not None
    session_id = found_session.id
    window.open_session(session_id)
    qtbot.waitUntil(lambda: window.transcript.session_id == session_id, timeout=10_000)
    qtbot.waitUntil(lambda: window.transcript.rowCount() > 0, timeout=10_000)
    qtbot.waitUntil(lambda: window.sessions.find_session(session_id).isValid(), timeout=10_000)
    subtitle = str(window.sessions.find_session(session_id).data(SessionRole.SUBTITLE))
    found = re.search(r"(\d+) msgs", subtitle)
    assert found is not None, subtitle
    shown = int(found.group(1))
    row = window.sessions.find_session(session_id).data(SessionRole.SESSION)
    assert isinstance(row, Session)
    assert row.message_count == shown  # what `list --json` gives (tests/unit)
    stored = len(window.transcript.cursors)
    assert stored > shown, "a session with agent-only messages"
    figures = f"{shown} messages shown · {stored} stored"
    header = window.header.facts
    qtbot.waitUntil(lambda: figures in header.text().replace("\u00a0", " "), timeout=10_000)
    assert figures in window.status.session_label.full_text
    window.close()


def test_a_long_title_is_cut_to_the_header_and_never_widens_the_window(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """A Claude Code summary names `edge_cases` in 190 characters: its title was a button asking
    for all of them (120 shown), which squeezed the session list to a sliver and pushed the
    usage panel off a 1280-pixel window."""
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = _args(db=CLAUDE_PROJECT, demo=False, session="edge_cases")
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    title = window.header.title
    qtbot.waitUntil(lambda: title.full_text.startswith("Tested various edge cases"), timeout=10_000)
    qtbot.waitUntil(lambda: title.text().endswith("…"), timeout=5000)
    assert title.toolTip().startswith(" ".join(title.full_text[:-1].split()))
    QApplication.processEvents()  # the layout requests the new title posted
    layout = window.layout()
    assert layout is not None
    layout.activate()
    assert window.header.minimumSizeHint().width() < 400
    assert window.minimumSizeHint().width() <= 1280
    assert window.splitter.sizes()[0] >= 280  # the list keeps the width it was given
    dock = window.usage_dock
    assert dock.isVisible()
    assert dock.geometry().right() < window.width()
    window.close()
