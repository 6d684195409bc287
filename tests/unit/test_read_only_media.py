"""A history on read-only media (a backup disk, a read-only bind mount): every command reads it
or says in one sentence why not; no file-system error escapes as a traceback (issue #8,
point 11)."""

import os
import shutil
from pathlib import Path

import pytest

from tests.fixtures.goose_db import GooseDb
from tests.fixtures.mounts import in_mount_namespace

COMMANDS = (
    "list",
    "list --json",
    "show s1",
    "show s1 --format html",
    "search hello",
    "rename s1 new",
    "archive s1",
)


def _history(folder: Path, *, pending_wal: bool) -> Path:
    folder.mkdir()
    db = GooseDb(folder / "sessions.db")
    db.conn.execute("PRAGMA journal_mode=WAL")
    db.add_session("s1", name="one")
    db.add_message("s1", content="hello from a backup")
    if pending_wal:
        db.conn.execute("PRAGMA wal_autocheckpoint=0")
        db.add_message("s1", content="still only in the wal")
        shutil.copy(db.path, folder / "copy.db")
        shutil.copy(f"{db.path}-wal", folder / "copy.db-wal")
        db.close()
        os.replace(folder / "copy.db", db.path)
        os.replace(folder / "copy.db-wal", f"{db.path}-wal")
        Path(f"{db.path}-shm").unlink(missing_ok=True)
        return db.path
    db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return db.path


def _run_read_only(folder: Path, tmp_path: Path, commands: tuple[str, ...]) -> list[str]:
    """Each command's exit code and stderr, with `folder` mounted read-only."""
    lines = [f"mount --bind {folder} {folder}", f"mount -o remount,bind,ro {folder}"]
    for number, command in enumerate(commands):
        out = tmp_path / f"out{number}"
        lines.append(
            f"$GANDER {command} --db {folder}/sessions.db > {out}.stdout 2> {out}.stderr"
            f" && echo 0 > {out}.code || echo $? > {out}.code"
        )
    result = in_mount_namespace("\n".join(lines), {"XDG_DATA_HOME": str(tmp_path / "data")})
    assert result.returncode == 0, result.stderr
    return [
        f"{(tmp_path / f'out{n}.code').read_text().strip()} "
        f"{(tmp_path / f'out{n}.stderr').read_text()}"
        for n in range(len(commands))
    ]


def test_history_on_read_only_media_is_read(tmp_path: Path) -> None:
    folder = tmp_path / "backup"
    path = _history(folder, pending_wal=False)
    before = sorted(p.name for p in folder.iterdir())
    results = _run_read_only(folder, tmp_path, COMMANDS)
    assert results[:4] == ["0 "] * 4
    assert results[4].startswith("0 gander: 1 matching message in 1 session")
    assert "hello from a backup" in (tmp_path / "out2.stdout").read_text()
    refusal = f"gander: {path.name} is read-only, so sessions cannot be renamed or archived.\n"
    assert results[5:] == [f"1 {refusal}"] * 2
    assert sorted(p.name for p in folder.iterdir()) == before


def test_read_only_media_with_changes_left_in_the_wal_says_why_in_one_sentence(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "backup"
    path = _history(folder, pending_wal=True)
    results = _run_read_only(folder, tmp_path, COMMANDS)
    sentence = (
        f"gander: {path} is on a read-only file system and its latest changes are still in "
        "sessions.db-wal, which SQLite can only read where it may write; copy both files to a "
        "writable folder to open them.\n"
    )
    assert results == [f"1 {sentence}"] * len(COMMANDS)


@pytest.mark.parametrize(
    "content", [b"", b"SQLite format 3\x00" + b"\x00" * 100], ids=["empty", "a bare header"]
)
def test_bad_file_on_read_only_media_gets_one_sentence(tmp_path: Path, content: bytes) -> None:
    """The clean-up of SQLite's companions after a refused file used to raise EROFS."""
    folder = tmp_path / "backup"
    folder.mkdir()
    (folder / "sessions.db").write_bytes(content)
    results = _run_read_only(folder, tmp_path, ("list", "show s1"))
    for result in results:
        code, message = result.split(" ", 1)
        assert code == "1"
        assert message.startswith("gander: ")
        assert message.count("\n") == 1
        assert "Traceback" not in message
