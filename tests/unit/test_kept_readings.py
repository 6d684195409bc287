"""A long log's reading kept by the catalog for its opening (`summary_of` with `Keeping`,
`MessagePages.seal`, `restore`): opened, it is read on from there, not read again — and a
reading that is not the log's any more, or not one this Gander sealed, is never used."""

import dataclasses
import importlib
import logging
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_app import domain
from desktop_app.domain.errors import UnknownSession
from desktop_app.domain.source import SessionQuery
from desktop_app.sources.claude_code import format as claude_code
from desktop_app.sources.codex import format as codex
from desktop_app.sources.files import history, pages
from desktop_app.sources.files.history import FileHistory, Keeping, LinesLog, parse_file
from desktop_app.sources.files.pages import MAGIC, restore
from desktop_app.sources.files.values import Line
from tests.unit.test_message_pages import claude_log
from tests.unit.test_reading_behind import _Gate

SESSION = "7f3c2a10-0000-4000-8000-00000000bbbb"
SHAPE = history.reading_shape(claude_code._log)


@pytest.fixture(autouse=True)
def long_logs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every log is long enough to keep, its pages of two messages."""
    monkeypatch.setattr(history, "KEEP_FROM", 1)
    monkeypatch.setattr(pages, "PAGE_MESSAGES", 2)
    monkeypatch.setattr(pages, "BEHIND", 1)
    monkeypatch.setattr(pages, "LOADED", 1)


class Fed:
    """How many lines logs' readers are fed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.lines = 0
        feed = LinesLog.feed

        def counted(log: LinesLog, line: Line) -> None:
            self.lines += 1
            feed(log, line)

        monkeypatch.setattr(LinesLog, "feed", counted)


def catalogued(folder: Path, data: Path) -> FileHistory:
    """The folder catalogued (as the window's first reading does it), then opened afresh."""
    FileHistory(folder, [claude_code.FORMAT], data).list_sessions(SessionQuery())
    return FileHistory(folder, [claude_code.FORMAT], data)


def read_whole(source: FileHistory) -> list[object]:
    positions = source.positions(SESSION)
    return list(source.messages_between(SESSION, positions[0], positions[-1]))


def kept_files(data: Path) -> list[Path]:
    return sorted((data / "pages").glob("*.pages"))


def kept_once(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """A folder of one log of six copies, catalogued: the folder, the data folder, the log and
    its kept reading."""
    folder, data = tmp_path / "project", tmp_path / "data"
    folder.mkdir()
    log = folder / f"{SESSION}.jsonl"
    log.write_bytes(claude_log(6))
    FileHistory(folder, [claude_code.FORMAT], data).list_sessions(SessionQuery())
    (kept,) = kept_files(data)
    return folder, data, log, kept


def test_a_long_log_opens_from_the_catalogs_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, data = tmp_path / "project", tmp_path / "data"
    folder.mkdir()
    log = folder / f"{SESSION}.jsonl"
    log.write_bytes(claude_log(12))
    source = catalogued(folder, data)
    (kept,) = kept_files(data)
    assert kept.stat().st_mode & 0o077 == 0  # the user's alone: it holds the transcript
    assert kept.read_bytes().startswith(MAGIC)
    whole = list(parse_file(log, [claude_code.FORMAT]).messages)
    fed = Fed(monkeypatch)
    assert read_whole(source) == whole
    assert fed.lines == 0  # read on from the kept reading: nothing was new
    # The log grows: only its new lines are read.
    more = claude_log(13)[len(claude_log(12)) :]
    with log.open("ab") as handle:
        handle.write(more)
    read = read_whole(source)
    assert 0 < fed.lines <= more.count(b"\n")
    assert read == list(parse_file(log, [claude_code.FORMAT]).messages)


def test_a_reading_of_a_log_rewritten_since_is_not_used(tmp_path: Path) -> None:
    folder, data = tmp_path / "project", tmp_path / "data"
    folder.mkdir()
    log = folder / f"{SESSION}.jsonl"
    log.write_bytes(claude_log(6))
    FileHistory(folder, [claude_code.FORMAT], data).list_sessions(SessionQuery())
    rewritten = claude_log(7)[::-1].split(b"\n")  # the same log's lines, in another order
    log.write_bytes(b"\n".join(line[::-1] for line in rewritten) + b"\n")
    source = FileHistory(folder, [claude_code.FORMAT], data)
    assert read_whole(source) == list(parse_file(log, [claude_code.FORMAT]).messages)


@pytest.mark.parametrize(
    "damage",
    ["empty", "truncated", "garbage", "other layout"],
)
def test_a_damaged_or_foreign_reading_is_never_used(
    tmp_path: Path, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    folder, data, log, kept = kept_once(tmp_path)
    data_bytes = kept.read_bytes()
    damaged = {
        "empty": b"",
        "truncated": data_bytes[: len(data_bytes) // 2],
        "garbage": MAGIC + os.urandom(500) + (30).to_bytes(8, "little") + MAGIC,
        "other layout": data_bytes.replace(SHAPE, b"0" * len(SHAPE)),
    }[damage]
    kept.write_bytes(damaged)
    with caplog.at_level(logging.WARNING):
        source = FileHistory(folder, [claude_code.FORMAT], data)
        assert read_whole(source) == list(parse_file(log, [claude_code.FORMAT]).messages)
    assert "could not use its reading" in caplog.text


def test_restore_refuses_what_gander_did_not_seal(tmp_path: Path) -> None:
    stranger = tmp_path / "x.pages"
    stranger.write_bytes(b"\x80\x05" + b"cos\nsystem\n" * 10)
    with pytest.raises(ValueError, match="no sealed file"):
        restore(stranger, SHAPE)


def test_readings_no_log_needs_are_deleted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder, data = tmp_path / "project", tmp_path / "data"
    folder.mkdir()
    for number in range(3):
        (folder / f"{SESSION[:-1]}{number}.jsonl").write_bytes(claude_log(2 + number))
    FileHistory(folder, [claude_code.FORMAT], data).list_sessions(SessionQuery())
    assert len(kept_files(data)) == 3
    (folder / f"{SESSION[:-1]}0.jsonl").unlink()
    source = FileHistory(folder, [claude_code.FORMAT], data)
    source.list_sessions(SessionQuery())
    assert len(kept_files(data)) == 2
    # Another history's readings in the same folder are its own.
    other = Keeping(str(data / "pages"), "another-history").file_of(tmp_path / "x.jsonl")
    other.write_bytes(b"")
    monkeypatch.setattr(history, "KEEP_FROM", 10**12)  # now no log is long enough
    os.utime(folder / f"{SESSION[:-1]}1.jsonl", (1, 1))  # changed: the catalog is saved again
    FileHistory(folder, [claude_code.FORMAT], data).list_sessions(SessionQuery())
    assert kept_files(data) == [other]


CATALOGUE = """
import sys
from pathlib import Path
from desktop_app.domain.source import SessionQuery
from desktop_app.sources.claude_code import format as claude_code
from desktop_app.sources.files import history, pages
history.KEEP_FROM, pages.PAGE_MESSAGES, pages.BEHIND = 1, 2, 1
folder, data = map(Path, sys.argv[1:])
history.FileHistory(folder, [claude_code.FORMAT], data).list_sessions(SessionQuery())
"""


def test_a_reading_kept_by_another_process_is_read_on_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Kept by a process of its own (as the catalog's workers are, each with its own `hash`),
    the reading is used here: a later line of a reply read there joins that reply."""
    folder, data = tmp_path / "project", tmp_path / "data"
    folder.mkdir()
    log = folder / f"{SESSION}.jsonl"
    lines = claude_log(8).splitlines(keepends=True)
    log.write_bytes(b"".join(lines))
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    subprocess.run([sys.executable, "-c", CATALOGUE, str(folder), str(data)], check=True, env=env)
    source = FileHistory(folder, [claude_code.FORMAT], data)
    source.list_sessions(SessionQuery())  # the catalog as it was
    first_reply = next(line for line in lines if b'"type":"assistant"' in line)
    whole = list(parse_file(log, [claude_code.FORMAT]).messages)
    fed = Fed(monkeypatch)
    assert read_whole(source) == whole
    assert fed.lines == 0
    with log.open("ab") as handle:
        handle.write(first_reply)  # a later line of the log's first reply
    read = read_whole(source)
    assert fed.lines == 1
    assert read == list(parse_file(log, [claude_code.FORMAT]).messages)


def test_the_catalog_reads_a_grown_log_on_from_its_kept_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A running agent's long log, not open in the window: each time it grows, the catalog
    reads the lines added since its kept reading, not the whole log again."""
    folder, data = tmp_path / "project", tmp_path / "data"
    folder.mkdir()
    log = folder / f"{SESSION}.jsonl"
    log.write_bytes(claude_log(10))
    FileHistory(folder, [claude_code.FORMAT], data).list_sessions(SessionQuery())
    more = claude_log(11)[len(claude_log(10)) :]
    with log.open("ab") as handle:
        handle.write(more)
    whole = parse_file(log, [claude_code.FORMAT])
    fed = Fed(monkeypatch)
    source = FileHistory(folder, [claude_code.FORMAT], data)
    source.list_sessions(SessionQuery())
    assert 0 < fed.lines <= more.count(b"\n")
    assert source._by_id[SESSION].summary == history._summary(whole, len(whole.messages))


def test_an_unusable_reading_is_replaced_by_the_opening_s_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reading another Gander sealed (a domain class changed since) is read afresh once, by
    the opening, which keeps its own — the next opening reads on from that — and reading on
    after it was kept leaves it sealed."""
    folder, data, log, kept = kept_once(tmp_path)
    kept.write_bytes(kept.read_bytes().replace(SHAPE, b"0" * len(SHAPE)))
    source = catalogued(folder, data)
    assert read_whole(source) == list(parse_file(log, [claude_code.FORMAT]).messages)
    more = claude_log(9)[len(claude_log(6)) :]
    with log.open("ab") as handle:
        handle.write(more)  # read on here: pages written after the kept reading's
    assert read_whole(source) == list(parse_file(log, [claude_code.FORMAT]).messages)
    whole = list(parse_file(log, [claude_code.FORMAT]).messages)
    fed = Fed(monkeypatch)
    again = FileHistory(folder, [claude_code.FORMAT], data)
    assert read_whole(again) == whole
    assert 0 < fed.lines <= more.count(b"\n")  # on from the opening's reading, still sealed


def test_a_few_long_logs_are_read_behind_the_listing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """However few, files large in all are read behind the listing (one 2 GB log held the
    first window's list empty for three minutes, with nothing said): the first listing is at
    once, the reading counts them, and a session asked for by id in a long log is left to it."""
    gate = _Gate()
    monkeypatch.setattr(history, "BEHIND_BYTES", 1)
    monkeypatch.setattr(history, "summaries_streamed", gate)
    monkeypatch.setattr(history, "FIRST_HERE_BYTES", 0)  # every file through the gate
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    folder, data = tmp_path / "project", tmp_path / "data"
    folder.mkdir()
    for number in range(2):
        (folder / f"{SESSION[:-1]}{number}.jsonl").write_bytes(claude_log(3))
    source = FileHistory(folder, [claude_code.FORMAT], data)
    source.catalogue_in_background()
    assert source.list_sessions(SessionQuery()).sessions == ()  # at once, nothing read yet
    assert source.cataloguing() == (0, 2)
    with pytest.raises(UnknownSession):  # not read at once, here: left to the reading
        source.get_session(f"{SESSION[:-1]}0")
    gate.allowed.release()
    gate.allowed.release()
    source._read_through()
    assert len(source.list_sessions(SessionQuery()).sessions) == 2


def test_the_shape_names_every_domain_module_and_a_readers_attributes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every module of the domain with a dataclass is in `DOMAIN` (a bundled Gander cannot
    list them); a reader with an attribute more, or a format's class with a field more, is
    another shape, so no reading sealed before is read back into it."""
    with_classes = {
        module.name
        for module in pkgutil.walk_packages(domain.__path__, "desktop_app.domain.")
        if any(
            dataclasses.is_dataclass(v) and isinstance(v, type) and v.__module__ == module.name
            for v in vars(importlib.import_module(module.name)).values()
        )
    }
    assert with_classes <= set(pages.DOMAIN)
    before = history.reading_shape(codex._log)
    history.reading_shape.cache_clear()
    fresh = codex._Reader.__init__

    def more(reader: codex._Reader, session_id: str) -> None:
        fresh(reader, session_id)
        reader.added = 1  # type: ignore[attr-defined]

    monkeypatch.setattr(codex._Reader, "__init__", more)
    assert history.reading_shape(codex._log) != before
    history.reading_shape.cache_clear()


def test_a_long_log_growing_again_is_read_on_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the catalog has read a grown long log on from its kept reading, it follows it:
    each later growth costs its own lines, not those since the reading was kept."""
    folder, data = tmp_path / "project", tmp_path / "data"
    folder.mkdir()
    log = folder / f"{SESSION}.jsonl"
    log.write_bytes(claude_log(6))
    source = FileHistory(folder, [claude_code.FORMAT], data)
    source.list_sessions(SessionQuery())
    fed = Fed(monkeypatch)
    for copies in (7, 8, 9):
        more = claude_log(copies)[len(claude_log(copies - 1)) :]
        with log.open("ab") as handle:
            handle.write(more)
        fed.lines = 0
        source._catalog(max_age_s=0.0)
        assert 0 < fed.lines <= more.count(b"\n")
    whole = parse_file(log, [claude_code.FORMAT])
    assert source._by_id[SESSION].summary == history._summary(whole, len(whole.messages))
