"""A folded row (agent-only, shaped away, in a closed group of tool calls) costs no layout."""

from collections.abc import Callable

from pytestqt.qtbot import QtBot

from desktop_app.sources.goose import GooseSource
from desktop_app.ui.tasks import TaskRunner
from tests.fixtures.goose_db import GooseDb
from tests.gui.quick_items import items, shown_transcript


def test_a_folded_row_builds_no_blocks_until_it_is_shown(
    make_db: Callable[..., GooseDb], tasks: TaskRunner, qtbot: QtBot
) -> None:
    """Opening a coding session at its end, the rows hidden from the user (Claude Code's meta
    lines, goose's agent-only context) built their blocks like any other: 4–10 ms each."""
    db = make_db()
    db.add_session("s", name="Folded")
    db.add_message("s", "user", content="What is the plan?", created=1767323000)
    hidden = {"userVisible": False, "agentVisible": True}
    db.add_message("s", "user", content="Context only the agent sees", metadata=hidden)
    db.add_message("s", "assistant", content="Here is the plan.", created=1767323002)
    source = GooseSource(db.path)
    model, widget = shown_transcript(source, tasks, qtbot)
    try:
        with qtbot.waitSignal(model.opened, timeout=5000):
            model.open_session("s")
        qtbot.waitUntil(lambda: model.rendered_count == 3)
        qtbot.wait(100)
        assert len(items(widget, "blockView")) == 2  # the prompt's and the answer's
        model.set_show_hidden(True)
        qtbot.waitUntil(lambda: len(items(widget, "blockView")) == 3)
    finally:
        source.close()
