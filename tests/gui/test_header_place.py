"""The session header keeps its place while hidden (issue #19's stalls): shown for the first
session, it shrank the transcript's Qt Quick view, whose resize renders it again at once —
49 ms on a 20 MB message in `benchmarks.window`'s huge runs."""

from datetime import UTC, datetime

from PySide6.QtWidgets import QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from desktop_app.domain.session import Session
from desktop_app.ui.widgets.session_header import SessionHeader


def test_showing_the_first_session_leaves_the_transcript_its_size(qtbot: QtBot) -> None:
    pane = QWidget()
    qtbot.addWidget(pane)
    layout = QVBoxLayout(pane)
    header = SessionHeader(pane)
    transcript = QWidget(pane)
    layout.addWidget(header)
    layout.addWidget(transcript, 1)
    header.show_session(None)
    pane.resize(700, 500)
    pane.show()
    qtbot.waitExposed(pane)
    before = transcript.size()
    session = Session(
        id="s1", name="Tidy the toolbar", updated_at=datetime(2026, 12, 1, tzinfo=UTC)
    )
    header.show_session(session, 3)
    qtbot.wait(50)  # any layout request is handled
    assert header.isVisible()
    assert transcript.size() == before
