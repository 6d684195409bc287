"""The reader table (`sources/readers.py`, #21 item 3): every reader has one row, every row is
true of its reader, and what used to be written out in several places is derived from it."""

import sqlite3
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from desktop_app.domain.errors import NotAHistory
from desktop_app.domain.source import Writable
from desktop_app.sources import readers, registry
from desktop_app.sources.files.history import FileFormat, FileHistory
from desktop_app.sources.goose import GooseSource
from desktop_app.sources.readers import (
    GOOSE,
    KINDS,
    READERS,
    Capability,
    Reader,
    Store,
    dialog_filters,
)
from tests.fixtures.goose_db import GooseDb

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "desktop_app" / "sources"
SHARED = {"common", "files", "__pycache__"}
"""What two readers share (sources/common, the reader over files) is no reader of its own."""


def _load(reference: str) -> Any:
    return registry._load(reference)


def test_every_reader_package_has_a_row() -> None:
    packages = {p.name for p in SOURCES.iterdir() if p.is_dir() and p.name not in SHARED}
    with_rows = {row.reader.split(".")[2].partition(":")[0] for row in READERS}
    assert packages - with_rows == set(), "a reader package without a row in sources/readers.py"
    assert with_rows - packages == set()


def test_the_independence_contract_names_every_reader_package() -> None:
    """A reader left out of import-linter's list could import another unnoticed."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (independence,) = [c for c in contracts if c["type"] == "independence"]
    packages = {p.name for p in SOURCES.iterdir() if p.is_dir() and p.name not in SHARED}
    assert set(independence["modules"]) == {f"desktop_app.sources.{p}" for p in packages}


@pytest.mark.parametrize("row", READERS, ids=KINDS)
def test_every_row_has_its_formats_page(row: Reader) -> None:
    page = ROOT / row.doc
    assert page.parent == ROOT / "docs" / "formats", row.doc
    assert page.is_file(), row.doc
    assert row.kind in page.read_text(encoding="utf-8"), f"{row.doc} never names {row.kind}"


@pytest.mark.parametrize("row", READERS, ids=KINDS)
def test_every_row_is_true_of_its_reader(row: Reader) -> None:
    loaded = _load(row.reader)
    match row.store:
        case Store.FILES:
            assert isinstance(loaded, FileFormat)
            assert (loaded.kind, loaded.suffixes) == (row.kind, row.suffixes)
            assert (loaded.resume is not None) == (Capability.RESUMES in row.capabilities)
            assert not row.tables
            assert not row.sniff
            assert not row.marker
        case Store.SQLITE:
            assert isinstance(loaded, type)
            assert row.tables
            assert not row.sniff
        case Store.EVENTS:
            assert isinstance(loaded, type)
            assert callable(_load(row.sniff))
            assert _load(row.reader.partition(":")[0] + ":KIND") == row.kind
    assert bool(row.schemes) == bool(row.server) == (Capability.SERVER in row.capabilities)
    if row.server:
        assert isinstance(_load(row.server), type)


def test_the_capabilities_claimed_are_the_readers_own(
    make_db: Callable[..., GooseDb], tmp_path: Path
) -> None:
    """Only goose writes; what a row says here is what the opened reader does."""
    db = make_db()
    db.add_session("s1", name="A chat")
    goose = registry.open_history(db.path)
    try:
        assert isinstance(goose, GooseSource)
        assert isinstance(goose, Writable)
        assert (goose.info().kind, goose.info().agent) == ("goose", GOOSE.agent)
    finally:
        goose.close()
    assert [row.kind for row in READERS if Capability.WRITES in row.capabilities] == ["goose"]
    (tmp_path / "empty").mkdir()
    for row in READERS:
        if row.store is Store.FILES:
            files = registry.open_history(f"{row.kind}={tmp_path / 'empty'}", cache_dir=tmp_path)
            assert isinstance(files, FileHistory)
            assert not isinstance(files, Writable)
            assert files.info().agent == row.agent  # the badge's name comes from the row
            files.close()


def test_the_open_dialog_offers_every_reader() -> None:
    """The dialog's filter was written out by hand and had gone stale: no Claude Code, Codex,
    Gemini CLI, pi or everruns files in it."""
    from desktop_app.ui.history_dialogs import HISTORY_FILES

    assert dialog_filters() == HISTORY_FILES
    filters = HISTORY_FILES.split(";;")
    every = filters[0]
    for row in READERS:
        assert any(f.startswith(f"{row.dialog} (") for f in filters), row.kind
        assert all(f"*{suffix}" in every for suffix in row.suffixes)
    assert filters[-1] == "All files (*)"


def test_the_cli_names_each_kind_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--db`'s help listed everruns twice (the kinds, then "everruns" again)."""
    from desktop_app.cli import build_parser

    monkeypatch.setenv("COLUMNS", "2000")  # no kind broken at its hyphen
    text = " ".join(build_parser().format_help().split())
    listed = text.partition("KIND=PATH to name its kind: ")[2].split()[: len(KINDS) + 1]
    assert [kind.strip(",") for kind in listed] == [*KINDS, "--demo"]


def test_the_expected_sentence_names_every_reader() -> None:
    for row in READERS:
        assert row.expected in readers.EXPECTED


class OtherDatabase:
    """A second SQLite history, to show that goose is one SQLite row among others."""

    def __init__(self, path: Path, *, busy_timeout_s: float) -> None:
        self.path = path


OTHER = Reader(
    kind="other-db",
    agent="other",
    expected="another agent's database",
    store=Store.SQLITE,
    reader=f"{__name__}:OtherDatabase",
    dialog="other database",
    doc="docs/formats/goose.md",
    suffixes=(".db",),
    tables=("conversations", "turns"),
)


def _database(path: Path, *tables: str) -> Path:
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
        for table in tables:
            conn.execute(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY)")
    conn.close()
    return path


def test_an_sqlite_history_is_recognised_by_its_tables(
    make_db: Callable[..., GooseDb], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every SQLite file went to goose's reader; now the row whose tables it holds reads it,
    whichever order the rows are in."""
    monkeypatch.setattr(registry, "READERS", (OTHER, *READERS))
    db = make_db()
    db.add_session("s1", name="A chat")
    goose = registry.open_history(db.path)
    assert isinstance(goose, GooseSource)
    goose.close()
    other = registry.open_history(_database(tmp_path / "other.db", "conversations", "turns"))
    assert isinstance(other, OtherDatabase)


def test_an_sqlite_file_no_row_reads_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    """The tables are read without a lock or a `-wal`/`-shm` beside the file, and the sentence
    is the reader's own."""
    path = _database(tmp_path / "notes.db", "notes")
    before = sorted(p.name for p in tmp_path.iterdir())
    assert registry._tables(path) == frozenset({"notes"})
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    with pytest.raises(NotAHistory) as refused:
        registry.open_history(path)
    assert str(refused.value) == (
        f"{path} is an SQLite database but not goose's session store "
        "(it has no sessions and messages tables)."
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_agent_folders_come_from_the_rows_on_every_platform(tmp_path: Path) -> None:
    from desktop_app.sources.agents_locate import candidate_paths

    home = tmp_path / "home"
    codex = readers.BY_KIND["codex"]
    for platform in ("linux", "darwin", "win32"):
        assert candidate_paths(codex, {}, home, platform) == [home / ".codex" / "sessions"]
    assert candidate_paths(codex, {"CODEX_HOME": "/c"}, home, "linux") == [Path("/c/sessions")]
    assert readers.AGENT_KINDS == ("claude-code", "codex", "gemini-cli", "pi")
    assert readers.agent_name("codex") == "Codex CLI"
    assert readers.agent_name("goose-export") == "goose"
