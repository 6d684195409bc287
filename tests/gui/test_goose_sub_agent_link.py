"""A goose `delegate` card opens the sub-agent's session it names, in place, with a way back and
the parent named in the header (#19 items 1 and 3). The rows are goose's shape: the result's
`_meta.subagent_session_id` (block/goose `platform_extensions/summon.rs`) and the child's
`parent_session_id`, as `tests/unit/test_goose_sub_agent_links.py` says."""

from argparse import Namespace
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from desktop_app.app import build_window
from desktop_app.rendering.transcript_blocks import SESSION_SCHEME
from desktop_app.ui.roles import MessageRole
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from tests.fixtures.goose_db import GooseDb
from tests.gui.conftest import render_all
from tests.unit.test_goose_sub_agent_links import CHILD, PARENT, delegating_history


def test_the_delegate_card_opens_its_sub_agent_and_back_returns(
    make_db: Callable[..., GooseDb], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    args = Namespace(db=[str(delegating_history(make_db).path)], demo=False, session=PARENT)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.transcript.rowCount() > 0, timeout=10_000)
    render_all(window.transcript, qtbot)
    link = f"{SESSION_SCHEME}:{CHILD}"
    rows = [
        row
        for row in range(window.transcript.rowCount())
        if link in str(window.transcript.index(row).data(MessageRole.BLOCKS))
    ]
    assert len(rows) == 1, "the delegate's result holds the link to the session it started"
    window.transcript_view.actions_for_qml.linkActivated(rows[0], 0, link)
    qtbot.waitUntil(lambda: window.transcript.session_id == CHILD, timeout=5000)
    qtbot.waitUntil(lambda: window.back_bar.isVisibleTo(window), timeout=5000)
    header = window.header
    qtbot.waitUntil(lambda: ">Audit the services</a>" in header.parent_link.text(), timeout=5000)
    window.back_bar.button.click()
    qtbot.waitUntil(lambda: window.transcript.session_id == PARENT, timeout=5000)
    window.close()
