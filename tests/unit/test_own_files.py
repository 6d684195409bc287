"""Gander's own files survive a `kill -9` in the middle of a write (issue #5, point 5)."""

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from desktop_app.search.index import SearchIndex
from desktop_app.sources.goose import GooseSource
from tests.fixtures.goose_db import GooseDb

ROOT = Path(__file__).resolve().parents[2]

BUILD_FOREVER = """
import sys
from pathlib import Path
from desktop_app.sources.goose import GooseSource
from desktop_app.search.index import SearchIndex
source = GooseSource(Path(sys.argv[1]))
index = SearchIndex(Path(sys.argv[2]), source)
print("building", flush=True)
while True:
    index.update()
    index.close()
    Path(sys.argv[2]).unlink()
    index = SearchIndex(Path(sys.argv[2]), source)
"""


def test_index_killed_mid_build_recovers(make_db: Callable[..., GooseDb], tmp_path: Path) -> None:
    db = make_db()
    db.add_session("s", name="s")
    db.conn.execute("BEGIN")
    db.conn.executemany(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES (?,?,?,?)",
        [
            ("s", "user", f'[{{"type":"text","text":"word{i % 7} common uniq{i}"}}]', i)
            for i in range(30_000)
        ],
    )
    db.conn.execute("COMMIT")
    index_file = tmp_path / "index.sqlite"
    for delay in (0.3, 0.8, 1.5):
        builder = subprocess.Popen(
            [sys.executable, "-c", BUILD_FOREVER, str(db.path), str(index_file)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert builder.stdout is not None
        assert builder.stdout.readline().strip() == "building"
        time.sleep(delay)
        os.kill(builder.pid, signal.SIGKILL)
        builder.wait()
        builder.stdout.close()
        source = GooseSource(db.path)
        index = SearchIndex(index_file, source)
        index.update()
        for unique in ("uniq0", "uniq12345", "uniq29999"):
            assert index.search(unique).total_hits == 1
        assert index.search("common").capped
        assert index.search("word3 uniq10").total_hits == 1
        index.close()
        source.close()


SETTINGS_FOREVER = """
import sys
from PySide6.QtCore import QByteArray, QSettings
from desktop_app.ui.settings import Settings
settings = Settings(QSettings(sys.argv[1], QSettings.Format.IniFormat))
print("writing", flush=True)
i = 0
while True:
    settings.window_geometry = QByteArray(b"x" * (i % 5000))
    settings.remember_file(f"/tmp/db{i}.db")
    settings.last_session_id = f"session {i}"
    settings.sync()
    i += 1
"""


def test_settings_killed_mid_write_or_garbled_still_load(tmp_path: Path, qapp: object) -> None:
    from PySide6.QtCore import QSettings

    from desktop_app.ui.settings import Settings

    del qapp
    path = tmp_path / "gander.ini"
    writer = subprocess.Popen(
        [sys.executable, "-c", SETTINGS_FOREVER, str(path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "writing"
    time.sleep(0.7)
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait()
    writer.stdout.close()
    settings = Settings(QSettings(str(path), QSettings.Format.IniFormat))
    assert settings.last_session_id is None or settings.last_session_id.startswith("session ")
    assert isinstance(settings.recent_files, list)
    path.write_bytes(os.urandom(2048) + b"\n[window]\ngeometry=@ByteArray(\x00\x01)\n")
    garbled = Settings(QSettings(str(path), QSettings.Format.IniFormat))
    assert isinstance(garbled.recent_files, list)
    assert garbled.show_hidden in (True, False)
    geometry = garbled.window_geometry
    assert geometry is None or isinstance(geometry, QByteArray)
