"""A first opening of many files lists at once (issue #22 item 2): the window lets them be read
behind the listing, newest first, and the list shows those read so far; what needs every
session (the search index's states, a session not read yet) waits for the reading; the CLI,
which does not ask for it, lists only once every file is read, as before. On copies of a log
Claude Code 1.0.128 wrote (tests/fixtures/agents/claude_code/written)."""

import os
import shutil
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from desktop_app.domain.errors import UnknownSession
from desktop_app.domain.reading import EVERY_SESSION, iter_sessions
from desktop_app.domain.source import Cataloguing, SessionQuery
from desktop_app.sources.claude_code.format import FORMAT as CLAUDE_CODE
from desktop_app.sources.files import history
from desktop_app.sources.files.background import QUICK_SWITCH_S
from desktop_app.sources.files.history import FileFormat, FileHistory

GENUINE = (
    Path(__file__).parents[1]
    / "fixtures/agents/claude_code/written/1.0.128/-tmp-ccrun-v10128-payments-api"
    / "8a6a6fac-acd0-4652-bce8-5020afab80f8.jsonl"
)
FILES = 12
CHUNK = 4


def _folder(tmp_path: Path) -> Path:
    """`FILES` logs, `s00` the oldest, `s11` the newest."""
    folder = tmp_path / "project"
    folder.mkdir()
    for number in range(FILES):
        log = folder / f"s{number:02}.jsonl"
        shutil.copyfile(GENUINE, log)
        os.utime(log, ns=(1_700_000_000_000_000_000 + number * 10**9,) * 2)
    return folder


class _Gate:
    """Summaries in chunks of `CHUNK`, each one let through by the test (in this process)."""

    def __init__(self) -> None:
        self.allowed = threading.Semaphore(0)
        self.asked: list[list[str]] = []

    def __call__(
        self,
        paths: list[str],
        formats: Sequence[FileFormat],
        size: int | None = None,
        keeping: history.Keeping | None = None,
    ) -> Iterator[tuple[list[str], list[dict[str, Any]]]]:
        for start in range(0, len(paths), CHUNK):
            chunk = paths[start : start + CHUNK]
            self.asked.append([Path(p).stem for p in chunk])
            assert self.allowed.acquire(timeout=30)
            yield chunk, history._summarise(chunk, formats, keeping)


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> _Gate:
    found = _Gate()
    monkeypatch.setattr(history, "PARALLEL_FROM", 5)
    monkeypatch.setattr(history, "summaries_streamed", found)
    monkeypatch.setattr(history, "FIRST_HERE_BYTES", 0)  # every file through the gate
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    return found


def _listed(reader: FileHistory) -> list[str]:
    return [s.id for s in reader.list_sessions(SessionQuery(), limit=100).sessions]


def _wait(condition: Any) -> None:
    for _ in range(3000):  # ends: 30 s at most
        if condition():
            return
        threading.Event().wait(0.01)
    raise AssertionError("the reading behind the listing did not get there")


def test_the_list_shows_the_newest_files_read_so_far_and_grows(tmp_path: Path, gate: _Gate) -> None:
    reader = FileHistory(_folder(tmp_path), [CLAUDE_CODE], tmp_path / "data")
    assert isinstance(reader, Cataloguing)
    reader.catalogue_in_background()
    assert _listed(reader) == []  # at once, before any file is read
    assert reader.cataloguing() == (0, FILES)
    first_token = reader.change_token()
    _wait(lambda: gate.asked)
    assert gate.asked[0] == ["s11", "s10", "s09", "s08"]  # newest first
    gate.allowed.release()
    _wait(lambda: reader.cataloguing() == (CHUNK, FILES))
    assert _listed(reader) == ["s11", "s10", "s09", "s08"]
    assert reader.count_sessions(SessionQuery()) == CHUNK
    assert reader.change_token() != first_token  # the window's poll sees the list grow
    for _ in range(FILES // CHUNK - 1):
        gate.allowed.release()
    _wait(lambda: reader.cataloguing() is None)
    assert _listed(reader) == [f"s{n:02}" for n in reversed(range(FILES))]
    reader.close()
    # the catalog was written: a second opening lists everything at once, reading nothing
    again = FileHistory(tmp_path / "project", [CLAUDE_CODE], tmp_path / "data")
    again.catalogue_in_background()
    assert len(_listed(again)) == FILES
    assert again.cataloguing() is None
    assert len(gate.asked) == FILES // CHUNK


def test_the_index_states_wait_for_the_reading(tmp_path: Path, gate: _Gate) -> None:
    """Every session, or one not read yet would be "gone" from the index."""
    reader = FileHistory(_folder(tmp_path), [CLAUDE_CODE], tmp_path / "data")
    reader.catalogue_in_background()
    assert _listed(reader) == []
    states: dict[str, Any] = {}
    waiting = threading.Thread(target=lambda: states.update(reader.session_states(None)))
    waiting.start()
    threading.Event().wait(0.2)
    assert not states
    for _ in range(FILES // CHUNK):
        gate.allowed.release()
    waiting.join(timeout=30)
    assert len(states) == FILES
    reader.close()


def test_a_session_asked_for_is_read_at_once_from_the_file_its_id_names(
    tmp_path: Path, gate: _Gate
) -> None:
    """The shared worker is never held for the whole reading: the window asks for the session
    it showed last before the list."""
    reader = FileHistory(_folder(tmp_path), [CLAUDE_CODE], tmp_path / "data")
    reader.catalogue_in_background()
    assert reader.get_session("s00").id == "s00"  # the oldest, last in the reading's order
    assert reader.positions("s01")
    assert _listed(reader) == ["s01", "s00"]
    with pytest.raises(UnknownSession):
        reader.get_session("another-history:its-session")
    for _ in range(FILES // CHUNK):
        gate.allowed.release()
    _wait(lambda: reader.cataloguing() is None)
    assert len(_listed(reader)) == FILES  # those read at once are not listed twice
    reader.close()


def test_without_being_asked_a_first_opening_reads_every_file_first(
    tmp_path: Path, gate: _Gate
) -> None:
    """The CLI's way: `gander list` must list every session, so it waits as before."""
    for _ in range(FILES // CHUNK):
        gate.allowed.release()
    reader = FileHistory(_folder(tmp_path), [CLAUDE_CODE], tmp_path / "data")
    assert len(list(iter_sessions(reader, EVERY_SESSION))) == FILES
    assert reader.cataloguing() is None


def test_closing_stops_the_reading(tmp_path: Path, gate: _Gate) -> None:
    reader = FileHistory(_folder(tmp_path), [CLAUDE_CODE], tmp_path / "data")
    reader.catalogue_in_background()
    _listed(reader)
    _wait(lambda: gate.asked)
    reader.close()
    gate.allowed.release()
    gate.allowed.release()
    threading.Event().wait(0.2)
    assert len(gate.asked) == 1  # the chunk in hand ends it; no other is asked for
    assert reader.cataloguing() is None


def test_with_worker_processes_the_reading_lists_what_a_whole_reading_lists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(history, "PARALLEL_FROM", 5)
    folder = _folder(tmp_path)
    behind = FileHistory(folder, [CLAUDE_CODE], tmp_path / "behind")
    behind.catalogue_in_background()
    behind.list_sessions(SessionQuery())
    _wait(lambda: behind.cataloguing() is None)
    whole = FileHistory(folder, [CLAUDE_CODE], tmp_path / "whole")
    assert behind.list_sessions(SessionQuery(), limit=100) == whole.list_sessions(
        SessionQuery(), limit=100
    )
    assert behind.session_states(None) == whole.session_states(None)


def test_the_newest_small_files_are_listed_while_the_workers_start(
    tmp_path: Path, gate: _Gate, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(history, "FIRST_HERE_BYTES", 1_000_000)
    monkeypatch.setattr(history, "BEHIND_CHUNK", 6)
    reader = FileHistory(_folder(tmp_path), [CLAUDE_CODE], tmp_path / "data")
    reader.catalogue_in_background()
    _listed(reader)
    _wait(lambda: reader.cataloguing() == (6, FILES))  # no worker's chunk let through yet
    assert _listed(reader) == ["s11", "s10", "s09", "s08", "s07", "s06"]
    assert gate.asked[0][0] == "s05"  # the workers get the rest
    for _ in range(2):
        gate.allowed.release()
    _wait(lambda: reader.cataloguing() is None)
    assert len(_listed(reader)) == FILES
    reader.close()


def test_the_first_files_read_here_leave_the_window_its_turns(
    tmp_path: Path, gate: _Gate, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read on the catalog's thread, the first files held the interpreter lock 5 ms at a time
    while the first window drew (each row it paints asks the model): 115–148 ms stalls."""
    monkeypatch.setattr(history, "FIRST_HERE_BYTES", 1_000_000)
    intervals: list[float] = []
    parse = history.parse_file

    def recording(path: Path, formats: Sequence[FileFormat]) -> Any:
        intervals.append(sys.getswitchinterval())
        return parse(path, formats)

    monkeypatch.setattr(history, "parse_file", recording)
    usual = sys.getswitchinterval()
    reader = FileHistory(_folder(tmp_path), [CLAUDE_CODE], tmp_path / "data")
    reader.catalogue_in_background()
    _listed(reader)
    _wait(lambda: reader.cataloguing() == (history.BEHIND_CHUNK, FILES))
    assert intervals == [QUICK_SWITCH_S] * history.BEHIND_CHUNK
    assert sys.getswitchinterval() == usual
    for _ in range(FILES):
        gate.allowed.release()
    _wait(lambda: reader.cataloguing() is None)
    reader.close()


def test_the_token_moves_at_the_first_files_then_at_most_every_few_seconds(
    tmp_path: Path, gate: _Gate, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each change refreshes the window's list (40–60 ms for a long one): not one per chunk."""
    monkeypatch.setattr(history, "READING_REFRESH_S", 3600.0)
    reader = FileHistory(_folder(tmp_path), [CLAUDE_CODE], tmp_path / "data")
    reader.catalogue_in_background()
    _listed(reader)
    before = reader.change_token()
    gate.allowed.release()
    _wait(lambda: reader.cataloguing() == (CHUNK, FILES))
    first = reader.change_token()
    assert first != before  # the first sessions are listed at once
    gate.allowed.release()
    _wait(lambda: reader.cataloguing() == (2 * CHUNK, FILES))
    assert reader.change_token() == first  # more, within the hour: no refresh yet
    gate.allowed.release()
    _wait(lambda: reader.cataloguing() is None)
    assert reader.change_token() != first  # the end: the whole list
    reader.close()
