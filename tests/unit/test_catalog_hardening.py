"""The catalog of a folder of session files (issue #18, items 5 and 13): a write that fails
leaves nothing behind, a damaged catalog is read past with one sentence and written afresh,
and two files are never listed as one session whatever ids they hold."""

import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop_app.domain.reading import EVERY_SESSION, iter_messages, iter_sessions
from desktop_app.domain.session import Session
from desktop_app.sources.files.history import FileHistory
from desktop_app.sources.goose_export.format import FORMAT as GOOSE_EXPORT
from tests.fixtures import histories
from tests.fixtures.mounts import ROOT, in_mount_namespace


def _exports(folder: Path, ids: dict[str, str]) -> Path:
    """A folder of goose exports: file name → the session id it holds."""
    for name, session_id in ids.items():
        document = histories.goose_export(session_id)
        document["name"] = f"title of {name}"
        histories.write_json(folder / name, document)
    return folder


def _listed(source: FileHistory) -> dict[str, str]:
    """Each listed session's id → its title (whose file it came from)."""
    return {s.id: s.name for s in iter_sessions(source, EVERY_SESSION)}


@pytest.mark.parametrize(
    "ids",
    [
        # the duplicate of `dup` in c.json would be named what b.json's own id is
        {"a.json": "dup", "b.json": "dup (c.json)", "c.json": "dup"},
        # and the name after that, and a real id equal to a numbered one
        {
            "a.json": "x",
            "b.json": "x (d.json)",
            "c.json": "x (d.json) (2)",
            "d.json": "x",
            "e.json": "x",
            "f.json": "x (e.json)",
        },
        # the names a file's stem gives, when the id is absent
        {"a.json": "b", "b.json": "", "c.json": "b (b.json)"},
    ],
)
def test_duplicate_ids_never_merge_two_files(tmp_path: Path, ids: dict[str, str]) -> None:
    folder = _exports(tmp_path / "exports", ids)
    source = FileHistory(folder, [GOOSE_EXPORT], cache_dir=None)
    listed = _listed(source)
    assert sorted(listed.values()) == sorted(f"title of {name}" for name in ids)
    for name, session_id in ids.items():
        if session_id and list(ids.values()).count(session_id) == 1:
            assert listed[session_id] == f"title of {name}"  # a unique real id is kept
    for session_id in listed:
        assert list(iter_messages(source, session_id))


def test_a_codex_id_equal_to_a_duplicates_name_lists_three_rollouts(tmp_path: Path) -> None:
    """The case the issue found: three Codex rollouts, one whose id is the name the duplicate
    of another is given."""
    from desktop_app.sources.codex.format import FORMAT as CODEX

    folder = tmp_path / "sessions"
    day = folder / "2026" / "01" / "01"
    day.mkdir(parents=True)
    for name, session_id in [
        ("rollout-a.jsonl", "dup"),
        ("rollout-b.jsonl", "dup (2026/01/01/rollout-c.jsonl)"),
        ("rollout-c.jsonl", "dup"),
    ]:
        meta = {
            "timestamp": "2026-01-01T10:00:00.000Z",
            "type": "session_meta",
            "payload": {"id": session_id, "timestamp": "2026-01-01T10:00:00.000Z", "cwd": "/p"},
        }
        (day / name).write_text(json.dumps(meta) + "\n", encoding="utf-8")
    source = FileHistory(folder, [CODEX], cache_dir=None)
    assert len(_listed(source)) == 3


# ---- a damaged catalog ----------------------------------------------------------------------

DAMAGE: dict[str, Any] = {
    "name": 5,
    "id": ["a"],
    "working_dir": 7,
    "parent": [1],
    "usage": 7,
    "current_usage": [1, 2],
    "message_count": "3",
    "updated_at": 1e300,
    "last_message_at": "yesterday",
    "cost": "free",
}


def _catalog_file(cache: Path) -> Path:
    (found,) = (cache / "catalog").glob("*.json")
    return found


def _damage(cache: Path, change: Any) -> None:
    path = _catalog_file(cache)
    raw = json.loads(path.read_text(encoding="utf-8"))
    change(raw)
    path.write_text(json.dumps(raw), encoding="utf-8")


def _sessions(source: FileHistory) -> list[Session]:
    return list(iter_sessions(source, EVERY_SESSION))


def _field(field: str, value: Any) -> Any:
    def change(raw: dict[str, Any]) -> None:
        for item in raw["files"].values():
            item["summary"][field] = value

    return change


def _entry(field: str, value: Any) -> Any:
    def change(raw: dict[str, Any]) -> None:
        for item in raw["files"].values():
            item[field] = value

    return change


def _files(value: Any) -> Any:
    def change(raw: dict[str, Any]) -> None:
        raw["files"] = value

    return change


@pytest.mark.parametrize(
    "change",
    [_field(field, value) for field, value in DAMAGE.items()]
    + [
        _entry("size", "12"),
        _entry("mtime_ns", 1.5),
        _entry("summary", [1]),
        _entry("summary", None),
        _files([1, 2]),
        _files({"a.json": 5}),
    ],
)
def test_a_catalog_with_wrong_field_types_is_rebuilt_with_one_sentence(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, change: Any
) -> None:
    folder = _exports(tmp_path / "exports", {"a.json": "s1", "b.json": "s2"})
    (folder / "b.json").touch()
    fresh = _sessions(FileHistory(folder, [GOOSE_EXPORT], cache_dir=None))
    cache = tmp_path / "cache"
    _sessions(FileHistory(folder, [GOOSE_EXPORT], cache_dir=cache))
    _damage(cache, change)
    with caplog.at_level(logging.WARNING):
        assert _sessions(FileHistory(folder, [GOOSE_EXPORT], cache_dir=cache)) == fresh
    assert [r.getMessage() for r in caplog.records] == [
        f"The catalog of {folder} in {_catalog_file(cache)} was damaged, so Gander read the"
        " files again."
    ]
    caplog.clear()
    with caplog.at_level(logging.WARNING):  # written afresh: said once, not at every opening
        assert _sessions(FileHistory(folder, [GOOSE_EXPORT], cache_dir=cache)) == fresh
    assert caplog.records == []


def test_the_cli_says_a_damaged_catalog_in_one_line(tmp_path: Path) -> None:
    folder = _exports(tmp_path / "exports", {"a.json": "s1"})
    env = {"XDG_DATA_HOME": str(tmp_path / "data"), "PATH": "/usr/bin:/bin"}
    command = [sys.executable, "-m", "desktop_app", "list", "--db", str(folder)]
    first = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    _damage(tmp_path / "data" / "gander", _field("usage", 7))
    again = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert (again.returncode, again.stdout) == (0, first.stdout)
    assert again.stderr.count("\n") == 1
    assert again.stderr.startswith(f"The catalog of {folder} in ")
    assert again.stderr.endswith(" was damaged, so Gander read the files again.\n")


# ---- a full disk ----------------------------------------------------------------------------


def test_a_catalog_write_on_a_full_disk_leaves_no_part_file(tmp_path: Path) -> None:
    folder = tmp_path / "exports"
    _exports(folder, {f"{'long-name-' * 8}{n:03}.json": f"id-{n}" for n in range(120)})
    data = tmp_path / "data"
    data.mkdir()
    out = tmp_path / "out"
    result = in_mount_namespace(
        f"mount -t tmpfs -o size=32k tmpfs {data}\n"
        f"$GANDER list --all --db {folder} > {out}.stdout 2> {out}.stderr"
        f" && echo 0 > {out}.code || echo $? > {out}.code\n"
        f"find {data} -type f > {out}.files\n"
        f"dd if=/dev/zero of={data}/filler bs=4k 2>/dev/null || true\n"
        f"$GANDER list --all --db {folder} > {out}.stdout2 2> {out}.stderr2"
        f" && echo 0 > {out}.code2 || echo $? > {out}.code2\n"
        f"find {data} -type f > {out}.files2",
        {"XDG_DATA_HOME": str(data)},
    )
    assert result.returncode == 0, result.stderr
    for run in ("", "2"):
        assert (tmp_path / f"out.code{run}").read_text().strip() == "0"
        assert (tmp_path / f"out.stderr{run}").read_text() == ""
        assert (tmp_path / f"out.stdout{run}").read_text().count("id-") == 120
        files = (tmp_path / f"out.files{run}").read_text()
        assert ".part" not in files, files


def test_what_the_catalog_writes_it_reads_back(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A reader that passes on odd values (of other types, a time at the calendar's edge) never
    makes a catalog that is discarded at every opening: such values are kept as absent."""
    from dataclasses import replace
    from datetime import datetime, timedelta, timezone

    from desktop_app.domain.usage import TokenUsage
    from desktop_app.sources.files.history import FileFormat, ParsedSession

    edge = datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone(timedelta(hours=-12)))
    odd: Any = {"working_dir": 5, "message_count": True, "cost": float("inf"), "model": ["m"]}

    def parse(path: Path, data: bytes) -> ParsedSession:
        del data
        session = Session(id=path.stem, name="odd", last_message_at=edge)
        usage = TokenUsage(input_tokens=odd["message_count"])
        return ParsedSession(replace(session, usage=usage, **odd), [])

    chosen = FileFormat(kind="odd", suffixes=(".odd",), sniff=lambda head: True, parse=parse)
    folder = tmp_path / "odd"
    folder.mkdir()
    (folder / "a.odd").write_text("x", encoding="utf-8")
    cache = tmp_path / "cache"
    with caplog.at_level(logging.WARNING):
        first = _sessions(FileHistory(folder, [chosen], cache_dir=cache))
        assert _sessions(FileHistory(folder, [chosen], cache_dir=cache)) == first
    assert caplog.records == []
    (session,) = first
    assert (session.working_dir, session.model, session.cost) == (None, None, None)
    assert (session.message_count, session.usage.input_tokens) == (None, None)
    assert session.last_message_at is None
    assert session.updated_at is None
