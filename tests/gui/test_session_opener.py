"""The session opener alone, without a window (#21 item 4): the models and widgets it drives
are made here, and what it says and shows is read from its signals and the header."""

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from desktop_app.domain.search import SearchHit
from desktop_app.domain.session import Session
from desktop_app.domain.source import SessionQuery
from desktop_app.rendering.transcript_blocks import MessageRenderer
from desktop_app.sources.goose import GooseSource
from desktop_app.ui.models.session_tree import SessionTreeModel
from desktop_app.ui.models.transcript import TranscriptModel
from desktop_app.ui.session_opener import AGENT_ONLY_HINT, SessionOpener
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.usage_loader import UsageLoader
from desktop_app.ui.widgets.session_header import SessionHeader
from desktop_app.ui.widgets.session_list import SessionListView
from tests.fixtures.goose_db import GooseDb

BASE = 1_767_323_045
HIDDEN = {"userVisible": False, "agentVisible": True}


@dataclass
class Opening:
    opener: SessionOpener
    source: GooseSource
    transcript: TranscriptModel
    header: SessionHeader
    show_hidden: QAction
    settings: Settings
    said: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    opened: list[str] = field(default_factory=list)
    shown: list[tuple[str, int]] = field(default_factory=list)
    rows_shown: list[int] = field(default_factory=list)


@pytest.fixture
def opening(
    make_db: Callable[..., GooseDb], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> Iterator[Opening]:
    db = make_db()
    db.add_session("old", name="Older work", updated_at="2026-01-02 03:04:05")
    db.add_message("old", "user", "The first question", created=BASE)
    db.add_message("old", "assistant", "Its answer", created=BASE + 1)
    db.add_message(
        "old", "assistant", "A note for the model only", created=BASE + 2, metadata=HIDDEN
    )
    db.add_session("new", name="Newest work", updated_at="2026-01-03 03:04:05")
    db.add_message("new", "user", "Something else", created=BASE + 100)
    source = GooseSource(db.path)
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    holder = QWidget()
    qtbot.addWidget(holder)
    sessions = SessionTreeModel(source, tasks, SessionQuery(with_empty=False))
    transcript = TranscriptModel(source, tasks, MessageRenderer())
    session_list = SessionListView(holder)
    session_list.setModel(sessions)
    header = SessionHeader(holder)
    show_hidden = QAction("Show agent-only messages", holder, checkable=True)
    show_hidden.toggled.connect(transcript.set_show_hidden)
    rows_shown: list[int] = []
    opener = SessionOpener(
        source,
        settings,
        sessions=sessions,
        transcript=transcript,
        session_list=session_list,
        header=header,
        usage=UsageLoader(source, tasks),
        show_hidden=show_hidden,
        show_row=rows_shown.append,
    )
    seen = Opening(opener, source, transcript, header, show_hidden, settings)
    seen.rows_shown = rows_shown
    opener.said.connect(lambda text, _ms: seen.said.append(text))
    opener.initial_session_missing.connect(seen.missing.append)
    opener.opened.connect(seen.opened.append)
    opener.shown.connect(lambda session, count: seen.shown.append((session.id, count)))
    sessions.reload()
    yield seen
    source.close()


def test_the_newest_session_opens_and_is_shown_and_remembered(
    opening: Opening, qtbot: QtBot
) -> None:
    opening.opener.open_initial(None)
    qtbot.waitUntil(lambda: opening.opened == ["new"], timeout=10_000)
    assert opening.transcript.session_id == "new"
    assert opening.settings.last_session_id == "new"
    header_session = opening.header.session
    assert isinstance(header_session, Session)
    assert header_session.id == "new"
    assert opening.shown[-1] == ("new", 1)
    assert (opening.said, opening.missing) == ([], [])


def test_a_hit_opens_its_session_at_the_message_showing_agent_only_ones(
    opening: Opening, qtbot: QtBot
) -> None:
    """The hit is in an agent-only message: View ▸ Show agent-only messages is ticked (and
    said), and the row of the hit is brought into view."""
    opening.opener.open_initial(None)
    qtbot.waitUntil(lambda: opening.opened == ["new"], timeout=10_000)
    cursor = list(opening.source.positions("old"))[2]
    hit = SearchHit(
        session_id="old",
        row_id=3,
        message_id=None,
        role="assistant",
        cursor=cursor,
        snippet="note",
        rank=0.0,
        agent_only=True,
    )
    opening.opener.open_hit(hit)
    qtbot.waitUntil(lambda: opening.rows_shown != [], timeout=10_000)
    assert opening.opened == ["new", "old"]
    assert opening.show_hidden.isChecked()
    assert opening.said == [AGENT_ONLY_HINT]
    assert opening.rows_shown == [opening.transcript.row_of(cursor)]


def test_a_session_named_but_gone_is_said_and_the_newest_opens_instead(
    opening: Opening, qtbot: QtBot
) -> None:
    opening.opener.open_initial("vanished")
    qtbot.waitUntil(lambda: opening.missing != [], timeout=10_000)
    assert opening.said == opening.missing
    assert "vanished" in opening.missing[0]
    qtbot.waitUntil(lambda: opening.opened == ["new"], timeout=10_000)
    assert opening.settings.last_session_id == "new"


def test_a_remembered_session_that_is_gone_is_skipped_silently(
    opening: Opening, qtbot: QtBot
) -> None:
    opening.settings.last_session_id = "vanished"
    opening.opener.open_initial(None)
    qtbot.waitUntil(lambda: opening.opened == ["new"], timeout=10_000)
    assert (opening.said, opening.missing) == ([], [])
