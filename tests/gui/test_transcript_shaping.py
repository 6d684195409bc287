"""View ▸ Conversation only, Hide tool calls, Hide reasoning: the rows show only what the
shaping keeps, fold away when nothing is left, and every block number (copy, expand, keyboard)
follows the blocks as shown."""

from pathlib import Path

from PySide6.QtCore import QObject, QSettings
from pytestqt.qtbot import QtBot

from desktop_app.domain.source import ArchivedFilter, SessionQuery
from desktop_app.rendering.shaping import Shaping
from desktop_app.rendering.transcript_blocks import MessageRenderer
from desktop_app.sources.goose import GooseSource
from desktop_app.ui.models.transcript import TranscriptModel
from desktop_app.ui.roles import MessageRole
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.transcript_navigation import TranscriptNavigator
from desktop_app.ui.transcript_shaping import ShapingActions
from tests.gui.conftest import render_all

TOOL_KINDS = {"tool_call", "tool_result", "action"}


def _open(source: GooseSource, tasks: TaskRunner, qtbot: QtBot, name: str) -> TranscriptModel:
    query = SessionQuery(session_types=None, archived=ArchivedFilter.INCLUDE)
    sessions = source.list_sessions(query, limit=1000).sessions
    session_id = next(s.id for s in sessions if s.name == name)
    model = TranscriptModel(source, tasks, MessageRenderer())
    with qtbot.waitSignal(model.opened, timeout=5000):
        model.open_session(session_id)
    render_all(model, qtbot)
    return model


def _shown(model: TranscriptModel) -> list[list[str]]:
    """Each row's block kinds as the view gets them; a folded row shows none."""
    rows: list[list[str]] = []
    for row in range(model.rowCount()):
        index = model.index(row)
        if index.data(MessageRole.HIDDEN):
            rows.append([])
        else:
            rows.append([str(block["kind"]) for block in index.data(MessageRole.BLOCKS)])
    return rows


def test_each_shaping_keeps_only_its_blocks(
    demo_source: GooseSource, tasks: TaskRunner, qtbot: QtBot, qtmodeltester: object
) -> None:
    model = _open(demo_source, tasks, qtbot, "Q3 report and build clean-up")
    everything = _shown(model)
    kinds = {kind for row in everything for kind in row}
    assert {"reasoning", "tool_call", "tool_result", "text"} <= kinds
    count = model.rowCount()

    model.set_shaping(Shaping(hide_reasoning=True))
    no_reasoning = _shown(model)
    assert "reasoning" not in {k for row in no_reasoning for k in row}
    assert [[k for k in row if k != "reasoning"] for row in everything] == [
        row if row else [] for row in no_reasoning
    ]

    model.set_shaping(Shaping(hide_tools=True))
    no_tools = _shown(model)
    assert not TOOL_KINDS & {k for row in no_tools for k in row}
    assert "reasoning" in {k for row in no_tools for k in row}
    # A message of tool results only folds away whole (its images and files too).
    assert any(row and not shown for row, shown in zip(everything, no_tools, strict=True))

    model.set_shaping(Shaping(conversation_only=True))
    conversation = _shown(model)
    prompts = [row for row in range(count) if (m := model.message(row)) is not None and m.is_prompt]
    assert len(prompts) == 4
    for row in range(count):
        if row in prompts:  # what a person wrote stays whole (an answer to the agent too)
            assert conversation[row] == everything[row]
        else:
            assert set(conversation[row]) <= {"text", "image", "file", "link"}
    # The final answer of each turn stays.
    assert conversation[21] == ["text"]
    # An assistant message that called a tool is a step, not an answer.
    for row in range(count):
        if "tool_call" in everything[row]:
            assert conversation[row] == []
    assert model.rowCount() == count  # rows fold; none is removed
    qtmodeltester.check(model)  # type: ignore[attr-defined]

    model.set_shaping(Shaping())
    assert _shown(model) == everything


def test_block_numbers_follow_the_blocks_shown(
    demo_source: GooseSource, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """Copy, expand and the keyboard count the blocks the view shows: with reasoning hidden,
    block 0 of a row that began with reasoning is what follows it."""
    model = _open(demo_source, tasks, qtbot, "Q3 report and build clean-up")
    row = next(
        r
        for r in range(model.rowCount())
        if [b["kind"] for b in model.index(r).data(MessageRole.BLOCKS)][:1] == ["reasoning"]
        and len(model.index(r).data(MessageRole.BLOCKS)) > 1
    )
    second = model.index(row).data(MessageRole.BLOCKS)[1]
    model.toggleBlock(row, 1, False)
    model.set_shaping(Shaping(hide_reasoning=True))
    blocks = model.index(row).data(MessageRole.BLOCKS)
    assert blocks[0]["title"] == second["title"]
    assert model.block_count(row) == len(blocks)
    assert model.collapsible(row, 0) == bool(second["collapsible"])
    # What was opened by hand is forgotten, as block numbers changed.
    assert model.index(row).data(MessageRole.EXPANDED) == [None] * len(blocks)


def test_keyboard_skips_rows_shaped_away(
    demo_source: GooseSource, tasks: TaskRunner, qtbot: QtBot
) -> None:
    model = _open(demo_source, tasks, qtbot, "Q3 report and build clean-up")
    navigator = TranscriptNavigator(model, demo_source, tasks)
    model.set_shaping(Shaping(conversation_only=True))
    visited = []
    assert navigator.move(True, 0)
    while True:
        focus = navigator.focus
        assert focus is not None
        visited.append(focus)
        if not navigator.move(True, 0):
            break
    rows = {row for row, _ in visited}
    assert rows
    assert all(not model.index(r).data(MessageRole.HIDDEN) for r in rows)
    for row, block in visited:
        assert block < model.block_count(row)  # type: ignore[operator]


def test_shaping_is_remembered(
    demo_source: GooseSource, tasks: TaskRunner, tmp_path: Path, qtbot: QtBot
) -> None:
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    owner = QObject()
    model = TranscriptModel(demo_source, tasks, MessageRenderer())
    actions = ShapingActions(model, settings, owner)
    assert actions.group_tools.isChecked()  # on by default
    actions.group_tools.setChecked(False)
    actions.hide_reasoning.setChecked(True)
    assert model.shaping == Shaping(hide_reasoning=True)
    actions.conversation_only.setChecked(True)
    assert model.shaping.conversation_only
    assert not actions.hide_tools.isEnabled()
    again = ShapingActions(TranscriptModel(demo_source, tasks, MessageRenderer()), settings, owner)
    assert again.conversation_only.isChecked()
    assert again.hide_reasoning.isChecked()
    assert not again.hide_tools.isChecked()
    assert not again.group_tools.isChecked()
    assert not again.group_tools.isEnabled()  # conversation only: nothing to group


def test_runs_of_tool_calls_fold_into_one_line(
    demo_source: GooseSource, tasks: TaskRunner, qtbot: QtBot, qtmodeltester: object
) -> None:
    """Rows 4–6 of the demo's Q3 session are two calls and a result between two texts: one
    line, opened in place; a jump to a row inside opens it."""
    model = _open(demo_source, tasks, qtbot, "Q3 report and build clean-up")
    everything = _shown(model)
    assert everything[4:7] == [["tool_call"], ["tool_result"], ["tool_call"]]
    model.set_grouping(True)
    grouped = _shown(model)
    assert grouped[4] == ["group"]
    assert grouped[5] == grouped[6] == []
    header = model.index(4).data(MessageRole.BLOCKS)[0]
    # Row 5's result is an error, row 6's call could not be formed: both failed.
    assert header["title"] == "2 tool calls · 2 failed"
    assert header["error"]
    assert header["preview"] == "shell, ?"
    assert header["collapsible"]
    assert model.index(4).data(MessageRole.EXPANDED)[0] is False
    # A single call (row 11, its result row 12) is left as it is; so is every other row.
    assert [row for row in range(len(grouped)) if grouped[row] != everything[row]] == [4, 5, 6]
    qtmodeltester.check(model)  # type: ignore[attr-defined]

    model.toggleBlock(4, 0, False)
    opened = _shown(model)
    assert opened[4] == ["group", "tool_call"]
    assert opened[5:7] == everything[5:7]
    assert model.index(4).data(MessageRole.EXPANDED)[0] is True
    model.toggleBlock(4, 0, True)
    assert _shown(model) == grouped

    model.reveal(6)  # a search hit or a find inside the group
    assert _shown(model) == opened
    model.set_all_expanded(False)
    assert _shown(model) == grouped
    model.set_all_expanded(True)
    assert _shown(model) == opened

    model.set_shaping(Shaping(hide_tools=True))  # nothing left to group
    assert "group" not in {k for row in _shown(model) for k in row}
    model.set_shaping(Shaping())
    model.set_grouping(False)
    assert _shown(model) == everything


def test_keyboard_passes_a_closed_group_as_one_block(
    demo_source: GooseSource, tasks: TaskRunner, qtbot: QtBot
) -> None:
    model = _open(demo_source, tasks, qtbot, "Q3 report and build clean-up")
    model.set_grouping(True)
    navigator = TranscriptNavigator(model, demo_source, tasks)
    navigator.set_focus(3, 0)
    assert navigator.move(True, 0)
    assert navigator.focus == (4, 0)
    assert navigator.move(True, 0)
    assert navigator.focus is not None
    assert navigator.focus[0] == 7
