"""What goose writes while the window is open shows up within two seconds."""

import functools
import subprocess
import sys
import time
from argparse import Namespace
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from desktop_app.app import build_window
from desktop_app.ui.main_window import MainWindow
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


STARTUP_WRITER = """
import sqlite3, sys, json, time, random
random.seed(int(sys.argv[2]))
conn = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)
started = time.monotonic()
for i in range(int(sys.argv[3])):
    time.sleep(random.uniform(0.0, 0.5))
    conn.execute("BEGIN IMMEDIATE")
    conn.execute(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json)"
        " VALUES ('open', 'assistant', ?, 1767400000 + ?, '{\\"userVisible\\":true}')",
        (json.dumps([{"type": "text", "text": f"startup {i}"}]), i),
    )
    conn.execute("UPDATE sessions SET updated_at = datetime('now') WHERE id = 'open'")
    conn.execute("COMMIT")
"""


def _rows_are(window: MainWindow, count: int) -> bool:
    return window.transcript.rowCount() == count


def test_messages_written_while_the_window_starts_all_appear(
    make_db: Callable[..., GooseDb], tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """A message appended in the second after the window has loaded used to stay unseen until
    goose wrote again: the watcher's first reading already included it. Writers here append at
    random moments from before the window is built until after it has loaded."""
    db = make_db()
    db.add_session("open", name="Open")
    for i in range(3):
        db.add_message("open", content=f"m{i}", created=1767300000 + i)
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    for seed in range(3):
        writer = subprocess.Popen(
            [sys.executable, "-c", STARTUP_WRITER, str(db.path), str(seed), "4"]
        )
        window = build_window(
            Namespace(db=db.path, demo=False, session="open"), tmp_path / "data", settings, tasks
        )
        qtbot.addWidget(window)
        window.show()
        assert writer.wait(timeout=30) == 0
        finished = time.monotonic()
        expected = 3 + 4 * (seed + 1)
        qtbot.waitUntil(functools.partial(_rows_are, window, expected), timeout=4000)
        assert time.monotonic() - finished <= 2.5
        qtbot.wait(1200)  # nothing more arrives, nothing is lost
        assert window.transcript.rowCount() == expected
        window.close()
