"""The list follows the open session (#10 item 14): `--session ID` and a search hit select and
scroll to the session even when it is archived, of another type, a sub-agent or pages down,
and the status bar counts every session the filter lists, not the page fetched."""

from argparse import Namespace
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from desktop_app.app import build_window
from desktop_app.domain.reading import count_sessions, iter_sessions
from desktop_app.domain.session import Session
from desktop_app.domain.source import ArchivedFilter, SessionQuery
from desktop_app.sources.goose import GooseSource
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.models.session_tree import PAGE_SIZE
from desktop_app.ui.roles import SessionRole
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from tests.fixtures.goose_db import GooseDb

MANY = 2 * PAGE_SIZE + 50


def _db(make_db: Callable[..., GooseDb]) -> GooseDb:
    """MANY chats, one a day back from 2026-11-29 (so "oldest" is pages down), plus an
    archived one, a gateway one (not a chat) and a sub-agent of the oldest, all older still."""
    db = make_db()
    rows = []
    for n in range(MANY):
        day = (
            f"2026-11-29 {n % 24:02d}:00:00"
            if n < 24
            else f"20{25 - n // 365:02d}-0{1 + n % 9}-1{n % 10} 00:00:00"
        )
        rows.append({"id": f"s{n:04d}", "name": f"Chat {n}", "updated_at": day})
    db.insert_many("sessions", [{**r, "working_dir": "/w"} for r in rows])
    db.add_session("oldest", name="The oldest chat", updated_at="2001-01-01 00:00:00")
    db.add_message("oldest", content="hello", created=978307200)
    db.add_session(
        "kid",
        name="Its helper",
        session_type="sub_agent",
        parent_session_id="oldest",
        updated_at="2001-01-01 00:00:01",
    )
    db.add_message("kid", content="helping", created=978307201)
    db.add_session(
        "boxed",
        name="Put away",
        archived_at="2026-02-01 00:00:00",
        updated_at="2000-06-01 00:00:00",
    )
    db.add_message("boxed", content="old news", created=959817600)
    db.add_session("cron", name="Nightly", session_type="gateway", updated_at="2000-05-01")
    db.add_message("cron", content="tick", created=957139200)
    for n in range(MANY):
        db.add_message(f"s{n:04d}", content=f"message {n}", created=1767323045 - n * 3600)
    return db


def _window(
    db: GooseDb, tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, session: str | None
) -> MainWindow:
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(db=[str(db.path)], demo=False, session=session, screenshot=None)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.resize(1200, 800)
    window.show()
    return window


def _selected(window: MainWindow) -> str | None:
    session = window.session_list.currentIndex().data(SessionRole.SESSION)
    return session.id if isinstance(session, Session) else None


def _on_screen(window: MainWindow) -> bool:
    view = window.session_list
    return view.viewport().rect().intersects(view.visualRect(view.currentIndex()))


@pytest.mark.parametrize(
    "case",
    [
        ("oldest", None),
        ("kid", None),
        ("boxed", "archived"),
        ("cron", "type"),
    ],
)
def test_the_session_asked_for_is_selected_and_shown_in_the_list(
    make_db: Callable[..., GooseDb],
    tmp_path: Path,
    tasks: TaskRunner,
    qtbot: QtBot,
    case: tuple[str, str | None],
) -> None:
    wanted, changed = case
    window = _window(_db(make_db), tmp_path, tasks, qtbot, session=wanted)
    qtbot.waitUntil(lambda: _selected(window) == wanted, timeout=10_000)
    qtbot.waitUntil(lambda: _on_screen(window), timeout=5000)
    assert window.transcript.session_id == wanted
    if wanted == "kid":
        assert window.session_list.isExpanded(window.session_list.currentIndex().parent())
    query = window.filter_bar.query()
    if changed == "archived":
        assert query.archived is ArchivedFilter.INCLUDE
        assert "archived filter was changed" in window.statusBar().currentMessage()
    elif changed == "type":
        assert query.session_types is None
        assert "type filter was changed" in window.statusBar().currentMessage()
    else:
        assert query.archived is ArchivedFilter.EXCLUDE
    window.close()


def test_a_search_hit_in_an_archived_session_pages_down_is_selected(
    make_db: Callable[..., GooseDb], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    window = _window(_db(make_db), tmp_path, tasks, qtbot, session="s0001")
    qtbot.waitUntil(lambda: _selected(window) == "s0001", timeout=10_000)
    window.open_hit("boxed")
    qtbot.waitUntil(lambda: _selected(window) == "boxed", timeout=10_000)
    qtbot.waitUntil(lambda: _on_screen(window), timeout=5000)
    window.close()


def test_the_status_bar_counts_every_listed_session(
    make_db: Callable[..., GooseDb], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """MANY chats and the oldest (the sub-agent, the gateway and the archived one are not
    listed by default); the list fetches only what is scrolled to."""
    window = _window(_db(make_db), tmp_path, tasks, qtbot, session=None)
    label = window.status.count_label
    qtbot.waitUntil(lambda: label.text() == f"{MANY + 1:,} sessions", timeout=10_000)
    assert window.sessions.session_count < MANY  # the list has not fetched them all
    window.filter_bar.archived.setCurrentIndex(window.filter_bar.archived.findText("Only archived"))
    qtbot.waitUntil(lambda: label.text() == "1 session", timeout=10_000)
    window.close()


@pytest.mark.parametrize(
    "query",
    [
        SessionQuery(),
        SessionQuery(with_empty=False),
        SessionQuery(session_types=None, archived=ArchivedFilter.INCLUDE),
        SessionQuery(archived=ArchivedFilter.ONLY),
        SessionQuery(working_dir="/w"),
        SessionQuery(text="chat 1"),
    ],
)
def test_the_count_is_the_listing_length(
    make_db: Callable[..., GooseDb], query: SessionQuery
) -> None:
    source = GooseSource(_db(make_db).path)
    assert source.count_sessions(query) == sum(1 for _ in iter_sessions(source, query))
    assert count_sessions(source, query) == source.count_sessions(query)
    source.close()


def test_a_filter_chosen_while_a_session_opens_is_kept(
    make_db: Callable[..., GooseDb], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """The user's newer choice wins: a filter changed after a session started to open is not
    widened back to list it when it arrives (the session opens in a worker, so the change
    below always comes first)."""
    window = _window(_db(make_db), tmp_path, tasks, qtbot, session="s0001")
    qtbot.waitUntil(lambda: _selected(window) == "s0001", timeout=10_000)
    bar = window.filter_bar
    hidden_types = bar.query().session_types
    window.open_session("cron")
    bar.archived.setCurrentIndex(bar.archived.findText("Only archived"))
    with qtbot.waitSignal(window.transcript.opened, timeout=10_000):
        pass
    qtbot.wait(300)  # what a lookup would have taken
    assert window.transcript.session_id == "cron"
    assert bar.query().archived is ArchivedFilter.ONLY
    assert bar.query().session_types == hidden_types
    assert "filter was changed" not in window.statusBar().currentMessage()
    window.close()
