"""Fuzzed goose rows through the Qt models: the transcript renders every row, never raises,
shows each message's own words and nothing live (issue #5, point 2; issue #8, point 18)."""

import json
import re
import sqlite3
import tempfile
from html import unescape
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from pytestqt.qtbot import QtBot

from desktop_app.domain.parts import TextPart, UnsupportedPart
from desktop_app.rendering.markdown_html import show_controls
from desktop_app.rendering.transcript_blocks import MessageRenderer
from desktop_app.sources.goose import GooseSource
from desktop_app.sources.goose.ddl import fresh_schema
from desktop_app.sources.goose.rows import CONTENT_UTF8
from desktop_app.ui.models.transcript import TranscriptModel
from desktop_app.ui.roles import MessageRole
from desktop_app.ui.tasks import TaskRunner
from tests.fixtures.html_oracle import live_markup
from tests.gui.conftest import render_all
from tests.unit.test_fuzz_pipeline import rows

_MARKUP = re.compile(r"[\\`*_\[\]()<>#!|~&=:+-]|^\s*\d+[.)]|^ {4}|\t")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _as_qt_shows(text: str, *, markdown: bool) -> str:
    """Qt strings hold no lone surrogates: they arrive as U+FFFD; and CommonMark replaces
    U+0000 with U+FFFD in Markdown text (markdown-it does, as the spec requires), while raw
    text shown as it is keeps it."""
    text = _SURROGATE.sub("\ufffd", text)
    if markdown:
        text = text.replace("\x00", "\ufffd")
    return " ".join(show_controls(text).split())


def _visible(blocks: list[dict[str, Any]]) -> str:
    html = "".join(f"{b['title_html']}{b['html']}" for b in blocks)
    previews = "".join(str(b["preview"]) for b in blocks)
    return unescape(re.sub(r"<[^>]+>", "", html)) + previews


def _check_row(model: TranscriptModel, row: int) -> None:
    """The oracle: what a row shows holds the message's plain words and no live markup."""
    blocks = model.index(row).data(MessageRole.BLOCKS)
    message = model.message(row)
    assert message is not None
    assert live_markup("".join(str(b["html"]) for b in blocks)) == []
    shown = " ".join(_visible(blocks).split())
    for part in message.parts:
        if isinstance(part, TextPart) and not _MARKUP.search(part.text):
            words = _as_qt_shows(part.text, markdown=True)
            if "Shown in part" in shown:  # a run with nowhere to wrap: its first 4,000 shown
                words = words[:1_000]
            assert words in shown, (words, shown[:300])
        if isinstance(part, UnsupportedPart) and part.raw_text:
            raw = _as_qt_shows(part.raw_text[:1000], markdown=False)
            assert raw[:200] in shown, (raw[:200], shown[:300])


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    # No explain phase: tracing every line of a Qt round trip took minutes on a failure.
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
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
                    # Text as SQLite stores it; no content as a BLOB, which reads as none
                    row[CONTENT_UTF8].decode("utf-8", "replace")
                    if row[CONTENT_UTF8] is not None
                    else b"[]",
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
            for number in range(model.rowCount()):
                _check_row(model, number)
        finally:
            source.close()
