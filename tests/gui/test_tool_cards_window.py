"""The window shows a genuine Claude Code session's tools as what they did: each result is
named by its call in words, as the renderer's tests see it (#19 items 3, 4)."""

from argparse import Namespace
from pathlib import Path

from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from desktop_app.app import build_window
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from tests.gui.conftest import render_all

TOOLS = Path(__file__).resolve().parents[1] / "fixtures/agents/claude_code/tools/2.1.110"
SESSION = "claude-code:536541d2-9ea2-466e-8880-fe934c05bb3a"


def test_the_window_names_each_result_by_what_its_call_did(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(db=[f"claude-code={TOOLS}"], demo=False, session=SESSION)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.transcript.rowCount() > 0, timeout=10_000)
    titles = [str(block["title"]) for block in render_all(window.transcript, qtbot)]
    handlers = "/tmp/ccrun-tools21110/payments-api/app/handlers.py"
    assert f"Edit {handlers} (+1 −1)" in titles
    assert f"Result · Edit {handlers} · ✓ ok · +1 −1" in titles
    assert "Run the checks" in titles
    assert any(t.startswith("Result · Ran python3 -c") and t.endswith("✗ exit 3") for t in titles)
    window.close()
