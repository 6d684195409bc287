"""The window's process runs its background work with quick interpreter switches: a worker
running Python keeps the interpreter lock for the switch interval (5 ms) before the window's
thread — which needs it for every call into Python, each row it paints asking the model — may
have it, and a huge message read and rendered beside the first paint stalled the window
100–300 ms. The usual interval is back once no work runs."""

import sys
import threading
from collections.abc import Callable

import pytest
from pytestqt.qtbot import QtBot

from desktop_app.search.histories import HistoriesIndex
from desktop_app.sources.files.background import QUICK_SWITCH_S
from desktop_app.sources.goose import GooseSource
from desktop_app.ui.search_controller import SearchController
from desktop_app.ui.tasks import TaskRunner
from tests.fixtures.goose_db import GooseDb


def test_a_worker_job_runs_with_quick_switches(tasks: TaskRunner, qtbot: QtBot) -> None:
    usual = sys.getswitchinterval()
    seen: list[float] = []
    tasks.run(sys.getswitchinterval, seen.append)
    qtbot.waitUntil(lambda: bool(seen))
    assert seen == [QUICK_SWITCH_S]
    idle = threading.Event()
    tasks.run(lambda: None, lambda _: idle.set())
    qtbot.waitUntil(idle.is_set)
    qtbot.waitUntil(lambda: sys.getswitchinterval() == usual)


def test_the_index_updates_with_quick_switches(
    make_db: Callable[..., GooseDb],
    tasks: TaskRunner,
    qtbot: QtBot,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[float] = []

    def update(*_args: object, **_kwargs: object) -> None:
        seen.append(sys.getswitchinterval())

    db = make_db()
    db.add_session("s1", name="one")
    monkeypatch.setattr(HistoriesIndex, "update", update)
    usual = sys.getswitchinterval()
    controller = SearchController(GooseSource(db.path), tasks, db.path.parent / "data")
    with qtbot.waitSignal(controller.ready, timeout=20_000):
        controller.update()
    qtbot.waitUntil(lambda: not controller.updating, timeout=20_000)
    assert seen
    assert set(seen) == {QUICK_SWITCH_S}  # (an update asked for meanwhile runs after it)
    qtbot.waitUntil(lambda: sys.getswitchinterval() == usual, timeout=5_000)
