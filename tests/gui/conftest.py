"""GUI fixtures: a task runner that is always shut down, and the demo history."""

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop_app.demo.generator import ensure_demo_database
from desktop_app.sources.goose import GooseSource
from desktop_app.ui.models.transcript import TranscriptModel
from desktop_app.ui.roles import MessageRole
from desktop_app.ui.tasks import TaskRunner


def render_all(model: TranscriptModel, qtbot: QtBot) -> list[dict[str, object]]:
    """Ask for every row, wait for each page to be rendered, return all blocks in order."""
    blocks: list[dict[str, object]] = []
    for row in range(model.rowCount()):
        index = model.index(row)
        if not index.data(MessageRole.LOADED):
            with qtbot.waitSignal(model.rows_rendered, timeout=5000):
                index.data(MessageRole.BLOCKS)
        assert index.data(MessageRole.LOADED)
        blocks.extend(index.data(MessageRole.BLOCKS))
    return blocks


@pytest.fixture
def tasks(qapp: object) -> Iterator[TaskRunner]:
    del qapp
    runner = TaskRunner()
    yield runner
    runner.shutdown()


@pytest.fixture
def demo_source(tmp_path: Path) -> Iterator[GooseSource]:
    path = ensure_demo_database(tmp_path / "demo", datetime.now(UTC))
    source = GooseSource(path)
    yield source
    source.close()
