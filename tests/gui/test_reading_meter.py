"""The status bar's sentence while files are read behind the listing (issue #22 item 2)."""

import os
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop_app.domain.source import SessionQuery
from desktop_app.sources.claude_code.format import FORMAT as CLAUDE_CODE
from desktop_app.sources.files import history
from desktop_app.sources.files.history import FileHistory
from desktop_app.ui.reading_meter import ReadingMeter, reading_sentence
from tests.fixtures.memory_reader import MemoryHistory
from tests.unit.test_reading_behind import CHUNK, FILES, _folder, _Gate


def test_the_sentence_counts_the_files_read_then_goes(
    tmp_path: Path, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = _Gate()
    monkeypatch.setattr(history, "PARALLEL_FROM", 5)
    monkeypatch.setattr(history, "summaries_streamed", gate)
    monkeypatch.setattr(history, "FIRST_HERE_BYTES", 0)  # every file through the gate
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    reader = FileHistory(_folder(tmp_path), [CLAUDE_CODE], tmp_path / "data")
    reader.catalogue_in_background()
    other = MemoryHistory([])  # a reader that reads no files says nothing
    meter = ReadingMeter([other, reader])
    said: list[str] = []
    meter.changed.connect(said.append)
    reader.list_sessions(SessionQuery())  # the list's first page starts the reading
    meter.start()
    assert said == [f"Reading Claude Code logs · 0 of {FILES} files"]
    gate.allowed.release()
    qtbot.waitUntil(lambda: said[-1].endswith(f"{CHUNK} of {FILES} files"), timeout=10_000)
    for _ in range(FILES // CHUNK - 1):
        gate.allowed.release()
    qtbot.waitUntil(lambda: said[-1] == "", timeout=10_000)
    assert reading_sentence([other, reader]) == ""
    reader.close()
