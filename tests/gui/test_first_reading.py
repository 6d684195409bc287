"""The first window over many files is usable at once (issue #22 item 2): it is built without
waiting for the files to be read, lists the newest as they are read, opens the newest
session, and the status bar counts the files read. On copies of a log Claude Code 1.0.128
wrote (tests/fixtures/agents/claude_code/written)."""

import os
from argparse import Namespace
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from desktop_app.app import build_window
from desktop_app.sources.files import history
from desktop_app.ui.live import LiveWatcher
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.usage_loader import UsageLoader
from tests.unit.test_reading_behind import CHUNK, FILES, _folder, _Gate


def test_the_window_lists_files_as_they_are_read(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = _Gate()
    monkeypatch.setattr(history, "PARALLEL_FROM", 5)
    monkeypatch.setattr(history, "summaries_streamed", gate)
    monkeypatch.setattr(history, "FIRST_HERE_BYTES", 0)  # every file through the gate
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    overviews: list[int] = []
    load_overview = UsageLoader.load_overview

    def loading(loader: UsageLoader) -> None:
        overviews.append(1)
        load_overview(loader)

    monkeypatch.setattr(UsageLoader, "load_overview", loading)
    folder = _folder(tmp_path)
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(db=[f"claude-code={folder}"], demo=False, session=None)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: bool(gate.asked), timeout=10_000)
    assert window.sessions.rowCount() == 0  # built before any file was read
    qtbot.waitUntil(lambda: window.session_list.placeholder.startswith("Reading"), timeout=10_000)
    reading = window.status.reading_label
    qtbot.waitUntil(reading.isVisible, timeout=10_000)
    assert reading.text() == f"Reading Claude Code logs · 0 of {FILES} files"
    gate.allowed.release()
    qtbot.waitUntil(lambda: window.transcript.session_id == "s11", timeout=10_000)
    qtbot.waitUntil(lambda: reading.text().endswith(f" {CHUNK} of {FILES} files"), timeout=10_000)
    for _ in range(FILES // CHUNK - 1):
        gate.allowed.release()
    qtbot.waitUntil(lambda: window.sessions.session_count == FILES, timeout=10_000)
    qtbot.waitUntil(lambda: not reading.isVisible(), timeout=10_000)
    qtbot.waitUntil(lambda: len(overviews) == 2, timeout=10_000)  # again, of the whole list
    window.close()


def test_each_count_of_files_read_asks_the_history_for_changes_at_once(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The list grows as the count moves, not at the next second's poll."""
    polls: list[int] = []
    poll = LiveWatcher.poll

    def polling(watcher: LiveWatcher, *, first: bool = False) -> None:
        polls.append(1)
        poll(watcher, first=first)

    monkeypatch.setattr(LiveWatcher, "poll", polling)
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(db=[f"claude-code={_folder(tmp_path)}"], demo=False, session=None)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    before = len(polls)
    window.status.reading.changed.emit("Reading Claude Code logs · 4 of 12 files")
    assert len(polls) == before + 1
    window.close()
