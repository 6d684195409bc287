"""A row taller than the view (a long answer, 11,000 pixels of it) costs its layout once.

Two ways it had cost it over and over, each a stall of the GUI thread: the list, reusing its
delegates, let go of the tall row and built it again 20 times a second for as long as the
session was open at its end; and the text sat in a Flickable of its own height, which is a
viewport, so the TextEdit built the glyphs of all its lines rather than of those on screen.
The layout is Qt's own: the transcript's QML in a real QQuickWidget."""

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PySide6.QtCore import Q_ARG, Q_RETURN_ARG, QMetaObject
from PySide6.QtQuick import QQuickItem
from pytestqt.qtbot import QtBot
from shiboken6 import getCppPointer

from desktop_app.sources.goose import GooseSource
from desktop_app.ui.roles import MessageRole
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.widgets.transcript_view import TranscriptView
from tests.fixtures.goose_db import GooseDb
from tests.gui.quick_items import shown_transcript, visible_items

PROSE = "\n\n".join(
    " ".join(f"word{n % 97} and more words" for n in range(start, start + 60))
    for start in range(0, 36_000, 60)
)[:63_000]
"""Sixty-three thousand characters of paragraphs (four pieces): a row many times the view's
height, more pieces than a row built again starts with."""


CODE = (
    "Here it is:\n\n```python\n"
    + "\n".join(
        f"def step_{n}(value):\n    return value * {n} + {'x' * (n % 50)!r}" for n in range(700)
    )
    + "\n```\n\nDone."
)
"""A 51,000-character code block: highlighted, 18 pieces, each cut in the block's middle, more
than a row built again starts with."""
BUILT = ("and more words", "step_")
"""What a laid-out piece of either holds (one not laid out yet holds nothing)."""


@pytest.fixture(params=[PROSE, CODE], ids=["prose", "code"])
def view(
    request: pytest.FixtureRequest,
    make_db: Callable[..., GooseDb],
    tasks: TaskRunner,
    qtbot: QtBot,
) -> Iterator[Any]:
    widget, source = _opened(request.param, make_db, tasks, qtbot)
    yield widget
    source.close()


def _opened(
    answer: str,
    make_db: Callable[..., GooseDb],
    tasks: TaskRunner,
    qtbot: QtBot,
    watch: Callable[[TranscriptView], None] = lambda _: None,
) -> tuple[TranscriptView, GooseSource]:
    """The transcript of a session with `answer` between two short messages, opened (at its
    end) and settled; `watch` is given the view before the session is opened."""
    db = make_db()
    db.add_session("s", name="A long answer")
    db.add_message("s", "user", content="Tell me everything.", created=1767323000)
    db.add_message("s", "assistant", content=answer, created=1767323001)
    db.add_message("s", "user", content="Thanks.", created=1767323002)
    source = GooseSource(db.path)
    model, widget = shown_transcript(source, tasks, qtbot)
    watch(widget)
    with qtbot.waitSignal(model.opened, timeout=5000):
        model.open_session("s")
    qtbot.waitUntil(lambda: model.rendered_count == 3, timeout=10_000)
    qtbot.waitUntil(lambda: _long_body(widget) is not None, timeout=10_000)
    qtbot.wait(500)  # opened at its end: the view settles there as the pieces are laid out
    qtbot.waitUntil(lambda: _long_body(widget) is not None, timeout=10_000)
    return widget, source


def _long_body(widget: TranscriptView) -> QQuickItem | None:
    """The long answer's last piece, once every piece is laid out."""
    pieces = _pieces(widget)
    built = all(any(mark in str(piece.property("text")) for mark in BUILT) for piece in pieces)
    return pieces[-1] if len(pieces) > 2 and built else None


def _pieces(widget: TranscriptView) -> list[QQuickItem]:
    """The TextEdits of the block that has the most: the long answer's pieces, in order."""
    by_block: dict[int, list[QQuickItem]] = {}
    for body in visible_items(widget, "blockBody"):
        by_block.setdefault(getCppPointer(body.parentItem())[0], []).append(body)
    most = max(by_block.values(), key=len, default=[])
    return sorted(most, key=lambda body: body.y())


def _row(root: QQuickItem, row: int) -> QQuickItem | None:
    found = QMetaObject.invokeMethod(
        root, "itemAtIndex", Q_RETURN_ARG("QQuickItem*"), Q_ARG(int, row)
    )
    return found if isinstance(found, QQuickItem) else None


def test_a_session_that_ends_below_a_tall_row_settles(view: TranscriptView, qtbot: QtBot) -> None:
    root = view.rootObject()
    assert root is not None
    changes: list[float] = []
    list_view: Any = root  # a ListView: its signals are QML's, unknown to the stubs
    list_view.contentHeightChanged.connect(lambda: changes.append(root.property("contentHeight")))
    list_view.contentYChanged.connect(lambda: changes.append(root.property("contentY")))
    frames: list[int] = []
    window = view.quickWindow()
    window.afterRendering.connect(lambda: frames.append(1))
    qtbot.wait(1500)
    # Reusing delegates, the view built the tall row again and moved about 40 times here;
    # following the current row, it moved a pixel a frame.
    assert changes == []
    assert len(frames) <= 2
    assert root.property("atYEnd") is True
    # At the end, as it looks: the last row's end at the view's bottom, the long row built
    # and just above it (once the view showed the last row alone, blank above it).
    last, long = _row(root, 2), _row(root, 1)
    assert last is not None
    assert long is not None
    bottom = root.property("contentY") + root.height()
    assert last.y() + last.height() == pytest.approx(bottom, abs=1)
    assert long.y() + long.height() == pytest.approx(last.y(), abs=1)
    assert long.height() > 10 * root.height()


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


def test_a_long_text_is_laid_out_a_piece_at_a_time_and_whole(view: TranscriptView) -> None:
    model = view.model
    (block,) = model.index(1).data(MessageRole.BLOCKS)
    assert len(block["pieces"]) == len(_pieces(view)) >= 4
    shown = "".join(str(piece.property("text")) for piece in _pieces(view))
    assert "word96 and more words" in shown or "step_699" in shown
    assert all(piece.height() > 100 for piece in _pieces(view)), [p.height() for p in _pieces(view)]


def test_a_long_text_built_again_makes_only_the_pieces_it_lays_out(
    view: TranscriptView, qtbot: QtBot
) -> None:
    """A block built again (Show more, a theme change) lays out as many pieces as it had, up to
    `piecesAtOnce`, and makes each of the rest's TextEdits when it lays the piece out, one a
    turn: Show more's 64 TextEdits made at once, laid out or not, stalled the window 46–89 ms."""
    view.model.set_dark(True)  # every row read again: the long answer's block built afresh

    def wanted() -> int:
        """The block's pieces as rendered now (its code highlighted, or plain once the
        highlighting budget is spent: the two cut into different numbers of pieces); more
        than any while the row is rendered again."""
        blocks = view.model.index(1).data(MessageRole.BLOCKS)
        return len(blocks[0]["pieces"]) if blocks else 1_000_000

    counts: list[int] = []
    while len(counts) < 1000 and (not counts or counts[-1] < wanted()):
        qtbot.wait(1)
        pieces = _pieces(view)
        assert all(piece.property("text") for piece in pieces)  # none made before its turn
        counts.append(len(pieces))
    assert counts[-1] == wanted(), counts[::25]
    at_once = view.rootObject().property("piecesAtOnce")
    assert next(count for count in counts if count) == min(at_once, wanted()), counts


@pytest.mark.parametrize("answer", [PROSE, CODE], ids=["prose", "code"])
def test_a_session_opened_at_its_end_builds_its_tall_row_once(
    answer: str, make_db: Callable[..., GooseDb], tasks: TaskRunner, qtbot: QtBot
) -> None:
    """Going to the end when the last row was not among those built, the view let go of them
    all and placed itself by its estimate: the tall row just built above the last one was
    built again (40–60 ms of layout), the content a row high meanwhile."""
    heights: list[float] = []

    def watch(widget: TranscriptView) -> None:
        root: Any = widget.rootObject()  # a ListView: its signals are QML's
        root.contentHeightChanged.connect(lambda: heights.append(root.property("contentHeight")))

    _, source = _opened(answer, make_db, tasks, qtbot, watch)
    try:
        tall = next(at for at, height in enumerate(heights) if height > 2000)
        assert min(heights[tall:]) > 2000, heights
    finally:
        source.close()
