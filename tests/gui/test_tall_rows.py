"""A row taller than the view (a long answer, 11,000 pixels of it) costs its layout once.

Two ways it had cost it over and over, each a stall of the GUI thread: the list, reusing its
delegates, let go of the tall row and built it again 20 times a second for as long as the
session was open at its end; and the text sat in a Flickable of its own height, which is a
viewport, so the TextEdit built the glyphs of all its lines rather than of those on screen.
The layout is Qt's own: the transcript's QML in a real QQuickWidget."""

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PySide6.QtQuick import QQuickItem
from pytestqt.qtbot import QtBot

from desktop_app.rendering.transcript_blocks import MessageRenderer
from desktop_app.sources.goose import GooseSource
from desktop_app.ui.models.transcript import TranscriptModel
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.theme import LIGHT
from desktop_app.ui.transcript_navigation import TranscriptNavigator
from desktop_app.ui.widgets.transcript_view import TranscriptView
from tests.fixtures.goose_db import GooseDb

PROSE = "\n\n".join(
    " ".join(f"word{n % 97} and more words" for n in range(start, start + 60))
    for start in range(0, 36_000, 60)
)[:60_000]
"""Sixty thousand characters of paragraphs: a row many times the view's height."""


@pytest.fixture
def view(make_db: Callable[..., GooseDb], tasks: TaskRunner, qtbot: QtBot) -> Iterator[Any]:
    db = make_db()
    db.add_session("s", name="A long answer")
    db.add_message("s", "user", content="Tell me everything.", created=1767323000)
    db.add_message("s", "assistant", content=PROSE, created=1767323001)
    db.add_message("s", "user", content="Thanks.", created=1767323002)
    source = GooseSource(db.path)
    model = TranscriptModel(source, tasks, MessageRenderer())
    widget = TranscriptView(model, TranscriptNavigator(model, source, tasks), LIGHT)
    qtbot.addWidget(widget)
    widget.resize(640, 615)
    widget.show()
    with qtbot.waitSignal(model.opened, timeout=5000):
        model.open_session("s")
    qtbot.waitUntil(lambda: model.rendered_count == 3, timeout=10_000)
    qtbot.waitUntil(lambda: _long_body(widget) is not None, timeout=10_000)
    yield widget
    source.close()


def _items(widget: TranscriptView, name: str) -> list[QQuickItem]:
    root = widget.rootObject()
    assert root is not None
    found, stack = [], [root]
    while stack:
        item = stack.pop()
        if item.objectName() == name and item.isVisible():
            found.append(item)
        stack.extend(item.childItems())
    return found


def _long_body(widget: TranscriptView) -> QQuickItem | None:
    found = [b for b in _items(widget, "blockBody") if len(str(b.property("text"))) > 50_000]
    return found[0] if found else None


def test_a_session_that_ends_below_a_tall_row_settles(view: TranscriptView, qtbot: QtBot) -> None:
    root = view.rootObject()
    assert root is not None
    qtbot.wait(500)  # opened at its end, the rows built
    changes: list[float] = []
    root.contentHeightChanged.connect(lambda: changes.append(root.property("contentHeight")))
    root.contentYChanged.connect(lambda: changes.append(root.property("contentY")))
    frames: list[int] = []
    window = view.quickWindow()
    window.afterRendering.connect(lambda: frames.append(1))
    qtbot.wait(1500)
    # Reusing delegates, the view built the tall row again and moved about 40 times here.
    assert changes == []
    assert len(frames) <= 2
    assert root.property("atYEnd") is True


def test_a_long_text_is_in_no_viewport_but_the_transcript(view: TranscriptView) -> None:
    body = _long_body(view)
    assert body is not None
    root = view.rootObject()
    item = body.parentItem()
    while item is not None and item != root:  # up to the transcript's own list
        # A clipping item or a Flickable is a viewport: the text would draw all its lines.
        assert not item.clip(), item
        assert not item.inherits("QQuickFlickable"), item
        item = item.parentItem()
    assert item is not None
