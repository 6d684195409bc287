"""The header's "Copy resume command" and "Reveal in file manager" for every agent (#20 item
14), in a shown window on logs the agents wrote themselves: the button is there for each agent
that resumes, its tooltip the exact command it copies; disabled with the reason when the agent
cannot resume that session; absent for a history whose program resumes nothing; the reveal
opens the session file's folder on a click."""

from argparse import Namespace
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication
from pytestqt.qtbot import QtBot

from desktop_app.app import build_window
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
AGENTS = FIXTURES / "agents"
CLAUDE_ID = "6a74d8d7-f3d6-4aa8-b090-76b2e97fea9e"
CODEX_ID = "01a230da-5127-72e0-a205-4a9bdb40d144"


def _window(
    location: Path, session: str, tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> MainWindow:
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(db=str(location), demo=False, session=session, screenshot=None)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    qtbot.waitUntil(lambda: window.header.native_id == session, timeout=10_000)
    return window


@pytest.mark.parametrize(
    ("location", "session", "command"),
    [
        (
            AGENTS / "claude_code" / "written",
            CLAUDE_ID,
            f"cd /tmp/ccrun-v21110/payments-api && claude --resume {CLAUDE_ID}",
        ),
        (
            AGENTS / "codex" / "cli",
            CODEX_ID,
            f"cd /tmp/codex-demo/notes-app && codex resume {CODEX_ID}",
        ),
    ],
)
def test_the_header_copies_the_agents_own_resume_command(
    location: Path, session: str, command: str, *, tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    header = _window(location, session, tmp_path, tasks, qtbot).header
    assert header.copy_resume.isVisible()
    assert header.copy_resume.isEnabled()
    assert header.copy_resume.toolTip().splitlines()[0] == command
    header.copy_resume.click()
    assert QGuiApplication.clipboard().text() == command


def test_a_session_its_agent_cannot_resume_says_why(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    QGuiApplication.clipboard().setText("before")
    written = AGENTS / "claude_code" / "written"
    header = _window(written, "agent-6880a13f", tmp_path, tasks, qtbot).header
    assert header.copy_resume.isVisible()
    assert not header.copy_resume.isEnabled()
    assert "resume its parent session" in header.copy_resume.toolTip()
    header.copy_resume.click()
    assert QGuiApplication.clipboard().text() == "before"


def test_reveal_opens_the_session_files_folder_on_a_click(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[QUrl] = []

    def open_url(url: QUrl) -> bool:
        opened.append(url)
        return True

    monkeypatch.setattr(QDesktopServices, "openUrl", open_url)
    folder = AGENTS / "codex" / "cli"
    header = _window(folder, CODEX_ID, tmp_path, tasks, qtbot).header
    assert header.reveal.isVisible()
    assert opened == []  # nothing opens by itself
    header.reveal.click()
    (file,) = folder.rglob(f"*{CODEX_ID}.jsonl")
    assert opened == [QUrl.fromLocalFile(str(file.parent))]
    assert str(file) in header.reveal.toolTip()


def test_a_history_whose_program_resumes_nothing_shows_no_resume_button(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    folder = FIXTURES / "genuine" / "toolnexus"
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(db=str(folder), demo=False, session=None, screenshot=None)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.header.session is not None, timeout=10_000)
    assert not window.header.copy_resume.isVisible()
    assert window.header.reveal.isVisible()


def test_the_ids_row_never_sets_the_transcript_panes_width(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """A UUID beside three labelled buttons asked 665 px (355 beside one, as it was): at
    800×600 the session list was squeezed under 200 px. The id is cut in the middle instead
    (whole in its tooltip and in Copy id), the reveal button a folder icon."""
    window = _window(AGENTS / "claude_code" / "written", CLAUDE_ID, tmp_path, tasks, qtbot)
    window.resize(800, 600)
    header = window.header
    qtbot.waitUntil(lambda: header.width() < 500, timeout=5000)
    assert header.minimumSizeHint().width() <= 360
    assert header.id_label.toolTip() == CLAUDE_ID
    shown = header.id_label.text()
    assert shown == CLAUDE_ID or "…" in shown
    header.copy_id.click()
    assert QGuiApplication.clipboard().text() == CLAUDE_ID
