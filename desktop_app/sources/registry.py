"""One opener for every history: what is at a location decides which reader reads it.

Each file format declares its suffixes and how its first 64 kB look (`FileFormat.sniff`); an
SQLite file is goose's database (its reader checks the tables and refuses anything else). A
folder is goose's when it holds `sessions.db`, else the kind most of its files are. Adding a
reader is one entry here and its package. Nothing above `sources/` needs to know the formats.

Readers are imported when a location needs them: opening goose's file loads no file format, and
no SQLAlchemy (`gander list` pays only for what it reads).
"""

import os
import stat
from collections import Counter
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from desktop_app.domain.errors import NotAHistory, SourceNotFound, SourceUnreadable
from desktop_app.domain.source import Source
from desktop_app.sources.goose import GooseSource
from desktop_app.sources.goose.connection import DEFAULT_BUSY_TIMEOUT_S, SQLITE_HEADER, in_use

if TYPE_CHECKING:
    from desktop_app.sources.files.history import FileFormat

EVERRUNS = "everruns"
EVERRUNS_LOG = "events.jsonl"
"""The event log in everruns' local data directory (`everruns.local.LOG_NAME`)."""


@cache
def file_formats() -> "tuple[FileFormat, ...]":
    """In the order they are tried: the most specific first."""
    from desktop_app.sources.claude_code.format import FORMAT as CLAUDE_CODE
    from desktop_app.sources.codex.format import FORMAT as CODEX
    from desktop_app.sources.gemini_cli.format import FORMAT as GEMINI_CLI
    from desktop_app.sources.glean.format import FORMAT as GLEAN
    from desktop_app.sources.goose_export.format import FORMAT as GOOSE_EXPORT
    from desktop_app.sources.goose_legacy.format import FORMAT as GOOSE_LEGACY
    from desktop_app.sources.pi.format import FORMAT as PI
    from desktop_app.sources.toolnexus.format import FORMAT as TOOLNEXUS

    return (GLEAN, GOOSE_EXPORT, TOOLNEXUS, GEMINI_CLI, CODEX, PI, CLAUDE_CODE, GOOSE_LEGACY)


KINDS = (
    "goose",
    EVERRUNS,
    "glean-json",
    "goose-export",
    "toolnexus",
    "gemini-cli",
    "codex",
    "pi",
    "claude-code",
    "goose-legacy",
)
"""Every kind `KIND=PATH` may name: goose, everruns and each of `file_formats()`."""
KIND_SEPARATOR = "="
SAMPLED_FILES = 50
HEAD_BYTES = 65_536

EXPECTED = (
    "goose's sessions.db, a goose session export (.json or .yaml), goose legacy sessions "
    "(.jsonl), toolnexus conversations (.json), glean-json files, Claude Code, Codex, Gemini "
    "CLI or pi session logs, an everruns event log "
    "(events.jsonl) or events export, or a postgresql:// URL of an everruns database"
)


NOT_FILES = (
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def _ordinary(path: Path, mode: int) -> None:
    """Refuses what is neither a file nor a folder: opening a named pipe waits for a writer
    forever, and a device (`/dev/zero`, a terminal) never ends or blocks."""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return
    what = next((name for test, name in NOT_FILES if test(mode)), "not a file")
    raise NotAHistory(f"{path} is {what}, not a file or folder; expected {EXPECTED}.")


def _head(path: Path) -> bytes:
    """The file's first bytes, from a handle opened without waiting (a file swapped for a
    named pipe after it was looked at never blocks) and checked to be a file."""
    if in_use(path):  # a database a reader here has open: never opened outside SQLite
        return SQLITE_HEADER
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(descriptor, "rb") as handle:
            _ordinary(path, os.fstat(descriptor).st_mode)
            return handle.read(HEAD_BYTES)
    except PermissionError as error:
        raise SourceUnreadable(f"{path} cannot be read: permission denied.") from error
    except OSError as error:
        raise SourceUnreadable(f"{path} cannot be read: {error.strerror or error}.") from error


def file_format(path: Path, head: bytes) -> "FileFormat | None":
    formats = file_formats()
    return next((f for f in formats if path.name.endswith(f.suffixes) and f.sniff(head)), None)


def _folder_format(folder: Path) -> "FileFormat":
    from desktop_app.sources.files.history import walk_files

    formats = file_formats()
    suffixes = tuple({s for f in formats for s in f.suffixes})
    try:
        names = [name for name, _ in walk_files(folder, suffixes, max(f.depth for f in formats))]
    except OSError as error:
        raise SourceUnreadable(f"{folder} cannot be read: {error.strerror or error}.") from error
    votes: Counter[str] = Counter()
    found_formats: dict[str, FileFormat] = {}
    for path in (folder / name for name in names[:SAMPLED_FILES]):
        try:
            found = file_format(path, _head(path))
        except SourceUnreadable:
            continue
        if found is not None:
            votes[found.kind] += 1
            found_formats[found.kind] = found
    if not votes:
        raise NotAHistory(f"{folder} holds no history Gander can read; expected {EXPECTED}.")
    ranked = votes.most_common()
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        kinds = " and ".join(kind for kind, _ in ranked)
        raise NotAHistory(
            f"{folder} holds {kinds} files in equal numbers; open one of its files, or a folder "
            "of one kind."
        )
    return found_formats[ranked[0][0]]


SERVER_SCHEMES = ("postgresql://", "postgres://", "postgresql+psycopg://")
"""A database URL names an everruns server (`gander --db postgresql://user@host/everruns`)."""


def is_server(location: Path | str) -> bool:
    return isinstance(location, str) and location.startswith(SERVER_SCHEMES)


def available(location: Path | str) -> bool:
    """Whether a remembered history is still there (a server is asked only when opened)."""
    return is_server(location) or split_kind(location)[1].exists()


def split_kind(location: Path | str) -> tuple[str | None, Path]:
    """`KIND=PATH` names the kind instead of letting the opener recognise it (goose's legacy
    `.jsonl` sessions sit in the folder that holds `sessions.db`)."""
    text = str(location)
    kind, separator, rest = text.partition(KIND_SEPARATOR)
    if separator and kind in KINDS and rest:
        return kind, Path(rest).expanduser()
    return None, Path(text)


def absolute(location: Path | str) -> str:
    """The location with an absolute path (and its `KIND=`, if it had one); a server's URL
    without its password, which is never remembered."""
    if is_server(location):
        from desktop_app.sources.everruns.connection import public_location

        return public_location(str(location))
    kind, path = split_kind(location)
    full = os.path.abspath(path)
    return f"{kind}{KIND_SEPARATOR}{full}" if kind else full


def _named(kind: str, path: Path, cache_dir: Path | None, busy_timeout_s: float) -> Source:
    if kind == "goose":
        database = path / "sessions.db" if path.is_dir() else path
        _check_ordinary(database)
        return GooseSource(database, busy_timeout_s=busy_timeout_s)
    if kind == EVERRUNS:
        return _everruns_log(path)
    return _files(path, next(f for f in file_formats() if f.kind == kind), cache_dir)


def _everruns_log(path: Path) -> Source:
    from desktop_app.sources.everruns.local import EverrunsEvents

    log = path / EVERRUNS_LOG if path.is_dir() else path
    if log.exists():
        _check_ordinary(log)
    return EverrunsEvents(path)


def _files(path: Path, chosen: "FileFormat", cache_dir: Path | None) -> Source:
    from desktop_app.sources.files.history import FileHistory

    return FileHistory(path, [chosen], cache_dir)


def _check_ordinary(path: Path) -> None:
    """The path is there and is a file or a folder (a link followed), else one sentence."""
    try:
        mode = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError) as error:
        raise SourceNotFound(f"There is no file or folder at {path}.") from error
    except OSError as error:
        raise SourceUnreadable(f"{path} cannot be read: {error.strerror or error}.") from error
    _ordinary(path, mode)


def open_history(
    location: Path | str,
    *,
    cache_dir: Path | None = None,
    busy_timeout_s: float = DEFAULT_BUSY_TIMEOUT_S,
) -> Source:
    """The reader for what is at `location` (a file or a folder, or `KIND=PATH`); one sentence
    when there is nothing Gander can read there."""
    if is_server(location):
        from desktop_app.sources.everruns.server import EverrunsServer

        return EverrunsServer(str(location))
    kind, path = split_kind(location)
    _check_ordinary(path)
    if kind is not None:
        return _named(kind, path, cache_dir, busy_timeout_s)
    if path.is_dir():
        database = path / "sessions.db"
        if database.is_file():
            return GooseSource(database, busy_timeout_s=busy_timeout_s)
        if (path / EVERRUNS_LOG).is_file():  # everruns' local mode: its data directory
            return _everruns_log(path)
        return _files(path, _folder_format(path), cache_dir)
    head = _head(path)
    if not head:
        raise NotAHistory(f"{path} is an empty file; expected {EXPECTED}.")
    if head.startswith(SQLITE_HEADER):
        return GooseSource(path, busy_timeout_s=busy_timeout_s)
    from desktop_app.sources.everruns.sniff import looks_like_envelopes

    if looks_like_envelopes(path):
        return _everruns_log(path)
    found = file_format(path, head)
    if found is None:
        raise NotAHistory(f"{path} is not a history Gander can read; expected {EXPECTED}.")
    return _files(path, found, cache_dir)
