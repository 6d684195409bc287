"""The window opens goose's database and every coding agent's logs found on this computer, each
of which can be turned off (#12)."""

import json
import shutil
from argparse import Namespace
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from desktop_app.app import build_window
from desktop_app.domain.session import Session
from desktop_app.sources.agents_locate import agent_folders, found_agent_histories
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.roles import SessionRole
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from tests.fixtures.goose_db import GooseDb
from tests.gui.conftest import render_all

AGENTS = Path(__file__).resolve().parents[1] / "fixtures" / "agents"


def _listed(window: MainWindow) -> list[Session]:
    model = window.sessions
    rows = [model.index(r, 0).data(SessionRole.SESSION) for r in range(model.rowCount())]
    return [s for s in rows if isinstance(s, Session)]


def test_agent_folders_follow_each_agents_override(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"CODEX_HOME": str(tmp_path / "codex-home"), "CLAUDE_CONFIG_DIR": "relative/ignored"}
    folders = agent_folders(env, home)
    assert folders["codex"] == tmp_path / "codex-home" / "sessions"
    assert folders["claude-code"] == home / ".claude" / "projects"
    assert folders["gemini-cli"] == home / ".gemini" / "tmp"
    assert folders["pi"] == home / ".pi" / "agent" / "sessions"
    (home / ".pi" / "agent" / "sessions").mkdir(parents=True)
    assert found_agent_histories(env, home) == [("pi", home / ".pi" / "agent" / "sessions")]


def test_the_agents_found_here_open_and_each_can_be_turned_off(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    home = Path.home()  # tests/conftest.py points HOME at a folder of this test's own
    shutil.copytree(AGENTS / "claude_code" / "project", home / ".claude" / "projects" / "-w")
    shutil.copytree(AGENTS / "codex" / "sessions", home / ".codex" / "sessions")
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(db=None, demo=False, session=None, screenshot=None)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: len(_listed(window)) >= 6, timeout=10_000)
    kinds = {s.id.split(":", 1)[0] for s in _listed(window)}
    assert kinds == {"claude-code", "codex"}
    menu = window.agent_menu.agent_actions
    assert menu["claude-code"].isChecked()
    assert menu["codex"].isChecked()
    assert not menu["pi"].isEnabled()  # not on this computer
    menu["codex"].setChecked(False)
    assert settings.disabled_agents == ["codex"]
    assert not any(p.startswith("codex=") for p in settings.open_histories)
    assert "will not be opened" in window.statusBar().currentMessage()
    window.close()

    again = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(again)
    qtbot.waitUntil(lambda: len(_listed(again)) >= 4, timeout=10_000)
    assert {s.id for s in _listed(again)} >= {"sample_session", "edge_cases"}  # one history
    assert again.locations == [f"claude-code={home / '.claude' / 'projects'}"]
    again.close()


def test_a_running_agents_new_lines_show_within_two_seconds(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    folder = tmp_path / "projects"
    shutil.copytree(AGENTS / "claude_code" / "project", folder / "-w")
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    session = "7f3c2a10-0000-4000-8000-000000000001"
    args = Namespace(db=[f"claude-code={folder}"], demo=False, session=session, screenshot=None)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.transcript.rowCount() > 0, timeout=10_000)
    rows = window.transcript.rowCount()
    with (folder / "-w" / f"{session}.jsonl").open("a") as log:
        line = {
            "type": "user",
            "uuid": "live1",
            "sessionId": session,
            "timestamp": "2026-02-03T10:00:00.000Z",
            "message": {"role": "user", "content": "and now the docs"},
        }
        log.write(json.dumps(line) + "\n")
    # The wait's timeout is the promise (the watcher polls each second); nothing times the test.
    qtbot.waitUntil(lambda: window.transcript.rowCount() == rows + 1, timeout=2500)
    window.close()


@pytest.mark.parametrize(
    "case",
    [
        ("claude_code/project", "claude-code"),
        ("codex/sessions", "codex"),
        ("gemini_cli/tmp", "gemini-cli"),
        ("pi/sessions", "pi"),
    ],
)
def test_each_agent_beside_goose_in_the_window(
    case: tuple[str, str],
    make_db: Callable[..., GooseDb],
    tmp_path: Path,
    tasks: TaskRunner,
    qtbot: QtBot,
) -> None:
    folder, kind = case
    goose = make_db()
    goose.add_session("g1", name="A goose chat")
    goose.add_message("g1", content="hello goose")
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(db=[f"{kind}={AGENTS / folder}", str(goose.path)], demo=False, session=None)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(
        lambda: {s.id.split(":", 1)[0] for s in _listed(window)} == {kind, "goose"},
        timeout=10_000,
    )
    ours = next(s for s in _listed(window) if s.id.startswith(kind))
    window.open_session(ours.id)
    qtbot.waitUntil(lambda: window.transcript.rowCount() > 0, timeout=5000)
    window.close()


def test_the_task_call_links_to_its_sub_agent(
    make_db: Callable[..., GooseDb], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    goose = make_db()
    goose.add_session("g1", name="A goose chat")
    goose.add_message("g1", content="hello goose")
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    main = "claude-code:7f3c2a10-0000-4000-8000-000000000001"
    args = Namespace(
        db=[f"claude-code={AGENTS / 'claude_code' / 'project'}", str(goose.path)],
        demo=False,
        session=main,
    )
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.transcript.rowCount() > 0, timeout=10_000)
    blocks = render_all(window.transcript, qtbot)
    link = "gander-session:agent-ci0001"
    assert any(link in str(b["html"]) for b in blocks)
    window.transcript_view.actions_for_qml.linkActivated(5, 0, link)
    qtbot.waitUntil(
        lambda: window.transcript.session_id == "claude-code:agent-ci0001", timeout=5000
    )
    assert window.link_prompt is None  # opened in place, no browser question
    window.close()
