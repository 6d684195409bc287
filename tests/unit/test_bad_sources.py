"""The bad-input matrix (issue #5, point 1): every bad source, for every subcommand and the
window, gets one sentence on stderr, a non-zero exit, no traceback, and nothing written."""

import hashlib
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop_app.cli import main
from desktop_app.domain.errors import GanderError
from desktop_app.domain.source import SessionQuery
from desktop_app.domain.text import part_texts
from desktop_app.sources.goose import GooseSource
from tests.fixtures.goose_db import GooseDb
from tests.fixtures.processes import run_gander
from tests.fixtures.reading import all_messages

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = [
    ["list"],
    ["list", "--json"],
    ["show", "s1"],
    ["show", "s1", "--format", "html"],
    ["search", "hello"],
    ["rename", "s1", "new"],
    ["archive", "s1"],
    ["unarchive", "s1"],
]


def _good(tmp: Path) -> Path:
    db = GooseDb(tmp / "good.db")
    db.add_session("s1", name="one")
    db.add_message("s1", content="hello there")
    db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return tmp / "good.db"


def _truncated(tmp: Path) -> Path:
    data = _good(tmp).read_bytes()
    path = tmp / "truncated.db"
    path.write_bytes(data[: len(data) // 3])
    return path


def _foreign(tmp: Path) -> Path:
    path = tmp / "foreign.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    conn.commit()
    conn.close()
    return path


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


BAD: dict[str, Callable[[Path], Path]] = {
    "missing": lambda tmp: tmp / "missing.db",
    "directory": lambda tmp: tmp,
    "empty": lambda tmp: _write(tmp / "empty.db", b""),
    "random bytes": lambda tmp: _write(tmp / "random.db", os.urandom(8192)),
    "truncated sqlite": _truncated,
    "not goose's sqlite": _foreign,
}


def hashes(folder: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.iterdir())
        if p.is_file()
    }


@pytest.mark.parametrize("kind", sorted(BAD))
@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_bad_source_matrix(
    kind: str, command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "files"
    folder.mkdir()
    path = BAD[kind](folder)
    before = hashes(folder)
    code = main([*command, "--db", str(path)])
    captured = capsys.readouterr()
    assert code == 1
    assert captured.out == ""
    assert captured.err.startswith("gander: ")
    assert captured.err.count("\n") == 1, captured.err
    assert "Traceback" not in captured.err
    assert hashes(folder) == before


@pytest.mark.parametrize("kind", ["missing", "random bytes", "not goose's sqlite"])
def test_window_on_a_bad_source_says_so_and_exits_1(kind: str, tmp_path: Path) -> None:
    folder = tmp_path / "files"
    folder.mkdir()
    path = BAD[kind](folder)
    before = hashes(folder)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "desktop_app",
            "--db",
            str(path),
            "--screenshot",
            str(tmp_path / "s.png"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert result.returncode == 1
    assert result.stderr.startswith("gander: ")
    assert result.stderr.count("\n") == 1
    assert not (tmp_path / "s.png").exists()
    assert hashes(folder) == before


LOCKER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA locking_mode=EXCLUSIVE")
conn.execute("BEGIN EXCLUSIVE")
conn.execute("UPDATE sessions SET description = description")
conn.execute("COMMIT")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
"""


def test_exclusively_locked_database_waits_then_says_so(tmp_path: Path) -> None:
    """It gives up while the lock is still held (the locker would hold it 30 s), after waiting
    at least the `--wait` it promises: a one-sided bound, which a loaded machine cannot break."""
    path = _good(tmp_path)
    locker = subprocess.Popen(
        [sys.executable, "-c", LOCKER, str(path), "30"], stdout=subprocess.PIPE, text=True
    )
    assert locker.stdout is not None
    assert locker.stdout.readline().strip() == "locked"
    started = time.monotonic()
    result = run_gander("list", "--db", str(path), "--wait", "1", timeout=60)
    waited = time.monotonic() - started
    still_locked = locker.poll() is None
    locker.kill()
    locker.wait()
    locker.stdout.close()
    assert result.returncode == 1
    assert result.stderr == f"gander: {path} is locked by another program; try again in a moment.\n"
    assert still_locked
    assert waited >= 1.0


def test_file_deleted_or_replaced_while_open_never_crashes(
    tmp_path: Path, make_db: Callable[..., GooseDb]
) -> None:
    """What the user sees, exactly: either the history as it was (SQLite still holds the
    deleted file open) or one sentence naming the file — never other data, never a crash."""
    path = _good(tmp_path)
    source = GooseSource(path, busy_timeout_s=1)
    sentences = (
        f"{path} disappeared while Gander was reading it.",
        f"{path} changed into something that is not goose's database",
        f"{path} cannot be opened",
        f"{path} could not be read",
        f"{path} is damaged",
    )

    def seen(action: Callable[[], object]) -> object:
        try:
            return action()
        except GanderError as error:
            said = str(error)
        assert said.startswith(sentences), said
        assert "\n" not in said
        return "sentence"

    def listed() -> object:
        return [s.id for s in source.list_sessions(SessionQuery()).sessions]

    def texts() -> object:
        return [t for m in all_messages(source, "s1") for t in part_texts(m.parts[0])]

    def positions() -> object:
        return [c.row_id for c in source.positions("s1")]

    def name() -> object:
        return source.get_session("s1").name

    try:
        before = {listed: ["s1"], texts: ["hello there"], positions: [1], name: "one"}
        assert {action: action() for action in before} == before
        path.unlink()
        for action in (listed, texts, positions):
            assert seen(action) in (before[action], "sentence")
        _foreign(tmp_path).rename(path)
        for action in (listed, name):
            assert seen(action) in (before[action], "sentence")
    finally:
        source.close()
