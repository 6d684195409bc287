"""Huge content in the window (#13 item 4): a message of megabytes is shown in part, with Show
more, Copy all and Save all; nothing large is copied into the rendered form or into QML; and a
run of text with nowhere to wrap may wrap anywhere (Qt lays it out in quadratic time else)."""

import json
from dataclasses import fields
from pathlib import Path
from typing import Any

from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot

from desktop_app.domain.jsontext import dumps
from desktop_app.rendering.markdown_html import SHOWN_LIMIT
from desktop_app.rendering.transcript_blocks import (
    LONG_RUN_SHARE,
    MORE_FACTOR,
    Block,
    JsonSource,
    MessageRenderer,
)
from desktop_app.sources.goose import GooseSource
from desktop_app.ui.models.transcript import (
    ANYWHERE_PIECE_CHARS,
    TranscriptModel,
    _pieced,
    _shown,
)
from desktop_app.ui.roles import MessageRole
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.widgets.transcript_view import TranscriptActions
from tests.fixtures.goose_db import GooseDb

LINE = "x" * 4_000_000
"""Four million characters with nowhere to wrap: more than Show more ever shows."""
ARGUMENTS = {"path": "/tmp/big.txt", "content": "word " * 400_000}


def _model(make_db: Any, tasks: TaskRunner, qtbot: QtBot) -> TranscriptModel:
    db: GooseDb = make_db()
    db.add_session("s", name="Huge")
    db.add_message("s", "assistant", content=LINE, created=1767323000)
    call = {
        "status": "success",
        "value": {"name": "developer__text_editor", "arguments": ARGUMENTS},
    }
    db.add_message(
        "s",
        "assistant",
        content=[{"type": "toolRequest", "id": "t1", "toolCall": call}],
        created=1767323001,
    )
    model = TranscriptModel(GooseSource(db.path), tasks, MessageRenderer())
    with qtbot.waitSignal(model.opened, timeout=5000):
        model.open_session("s")
    for row in range(model.rowCount()):
        model.index(row).data(MessageRole.BLOCKS)
    qtbot.waitUntil(lambda: model.rendered_count == 2, timeout=10_000)
    return model


def _html(model: TranscriptModel, row: int) -> str:
    return str(model.index(row).data(MessageRole.BLOCKS)[0]["html"])


def test_a_huge_text_is_shown_in_part_and_more_on_request(
    make_db: Any, tasks: TaskRunner, qtbot: QtBot, tmp_path: Path
) -> None:
    model = _model(make_db, tasks, qtbot)
    (block,) = model.index(0).data(MessageRole.BLOCKS)
    assert block["wrap_anywhere"]
    assert "code_blocks" not in block  # the whole text never crosses into QML
    first = len(block["html"])
    assert first < 300_000
    assert "more not shown — " in block["html"]
    actions = TranscriptActions(model, None)  # type: ignore[arg-type]

    actions.linkActivated(0, 0, "gander-copy:0")
    assert QGuiApplication.clipboard().text() == LINE

    with qtbot.waitSignal(actions.saved, timeout=10_000):
        actions.save_text(0, 0, 0, str(tmp_path / "all.txt"))
    assert (tmp_path / "all.txt").read_text() == LINE

    shown = [first]
    for _ in range(3):  # twice larger, then no larger: Save all and Copy all remain
        with qtbot.waitSignal(model.dataChanged, timeout=10_000):
            actions.linkActivated(0, 0, "gander-more:0")
        shown.append(len(_html(model, 0)))
    start = SHOWN_LIMIT // LONG_RUN_SHARE  # a run with nowhere to wrap shows a sixteenth as much
    assert first < start + 2_000
    assert shown[1] > first + (MORE_FACTOR - 1) * start * 0.9
    assert shown[2] > shown[1]
    assert shown[3] == shown[2]
    assert "Show more" not in _html(model, 0)
    assert "gander-save:0" in _html(model, 0)


def test_a_line_with_nowhere_to_wrap_comes_in_smaller_pieces(
    make_db: Any, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """Qt lays out a run that wraps anywhere about five times slower a character: the first
    16,000 characters of the line in one piece held the window's thread 54 ms. It shows 4,000
    at first, in one piece (no seam); what Show more brings comes in quarters. Prose is cut at
    the usual size."""
    model = _model(make_db, tasks, qtbot)
    (block,) = model.index(0).data(MessageRole.BLOCKS)
    assert len(block["pieces"]) == 1
    with qtbot.waitSignal(model.dataChanged, timeout=10_000):
        TranscriptActions(model, None).linkActivated(0, 0, "gander-more:0")  # type: ignore[arg-type]
    (block,) = model.index(0).data(MessageRole.BLOCKS)
    pieces = block["pieces"]
    assert len(pieces) >= 3
    assert max(len(piece) for piece in pieces) < ANYWHERE_PIECE_CHARS + ANYWHERE_PIECE_CHARS // 2
    assert "".join(pieces).count("x") == block["html"].count("x")
    prose = _pieced({"html": "<p>" + "word " * 10_000 + "</p>", "wrap_anywhere": False})
    assert max(len(piece) for piece in prose["pieces"]) > 3 * ANYWHERE_PIECE_CHARS


def test_a_huge_tool_argument_is_never_written_out_whole_to_be_shown(
    make_db: Any, tasks: TaskRunner, qtbot: QtBot
) -> None:
    model = _model(make_db, tasks, qtbot)
    html = _html(model, 1)
    assert len(html) < 250_000
    assert "more not shown — " in html
    rendered = model._rendered[1]
    (source,) = rendered.blocks[0].code_blocks
    assert isinstance(source, JsonSource)
    assert source.value is model.message(1).parts[0].arguments  # type: ignore[union-attr]
    assert model.code_block(1, 0, 0) == dumps(ARGUMENTS, indent=2)
    assert json.loads(model.code_block(1, 0, 0) or "") == ARGUMENTS


def test_qml_gets_every_field_of_a_block_but_its_code() -> None:
    """A field added to `Block` must reach QML too (or be left out here on purpose)."""
    assert set(_shown(Block(kind="text"))) == {f.name for f in fields(Block)} - {"code_blocks"}


def test_a_long_blocks_pieces_are_cut_once(monkeypatch: Any) -> None:
    """QML reads a row's blocks again and again; the megabyte Show more brings took 18 ms to
    cut each time."""
    from desktop_app.rendering.html_pieces import split_pieces as split
    from desktop_app.ui.models import transcript

    cut: list[int] = []

    def counted(html: str, size: int) -> list[str]:
        cut.append(len(html))
        return split(html, size)

    monkeypatch.setattr(transcript, "split_pieces", counted)
    transcript._pieces.cache_clear()
    html = "<p>" + "word " * 40_000 + "</p>"
    first = _pieced({"html": html, "wrap_anywhere": False})["pieces"]
    again = _pieced({"html": "<p>" + "word " * 40_000 + "</p>", "wrap_anywhere": False})["pieces"]
    assert first == again
    assert len(first) > 1
    assert cut == [len(html)]
    assert _pieced({"html": "<p>short</p>", "wrap_anywhere": False})["pieces"] == ["<p>short</p>"]
    assert cut == [len(html)]  # a short block is its HTML alone, nothing cut
