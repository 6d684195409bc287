"""One opener for every history: what is at a location decides which reader reads it, by the
rows of the reader table (`readers.py`).

A file format declares its suffixes and how its first 64 kB look (`FileFormat.sniff`); an
event log is told by its own `sniff` of the path; an SQLite file is offered to the SQLite
readers, those whose tables it holds first, each refusing what is not its own. A folder holding
a row's `marker` file is that history, else it is the kind most of its files are. Nothing above
`sources/` needs to know the formats.

Readers are imported when a location needs them: opening goose's file loads no file format
(`gander list` pays only for what it reads).
"""

import contextlib
import importlib
import os
import sqlite3
import stat
from collections import Counter
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, assert_never

from desktop_app.domain.errors import NotAHistory, SourceNotFound, SourceUnreadable
from desktop_app.domain.source import Source
from desktop_app.sources.goose.connection import DEFAULT_BUSY_TIMEOUT_S, SQLITE_HEADER, in_use
from desktop_app.sources.readers import BY_KIND, EXPECTED, KINDS, READERS, Reader, Store

if TYPE_CHECKING:
    from desktop_app.sources.files.history import FileFormat

__all__ = [
    "EXPECTED",
    "KINDS",
    "KIND_SEPARATOR",
    "absolute",
    "available",
    "file_formats",
    "is_server",
    "open_history",
    "split_kind",
]

KIND_SEPARATOR = "="
SAMPLED_FILES = 50
HEAD_BYTES = 65_536


def _load(reference: str) -> Any:
    """What a row's `module:attribute` names, imported now."""
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


@cache
def file_formats() -> "tuple[FileFormat, ...]":
    """The FILES rows' formats, in the order they are tried: the most specific first."""
    return tuple(_load(row.reader) for row in READERS if row.store is Store.FILES)


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


def _folder_format(folder: Path) -> Reader:
    from desktop_app.sources.files.history import walk_files

    formats = file_formats()
    suffixes = tuple({s for f in formats for s in f.suffixes})
    try:
        names = [name for name, _ in walk_files(folder, suffixes, max(f.depth for f in formats))]
    except OSError as error:
        raise SourceUnreadable(f"{folder} cannot be read: {error.strerror or error}.") from error
    votes: Counter[str] = Counter()
    for path in (folder / name for name in names[:SAMPLED_FILES]):
        try:
            found = file_format(path, _head(path))
        except SourceUnreadable:
            continue
        if found is not None:
            votes[found.kind] += 1
    if not votes:
        raise NotAHistory(f"{folder} holds no history Gander can read; expected {EXPECTED}.")
    ranked = votes.most_common()
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        kinds = " and ".join(kind for kind, _ in ranked)
        raise NotAHistory(
            f"{folder} holds {kinds} files in equal numbers; open one of its files, or a folder "
            "of one kind."
        )
    return BY_KIND[ranked[0][0]]


def _server(location: Path | str) -> Reader | None:
    """The row whose server a database URL names (`gander --db postgresql://user@host/db`)."""
    if not isinstance(location, str):
        return None
    return next((row for row in READERS if row.schemes and location.startswith(row.schemes)), None)


def is_server(location: Path | str) -> bool:
    return _server(location) is not None


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


def _open(row: Reader, path: Path, cache_dir: Path | None, busy_timeout_s: float) -> Source:
    """`row`'s reader on `path` (a FILES row: a file or a folder of them)."""
    match row.store:
        case Store.SQLITE:
            opened: Source = _load(row.reader)(path, busy_timeout_s=busy_timeout_s)
        case Store.EVENTS:
            opened = _load(row.reader)(path)
        case Store.FILES:
            from desktop_app.sources.files.history import FileHistory

            opened = FileHistory(path, [_load(row.reader)], cache_dir)
        case _ as unreachable:
            assert_never(unreachable)
    return opened


def _named(row: Reader, path: Path, cache_dir: Path | None, busy_timeout_s: float) -> Source:
    """`KIND=PATH`: a folder of a row with a `marker` is opened on that file, which an SQLite
    reader needs to be there (an event log may not be written yet)."""
    if row.marker and path.is_dir():
        marked = path / row.marker
        if row.store is Store.SQLITE or marked.exists():
            _check_ordinary(marked)
        return _open(row, marked, cache_dir, busy_timeout_s)
    return _open(row, path, cache_dir, busy_timeout_s)


def _tables(path: Path) -> frozenset[str]:
    """The tables an SQLite file holds, read without creating anything beside it (the file is
    the agent's). A database in WAL mode is read through the `-wal` and `-shm` the agent keeps
    there (a schema not yet checkpointed is in the `-wal`); without them, as an immutable file,
    which takes no lock and makes no companion — unless a reader here has it open (`in_use`):
    closing such a handle would drop that reader's locks, while SQLite's own connections
    share them. Empty when SQLite cannot read it: then every SQLite reader is tried."""
    companions = all(Path(f"{path}{suffix}").is_file() for suffix in ("-wal", "-shm"))
    mode = "mode=ro" if companions or in_use(path) else "mode=ro&immutable=1"
    uri = f"{Path(os.path.abspath(path)).as_uri()}?{mode}"
    try:
        # No busy wait: a locked file goes to the readers, which wait `busy_timeout_s`.
        with contextlib.closing(sqlite3.connect(uri, uri=True, timeout=0)) as probe:
            names = probe.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            return frozenset(str(name) for (name,) in names)
    except sqlite3.Error:
        return frozenset()


def _database(path: Path, busy_timeout_s: float) -> Source:
    """The SQLite reader whose tables the file holds, else the first that does not refuse it;
    each refuses a database that is not its own (and leaves it as it was). When all refuse,
    the last one's sentence says why."""
    tables = _tables(path)
    rows = sorted(
        (row for row in READERS if row.store is Store.SQLITE),
        key=lambda row: not tables.issuperset(row.tables),
    )
    refused: NotAHistory | None = None
    for row in rows:
        try:
            return _open(row, path, None, busy_timeout_s)
        except NotAHistory as error:
            refused = error
    assert refused is not None  # the table has an SQLite row
    raise refused


def _check_ordinary(path: Path) -> None:
    """The path is there and is a file or a folder (a link followed), else one sentence."""
    try:
        mode = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError) as error:
        raise SourceNotFound(f"There is no file or folder at {path}.") from error
    except OSError as error:
        raise SourceUnreadable(f"{path} cannot be read: {error.strerror or error}.") from error
    _ordinary(path, mode)


def _sniffed(path: Path) -> Reader | None:
    """The EVENTS row whose own `sniff` recognises the file."""
    sniffs: list[tuple[Reader, Callable[[Path], bool]]] = [
        (row, _load(row.sniff)) for row in READERS if row.store is Store.EVENTS
    ]
    return next((row for row, sniff in sniffs if sniff(path)), None)


def open_history(
    location: Path | str,
    *,
    cache_dir: Path | None = None,
    busy_timeout_s: float = DEFAULT_BUSY_TIMEOUT_S,
) -> Source:
    """The reader for what is at `location` (a file or a folder, or `KIND=PATH`); one sentence
    when there is nothing Gander can read there."""
    server = _server(location)
    if server is not None:
        opened: Source = _load(server.server)(str(location))
        return opened
    kind, path = split_kind(location)
    _check_ordinary(path)
    if kind is not None:
        return _named(BY_KIND[kind], path, cache_dir, busy_timeout_s)
    if path.is_dir():
        marked = next(
            (row for row in READERS if row.marker and (path / row.marker).is_file()), None
        )
        if marked is not None:
            return _open(marked, path / marked.marker, cache_dir, busy_timeout_s)
        return _open(_folder_format(path), path, cache_dir, busy_timeout_s)
    head = _head(path)
    if not head:
        raise NotAHistory(f"{path} is an empty file; expected {EXPECTED}.")
    if head.startswith(SQLITE_HEADER):
        return _database(path, busy_timeout_s)
    sniffed = _sniffed(path)
    if sniffed is not None:
        return _open(sniffed, path, cache_dir, busy_timeout_s)
    found = file_format(path, head)
    if found is None:
        raise NotAHistory(f"{path} is not a history Gander can read; expected {EXPECTED}.")
    return _open(BY_KIND[found.kind], path, cache_dir, busy_timeout_s)
