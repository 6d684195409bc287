"""The worker's results reach the window's thread one a turn of its event loop: a list page,
the usage panel's figures and a page of rendered rows that finished together were delivered in
one batch of posted events, each callback 5–20 ms, with no paint, input or timer between them
(live updates stalled the window 55–75 ms in `benchmarks.window`)."""

import threading
import time
from functools import partial

from PySide6.QtCore import QCoreApplication
from pytestqt.qtbot import QtBot

from desktop_app.ui.tasks import TaskRunner


def _three_finished(tasks: TaskRunner, delivered: list[int], *, skipped: bool = False) -> None:
    """Three jobs done while the window's thread was busy (their outcomes wait)."""
    done = threading.Event()
    for number in range(3):
        tasks.run(partial(int, number), delivered.append, wanted=lambda: not skipped)
    tasks.run(done.set, lambda _: None)
    assert done.wait(5)
    time.sleep(0.05)  # the last outcome handed over


def test_outcomes_finished_together_are_delivered_one_a_turn(
    tasks: TaskRunner, qtbot: QtBot
) -> None:
    delivered: list[int] = []
    _three_finished(tasks, delivered)
    QCoreApplication.sendPostedEvents()  # one turn's posted events
    assert delivered == [0]
    assert tasks.busy
    qtbot.waitUntil(lambda: delivered == [0, 1, 2], timeout=5000)
    qtbot.waitUntil(lambda: not tasks.busy, timeout=5000)


def test_skipped_jobs_take_no_turn(tasks: TaskRunner, qtbot: QtBot) -> None:
    delivered: list[int] = []
    _three_finished(tasks, delivered, skipped=True)
    got: list[str] = []
    tasks.run(lambda: "after", got.append)
    qtbot.waitUntil(lambda: bool(got), timeout=5000)
    assert delivered == []
    assert got == ["after"]
    qtbot.waitUntil(lambda: not tasks.busy, timeout=5000)


def test_a_failing_callback_leaves_the_rest_delivered(tasks: TaskRunner, qtbot: QtBot) -> None:
    delivered: list[int] = []

    def fails(_: object) -> None:
        raise RuntimeError("a callback's bug")

    done = threading.Event()
    tasks.run(lambda: 0, fails)
    tasks.run(lambda: 1, delivered.append)
    tasks.run(done.set, lambda _: None)
    assert done.wait(5)
    time.sleep(0.05)
    with qtbot.captureExceptions() as raised:
        qtbot.waitUntil(lambda: delivered == [1], timeout=5000)
    assert [str(error[1]) for error in raised] == ["a callback's bug"]


def test_nothing_is_delivered_once_quitting(qtbot: QtBot) -> None:
    """Outcomes still waiting when the application quits are dropped: their windows may be
    gone (a callback on a deleted widget raises)."""
    tasks = TaskRunner()
    delivered: list[int] = []
    _three_finished(tasks, delivered)
    QCoreApplication.sendPostedEvents()
    assert delivered == [0]
    tasks.shutdown()
    qtbot.wait(50)
    assert delivered == [0]
