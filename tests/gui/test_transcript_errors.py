"""A transcript that cannot be read says so in a sentence of Gander's, never Python's text."""

from collections.abc import Sequence

import pytest
from pytestqt.qtbot import QtBot

from desktop_app.domain.message import MessageCursor
from desktop_app.domain.source import ArchivedFilter, SessionQuery
from desktop_app.rendering.transcript_blocks import MessageRenderer
from desktop_app.sources.goose import GooseSource
from desktop_app.ui.models.transcript import TranscriptModel
from desktop_app.ui.tasks import TaskRunner


class _Broken(GooseSource):
    """The demo, whose messages cannot be read: a bug of the kind a reader might have."""

    def positions(self, session_id: str) -> Sequence[MessageCursor]:
        raise KeyError("internal detail")


def test_a_bug_reading_a_transcript_is_a_sentence(
    demo_source: GooseSource, tasks: TaskRunner, qtbot: QtBot, caplog: pytest.LogCaptureFixture
) -> None:
    broken = _Broken(demo_source.path)
    query = SessionQuery(session_types=None, archived=ArchivedFilter.INCLUDE)
    session_id = broken.list_sessions(query, limit=1).sessions[0].id
    model = TranscriptModel(broken, tasks, MessageRenderer())
    with qtbot.waitSignal(model.failed, timeout=5000) as failed:
        model.open_session(session_id)
    (said,) = failed.args
    assert said.startswith("Gander met an error it did not expect (KeyError)")
    assert "internal detail" not in said
    assert "internal detail" in caplog.text  # the details go to the log
    broken.close()
