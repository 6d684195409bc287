"""Long content is readable in the window (issue #19, items 5 and 7): code, output and JSON wrap
at the card's edge by default, a block switched to no wrap scrolls sideways, no text is ever
wider than its view; and a prompt's image is a thumbnail at least 96 pixels high.

The layout is Qt's own: the transcript's QML laid out in a real QQuickWidget."""

import base64
import struct
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtQuick import QQuickItem
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from desktop_app.rendering.markdown_html import NO_WRAP_LABEL, WRAP_LABEL, WRAP_SCHEME
from desktop_app.rendering.transcript_blocks import MessageRenderer
from desktop_app.sources.goose import GooseSource
from desktop_app.ui.models.transcript import TranscriptModel
from desktop_app.ui.roles import MessageRole
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.theme import LIGHT
from desktop_app.ui.transcript_navigation import TranscriptNavigator
from desktop_app.ui.widgets.transcript_view import TranscriptView
from tests.fixtures.goose_db import GooseDb
from tests.gui.quick_items import visible_items

WIDTH = 640
LONG_CODE = "result = compute(" + ", ".join(f"argument_{n}" for n in range(120)) + ")"
LONG_OUTPUT = "PASS src/toolbar.test.ts " + "ok " * 400 + "/home/me/project/" + "x" * 600
REPLY = f"Here is the call:\n\n```python\n{LONG_CODE}\n```\n\nand prose after it."


def _png(side: int) -> str:
    """A red square PNG, `side` pixels wide, as base64."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    rows = b"".join(b"\x00" + b"\xcf\x22\x2e" * side for _ in range(side))
    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )
    return base64.b64encode(png).decode("ascii")


def _session(db: GooseDb) -> None:
    db.add_session("s", name="Long lines")
    prompt = [
        {"type": "text", "text": "What is in this icon?"},
        {"type": "image", "data": _png(16), "mimeType": "image/png"},
    ]
    db.add_message("s", "user", content=prompt, created=1767323000)
    db.add_message("s", "assistant", content=REPLY, created=1767323001)
    call = {
        "status": "success",
        "value": {"name": "developer__shell", "arguments": {"command": f"echo {LONG_CODE}"}},
    }
    db.add_message(
        "s",
        "assistant",
        content=[{"type": "toolRequest", "id": "t1", "toolCall": call}],
        created=1767323002,
    )
    result = {"status": "success", "value": [{"type": "text", "text": LONG_OUTPUT}]}
    db.add_message(
        "s",
        "user",
        content=[{"type": "toolResponse", "id": "t1", "toolResult": result}],
        created=1767323003,
    )


@pytest.fixture
def view(make_db: Callable[..., GooseDb], tasks: TaskRunner, qtbot: QtBot) -> Iterator[Any]:
    db = make_db()
    _session(db)
    source = GooseSource(db.path)
    model = TranscriptModel(source, tasks, MessageRenderer())
    navigator = TranscriptNavigator(model, source, tasks)
    widget = TranscriptView(model, navigator, LIGHT)
    qtbot.addWidget(widget)
    widget.resize(WIDTH, 2400)
    widget.show()
    with qtbot.waitSignal(model.opened, timeout=5000):
        model.open_session("s")
    qtbot.waitUntil(lambda: model.rendered_count == 4, timeout=10_000)
    model.set_all_expanded(True)
    yield widget
    source.close()


def _bodies(widget: TranscriptView, qtbot: QtBot) -> list[QQuickItem]:
    """Every block's text, once all four rows are laid out."""

    def laid_out() -> bool:
        bodies = visible_items(widget, "blockBody")
        return len(bodies) >= 4 and all(b.property("contentWidth") > 0 for b in bodies)

    qtbot.waitUntil(laid_out, timeout=5000)
    return visible_items(widget, "blockBody")


def _row_blocks(model: TranscriptModel, row: int) -> list[dict[str, Any]]:
    return list(model.index(row).data(MessageRole.BLOCKS))


def test_long_lines_wrap_at_the_card_edge(view: TranscriptView, qtbot: QtBot) -> None:
    bodies = _bodies(view, qtbot)
    texts = [str(b.property("text")) for b in bodies]
    assert any("argument_119" in t for t in texts)  # the code block
    assert any("xxxxxxxx" in t for t in texts)  # the output
    for body in bodies:
        assert body.property("contentWidth") <= body.width() + 1, body.property("text")[:200]
        assert body.width() <= WIDTH
    assert all(b.parentItem().width() <= WIDTH for b in bodies)  # the block's own view
    # The switch beside a title is offered where a line is wide, not on every block.
    assert _row_blocks(view.model, 3)[0]["wide"] is True
    assert _row_blocks(view.model, 0)[0]["wide"] is False


def test_a_block_switched_to_no_wrap_scrolls_sideways(view: TranscriptView, qtbot: QtBot) -> None:
    model = view.model
    row = 1
    blocks = _row_blocks(model, row)
    assert blocks[0]["wrap"] is True
    assert f'<a href="{WRAP_SCHEME}:0">{NO_WRAP_LABEL}</a>' in blocks[0]["html"]
    view.actions_for_qml.linkActivated(row, 0, f"{WRAP_SCHEME}:0")  # the code header's link
    blocks = _row_blocks(model, row)
    assert blocks[0]["wrap"] is False
    assert f'<a href="{WRAP_SCHEME}:0">{WRAP_LABEL}</a>' in blocks[0]["html"]

    def code_body() -> QQuickItem | None:
        found = [
            b for b in visible_items(view, "blockBody") if "Here is the call" in b.property("text")
        ]
        return found[0] if found else None

    def scroller() -> QQuickItem | None:
        """The sideways Flickable, holding the block's text while it scrolls."""
        body = code_body()
        view = body.parentItem().parentItem().parentItem() if body is not None else None
        return view if view is not None and view.objectName() == "sidewaysView" else None

    qtbot.waitUntil(lambda: scroller() is not None, timeout=5000)
    body, sideways = code_body(), scroller()
    assert body is not None
    assert sideways is not None
    # The text is as wide as its longest line, the view as wide as the card.
    assert body.width() >= body.property("contentWidth") > sideways.width() + 100
    assert sideways.property("interactive") is True
    assert sideways.property("contentWidth") >= body.property("contentWidth")
    assert sideways.width() <= WIDTH
    sideways.setProperty("contentX", 300)  # scrolled sideways by the user
    # And back: wrapped again, nothing wider than the view, nothing shifted out of it.
    view.actions_for_qml.linkActivated(row, 0, f"{WRAP_SCHEME}:0")
    qtbot.waitUntil(
        lambda: (
            (body := code_body()) is not None and body.property("contentWidth") <= body.width() + 1
        ),
        timeout=5000,
    )
    body = code_body()
    assert body is not None
    # Wrapped, the text is out of the sideways view again, at its block's left edge.
    assert body.parentItem().parentItem().objectName() == "blockView"
    assert body.parentItem().x() == 0


def test_w_wraps_or_unwraps_the_block_that_has_the_keyboard(
    view: TranscriptView, qtbot: QtBot
) -> None:
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    view.navigator.choose(1, 0)
    QTest.keyClick(view, Qt.Key.Key_W)
    assert _row_blocks(view.model, 1)[0]["wrap"] is False
    QTest.keyClick(view, Qt.Key.Key_W)
    assert _row_blocks(view.model, 1)[0]["wrap"] is True
    view.navigator.choose(0, 0)  # a prompt's text: nothing to wrap, W does nothing
    QTest.keyClick(view, Qt.Key.Key_W)
    assert _row_blocks(view.model, 0)[0]["wrap"] is True


def test_other_rows_keep_their_wrapping(view: TranscriptView) -> None:
    view.model.toggleWrap(1, 0)
    assert all(block["wrap"] for block in _row_blocks(view.model, 3))
    view.model.open_session("s")
    assert view.model.rowCount() == 0  # reopening forgets what was switched


def test_a_prompt_image_is_a_real_thumbnail(view: TranscriptView, qtbot: QtBot) -> None:
    """A 16-pixel image is drawn 96 pixels high (issue #19: prompts' images were 16-pixel
    thumbnails), never wider than the card."""
    qtbot.waitUntil(
        lambda: any(i.height() >= 96 for i in visible_items(view, "thumbnail")), timeout=5000
    )
    (thumbnail,) = visible_items(view, "thumbnail")
    assert thumbnail.height() == 96
    assert thumbnail.width() == 96
    assert thumbnail.property("implicitHeight") == 16
