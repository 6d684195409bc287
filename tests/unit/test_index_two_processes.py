"""Two Ganders on one history share its search index (issue #18, items 4 and 14): a second one
never deletes the first one's file, a lock is never taken for damage, and whatever the two do
at once, each message is in the index exactly once. The Ganders are real processes; the
history is a goose database another process appends to meanwhile. Everything is counted (rows,
rounds), nothing timed."""

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop_app.domain.errors import GanderError
from desktop_app.files.places import data_dir
from desktop_app.search import index, storage
from desktop_app.search.index import (
    SearchIndex,
    SearchIndexUnavailable,
    index_path,
    open_index,
)
from desktop_app.sources.goose import GooseSource
from tests.fixtures.goose_db import GooseDb
from tests.fixtures.processes import ROOT, run_gander

BASE = 1_767_323_045
SESSIONS = 30
ROUNDS = 30
"""Openings of the index by each process, each with several updates and a search."""
MOST_APPENDED = 3_000
ATTEMPTS = 5
"""Pairs of `gander search` started at once (before the fix, one in two or three failed)."""

_LOOP = """
import json, sys
from pathlib import Path
from desktop_app.files.places import data_dir
from desktop_app.search.index import open_index
from desktop_app.sources.goose import GooseSource

db, rounds = Path(sys.argv[1]), int(sys.argv[2])
failures = []
for _ in range(rounds):
    try:
        source = GooseSource(db, busy_timeout_s=30)
        index = open_index(data_dir(), source)
        try:
            for _ in range(4):
                index.update()
            index.search("alpha")
        finally:
            index.close()
            source.close()
    except Exception as error:
        failures.append(f"{type(error).__name__}: {error}")
print(json.dumps(failures))
"""


def _history(make_db: Callable[..., GooseDb]) -> GooseDb:
    db = make_db()
    for s in range(SESSIONS):
        db.add_session(f"s{s}", name=f"session {s}")
    visible = json.dumps({"userVisible": True, "agentVisible": True})
    db.insert_many(
        "messages",
        [
            {
                "session_id": f"s{s}",
                "role": "user",
                "content_json": json.dumps([{"type": "text", "text": f"alpha message {s}.{m}"}]),
                "created_timestamp": BASE + m,
                "metadata_json": visible,
            }
            for s in range(SESSIONS)
            for m in range(40)
        ],
    )
    return db


def _identity(path: Path) -> tuple[int, int]:
    found = path.stat()
    return (found.st_dev, found.st_ino)


def _documents(path: Path) -> Counter[tuple[str, str]]:
    with sqlite3.connect(path) as conn:
        return Counter(conn.execute("SELECT session_id, position FROM docs"))


def _messages(db: GooseDb) -> Counter[str]:
    return Counter(sid for (sid,) in db.execute("SELECT session_id FROM messages"))


def test_two_processes_updating_one_index_keep_each_message_once(
    make_db: Callable[..., GooseDb],
) -> None:
    """Before: the two planned from one state and both wrote the messages appended meanwhile
    (duplicates in every run), and an opening that met the other's lock deleted its file."""
    db = _history(make_db)
    first = run_gander("--db", str(db.path), "search", "alpha")
    assert first.returncode == 0, first.stderr
    path = index_path(data_dir(), str(db.path))
    before = _identity(path)
    loops = [
        subprocess.Popen(
            [sys.executable, "-c", _LOOP, str(db.path), str(ROUNDS)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    appended = 0
    while any(loop.poll() is None for loop in loops) and appended < MOST_APPENDED:
        db.add_message(
            f"s{appended % SESSIONS}",
            "assistant",
            f"alpha reply {appended}",
            created=BASE + 100 + appended,
        )
        appended += 1
    outputs = [loop.communicate(timeout=300)[0] for loop in loops]
    assert [json.loads(output) for output in outputs] == [[], []]
    last = run_gander("--db", str(db.path), "search", "alpha")
    assert last.returncode == 0, last.stderr
    documents = _documents(path)
    assert [key for key, times in documents.items() if times > 1] == []
    assert Counter(sid for sid, _ in documents) == _messages(db)
    assert _identity(path) == before
    assert appended > 0


def test_an_update_planned_from_one_state_is_never_written_twice(
    make_db: Callable[..., GooseDb], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race the two processes above run into now and then, made certain: a second
    Gander's update comes between the first one's plan and its batch. It waits for the turn
    (here given up after 0.2 s), so the messages are written once. Before: both wrote the
    five appended messages."""
    db = _history(make_db)
    path = index_path(data_dir(), str(db.path))
    first_source, second_source = GooseSource(db.path), GooseSource(db.path)
    first = SearchIndex(path, first_source)
    first.update()
    second = SearchIndex(path, second_source)
    second.update()
    for n in range(5):
        db.add_message("s1", "assistant", f"alpha appended {n}", created=BASE + 100 + n)
    monkeypatch.setattr(index, "UPDATE_WAIT_S", 0.2, raising=False)
    between: list[str] = []
    planned = first_source.positions

    def positions(session_id: str) -> object:
        if not between:
            try:
                between.append(f"added {second.update().added}")
            except GanderError as busy:
                between.append(str(busy))
        return planned(session_id)

    monkeypatch.setattr(first_source, "positions", positions)
    first.update()
    documents = _documents(path)
    assert [key for key, times in documents.items() if times > 1] == []
    assert Counter(sid for sid, _ in documents) == _messages(db)
    assert between == [
        "Another Gander has been updating this search index for over a minute; try again "
        "when it is done."
    ]
    for opened in (second, first, second_source, first_source):
        opened.close()


def test_too_many_orphans_empty_the_file_in_place(make_db: Callable[..., GooseDb]) -> None:
    """An index with too many orphans is rebuilt in the same file: another Gander that has it
    open goes on writing where the first reads. Before: the files were deleted and made
    again, and the other one's batches went to the deleted file."""
    db = _history(make_db)
    source = GooseSource(db.path)
    path = index_path(data_dir(), str(db.path))
    first = SearchIndex(path, source)
    first.update()
    other = SearchIndex(path, source)
    before = _identity(path)
    first._storage.set_meta("orphans", "1000000")
    assert first.update().rebuilt
    assert _identity(path) == before
    db.add_message("s3", "assistant", "alpha written after the rebuild")
    other.update()
    assert first.search("rebuild").total_hits == 1
    assert sum(_documents(path).values()) == SESSIONS * 40 + 1
    other.close()
    first.close()
    source.close()


def test_a_file_replaced_or_deleted_under_a_gander_is_followed(
    make_db: Callable[..., GooseDb],
) -> None:
    """Another Gander started the file afresh (damage it met), then the data folder was
    deleted: the next update writes the file now at the path, and searches read it. Before:
    batches went on into the deleted file, searches read it, and the other saw nothing."""
    db = _history(make_db)
    source = GooseSource(db.path)
    path = index_path(data_dir(), str(db.path))
    first = SearchIndex(path, source)
    first.update()
    other = SearchIndex(path, source)
    before = _identity(path)
    other._storage.start_afresh()
    assert _identity(path) != before
    db.add_message("s3", "assistant", "alpha written after the restart")
    first.update()
    assert other.search("restart").total_hits == 1
    assert first.search("restart").total_hits == 1
    shutil.rmtree(path.parent)
    db.add_message("s4", "assistant", "alpha written after the folder went")
    assert first.update().rebuilt
    assert first.search("folder").total_hits == 1
    assert other.search("folder").total_hits == 1
    assert sum(_documents(path).values()) == SESSIONS * 40 + 2
    other.close()
    first.close()
    source.close()


def test_a_locked_index_is_never_taken_for_damage(
    make_db: Callable[..., GooseDb], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another connection holds the write lock while a second opening checks the file (the
    first is still open, so it was not closed cleanly): the check's write cannot run. Before:
    "database is locked" read as damage, and the files were deleted under the first."""
    db = _history(make_db)
    source = GooseSource(db.path)
    path = index_path(data_dir(), str(db.path))
    first = SearchIndex(path, source)
    first.update()
    before = _identity(path)
    monkeypatch.setattr(storage, "BUSY_TIMEOUT_S", 0.2, raising=False)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(SearchIndexUnavailable, match="busy in another Gander"):
            open_index(data_dir(), source)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert _identity(path) == before
    assert sum(_documents(path).values()) == SESSIONS * 40
    assert first.search("alpha").total_hits > 0
    second = open_index(data_dir(), source)
    assert not second.rebuilt
    second.close()
    first.close()
    source.close()


def test_an_opening_while_another_updates_waits_and_never_rebuilds(
    make_db: Callable[..., GooseDb], monkeypatch: pytest.MonkeyPatch
) -> None:
    """While another Gander has its turn (an update), an opening waits a little and then opens
    the file as it is: it is in use, not left by a crash. An update waits for the turn."""
    db = _history(make_db)
    source = GooseSource(db.path)
    path = index_path(data_dir(), str(db.path))
    first = SearchIndex(path, source)
    first.update()
    before = _identity(path)
    monkeypatch.setattr(storage, "OPENING_WAIT_S", 0.1)
    holding = threading.Event()
    release = threading.Event()

    def hold_the_turn() -> None:
        with first._storage.turn(1.0) as mine:
            assert mine
            holding.set()
            release.wait(timeout=60)

    holder = threading.Thread(target=hold_the_turn)
    holder.start()
    assert holding.wait(timeout=60)
    try:
        second = open_index(data_dir(), source)
        assert not second.rebuilt
        db.add_message("s0", "assistant", "alpha appended while the turn was held")
        updated: list[int] = []
        waiting = threading.Thread(target=lambda: updated.append(second.update().added))
        waiting.start()
        waiting.join(timeout=0.5)
        assert updated == []
    finally:
        release.set()
        holder.join(timeout=60)
    waiting.join(timeout=120)
    assert len(updated) == 1
    assert second.search("appended").total_hits == 1
    assert _identity(path) == before
    second.close()
    first.close()
    source.close()


def test_concurrent_first_searches_wait_for_each_other(
    make_db: Callable[..., GooseDb], tmp_path: Path
) -> None:
    """Two `gander search` started at once on a history with no index yet, `ATTEMPTS` times
    (each with a data folder of its own). Before: one of them deleted the file the other was
    creating, or was refused as busy."""
    db = _history(make_db)
    command = [sys.executable, "-m", "desktop_app", "--db", str(db.path), "search", "alpha"]
    for attempt in range(ATTEMPTS):
        env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / f"data-{attempt}")}
        runs = [
            subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
            for _ in range(2)
        ]
        results = [(*run.communicate(timeout=300), run.returncode) for run in runs]
        assert [code for _, _, code in results] == [0, 0], [err for _, err, _ in results]
        assert results[0][0] == results[1][0]
        made = index_path(tmp_path / f"data-{attempt}" / "gander", str(db.path))
        assert sum(_documents(made).values()) == SESSIONS * 40


def test_a_damaged_lock_file_is_made_again(make_db: Callable[..., GooseDb]) -> None:
    """The turn's lock file holding bytes that are no database (nobody can hold a lock on it):
    made again, and the update runs. Without that, every update was a sentence for good."""
    db = _history(make_db)
    source = GooseSource(db.path)
    path = index_path(data_dir(), str(db.path))
    Path(f"{path}-lock").parent.mkdir(parents=True)
    Path(f"{path}-lock").write_bytes(b"not a database, " * 8)
    opened = SearchIndex(path, source)
    assert opened.update().added == SESSIONS * 40
    opened.close()
    source.close()
