"""Find in a long transcript a step at a time (`reading.find_steps`, `TranscriptFinder`): a
find in a 1.85-million-message log held the worker for a minute in one job. Steps go from the
session's end back to its start; the nearest hit to the end is shown after the first, the count
grows, and the last step says so. On a genuine Claude Code log copied over
(tests/fixtures/agents/claude_code/written)."""

import re
from argparse import Namespace
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from desktop_app.app import build_window
from desktop_app.domain import reading
from desktop_app.domain.reading import find_in_session, find_steps
from desktop_app.domain.source import SessionQuery
from desktop_app.sources.claude_code import format as claude_code
from desktop_app.sources.files.history import FileHistory
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from tests.unit.test_message_pages import claude_log

SESSION = "7f3c2a10-0000-4000-8000-00000000eeee"
NEEDLE = "handlers"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / f"{SESSION}.jsonl").write_bytes(claude_log(12))
    return folder


@pytest.mark.parametrize("step", [1, 7, 50, 10_000])
def test_steps_go_from_the_end_to_the_start_and_find_what_one_find_does(
    folder: Path, step: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reading, "FIND_STEP", step)
    source = FileHistory(folder, [claude_code.FORMAT], folder.parent / "data")
    source.list_sessions(SessionQuery())
    steps = list(find_steps(source, SESSION, NEEDLE))
    messages = len(source.positions(SESSION))
    assert len(steps) == -(-messages // step)  # every step of the session, once
    assert [s.last for s in steps] == [False] * (len(steps) - 1) + [True]
    hits = [hit for found in reversed(steps) for hit in found.hits]
    assert hits == list(find_in_session(source, SESSION, NEEDLE))
    assert len(hits) > 12


def test_the_find_bar_shows_the_nearest_hit_first_and_counts_on(
    folder: Path, tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reading, "FIND_STEP", 40)
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(db=[f"claude-code={folder}"], demo=False, session=None)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.transcript.rowCount() > 0, timeout=10_000)
    said: list[str] = []
    window.finder.status.connect(said.append)
    rows: list[int] = []
    window.finder.show_row.connect(rows.append)
    window.find_bar.open_bar()
    window.find_bar.field.setText(NEEDLE)
    alone = FileHistory(folder, [claude_code.FORMAT], tmp_path / "alone")
    alone.list_sessions(SessionQuery())
    total = len(find_in_session(alone, SESSION, NEEDLE))
    qtbot.waitUntil(lambda: said[-1:] == [f"{total} of {total} messages"], timeout=10_000)
    assert said[0] == "searching…"
    assert "· searching…" in said[1]  # the nearest hit, while earlier steps are read
    first = re.fullmatch(r"(\d+) of \1 messages · searching…", said[1])
    assert first is not None  # the last of the first step's hits shown: the nearest to the end
    assert int(first.group(1)) < total
    assert len(rows) == 1  # shown once, where it is
    window.close()
