"""View ▸ Prompts…: every prompt the user saw, in order, read a chunk at a time; choosing one
goes to it as N / P do."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from desktop_app.domain.source import ArchivedFilter, SessionQuery
from desktop_app.rendering.transcript_blocks import MessageRenderer
from desktop_app.sources.goose import GooseSource
from desktop_app.ui.models import prompt_outline
from desktop_app.ui.models.prompt_outline import PromptOutlineModel
from desktop_app.ui.models.transcript import TranscriptModel
from desktop_app.ui.prompt_navigator import PromptNavigator
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.transcript_navigation import TranscriptNavigator


def _session(source: GooseSource, name: str) -> str:
    query = SessionQuery(session_types=None, archived=ArchivedFilter.INCLUDE)
    return next(s.id for s in source.list_sessions(query, limit=1000).sessions if s.name == name)


def _opened(source: GooseSource, tasks: TaskRunner, qtbot: QtBot, name: str) -> TranscriptModel:
    model = TranscriptModel(source, tasks, MessageRenderer())
    with qtbot.waitSignal(model.opened, timeout=5000):
        model.open_session(_session(source, name))
    return model


def _texts(model: PromptOutlineModel) -> list[str]:
    return [model.index(row).data() for row in range(model.rowCount())]


@pytest.mark.parametrize("chunk", [500, 3])
def test_outline_lists_the_prompts_in_order(  # noqa: PLR0917 (fixtures)
    demo_source: GooseSource,
    tasks: TaskRunner,
    qtbot: QtBot,
    qtmodeltester: object,
    monkeypatch: pytest.MonkeyPatch,
    chunk: int,
) -> None:
    """Read in chunks of three messages too: the same prompts, each once, in order."""
    monkeypatch.setattr(prompt_outline, "CHUNK", chunk)
    transcript = _opened(demo_source, tasks, qtbot, "Q3 report and build clean-up")
    outline = PromptOutlineModel(demo_source, tasks)
    outline.load(transcript.session_id, transcript.cursors, hidden=False)
    qtbot.waitUntil(lambda: outline.complete, timeout=5000)
    prompts = [
        m
        for m in demo_source.messages_between(
            transcript.session_id or "", transcript.cursors[0], transcript.cursors[-1]
        )
        if m.is_prompt
    ]
    seen = [m for m in prompts if m.visibility.user]
    assert len(seen) == 3 < len(prompts)  # one prompt the user never saw
    assert [outline.cursor(row) for row in range(outline.rowCount())] == [m.cursor for m in seen]
    assert all(text and "\n" not in text for text in _texts(outline))
    qtmodeltester.check(outline)  # type: ignore[attr-defined]

    outline.load(transcript.session_id, transcript.cursors, hidden=True)
    qtbot.waitUntil(lambda: outline.complete, timeout=5000)
    assert outline.rowCount() == len(prompts)


def test_a_new_load_drops_what_the_last_had_queued(
    demo_source: GooseSource, tasks: TaskRunner, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prompt_outline, "CHUNK", 2)
    first = _opened(demo_source, tasks, qtbot, "Q3 report and build clean-up")
    second = _opened(demo_source, tasks, qtbot, "Latency spike after Redis migration")
    outline = PromptOutlineModel(demo_source, tasks)
    outline.load(first.session_id, first.cursors, hidden=True)
    outline.load(second.session_id, second.cursors, hidden=True)
    qtbot.waitUntil(lambda: outline.complete, timeout=5000)
    wanted = [
        m.cursor
        for m in demo_source.messages_between(
            second.session_id or "", second.cursors[0], second.cursors[-1]
        )
        if m.is_prompt
    ]
    assert [outline.cursor(row) for row in range(outline.rowCount())] == wanted


def test_choosing_a_prompt_goes_to_it(
    demo_source: GooseSource, tasks: TaskRunner, qtbot: QtBot
) -> None:
    transcript = _opened(demo_source, tasks, qtbot, "Q3 report and build clean-up")
    navigator = TranscriptNavigator(transcript, demo_source, tasks)
    window = QWidget()
    qtbot.addWidget(window)
    prompts = PromptNavigator(transcript, navigator, demo_source, window)
    prompts.open()
    qtbot.waitUntil(lambda: prompts.model.complete, timeout=5000)
    dialog = prompts.dialog
    assert dialog.isVisible()
    last = prompts.model.index(prompts.model.rowCount() - 1).data()
    # Filter by the last prompt's words, then Enter: the transcript goes to it.
    QTest.keyClicks(dialog.filter, last[:20])
    with qtbot.waitSignal(navigator.prompt_found, timeout=2000) as found:
        QTest.keyClick(dialog.filter, Qt.Key.Key_Return)
    row = found.args[0]
    message = transcript.message(row) or next(
        iter(demo_source.messages_at(transcript.session_id or "", [transcript.cursors[row]]))
    )
    assert message.is_prompt
    assert navigator.focus == (row, 0)
    assert not dialog.isVisible()
