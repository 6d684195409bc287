"""Every history named so a person can tell them apart (#20 item 8): badges name the agent,
with a folder's name only when two histories of one agent are open; the row's tooltip says
where its history is; the project filter lists each folder once, sorted."""

import shutil
from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop_app.domain.combined import CombinedHistory
from desktop_app.domain.source import SessionQuery
from desktop_app.sources.registry import open_history
from desktop_app.ui.models.session_tree import SessionTreeModel
from desktop_app.ui.roles import SessionRole
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.widgets.filter_bar import project_choices

AGENTS = Path(__file__).resolve().parents[1] / "fixtures/agents"


def _badges(model: SessionTreeModel) -> set[str]:
    found = set()
    for row in range(model.rowCount()):
        badge = model.index(row, 0).data(SessionRole.BADGE)
        if badge:
            found.add(badge)
    return found


def test_badges_name_the_agent_and_a_folder_only_when_needed(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    work, play = tmp_path / "work/projects", tmp_path / "play/projects"
    shutil.copytree(AGENTS / "claude_code/project", work)
    shutil.copytree(AGENTS / "claude_code/project", play)
    readers = [
        open_history(f"claude-code={work}", cache_dir=tmp_path / "c"),
        open_history(f"claude-code={play}", cache_dir=tmp_path / "c"),
        open_history(f"codex={AGENTS / 'codex/sessions'}", cache_dir=tmp_path / "c"),
    ]
    source = CombinedHistory(readers)
    try:
        assert set(source.labels().values()) == {
            "Claude Code · work",
            "Claude Code · play",
            "Codex",
        }
        model = SessionTreeModel(source, tasks, SessionQuery())
        with qtbot.waitSignal(model.populated, timeout=10_000):
            model.reload()
        assert _badges(model) == {"Claude Code · work", "Claude Code · play", "Codex"}
        codex_row = next(
            model.index(r, 0)
            for r in range(model.rowCount())
            if model.index(r, 0).data(SessionRole.BADGE) == "Codex"
        )
        tip = str(codex_row.data(Qt.ItemDataRole.ToolTipRole))
        assert tip.splitlines()[-1] == f"Codex: {AGENTS / 'codex/sessions'}"
    finally:
        source.close()


def test_one_history_of_each_agent_is_named_by_the_agent_alone(tmp_path: Path) -> None:
    readers = [
        open_history(f"claude-code={AGENTS / 'claude_code/project'}", cache_dir=tmp_path),
        open_history(f"gemini-cli={AGENTS / 'gemini_cli/tmp'}", cache_dir=tmp_path),
        open_history(f"pi={AGENTS / 'pi/sessions'}", cache_dir=tmp_path),
    ]
    source = CombinedHistory(readers)
    try:
        assert sorted(source.labels().values()) == ["Claude Code", "Gemini CLI", "pi"]
    finally:
        source.close()


def test_the_project_filter_lists_each_folder_once_sorted() -> None:
    folders = ["/h/web/", "/h/work/api", "/h/web", "/h/Alpha", "/h/play/api", "", "/h/work/api"]
    assert project_choices(folders) == [
        ("Alpha", "/h/Alpha"),
        ("api (play)", "/h/play/api"),
        ("api (work)", "/h/work/api"),
        ("web", "/h/web/"),
    ]
