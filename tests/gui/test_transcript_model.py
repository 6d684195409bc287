"""The transcript model: rows known at once, content rendered lazily, every demo part shown."""

import time
from collections.abc import Callable

from PySide6.QtCore import QModelIndex
from pytestqt.qtbot import QtBot

from desktop_app.domain.source import ArchivedFilter, SessionQuery
from desktop_app.rendering.transcript_blocks import MessageRenderer
from desktop_app.sources.goose import GooseSource
from desktop_app.ui.models.transcript import TranscriptModel
from desktop_app.ui.roles import MessageRole
from desktop_app.ui.tasks import TaskRunner
from tests.fixtures.goose_db import GooseDb
from tests.gui.conftest import render_all


def _session_id(source: GooseSource, name: str) -> str:
    query = SessionQuery(session_types=None, archived=ArchivedFilter.INCLUDE)
    sessions = source.list_sessions(query, limit=1000).sessions
    return next(s.id for s in sessions if s.name == name)


def test_edge_case_session_renders_every_kind(
    demo_source: GooseSource, tasks: TaskRunner, qtbot: QtBot, qtmodeltester: object
) -> None:
    model = TranscriptModel(demo_source, tasks, MessageRenderer())
    session_id = _session_id(demo_source, "Q3 report and build clean-up")
    with qtbot.waitSignal(model.opened, timeout=5000) as opened:
        model.open_session(session_id)
    rows = opened.args[1]
    assert model.rowCount() == rows
    assert opened.args[0].id == session_id
    placeholder = model.index(0)
    assert placeholder.data(MessageRole.LOADED) is False
    assert placeholder.data(MessageRole.BLOCKS) == []
    kinds = {block["kind"] for block in render_all(model, qtbot)}
    assert {
        "text",
        "file",
        "reasoning",
        "action",
        "tool_call",
        "tool_result",
        "notice",
        "error",
        "link",
        "unsupported",
    } <= kinds
    qtmodeltester.check(model)  # type: ignore[attr-defined]

    agent_only = [model.index(r).data(MessageRole.AGENT_ONLY) for r in range(model.rowCount())]
    hidden = [model.index(r).data(MessageRole.HIDDEN) for r in range(model.rowCount())]
    assert agent_only.count(True) == 2
    assert hidden == agent_only
    with qtbot.waitSignal(model.dataChanged, timeout=1000):
        model.set_show_hidden(True)
    assert not any(model.index(r).data(MessageRole.HIDDEN) for r in range(model.rowCount()))
    assert model.rowCount() == rows


def test_images_are_available_to_the_view(
    demo_source: GooseSource, tasks: TaskRunner, qtbot: QtBot
) -> None:
    model = TranscriptModel(demo_source, tasks, MessageRenderer())
    with qtbot.waitSignal(model.opened, timeout=5000):
        model.open_session(_session_id(demo_source, "Latency spike after Redis migration"))
    blocks = render_all(model, qtbot)
    image_blocks = [b for b in blocks if b["kind"] == "image"]
    assert len(image_blocks) == 3
    images = [
        model.image(row, 0) for row in range(model.rowCount()) if model.image(row, 0) is not None
    ]
    assert len(images) == 3
    assert model.rowCount(QModelIndex()) == model.rowCount()


def test_a_slow_session_hands_the_worker_back(
    make_db: Callable[..., GooseDb], tasks: TaskRunner, qtbot: QtBot
) -> None:
    """Twenty messages that each use their whole highlighting budget would hold the worker for
    five seconds; rendering jobs stop after `JOB_BUDGET_S`, so another session opened meanwhile
    is shown at once, and the slow one goes on rendering job after job (issue #8, point 7)."""
    db = make_db()
    db.add_session("slow", name="slow")
    for _ in range(20):
        db.add_message("slow", "assistant", "```html\n" + "<!--" * 15_000 + "\n```")
    db.add_session("quick", name="quick")
    db.add_message("quick", "user", "a quick question")
    source = GooseSource(db.path)
    model = TranscriptModel(source, tasks, MessageRenderer())
    try:
        with qtbot.waitSignal(model.opened, timeout=5000):
            model.open_session("slow")
        model.index(0).data(MessageRole.BLOCKS)
        qtbot.waitUntil(lambda: model.rendered_count > 0, timeout=5000)
        started = time.monotonic()
        with qtbot.waitSignal(model.opened, timeout=5000):
            model.open_session("quick")
        qtbot.waitUntil(lambda: bool(model.index(0).data(MessageRole.LOADED)), timeout=5000)
        assert time.monotonic() - started < 2.5
        with qtbot.waitSignal(model.opened, timeout=5000):
            model.open_session("slow")
        model.index(0).data(MessageRole.BLOCKS)
        qtbot.waitUntil(lambda: model.rendered_count >= 6, timeout=30_000)
    finally:
        source.close()
