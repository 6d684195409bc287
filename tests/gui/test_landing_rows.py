"""A session opens where it lands without building rows it then lets go of (#19's start-up stall).

The ListView lays out its top rows as soon as it learns of them, before it is moved to the end
(or to a search hit): a session of 40 rendered messages opened at its end built its first ten
rows in full and threw them away, 40–60 ms of the start-up's 60–100 ms stall in
`benchmarks.window`. While the view settles, the rows it does not land on are held: a screen of
nothing, built at no cost. Once it has settled, every row reads whole again.
The layout is Qt's own: the transcript's QML in a real QQuickWidget."""

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Q_ARG, Q_RETURN_ARG, QMetaObject, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtQuick import QQuickItem
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from desktop_app.domain.source import Source
from desktop_app.rendering.transcript_blocks import MessageRenderer
from desktop_app.sources.goose import GooseSource
from desktop_app.ui.models.transcript import LANDING_ROWS, TranscriptModel
from desktop_app.ui.roles import MessageRole
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.theme import LIGHT
from desktop_app.ui.transcript_navigation import TranscriptNavigator
from desktop_app.ui.widgets.transcript_view import TranscriptView
from tests.fixtures.goose_db import GooseDb
from tests.gui.quick_items import items

ROWS = 40


class Recording(TranscriptModel):
    """The transcript's model, noting each row the view was given whole (its blocks)."""

    def __init__(self, source: Source, tasks: TaskRunner) -> None:
        super().__init__(source, tasks, MessageRenderer())
        self.whole: list[int] = []

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = 0) -> Any:
        value = super().data(index, role)
        if role == MessageRole.BLOCKS and value:
            self.whole.append(index.row())
        return value


def _session(make_db: Callable[..., GooseDb]) -> GooseSource:
    """Forty short messages, every fourth one a few paragraphs: every row of the page the
    session opens on is rendered, as in any session of up to 40 messages."""
    db = make_db()
    db.add_session("s", name="Forty messages")
    for n in range(ROWS):
        text = f"Message {n}." + (" More words." * 40 + "\n\n") * (3 if n % 4 == 0 else 0)
        db.add_message("s", "user" if n % 2 else "assistant", content=text, created=1767323000 + n)
    return GooseSource(db.path)


def _view(
    source: GooseSource, tasks: TaskRunner, qtbot: QtBot, height: int = 615
) -> tuple[Recording, TranscriptView]:
    model = Recording(source, tasks)
    widget = TranscriptView(model, TranscriptNavigator(model, source, tasks), LIGHT)
    qtbot.addWidget(widget)
    widget.resize(1000, height)
    widget.show()
    qtbot.waitExposed(widget)
    return model, widget


def _cards_shown(widget: TranscriptView) -> list[tuple[int, bool]]:
    """Each row the view has a card for: (row, held)."""
    root = widget.rootObject()
    assert root is not None
    cards = []
    for row in range(ROWS):
        card = QMetaObject.invokeMethod(
            root, "itemAtIndex", Q_RETURN_ARG("QQuickItem*"), Q_ARG(int, row)
        )
        if isinstance(card, QQuickItem):
            cards.append((row, bool(card.property("heldRow"))))
    return cards


def _every_card_whole(widget: TranscriptView) -> None:
    cards = _cards_shown(widget)
    assert cards
    assert not [row for row, held in cards if held]


def test_opened_at_its_end_the_top_rows_are_never_built_whole(
    make_db: Callable[..., GooseDb], tasks: TaskRunner, qtbot: QtBot
) -> None:
    source = _session(make_db)
    model, widget = _view(source, tasks, qtbot)
    with qtbot.waitSignal(model.settled, timeout=10_000):
        model.open_session("s")
    assert widget.bottom_row() == ROWS - 1
    assert model.whole, "the rows at the end were built whole"
    assert min(model.whole) >= ROWS - LANDING_ROWS, sorted(set(model.whole))
    qtbot.wait(200)
    _every_card_whole(widget)
    source.close()


def test_rows_held_while_it_settled_read_whole_once_it_has(
    make_db: Callable[..., GooseDb], tasks: TaskRunner, qtbot: QtBot
) -> None:
    """Back at the top, the first rows are whole cards, not the screens they were held as."""
    source = _session(make_db)
    model, widget = _view(source, tasks, qtbot)
    with qtbot.waitSignal(model.settled, timeout=10_000):
        model.open_session("s")
    widget.setFocus()
    QTest.keyClick(widget, Qt.Key.Key_Home)
    qtbot.waitUntil(lambda: widget.top_row() == 0, timeout=5000)
    qtbot.wait(200)
    assert 0 in model.whole
    _every_card_whole(widget)
    assert widget.bottom_row() < ROWS // 2  # a screen holds a few cards, not one held row
    assert any("Message 0." in item.property("text") for item in items(widget, "blockBody"))
    source.close()


def test_opened_at_a_row_it_lands_on_that_row(
    make_db: Callable[..., GooseDb], tasks: TaskRunner, qtbot: QtBot
) -> None:
    """A search hit's row (or Back's) is at the top, whole; the end, where the view is first
    moved, is held."""
    source = _session(make_db)
    model, widget = _view(source, tasks, qtbot)
    cursors = source.positions("s")
    model.opened.connect(lambda *_: widget.show_row(8))
    with qtbot.waitSignal(model.settled, timeout=10_000):
        model.open_session("s", around=cursors[8])
    qtbot.waitUntil(lambda: widget.top_row() == 8, timeout=5000)
    assert ROWS - 1 not in model.whole
    assert 8 in model.whole
    qtbot.wait(300)
    assert widget.top_row() == 8
    _every_card_whole(widget)
    source.close()


def test_a_view_taller_than_the_landing_shows_whole_rows_above_it(
    make_db: Callable[..., GooseDb], tasks: TaskRunner, qtbot: QtBot
) -> None:
    """A view that shows more rows than `LANDING_ROWS` still has a held row on screen when it
    settles: that row is read again, whole, and the rows above it fill the view."""
    source = _session(make_db)
    model, widget = _view(source, tasks, qtbot, height=3600)
    with qtbot.waitSignal(model.settled, timeout=10_000):
        model.open_session("s")
    qtbot.wait(300)
    _every_card_whole(widget)
    assert widget.top_row() < ROWS - LANDING_ROWS - 1, widget.top_row()
    assert widget.bottom_row() == ROWS - 1
    source.close()


def test_a_row_held_while_it_settled_is_told_of_after(
    make_db: Callable[..., GooseDb], tasks: TaskRunner, qtbot: QtBot
) -> None:
    """A row the view was given held keeps its card until the view is told to read it again:
    it is told, as a row that arrived rendered is."""
    source = _session(make_db)
    model, _widget = _view(source, tasks, qtbot)
    held: list[bool] = []
    model.opened.connect(lambda *_: held.append(model.index(0).data(MessageRole.HELD)))
    told: list[int] = []
    model.dataChanged.connect(
        lambda first, last, *_: told.extend(range(first.row(), last.row() + 1))
    )
    with qtbot.waitSignal(model.settled, timeout=10_000):
        model.open_session("s")
    assert held == [True]
    assert 0 in told
    assert model.index(0).data(MessageRole.HELD) is False
    assert model.index(0).data(MessageRole.BLOCKS)
    source.close()
