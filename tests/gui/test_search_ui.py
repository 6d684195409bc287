"""Searching from the window: the index is built in the background, results are grouped by
session with highlighted snippets, and a hit opens its session at the message."""

from argparse import Namespace
from pathlib import Path

from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from desktop_app.app import build_window
from desktop_app.domain.search import SearchHit
from desktop_app.ui.roles import MessageRole
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.widgets.search_results import HIT_ROLE, HTML_ROLE


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
    assert "Latency spike after Redis migration" in session_row.data(HTML_ROLE)
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
