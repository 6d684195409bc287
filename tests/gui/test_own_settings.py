"""Settings survive a `kill -9` in the middle of a write, and a garbled file (issue #5)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

from desktop_app.ui.settings import Settings

ROOT = Path(__file__).resolve().parents[2]

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
