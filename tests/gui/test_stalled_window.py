"""The window beside a stalled everruns server (#18 item 6): a proxy on localhost forwards to
the tests' PostgreSQL, then stops forwarding with the sockets held open. The goose history
beside it still lists and the server's failure is one sentence; a window closed while its
worker waits on the stalled server closes at once and frees the worker."""

import threading
from argparse import Namespace
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from desktop_app.app import build_window
from desktop_app.domain.session import Session
from desktop_app.sources.everruns import connection
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.roles import SessionRole
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from tests.fixtures.goose_db import GooseDb
from tests.fixtures.postgres import PostgresServer
from tests.fixtures.stalling_proxy import StallingProxy

LIST_QUERY = b"sort_us"
"""Only the session list's query holds it: the proxy stalls as the list goes out."""
BOUND_S = 60.0
"""A one-sided bound, far below the 600 s deadline: past it the proxy is closed (which frees
any read), and the test fails."""


def _listed(window: MainWindow) -> list[Session]:
    model = window.sessions
    rows = [model.index(r, 0).data(SessionRole.SESSION) for r in range(model.rowCount())]
    return [s for s in rows if isinstance(s, Session)]


@pytest.fixture
def stalled(postgres: PostgresServer, request: pytest.FixtureRequest) -> Iterator[StallingProxy]:
    """A proxy to an everruns database with one session (its `name`), stalling on the session
    list's query."""
    name = "ev_" + "".join(c for c in request.node.name.lower() if c.isalnum())[:40]
    everruns = postgres.everruns_database(name)
    session = everruns.add_session("Weather in Kyiv")
    everruns.add_events(session, [("input.message", {"message": {"role": "user"}})])
    with StallingProxy(postgres.socket, stall_on=LIST_QUERY) as proxy:
        proxy.database = name
        yield proxy


def _window(locations: list[str], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot) -> MainWindow:
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    window = build_window(
        Namespace(db=locations, demo=False, session=None), tmp_path / "data", settings, tasks
    )
    qtbot.addWidget(window)
    window.show()
    return window


def _goose(make_db: Callable[..., GooseDb]) -> str:
    goose = make_db()
    goose.add_session("g1", name="A goose chat", updated_at="2025-01-05 10:00:00")
    goose.add_message("g1", content="hello goose")
    return str(goose.path)


def test_beside_a_stalled_server_the_goose_history_lists(
    stalled: StallingProxy,
    make_db: Callable[..., GooseDb],
    tmp_path: Path,
    tasks: TaskRunner,
    qtbot: QtBot,
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(connection, "READ_TIMEOUT_S", 2.0)
        window = _window([stalled.url(stalled.database), _goose(make_db)], tmp_path, tasks, qtbot)
    # The wait's timeout is the promise (far above the 2 s deadline); nothing times the test.
    qtbot.waitUntil(lambda: [s.name for s in _listed(window)] == ["A goose chat"], timeout=30_000)
    qtbot.waitUntil(
        lambda: "stopped answering" in window.statusBar().currentMessage(), timeout=30_000
    )


def test_a_window_closed_while_its_worker_waits_on_a_stalled_server_frees_it(
    stalled: StallingProxy,
    make_db: Callable[..., GooseDb],
    tmp_path: Path,
    tasks: TaskRunner,
    qtbot: QtBot,
) -> None:
    """The deadline is far off (600 s): only the close can free the worker in time."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(connection, "READ_TIMEOUT_S", 600.0)
        window = _window([stalled.url(stalled.database), _goose(make_db)], tmp_path, tasks, qtbot)
    qtbot.waitUntil(lambda: stalled.stalled and tasks.busy, timeout=10_000)
    assert _listed(window) == []  # the worker waits on the list's stalled answer
    valve = threading.Timer(BOUND_S, stalled.close)
    valve.start()
    window.close()  # with the pool's thread stuck, this waited for the deadline before
    qtbot.waitUntil(lambda: not tasks.busy, timeout=int(BOUND_S * 1000))
    valve.cancel()
    assert not stalled.closed, "the worker was freed by closing the proxy, not the window"


def test_quitting_never_waits_long_on_a_stuck_job(tasks: TaskRunner) -> None:
    """A job no close can free (waiting on a device, say) is left behind after
    `SHUTDOWN_WAIT_S`: quitting waited 60 s before."""
    released = threading.Event()
    tasks.run(lambda: released.wait(BOUND_S * 2), lambda _: None)
    quit_thread = threading.Thread(target=tasks.shutdown, daemon=True)
    quit_thread.start()
    quit_thread.join(BOUND_S / 2)
    stuck = quit_thread.is_alive()
    released.set()
    assert not stuck, f"quitting still waited after {BOUND_S / 2:g} s"
