"""The window over readers that are not goose: an in-memory reader with nothing but the six
required methods, and goose beside a toolnexus folder — badges, the History filter, search
over both, per-session writes, and a file changed on disk shown within two seconds."""

import functools
import json
import os
import time
from argparse import Namespace
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, QSettings
from pytestqt.qtbot import QtBot

from desktop_app.app import Windows, assemble_window, build_window
from desktop_app.domain.search import SearchResults
from desktop_app.domain.session import Session
from desktop_app.opening import OpenedHistories
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.models.session_tree import SessionTreeModel
from desktop_app.ui.roles import MessageRole, SessionRole
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from tests.fixtures import histories
from tests.fixtures.goose_db import GooseDb
from tests.fixtures.memory_reader import MemoryHistory

TOPICS = ["owls", "tides", "granite", "lichen", "comets"]


def _settings(tmp_path: Path) -> Settings:
    return Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))


def _listed(window: MainWindow) -> list[Session]:
    model = window.sessions
    rows = [model.index(r, 0).data(SessionRole.SESSION) for r in range(model.rowCount())]
    return [s for s in rows if isinstance(s, Session)]


def test_a_reader_with_only_the_required_methods_drives_the_whole_window(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, qtmodeltester: object
) -> None:
    memory = MemoryHistory(TOPICS)
    opened = OpenedHistories(source=memory, readers=(memory,), is_demo=False, note=None)
    window = assemble_window(
        opened, Namespace(session=None), tmp_path / "data", _settings(tmp_path), tasks
    )
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: len(_listed(window)) == 5, timeout=10_000)
    qtmodeltester.check(window.sessions)  # type: ignore[attr-defined]
    assert _listed(window)[0].name == "About comets"
    qtbot.waitUntil(lambda: window.transcript.session_id == "m4", timeout=5000)
    qtbot.waitUntil(lambda: window.transcript.rowCount() == 5, timeout=5000)
    qtmodeltester.check(window.transcript)  # type: ignore[attr-defined]
    system = window.transcript.index(0)
    qtbot.waitUntil(lambda: bool(system.data(MessageRole.LOADED)), timeout=5000)
    assert system.data(MessageRole.HIDDEN), "the system prompt is agent-only"
    window.show_hidden_action.setChecked(True)
    assert not system.data(MessageRole.HIDDEN)
    tool_call = window.transcript.index(2)
    qtbot.waitUntil(lambda: bool(tool_call.data(MessageRole.LOADED)), timeout=5000)
    kinds = [block["kind"] for block in tool_call.data(MessageRole.BLOCKS)]
    assert "reasoning" in kinds
    assert "tool" in " ".join(kinds)

    # Nothing to write to: the actions say why.
    assert not window.session_actions.rename.isEnabled()
    assert "memory histories are read-only" in window.session_actions.rename.toolTip()
    assert not window.sessions.flags(window.sessions.find_session("m4")) & (
        window.sessions.flags(window.sessions.find_session("m4")).ItemIsEditable
    )

    # The filter offers the folders this reader holds.
    qtbot.waitUntil(lambda: window.filter_bar.project.count() == 6, timeout=5000)
    window.filter_bar.project.setCurrentIndex(window.filter_bar.project.findText("owls"))
    qtbot.waitUntil(lambda: [s.id for s in _listed(window)] == ["m0"], timeout=5000)

    # Search, built from the listing (no change feed), finds text in tool output and prose.
    window.search.update()
    with qtbot.waitSignal(window.search.ready, timeout=20_000):
        pass
    with qtbot.waitSignal(window.search.results, timeout=5000) as delivered:
        window.search.search("granite")
    found = delivered.args[0]
    assert isinstance(found, SearchResults)
    assert [s.session_id for s in found.sessions] == ["m2"]
    window.open_hit(found.sessions[0].hits[0])
    qtbot.waitUntil(lambda: window.transcript.session_id == "m2", timeout=5000)
    window.close()


def _loaded(index: QModelIndex) -> bool:
    return bool(index.data(MessageRole.LOADED))


def _toolnexus_file(folder: Path, name: str, text: str, mtime: float) -> Path:
    return histories.write_json(
        folder / f"{name}.json", [{"role": "user", "content": text}], mtime=mtime
    )


def test_goose_and_toolnexus_together(
    make_db: Callable[..., GooseDb], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    db = make_db()
    db.add_session("g1", name="Goose one", updated_at="2026-01-05 10:00:00")
    db.add_message("g1", content="penguins in goose")
    folder = tmp_path / "tn"
    _toolnexus_file(folder, "t1", "penguins in toolnexus", time.time() - 3600)
    _toolnexus_file(folder, "t2", "second thread", time.time() - 7200)
    window = build_window(
        Namespace(db=[db.path, folder], demo=False, session=None),
        tmp_path / "data",
        _settings(tmp_path),
        tasks,
    )
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: len(_listed(window)) == 3, timeout=10_000)
    ids = [s.id for s in _listed(window)]
    assert ids == ["toolnexus:t1", "toolnexus:t2", "goose:g1"], "merged by last activity"
    badges = {
        window.sessions.index(r, 0).data(SessionRole.BADGE)
        for r in range(window.sessions.rowCount())
        if window.sessions.index(r, 0).data(SessionRole.SESSION) is not None
    }
    assert badges == {"toolnexus", "goose"}  # one of each: the agent's name alone

    # The History filter.
    bar = window.filter_bar
    assert bar.history.isVisibleTo(window)
    bar.history.setCurrentIndex(bar.history.findData("goose"))
    qtbot.waitUntil(lambda: [s.id for s in _listed(window)] == ["goose:g1"], timeout=5000)
    bar.history.setCurrentIndex(0)
    qtbot.waitUntil(lambda: len(_listed(window)) == 3, timeout=5000)

    # Writes where the history allows them.
    goose_row = window.sessions.find_session("goose:g1")
    window.session_list.setCurrentIndex(goose_row)
    assert window.session_actions.rename.isEnabled()
    window.session_list.setCurrentIndex(window.sessions.find_session("toolnexus:t1"))
    assert not window.session_actions.rename.isEnabled()
    assert "toolnexus histories are read-only" in window.session_actions.rename.toolTip()

    # Search covers both.
    window.search.update()
    with qtbot.waitSignal(window.search.ready, timeout=20_000):
        pass
    with qtbot.waitSignal(window.search.results, timeout=5000) as delivered:
        window.search.search("penguins")
    found = delivered.args[0]
    assert {s.session_id for s in found.sessions} == {"goose:g1", "toolnexus:t1"}

    # A file that changes on disk shows within two seconds.
    qtbot.waitUntil(lambda: window.transcript.session_id == "toolnexus:t1", timeout=5000)
    qtbot.waitUntil(lambda: window.transcript.rowCount() == 1, timeout=5000)
    qtbot.wait(1200)  # the watcher takes its first reading
    path = folder / "t1.json"
    grown = [*json.loads(path.read_text()), {"role": "assistant", "content": "noted"}]
    path.write_text(json.dumps(grown), encoding="utf-8")
    os.utime(path)
    _toolnexus_file(folder, "t3", "brand new thread", time.time())
    # One wait for both, its timeout the promise; nothing times the test.
    qtbot.waitUntil(
        lambda: (
            window.transcript.rowCount() == 2
            and window.sessions.find_session("toolnexus:t3").isValid()
        ),
        timeout=2000,
    )
    index = window.transcript.index(1)
    qtbot.waitUntil(lambda: bool(index.data(MessageRole.LOADED)), timeout=5000)
    assert any("noted" in block["html"] for block in index.data(MessageRole.BLOCKS))
    window.close()


def test_session_tree_over_a_combined_history_passes_modeltester(
    make_db: Callable[..., GooseDb],
    tmp_path: Path,
    tasks: TaskRunner,
    qtbot: QtBot,
    qtmodeltester: object,
) -> None:
    from desktop_app.domain.combined import CombinedHistory
    from desktop_app.domain.source import SessionQuery

    combined = CombinedHistory([MemoryHistory(TOPICS), MemoryHistory(TOPICS[:2], kind="other")])
    model = SessionTreeModel(combined, tasks, SessionQuery(session_types=None))
    with qtbot.waitSignal(model.populated, timeout=5000):
        model.reload()
    qtmodeltester.check(model)  # type: ignore[attr-defined]
    assert model.session_count == 7
    assert model.index(0, 0, QModelIndex()).isValid()


def test_goose_legacy_sessions_are_offered_and_added_on_request(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "goose-root"
    monkeypatch.setenv("GOOSE_PATH_ROOT", str(root))
    folder = root / "data" / "sessions"
    folder.mkdir(parents=True)
    db = GooseDb(folder / "sessions.db")
    db.add_session("20260101_1", name="In the database")
    db.add_message("20260101_1", content="hello")
    db.close()
    histories.goose_legacy(folder / "20240505_2.jsonl")
    settings = _settings(tmp_path)
    windows = Windows(tmp_path / "data", settings, tasks)
    first = windows.open(Namespace(db=None, demo=False, session=None))
    qtbot.waitUntil(lambda: first.histories.offered is not None, timeout=5000)
    offered = first.histories.offered
    assert offered is not None
    assert "1 older sessions" in offered.text()
    assert first.locations == [str(folder / "sessions.db")], "offered, not opened"
    offered.trigger()
    assert len(windows.open_windows) == 1
    combined = windows.open_windows[0]
    qtbot.addWidget(combined)
    assert combined.locations == [str(folder / "sessions.db"), f"goose-legacy={folder}"]
    qtbot.waitUntil(lambda: len(_listed(combined)) == 2, timeout=5000)
    assert {s.id for s in _listed(combined)} == {"goose:20260101_1", "goose-legacy:20240505_2"}
    assert settings.open_histories == combined.locations
    combined.close()


@pytest.mark.parametrize(
    ("make", "session_id"),
    [
        (lambda d: histories.write_json(d / "e.json", histories.goose_export()), "20260301_3"),
        (lambda d: histories.goose_export_yaml(d / "e.yaml"), "20260301_4"),
        (lambda d: histories.goose_legacy(d / "20250101_1.jsonl"), "20250101_1"),
        (lambda d: histories.write_json(d / "t.json", histories.toolnexus_anthropic()), "t"),
        (lambda d: histories.write_json(d / "g.json", histories.glean_conversation()), "g"),
    ],
)
def test_each_kind_alone_in_the_window(
    make: Callable[[Path], Path],
    session_id: str,
    tmp_path: Path,
    tasks: TaskRunner,
    qtbot: QtBot,
) -> None:
    folder = tmp_path / "history"
    folder.mkdir()
    make(folder)
    window = build_window(
        Namespace(db=folder, demo=False, session=None),
        tmp_path / "data",
        _settings(tmp_path),
        tasks,
    )
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: [s.id for s in _listed(window)] == [session_id], timeout=5000)
    qtbot.waitUntil(lambda: window.transcript.session_id == session_id, timeout=5000)
    qtbot.waitUntil(lambda: window.transcript.rowCount() >= 4, timeout=5000)
    rendered: list[str] = []
    for row in range(window.transcript.rowCount()):
        index = window.transcript.index(row)
        qtbot.waitUntil(functools.partial(_loaded, index), timeout=5000)
        rendered.extend(block["kind"] for block in index.data(MessageRole.BLOCKS))
    assert "reasoning" in rendered
    assert "tool_call" in rendered
    assert not window.session_actions.rename.isEnabled()
    window.close()
