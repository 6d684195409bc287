"""What goose writes while the window is open shows up within two seconds."""

import subprocess
import sys
import time
from argparse import Namespace
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from desktop_app.app import build_window
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from tests.fixtures.goose_db import GooseDb

GOOSE_APPENDS = """
import sqlite3, sys, json
conn = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)
for i in range(3):
    conn.execute("BEGIN IMMEDIATE")
    conn.execute(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json)"
        " VALUES ('open', 'assistant', ?, 1767400000 + ?, '{\\"userVisible\\":true}')",
        (json.dumps([{"type": "text", "text": f"live {i}"}]), i),
    )
    conn.execute("UPDATE sessions SET updated_at = datetime('now') WHERE id = 'open'")
    conn.execute("COMMIT")
conn.execute("BEGIN IMMEDIATE")
conn.execute(
    "INSERT INTO sessions (id, name, working_dir) VALUES ('brand_new', 'By goose', '/w')"
)
conn.execute(
    "INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES"
    " ('brand_new', 'user', '[{\\"type\\":\\"text\\",\\"text\\":\\"hi\\"}]', 1767500000)"
)
conn.execute("COMMIT")
"""


def test_new_messages_and_sessions_appear_within_two_seconds(
    make_db: Callable[..., GooseDb], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    db = make_db()
    db.add_session("older", name="Older")
    db.add_message("older", content="old", created=1767000000)
    db.add_session("open", name="Open")
    for i in range(5):
        db.add_message("open", content=f"m{i}", created=1767300000 + i)
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    window = build_window(
        Namespace(db=db.path, demo=False, session=None), tmp_path / "data", settings, tasks
    )
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.transcript.rowCount() == 5, timeout=10_000)
    assert window.transcript.session_id == "open"
    qtbot.wait(1200)  # the watcher takes its first reading

    subprocess.run([sys.executable, "-c", GOOSE_APPENDS, str(db.path)], check=True, timeout=30)
    written = time.monotonic()
    qtbot.waitUntil(lambda: window.transcript.rowCount() == 8, timeout=4000)
    qtbot.waitUntil(lambda: window.sessions.find_session("brand_new").isValid(), timeout=4000)
    assert time.monotonic() - written <= 2.0
    assert window.transcript.session_id == "open"
    assert window.session_list.currentIndex() == window.sessions.find_session("open")
    window.close()
