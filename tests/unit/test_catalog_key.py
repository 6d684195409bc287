"""A file rewritten with its size and modification time kept (`cp -p`, `rsync -t`, `touch -d`)
is noticed (issue #18, item 11): by the running window's scan, by the next opening's catalog
and by the search index (which reads it whole again, not only its last messages). The
catalog's key holds the inode and the change time, and an entry of the catalog file is
trusted only when the file's first and last blocks are those summarised — which is what
notices it where the change time says nothing. On a log Claude Code 1.0.128 wrote
(tests/fixtures/agents/claude_code/written)."""

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from desktop_app.domain.reading import EVERY_SESSION, iter_messages, iter_sessions
from desktop_app.search.index import open_index
from desktop_app.sources.claude_code.format import FORMAT as CLAUDE_CODE
from desktop_app.sources.files import history
from desktop_app.sources.files.history import FileHistory, Stamp

GENUINE = (
    Path(__file__).parents[1]
    / "fixtures/agents/claude_code/written/1.0.128/-tmp-ccrun-v10128-payments-api"
)
SESSION = "8a6a6fac-acd0-4652-bce8-5020afab80f8"
OLD, NEW = b"webhook", b"payment"  # in the first prompt, which is the title; once in the file


def _copy(tmp_path: Path) -> tuple[Path, Path]:
    folder = tmp_path / "project"
    shutil.copytree(GENUINE, folder)
    log = folder / f"{SESSION}.jsonl"
    assert log.read_bytes().count(OLD) == 1
    return folder, log


def _in_place(log: Path, data: bytes) -> None:
    with log.open("r+b") as handle:
        handle.write(data)


def _replaced(log: Path, data: bytes) -> None:
    temporary = log.with_name("new.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, log)


def _rewrite_keeping_size_and_time(log: Path, write: Callable[[Path, bytes], None]) -> None:
    before = log.stat()
    write(log, log.read_bytes().replace(OLD, NEW))
    os.utime(log, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = log.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def _title(source: FileHistory) -> str:
    (session,) = [s for s in iter_sessions(source, EVERY_SESSION) if s.id == SESSION]
    return session.name


def _said(source: FileHistory) -> str:
    return repr([m.parts for m in iter_messages(source, SESSION)])


def _open(folder: Path, cache: Path) -> FileHistory:
    return FileHistory(folder, [CLAUDE_CODE], cache_dir=cache)


@pytest.mark.parametrize("write", [_in_place, _replaced], ids=["in-place", "os.replace"])
def test_a_rewrite_keeping_size_and_time_is_listed_anew(
    tmp_path: Path, write: Callable[[Path, bytes], None]
) -> None:
    folder, log = _copy(tmp_path)
    source = _open(folder, tmp_path / "cache")
    assert OLD.decode() in _title(source)
    assert OLD.decode() in _said(source)  # parsed, kept and followed
    token = source.change_token()
    _rewrite_keeping_size_and_time(log, write)
    assert source.change_token() != token  # what the window's change poll runs on
    assert NEW.decode() in _title(source)
    assert OLD.decode() not in _said(source)
    assert NEW.decode() in _said(source)


@pytest.mark.parametrize("write", [_in_place, _replaced], ids=["in-place", "os.replace"])
def test_the_next_opening_does_not_trust_the_catalog_for_a_rewritten_file(
    tmp_path: Path, write: Callable[[Path, bytes], None]
) -> None:
    folder, log = _copy(tmp_path)
    assert OLD.decode() in _title(_open(folder, tmp_path / "cache"))  # the catalog written
    _rewrite_keeping_size_and_time(log, write)
    again = _open(folder, tmp_path / "cache")
    assert NEW.decode() in _title(again)
    assert NEW.decode() in _said(again)


def test_where_the_change_time_says_nothing_the_blocks_notice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file system that keeps no change time and no stable inode (some network and FAT
    mounts): the catalog file's entry and a parse kept are checked by the file's first and
    last blocks."""

    def without_ctime(info: os.stat_result) -> Stamp:
        return Stamp(info.st_size, info.st_mtime_ns, 0, 0)

    monkeypatch.setattr(history, "stamp_of", without_ctime)
    folder, log = _copy(tmp_path)
    source = _open(folder, tmp_path / "cache")
    assert OLD.decode() in _said(source)
    _rewrite_keeping_size_and_time(log, _in_place)
    assert NEW.decode() in _title(_open(folder, tmp_path / "cache"))  # the next opening
    assert NEW.decode() in _said(source)  # the running one, when the session is read
    assert NEW.decode() in _title(source)


def test_the_index_reads_a_rewritten_file_whole(tmp_path: Path) -> None:
    """The rewritten prompt is the first of the session's 17 messages: not among the last
    ones the index reads again when a session is appended to."""
    folder, log = _copy(tmp_path)
    source = _open(folder, tmp_path / "cache")
    index = open_index(tmp_path / "data", source)
    index.update()
    assert [hit.session_id for hit in index.search(OLD.decode()).hits] == [SESSION]
    _rewrite_keeping_size_and_time(log, _in_place)
    index.update()
    assert not index.search(OLD.decode()).hits
    assert [hit.session_id for hit in index.search(f'"{NEW.decode()} handlers"').hits] == [SESSION]
    index.close()
    source.close()


class _ListedAsOnWindows:
    """A folder entry whose `stat` gives inode 0, as `os.DirEntry.stat` does on Windows."""

    def __init__(self, entry: os.DirEntry[str] | Path) -> None:
        self._entry = entry

    def stat(self) -> os.stat_result:
        info = self._entry.stat()
        return os.stat_result(
            (info[0], 0, *info[2:10]),
            {"st_mtime_ns": info.st_mtime_ns, "st_ctime_ns": info.st_ctime_ns},
        )


def test_where_the_listing_gives_no_inode_a_read_does_not_scan_the_folder_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Windows: the stamp keeps no inode, so the listing's and a file's own `stat` agree and
    each page of a read does not scan the whole folder again (it did with the inode kept)."""
    plain_walk = history.walk_files
    scans: list[int] = []

    def walk_files(*args: Any) -> list[tuple[str, Any]]:
        scans.append(1)
        return [(name, _ListedAsOnWindows(entry)) for name, entry in plain_walk(*args)]

    monkeypatch.setattr(history, "walk_files", walk_files)
    monkeypatch.setattr(history, "INODES", False)  # as on Windows
    folder, _ = _copy(tmp_path)
    source = _open(folder, tmp_path / "cache")
    positions = source.positions(SESSION)
    scans.clear()
    for index in range(len(positions)):
        source.messages_between(SESSION, positions[index], positions[index])
    assert len(scans) <= 1  # the listing's scan reused for a second, never one a page
