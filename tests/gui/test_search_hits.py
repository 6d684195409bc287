"""A search hit in a real window (#20 items 3, 4, 6): it opens at the hit, scrolled to its
match and highlighted at the words the index matched, from any session; the keyboard goes from
the search box into the results and back."""

import functools
from argparse import Namespace
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QStandardItemModel
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from desktop_app.app import build_window
from desktop_app.domain.search import SearchHit
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.roles import MessageRole
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.widgets.search_results import HIT_ROLE, PLACE_ROLE, SESSION_ROLE
from tests.fixtures.goose_db import GooseDb

BASE = 1_767_323_045
HIDDEN = {"userVisible": False, "agentVisible": True}
FILLER = " ".join(["A long paragraph of ordinary words that fills the card."] * 12)


def _history(make_db: Callable[..., GooseDb]) -> GooseDb:
    db = make_db()
    db.add_session("long", name="A long session", updated_at="2026-01-02 03:04:05")
    db.add_message("long", "user", "Find the zebrafinch config.", created=BASE)
    for n in range(1, 60):
        role = "assistant" if n % 2 else "user"
        db.add_message("long", role, f"Reply {n}. {FILLER}", created=BASE + n)
    db.add_message(
        "long",
        "assistant",
        "Summary for the model: the okapi setting",
        created=BASE + 70,
        metadata=HIDDEN,
    )
    for n in range(71, 90):
        db.add_message("long", "user", f"Later {n}. {FILLER}", created=BASE + n)
    db.add_session("other", name="Other work", updated_at="2026-01-03 03:04:05")
    db.add_message("other", "user", "Something unrelated and surprising", created=BASE + 200)
    db.add_message("other", "assistant", "Is it? It is.", created=BASE + 201)
    return db


def _window(db: GooseDb, tmp_path: Path, tasks: TaskRunner, qtbot: QtBot) -> MainWindow:
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    window = build_window(
        Namespace(db=[str(db.path)], demo=False, session="other"),
        tmp_path / "data",
        settings,
        tasks,
    )
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    with qtbot.waitSignal(window.search.ready, timeout=20_000):
        pass
    qtbot.waitUntil(lambda: window.transcript.session_id == "other", timeout=5000)
    qtbot.waitUntil(lambda: window.transcript.rowCount() == 2, timeout=5000)
    return window


def _search(window: MainWindow, qtbot: QtBot, text: str) -> None:
    window.search_field.focus_and_select()
    with qtbot.waitSignal(window.search.results, timeout=5000):
        QTest.keyClicks(window.search_field, text)


def _first_hit(window: MainWindow) -> SearchHit:
    model = window.search_results.results_model
    hit = model.index(0, 0, model.index(0, 0)).data(HIT_ROLE)
    assert isinstance(hit, SearchHit)
    return hit


def _settled_on(window: MainWindow, qtbot: QtBot, row: int) -> None:
    """The hit's row is on screen, and stays there once the view has settled (a late move to
    the session's end would take it away)."""
    view = window.transcript_view
    qtbot.waitUntil(lambda: view.top_row() <= row <= view.bottom_row(), timeout=5000)
    qtbot.wait(400)
    assert view.top_row() <= row <= view.bottom_row(), (row, view.top_row(), view.bottom_row())


def test_a_hit_in_another_sessions_first_message_opens_there(
    make_db: Callable[..., GooseDb], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    window = _window(_history(make_db), tmp_path, tasks, qtbot)
    _search(window, qtbot, "zebrafinch")
    hit = _first_hit(window)
    QTest.keyClick(window.search_field, Qt.Key.Key_Down)
    QTest.keyClick(window.search_results, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.transcript.session_id == "long", timeout=5000)
    cursor = hit.cursor
    assert cursor is not None
    qtbot.waitUntil(lambda: window.transcript.row_of(cursor) == 0, timeout=5000)
    _settled_on(window, qtbot, 0)
    window.close()


def test_a_hit_in_an_agent_only_message_shows_those_messages_and_says_so(
    make_db: Callable[..., GooseDb], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    window = _window(_history(make_db), tmp_path, tasks, qtbot)
    assert not window.transcript.show_hidden
    _search(window, qtbot, "okapi in:hidden")
    hit = _first_hit(window)
    cursor = hit.cursor
    assert cursor is not None
    window.search_results.hit_activated.emit(hit)
    qtbot.waitUntil(lambda: window.transcript.row_of(cursor) == 60, timeout=5000)
    qtbot.waitUntil(lambda: window.transcript.show_hidden, timeout=5000)
    index = window.transcript.index(60)
    qtbot.waitUntil(lambda: bool(index.data(MessageRole.LOADED)), timeout=5000)
    assert not index.data(MessageRole.HIDDEN)
    assert "agent-only" in window.statusBar().currentMessage()
    _settled_on(window, qtbot, 60)
    window.close()


def _highlights(window: MainWindow, row: int, qtbot: QtBot) -> int:
    index = window.transcript.index(row)
    qtbot.waitUntil(lambda: bool(index.data(MessageRole.LOADED)), timeout=5000)
    return sum(block["html"].count("ffe066") for block in index.data(MessageRole.BLOCKS))


def test_words_are_highlighted_as_matched_and_the_highlight_goes_with_the_search(
    make_db: Callable[..., GooseDb], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    window = _window(_history(make_db), tmp_path, tasks, qtbot)
    _search(window, qtbot, "is")
    assert window.search_results.results_model.rowCount() == 1
    window.search_results.hit_activated.emit(_first_hit(window))
    qtbot.waitUntil(lambda: _highlights(window, 1, qtbot) == 2, timeout=5000)
    assert _highlights(window, 0, qtbot) == 0  # "surprising" holds no word "is"
    window.search_field.clear()
    qtbot.waitUntil(lambda: _highlights(window, 1, qtbot) == 0, timeout=5000)
    window.close()


def test_the_keyboard_goes_into_the_results_and_esc_restores_the_list(
    make_db: Callable[..., GooseDb], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    window = _window(_history(make_db), tmp_path, tasks, qtbot)
    listed = window.session_list.currentIndex()
    assert listed.isValid()
    _search(window, qtbot, "zebrafinch")
    QTest.keyClick(window.search_field, Qt.Key.Key_Down)
    assert window.search_results.hasFocus()
    QTest.keyClick(window.search_results, Qt.Key.Key_Up)
    assert window.search_field.hasFocus()
    QTest.keyClick(window.search_field, Qt.Key.Key_Down)
    QTest.keyClick(window.search_results, Qt.Key.Key_Down)
    assert window.search_results.currentIndex().data(HIT_ROLE) == _first_hit(window)
    QTest.keyClick(window.search_results, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.transcript.session_id == "long", timeout=5000)
    window.search_results.setFocus()
    QTest.keyClick(window.search_results, Qt.Key.Key_Escape)
    assert window.search_field.text() == ""
    assert window.left_pane.currentWidget() is window.session_list
    assert window.session_list.hasFocus()
    current = window.session_list.currentIndex()
    assert current.isValid()
    assert window.session_list.visualRect(current).intersects(window.session_list.viewport().rect())
    _search(window, qtbot, "zebrafinch")
    QTest.keyClick(window.search_field, Qt.Key.Key_Escape)
    assert window.search_field.text() == ""
    assert window.session_list.hasFocus()
    window.close()


def _more_than(model: QStandardItemModel, shown: int) -> bool:
    return model.rowCount() > shown


def test_results_come_a_page_of_sessions_at_a_time_as_the_list_is_scrolled(
    make_db: Callable[..., GooseDb], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    db = _history(make_db)
    db.add_session("huge", name="Dockerfile size", working_dir="/home/me/big")
    for n in range(600):
        db.add_message("huge", "user", f"webhook invoice {n}", created=BASE + 300 + n)
    for n in range(150):
        db.add_session(f"s{n}", name="Dockerfile size", working_dir=f"/home/me/p{n}")
        db.add_message(f"s{n}", "user", f"the webhook invoice {n}", created=BASE + 1000 + n)
    window = _window(db, tmp_path, tasks, qtbot)
    _search(window, qtbot, "webhook invoice")
    view = window.search_results
    model = view.results_model
    first = model.rowCount()
    assert 50 <= first < 151
    places = {model.index(row, 0).data(PLACE_ROLE) for row in range(first)}
    assert len(places) == first  # same names, told apart by folder
    huge = next(
        model.index(r, 0)
        for r in range(first)
        if model.index(r, 0).data() and model.itemFromIndex(model.index(r, 0)).rowCount() > 3
    )
    assert model.index(3, 0, huge).data() == "597 more matches here"
    view.setFocus()
    while model.rowCount() < 151:
        shown = model.rowCount()
        QTest.keyClick(view, Qt.Key.Key_End)
        qtbot.waitUntil(functools.partial(_more_than, model, shown), timeout=5000)
    assert model.rowCount() == 151
    ids = {model.index(row, 0).data(SESSION_ROLE) for row in range(151)}
    assert len(ids) == 151
    window.close()


def test_tab_from_the_search_field_reaches_the_results_past_no_idle_filter(
    make_db: Callable[..., GooseDb], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    window = _window(_history(make_db), tmp_path, tasks, qtbot)
    window.activateWindow()
    _search(window, qtbot, "zebrafinch")
    assert not window.filter_bar.isEnabled()  # the list's filters do not act on results
    QTest.keyClick(window.search_field, Qt.Key.Key_Tab)
    assert window.search_results.hasFocus()
    window.search_field.clear()
    assert window.filter_bar.isEnabled()
    window.close()
