"""`gander show -o`: an export can never harm goose's file or Gander's own, and a failed export
leaves nothing half-written (issue #8, point 1)."""

import hashlib
import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop_app.cli import main
from desktop_app.files.places import data_dir, settings_file
from desktop_app.search.index import index_path
from tests.fixtures.goose_db import GooseDb
from tests.fixtures.mounts import in_mount_namespace

DbFactory = Callable[..., GooseDb]
REFUSED = "is the history Gander is reading or one of Gander's own files; nothing was written."


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def files_of(folder: Path) -> dict[str, str]:
    """Every file's hash but `-shm`, SQLite's shared memory, which every reader writes to."""
    return {
        p.name: digest(p)
        for p in sorted(folder.iterdir())
        if p.is_file() and not p.name.endswith("-shm")
    }


@pytest.fixture
def wal_db(make_db: DbFactory) -> GooseDb:
    """A goose database in WAL mode with an open writer, so `-wal` and `-shm` exist."""
    db = make_db()
    db.conn.execute("PRAGMA journal_mode=WAL")
    db.add_session("s1", name="one")
    db.add_message("s1", content="hello " * 2000)
    return db


def export(db: GooseDb, target: Path | str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["show", "s1", "--db", str(db.path), "-o", str(target)])
    return code, capsys.readouterr().err


def targets(db: GooseDb, tmp_path: Path) -> dict[str, Path]:
    """Every way to name the history or one of its companions."""
    folder = db.path.parent
    (tmp_path / "link-to-db").symlink_to(db.path)
    (tmp_path / "link-to-wal").symlink_to(f"{db.path}-wal")
    (tmp_path / "link-to-future-journal").symlink_to(f"{db.path}-journal")
    os.link(db.path, tmp_path / "hard-link")
    (tmp_path / "sub").mkdir()
    return {
        "the file": db.path,
        "its -wal": Path(f"{db.path}-wal"),
        "its -shm": Path(f"{db.path}-shm"),
        "its -journal (not there yet)": Path(f"{db.path}-journal"),
        "through ..": folder / "sub" / ".." / db.path.name,
        "a symlink to it": tmp_path / "link-to-db",
        "a symlink to its -wal": tmp_path / "link-to-wal",
        "a dangling symlink to its -journal": tmp_path / "link-to-future-journal",
        "a hard link to it": tmp_path / "hard-link",
    }


def test_every_name_of_the_history_is_refused_before_anything_is_written(
    wal_db: GooseDb, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for label, target in targets(wal_db, tmp_path).items():
        before = files_of(wal_db.path.parent)
        code, err = export(wal_db, target, capsys)
        assert code == 1, label
        assert REFUSED in err, label
        assert err.count("\n") == 1, label
        assert files_of(wal_db.path.parent) == before, label
    wal_db.add_message("s1", content="goose still works")
    assert wal_db.execute("PRAGMA integrity_check") == [("ok",)]
    assert wal_db.execute("SELECT COUNT(*) FROM messages") == [(2,)]


def test_gander_own_files_are_refused(wal_db: GooseDb, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "hello", "--db", str(wal_db.path)]) == 0
    index = index_path(data_dir(), str(wal_db.path))
    settings = settings_file()
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text("[browse]\nlast_session=s1\n")
    capsys.readouterr()
    for target in (index, Path(f"{index}-wal"), settings, data_dir() / "anything.md"):
        before = digest(target) if target.exists() else None
        code, err = export(wal_db, target, capsys)
        assert (code, REFUSED in err) == (1, True), target
        assert (digest(target) if target.exists() else None) == before


def test_export_replaces_a_file_whole_and_keeps_its_permissions(
    wal_db: GooseDb, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "out.md"
    target.write_text("old export")
    target.chmod(0o640)
    code, err = export(wal_db, target, capsys)
    assert (code, err) == (0, "")
    assert target.read_text().startswith("# one")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".out")) == []


@pytest.mark.parametrize(
    ("make_target", "sentence"),
    [
        (lambda tmp: tmp, "is a folder; name a file to write the export to."),
        (lambda tmp: tmp / "no" / "such" / "x.md", "does not exist;"),
    ],
    ids=["a folder", "a missing folder"],
)
def test_bad_targets_get_one_sentence(
    wal_db: GooseDb,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    make_target: Callable[[Path], Path],
    sentence: str,
) -> None:
    code, err = export(wal_db, make_target(tmp_path), capsys)
    assert code == 1
    assert sentence in err
    assert err.startswith("gander: ")
    assert err.count("\n") == 1


def test_unwritable_folder_gets_one_sentence(
    wal_db: GooseDb, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):
            # root ignores permission bits; a read-only mount is tested below instead.
            pytest.skip("permission bits do not stop this user")
        code, err = export(wal_db, locked / "x.md", capsys)
    finally:
        locked.chmod(0o700)
    assert code == 1
    assert err == f"gander: {locked / 'x.md'} cannot be written: permission denied.\n"


def test_full_disk_and_read_only_target_leave_the_old_file_and_no_part_file(
    wal_db: GooseDb, tmp_path: Path
) -> None:
    """A 64 kB tmpfs fills up half-way through a 100 kB export; a read-only bind mount refuses."""
    full = tmp_path / "full"
    readonly = tmp_path / "readonly"
    full.mkdir()
    readonly.mkdir()
    wal_db.add_message("s1", content="x" * 100_000)
    wal_db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    script = f"""
mount -t tmpfs -o size=64k tmpfs {full}
echo old > {full}/out.md
$GANDER show s1 --db {wal_db.path} -o {full}/out.md 2> {full}.err ||
  echo "exit $?" >> {full}.err
cat {full}/out.md > {full}.kept
ls -A {full} > {full}.listing
echo old > {readonly}/out.md
mount --bind {readonly} {readonly}
mount -o remount,bind,ro {readonly}
$GANDER show s1 --db {wal_db.path} -o {readonly}/out.md 2> {readonly}.err ||
  echo "exit $?" >> {readonly}.err
"""
    result = in_mount_namespace(script, {})
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "full.err").read_text() == (
        f"gander: {full}/out.md could not be written: the disk is full. Nothing was written.\n"
        "exit 1\n"
    )
    assert (tmp_path / "full.kept").read_text() == "old\n"
    assert (tmp_path / "full.listing").read_text() == "out.md\n"
    assert (tmp_path / "readonly.err").read_text() == (
        f"gander: {readonly}/out.md cannot be written: it is on a read-only file system.\nexit 1\n"
    )
    assert (readonly / "out.md").read_text() == "old\n"
