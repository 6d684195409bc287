"""GUI fixtures: a task runner that is always shut down, and the demo history."""

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from desktop_app.sources.goose import GooseSource
from desktop_app.sources.goose.demo import ensure_demo_database
from desktop_app.ui.tasks import TaskRunner


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
