"""Gander reads, renames and archives while a goose-like process writes every few ms. The writer
writes a number of rows, not for a time, and the test counts them: a loaded machine makes it
longer, never red (issue #18, item 16)."""

import json
import random
import sqlite3
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from desktop_app.domain.reading import iter_sessions
from desktop_app.domain.source import ArchivedFilter, SessionQuery
from desktop_app.sources.goose import GooseSource
from desktop_app.sources.registry import open_history
from tests.fixtures.goose_db import GooseDb
from tests.fixtures.reading import all_messages, last_messages

ROOT = Path(__file__).resolve().parents[2]
ROWS = 250
ROUNDS = 20
"""Gander's rounds at the least; it goes on while the writer writes."""


def test_nothing_lost_on_either_side(make_db: Callable[..., GooseDb]) -> None:
    db = make_db()
    for i in range(20):
        db.add_session(f"s{i:02d}", name=f"start {i}")
        for j in range(5):
            db.add_message(f"s{i:02d}", content=f"seed {i}.{j}", created=1767323045 + j)
    db.close()
    written = db.path.parent / "writer.json"
    writer = subprocess.Popen(
        [sys.executable, "-m", "tests.fixtures.goose_writer", str(db.path), str(ROWS), written],
        cwd=ROOT,
    )
    source = GooseSource(db.path)
    rng = random.Random(3)
    expected_names: dict[str, str] = {}
    expected_archived: dict[str, bool] = {}
    operations = 0
    try:
        while (writer.poll() is None or operations < ROUNDS) and operations < 100_000:
            query = SessionQuery(archived=ArchivedFilter.INCLUDE)
            listed = list(iter_sessions(source, query, None))
            assert len(listed) >= 20
            target = f"s{rng.randrange(20):02d}"
            last_messages(source, target, 50)
            name = f"renamed {operations}"
            source.rename(target, name)
            expected_names[target] = name
            victim = f"s{rng.randrange(20):02d}"
            if rng.random() < 0.5:
                source.archive(victim)
                expected_archived[victim] = True
            else:
                source.unarchive(victim)
                expected_archived[victim] = False
            operations += 1
        writer.wait(timeout=120)
        summary = json.loads(written.read_text(encoding="utf-8"))
        listed = list(iter_sessions(source, SessionQuery(archived=ArchivedFilter.INCLUDE), None))
        read = Counter(
            message.message_id
            for session in listed
            for message in all_messages(source, session.id)
            if message.message_id is not None and message.message_id.startswith("msg_")
        )
    finally:
        if writer.poll() is None:
            writer.kill()
        source.close()
    assert writer.returncode == 0
    assert operations >= ROUNDS
    assert summary["inserted"] == ROWS
    assert read == Counter(summary["written"])  # every row Gander reads, once

    conn = sqlite3.connect(db.path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert (
            conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == 100 + summary["inserted"]
        )
        stored = Counter(
            row[0]
            for row in conn.execute("SELECT message_id FROM messages WHERE message_id LIKE 'msg_%'")
        )
        assert stored == Counter(summary["written"])
        assert len(stored) == ROWS
        ids = {row[0] for row in conn.execute("SELECT id FROM sessions")}
        assert set(summary["created"]) <= ids
        for sid, name in expected_names.items():
            row = conn.execute(
                "SELECT name, user_set_name FROM sessions WHERE id = ?", (sid,)
            ).fetchone()
            assert row == (name, 1)
        for sid, archived in expected_archived.items():
            value = conn.execute(
                "SELECT archived_at FROM sessions WHERE id = ?", (sid,)
            ).fetchone()[0]
            assert (value is not None) == archived
        tokens = conn.execute("SELECT SUM(accumulated_input_tokens) FROM sessions").fetchone()[0]
        assert tokens == 10 * summary["inserted"]
    finally:
        conn.close()


APPEND_ONE = """
import sqlite3, sys, json
conn = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)
conn.execute(
    "INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json)"
    " VALUES ('s', 'assistant', ?, 1767400000, '{}')",
    (json.dumps([{"type": "text", "text": "appended"}]),),
)
conn.close()
"""


def test_opening_the_same_database_again_keeps_the_first_reader_live(tmp_path: Path) -> None:
    """Closing any descriptor of a file drops every POSIX lock the process holds on it; a
    second opening that read the header with Python's `open` let goose's next close remove the
    WAL under the first reader, which then saw a stale database."""
    path = tmp_path / "sessions.db"
    writer = GooseDb(path)
    writer.add_session("s", name="s")
    writer.add_message("s", content="first")
    writer.close()
    first = GooseSource(path)
    seen = [first.change_token()]
    for _ in range(3):
        again = open_history(path)  # a second window on the same file
        subprocess.run([sys.executable, "-c", APPEND_ONE, str(path)], check=True)
        seen.append(first.change_token())
        again.close()
    assert len(set(seen)) == 4, seen
    assert len(all_messages(first, "s")) == 4
    first.close()
