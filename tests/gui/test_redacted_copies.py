"""Edit ▸ Remove secrets from copies redacts as `gander show --redact` does (issue #18, item 2):
a tool call's Copy and Save all take the redacted JSON value, structural rules included, not
only the text rules applied to the value written out."""

import json
from pathlib import Path
from typing import Any

from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot

from desktop_app.cli import main
from desktop_app.rendering.redact import redact_json
from desktop_app.rendering.transcript_blocks import MessageRenderer
from desktop_app.sources.goose import GooseSource
from desktop_app.ui.models.transcript import TranscriptModel
from desktop_app.ui.roles import MessageRole
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.widgets.transcript_view import TranscriptActions
from tests.fixtures.goose_db import GooseDb

ARGUMENTS = {
    "command": "PGPASSWORD=Pg3nvS3cr3t psql -h db -c 'select 1'",
    "env": [["DB_PASSWORD", "P41rL1stPw"], ["Authorization", "Token tok3nP41rV4lu3"]],
    "variables": [{"name": "SMTP_PASSWORD", "value": "it's N4m3d"}],
    "config": {"db_password": 966471357, "api_key": "a key, 1 of 2"},
}
SECRETS = ["Pg3nvS3cr3t", "P41rL1stPw", "tok3nP41rV4lu3", "N4m3d", "966471357", "1 of 2"]


def _model(make_db: Any, tasks: TaskRunner, qtbot: QtBot) -> tuple[GooseDb, TranscriptModel]:
    db: GooseDb = make_db()
    db.add_session("s", name="Deploy")
    call = {"status": "success", "value": {"name": "developer__shell", "arguments": ARGUMENTS}}
    db.add_message(
        "s", "assistant", content=[{"type": "toolRequest", "id": "t1", "toolCall": call}]
    )
    model = TranscriptModel(GooseSource(db.path), tasks, MessageRenderer())
    with qtbot.waitSignal(model.opened, timeout=5000):
        model.open_session("s")
    model.index(0).data(MessageRole.BLOCKS)
    qtbot.waitUntil(lambda: model.rendered_count == 1, timeout=10_000)
    return db, model


def test_copies_of_a_tool_call_are_redacted_as_the_export_is(
    make_db: Any, tasks: TaskRunner, qtbot: QtBot, tmp_path: Path
) -> None:
    db, model = _model(make_db, tasks, qtbot)
    actions = TranscriptActions(model, None)  # type: ignore[arg-type]
    actions.linkActivated(0, 0, "gander-copy:0")
    assert all(secret in QGuiApplication.clipboard().text() for secret in SECRETS)

    actions.redact_copies = True
    actions.linkActivated(0, 0, "gander-copy:0")
    copied = QGuiApplication.clipboard().text()
    assert [secret for secret in SECRETS if secret in copied] == []
    assert json.loads(copied) == redact_json(ARGUMENTS)
    with qtbot.waitSignal(actions.saved, timeout=10_000):
        actions.save_text(0, 0, 0, str(tmp_path / "all.txt"))
    assert (tmp_path / "all.txt").read_text() == copied
    for whole in (actions.markdown(0) or "", actions.plain_text(0) or ""):
        assert [secret for secret in SECRETS if secret in whole] == []

    export = tmp_path / "s.json"
    assert main(["show", "s", "--db", str(db.path), "--format", "json", "--redact"]) == 0
    assert main(["show", "s", "--db", str(db.path), "--redact", "-o", str(export)]) == 0
    assert [secret for secret in SECRETS if secret in export.read_text()] == []
