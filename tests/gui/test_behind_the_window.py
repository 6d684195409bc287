"""Gander's background threads give the window's thread the CPU when both want it: on two
cores, with goose appending, the index updating and the worker reading, the window's thread
waited 20–40 ms at a time for a core, and live updates stalled it 55–75 ms
(`benchmarks.window`). On Linux each thread has its own nice value."""

import os
import sys
import threading
from collections.abc import Callable

import pytest
from pytestqt.qtbot import QtBot

from desktop_app.search.histories import HistoriesIndex
from desktop_app.sources.files.background import (
    BACKGROUND_NICENESS,
    WORKER_NICENESS,
    behind_the_window,
)
from desktop_app.sources.goose import GooseSource
from desktop_app.ui.search_controller import SearchController
from desktop_app.ui.tasks import TaskRunner
from tests.fixtures.goose_db import GooseDb

linux = pytest.mark.skipif(sys.platform != "linux", reason="a thread's own nice value is Linux's")


def _niceness() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


@linux
def test_the_worker_runs_behind_the_window(tasks: TaskRunner, qtbot: QtBot) -> None:
    window = _niceness()
    seen: list[int] = []
    tasks.run(_niceness, seen.append)
    qtbot.waitUntil(lambda: bool(seen), timeout=5000)
    assert seen == [min(19, window + WORKER_NICENESS)]
    assert _niceness() == window  # the window's own thread is left as it was


@linux
def test_a_background_thread_lowers_only_itself() -> None:
    window = _niceness()
    seen: list[int] = []

    def run() -> None:
        behind_the_window(BACKGROUND_NICENESS)
        seen.append(_niceness())
        behind_the_window(BACKGROUND_NICENESS)  # never past the lowest
        seen.append(_niceness())

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert seen == [min(19, window + BACKGROUND_NICENESS), 19]
    assert _niceness() == window


@linux
def test_the_index_updates_behind_the_window(
    make_db: Callable[..., GooseDb],
    tasks: TaskRunner,
    qtbot: QtBot,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[int] = []

    def update(*_args: object, **_kwargs: object) -> None:
        seen.append(_niceness())

    db = make_db()
    db.add_session("s1", name="one")
    monkeypatch.setattr(HistoriesIndex, "update", update)
    controller = SearchController(GooseSource(db.path), tasks, db.path.parent / "data")
    with qtbot.waitSignal(controller.ready, timeout=20_000):
        controller.update()
    qtbot.waitUntil(lambda: not controller.updating, timeout=20_000)
    assert seen
    assert set(seen) == {min(19, _niceness() + BACKGROUND_NICENESS)}
