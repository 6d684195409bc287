"""Searching from the window: the index is built in the background, results are grouped by
session with highlighted snippets, and a hit opens its session at the message."""

from argparse import Namespace
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QColor, QPalette
from pytestqt.qtbot import QtBot

from desktop_app.app import build_window
from desktop_app.domain.search import MARK_END, MARK_START, SearchHit, SearchResults, SessionResult
from desktop_app.rendering.colours import AA_CONTRAST, DARK, LIGHT, Theme, contrast
from desktop_app.ui.roles import MessageRole
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.theme import palette_for
from desktop_app.ui.widgets.search_results import HIT_ROLE, HTML_ROLE, LABEL_ROLE, SearchResultsView
from tests.fixtures.goose_db import GooseDb


def test_search_from_the_window_opens_the_hit(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    window = build_window(
        Namespace(db=None, demo=True, session=None), tmp_path / "data", settings, tasks
    )
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.search.ready, timeout=20_000):
        pass
    assert not window.search.updating
    window.search_field.focus_and_select()
    with qtbot.waitSignal(window.search.results, timeout=5000) as delivered:
        window.search_field.setText("redis")
    results = delivered.args[0]
    assert results is not None
    assert window.left_pane.currentWidget() is window.search_results
    model = window.search_results.results_model
    assert model.rowCount() == len(results.sessions) >= 1
    session_row = model.index(0, 0)
    assert session_row.data() == "Latency spike after Redis migration"
    assert session_row.data(LABEL_ROLE) == "3 matches · title match"
    first_hit = model.index(0, 0, session_row)
    hit = first_hit.data(HIT_ROLE)
    assert isinstance(hit, SearchHit)
    assert hit.cursor is not None
    assert "<b style=" in first_hit.data(HTML_ROLE)

    window.search_results.activated.emit(first_hit)
    qtbot.waitUntil(lambda: window.transcript.session_id == hit.session_id, timeout=5000)
    qtbot.waitUntil(lambda: window.transcript.rowCount() > 0, timeout=5000)
    cursor = hit.cursor
    row = window.transcript.row_of(cursor)
    assert row >= 0
    index = window.transcript.index(row)
    qtbot.waitUntil(lambda: bool(index.data(MessageRole.LOADED)), timeout=5000)
    assert any("ffe066" in block["html"] for block in index.data(MessageRole.BLOCKS))

    window.search_field.clear()
    assert window.left_pane.currentWidget() is window.session_list
    with qtbot.waitSignal(window.search.failed, timeout=5000) as bad:
        window.search_field.setText('"unclosed')
        window.search_field.returnPressed.emit()
    assert bad.args[0] == 'A quotation mark is not closed; close the phrase with another ".'
    assert window.search_results.results_model.rowCount() == 0
    window.close()


def _results(
    qtbot: QtBot, theme: Theme, name: str = "Retry policy", *, marked: bool = True
) -> SearchResultsView:
    word = f"{MARK_START}retry{MARK_END}" if marked else "retry"
    hits = tuple(
        SearchHit(
            session_id="s1",
            row_id=n,
            message_id=None,
            role="assistant",
            cursor=None,
            snippet=f"the {word} loop has a one second deadline " * 8,
            rank=-1.0,
        )
        for n in range(3)
    )
    session = SessionResult(
        session_id="s1", name=name, working_dir=None, archived=True, hits=hits, match_count=3
    )
    view = SearchResultsView()
    view.setPalette(palette_for(theme))
    qtbot.addWidget(view)
    view.resize(360, 400)
    view.show()
    view.show_results(
        SearchResults(
            query="retry",
            sessions=(session,),
            total_hits=3,
            total_sessions=1,
            capped=False,
            elapsed_ms=1.0,
        )
    )
    return view


def test_result_rows_are_compact(qtbot: QtBot) -> None:
    """A session is two lines however long its name (the name and count, then its date,
    folder and history); a hit at most two lines of snippet."""
    view = _results(qtbot, LIGHT, name="A very long session name " * 12)
    line = view.fontMetrics().lineSpacing()
    session = view.results_model.index(0, 0)
    assert view.visualRect(session).height() <= 2 * line + 8
    assert session.data(LABEL_ROLE) == "3 matches · archived"
    for row in range(3):
        assert view.visualRect(view.results_model.index(row, 0, session)).height() <= 2 * line + 8


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_a_selected_result_is_drawn_in_the_highlighted_text_colour(
    qtbot: QtBot, theme: Theme
) -> None:
    """The text of the selected hit takes the palette's highlighted-text colour (white on the
    selection), not the ordinary text colour, which is unreadable on it in the light theme."""
    view = _results(qtbot, theme, marked=False)
    session = view.results_model.index(0, 0)
    hit = view.results_model.index(1, 0, session)
    view.setCurrentIndex(hit)
    view.setFocus()
    palette = view.palette()
    selected_text = palette.color(QPalette.ColorRole.HighlightedText)
    assert (
        contrast(selected_text.name(), palette.color(QPalette.ColorRole.Highlight).name())
        >= AA_CONTRAST
    )
    image = view.viewport().grab(view.visualRect(hit)).toImage()
    plain = palette.color(QPalette.ColorRole.Text)

    def near(colour: QColor) -> int:
        return sum(
            1
            for x in range(image.width())
            for y in range(image.height())
            if max(
                abs(image.pixelColor(x, y).red() - colour.red()),
                abs(image.pixelColor(x, y).green() - colour.green()),
                abs(image.pixelColor(x, y).blue() - colour.blue()),
            )
            < 12
        )

    assert near(selected_text) > 100
    if not theme.dark:  # dark text on the selection: what made it unreadable
        assert near(plain) == 0


def test_an_unexpected_error_reaches_the_status_bar_as_a_sentence(
    make_db: Callable[..., GooseDb],
    tasks: TaskRunner,
    qtbot: QtBot,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bug's exception in an update or a search: the window says one sentence of its own,
    never Python's text. Before: "Search index: 'internal detail'" (#18, item 14)."""
    from desktop_app.search.histories import HistoriesIndex
    from desktop_app.sources.goose import GooseSource
    from desktop_app.ui.search_controller import SearchController

    def broken(*_args: object, **_kwargs: object) -> None:
        raise KeyError("internal detail")

    db = make_db()
    db.add_session("s1", name="one")
    db.add_message("s1", content="alpha")
    monkeypatch.setattr(HistoriesIndex, "update", broken)
    monkeypatch.setattr(HistoriesIndex, "search", broken)
    source = GooseSource(db.path)
    controller = SearchController(source, tasks, db.path.parent / "data")
    said = (
        "Gander met an error it did not expect (KeyError); its details are written to "
        "standard error."
    )
    with qtbot.waitSignal(controller.failed, timeout=20_000) as failed:
        controller.update()
    assert failed.args == [f"Search index: {said}"]
    with qtbot.waitSignal(controller.failed, timeout=20_000) as failed:
        controller.search("alpha")
    assert failed.args == [said]
    controller.close()
    source.close()
