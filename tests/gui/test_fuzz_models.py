"""Fuzzed goose rows through the Qt models: the transcript renders every row, never raises."""

import json
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pytestqt.qtbot import QtBot

from desktop_app.rendering.transcript_blocks import MessageRenderer
from desktop_app.sources.goose import GooseSource
from desktop_app.sources.goose.ddl import fresh_schema
from desktop_app.ui.models.transcript import TranscriptModel
from desktop_app.ui.tasks import TaskRunner
from tests.gui.conftest import render_all
from tests.unit.test_fuzz_pipeline import rows


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(batch=st.lists(rows, min_size=1, max_size=25, unique_by=lambda r: r["id"]))
def test_transcript_model_renders_fuzzed_sessions(
    batch: list[dict[str, Any]], tasks: TaskRunner, qtbot: QtBot
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "sessions.db"
        conn = sqlite3.connect(path, isolation_level=None)
        fresh_schema(conn)
        conn.execute("INSERT INTO sessions (id, name, working_dir) VALUES ('s', 'fuzz', '/w')")
        for row in batch:
            conn.execute(
                "INSERT INTO messages (id, message_id, session_id, role, content_json,"
                " created_timestamp, metadata_json) VALUES (?, ?, 's', ?, ?, ?, ?)",
                (
                    row["id"],
                    row["message_id"],
                    row["role"],
                    row["content_json"].encode("utf-8", "replace").decode(),
                    row["created_timestamp"] if row["created_timestamp"] is not None else 0,
                    row["metadata_json"].encode("utf-8", "replace").decode()
                    if isinstance(row["metadata_json"], str)
                    else None,
                ),
            )
        conn.close()
        source = GooseSource(path)
        try:
            model = TranscriptModel(source, tasks, MessageRenderer())
            with qtbot.waitSignal(model.opened, timeout=5000):
                model.open_session("s")
            assert model.rowCount() == len(batch)
            blocks = render_all(model, qtbot)
            json.dumps([b["title_html"] for b in blocks])
        finally:
            source.close()
