"""An everruns database in the window, beside goose (#11): listed with the others, read-only,
live — events written while the window is open show within 2 s and are found by search — and
a server that goes away is one sentence while the window stays usable."""

from argparse import Namespace
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from desktop_app.app import Windows, build_window
from desktop_app.domain.session import Session
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.roles import SessionRole
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from tests.fixtures.goose_db import GooseDb
from tests.fixtures.postgres import READER_PASSWORD, PostgresServer
from tests.unit.test_everruns import _turn, _user


def _listed(window: MainWindow) -> list[Session]:
    model = window.sessions
    rows = [model.index(r, 0).data(SessionRole.SESSION) for r in range(model.rowCount())]
    return [s for s in rows if isinstance(s, Session)]


def test_everruns_beside_goose_live_and_searchable(
    postgres: PostgresServer,
    make_db: Callable[..., GooseDb],
    tmp_path: Path,
    tasks: TaskRunner,
    qtbot: QtBot,
) -> None:
    everruns = postgres.everruns_database("ev_window")
    session = everruns.add_session("Weather in Kyiv")
    _turn(everruns, session)
    goose = make_db()
    goose.add_session("g1", name="A goose chat", updated_at="2025-01-05 10:00:00")
    goose.add_message("g1", content="hello goose")
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    window = build_window(
        Namespace(db=[everruns.url, goose.path], demo=False, session=None),
        tmp_path / "data",
        settings,
        tasks,
    )
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: len(_listed(window)) == 2, timeout=10_000)
    assert [s.name for s in _listed(window)] == ["Weather in Kyiv", "A goose chat"]
    ours = f"everruns:{session}"
    window.open_session(ours)
    qtbot.waitUntil(lambda: window.transcript.rowCount() == 7, timeout=10_000)
    window.session_list.setCurrentIndex(window.sessions.find_session(ours))
    assert not window.session_actions.rename.isEnabled()
    qtbot.waitUntil(lambda: "agent Support bot" in window.header.facts.text(), timeout=5000)
    assert "s3cret" not in "".join(settings.open_histories)

    # Live: an event written now shows within 2 s, and search finds it.
    # The wait's timeout is the promise; nothing times the test.
    everruns.add_events(session, [("input.message", _user("what about tomorrow's forecast"))])
    qtbot.waitUntil(lambda: window.transcript.rowCount() == 8, timeout=2500)
    window.search.update()
    with qtbot.waitSignal(window.search.ready, timeout=30_000):
        pass
    with qtbot.waitSignal(window.search.results, timeout=5000) as found:
        window.search_field.setText("forecast")
    results = found.args[0]
    assert results is not None
    assert [s.session_id for s in results.sessions] == [ours]

    # The server goes away: one sentence, the window stays usable; it comes back by itself.
    postgres.stop()
    try:
        window.sessions.reload()
        qtbot.waitUntil(
            lambda: "cannot be reached" in window.statusBar().currentMessage(), timeout=10_000
        )
        window.search_field.clear()
        window.open_session("goose:g1")
        qtbot.waitUntil(lambda: window.transcript.rowCount() == 1, timeout=5000)
    finally:
        postgres.start()
    window.sessions.reload()
    qtbot.waitUntil(lambda: len(_listed(window)) == 2, timeout=10_000)
    window.close()


def test_an_error_s_message_wraps_at_the_card_s_edge(qtbot: QtBot) -> None:
    """The SDK export's failed compaction ("Compaction failed (summarization): summarizer
    request failed: upstream timed out") was preformatted text: its end ran past the card."""
    from PySide6.QtGui import QTextDocument

    from desktop_app.domain.parts import ErrorPart
    from desktop_app.domain.reading import iter_messages
    from desktop_app.rendering.transcript_blocks import MessageRenderer
    from desktop_app.sources.everruns.local import EverrunsEvents
    from tests.unit.test_everruns_genuine import EXPORT, PARENT

    del qtbot  # the application the document needs
    renderer = MessageRenderer()
    (failed,) = [
        m
        for m in iter_messages(EverrunsEvents(EXPORT), PARENT)
        if any(isinstance(p, ErrorPart) and "upstream timed out" in p.message for p in m.parts)
    ]
    (block,) = [b for b in renderer.render(failed).blocks if b.kind == "error"]
    document = QTextDocument()
    document.setHtml(block.html)
    document.setTextWidth(300)
    assert document.idealWidth() <= 300
    assert "upstream timed out" in document.toPlainText()


def test_adding_a_history_keeps_a_server_s_password(
    postgres: PostgresServer,
    make_db: Callable[..., GooseDb],
    tmp_path: Path,
    tasks: TaskRunner,
    qtbot: QtBot,
) -> None:
    """File ▸ Add history opens every history again: a server opened with its password in the
    URL stays readable (the password is kept in memory), and is still never remembered."""
    everruns = postgres.everruns_database("ev_add")
    _turn(everruns, everruns.add_session("Weather in Lviv"))
    url = postgres.url(everruns.name, user="reader", password=READER_PASSWORD)
    goose = make_db()
    goose.add_session("g1", name="A goose chat", updated_at="2025-01-05 10:00:00")
    goose.add_message("g1", content="hello goose")
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    windows = Windows(tmp_path / "data", settings, tasks)
    first = windows.open(Namespace(db=[url], demo=False, session=None))
    first.show()
    qtbot.waitUntil(lambda: len(_listed(first)) == 1, timeout=10_000)
    windows.add_to(first, str(goose.path))  # closes `first`: the new window replaces it
    assert windows.last_error is None
    assert len(windows.open_windows) == 1
    both = windows.open_windows[0]
    qtbot.addWidget(both)
    qtbot.waitUntil(lambda: len(_listed(both)) == 2, timeout=10_000)
    assert [s.name for s in _listed(both)] == ["Weather in Lviv", "A goose chat"]
    assert READER_PASSWORD not in "".join(settings.open_histories + settings.recent_files)
    both.close()
