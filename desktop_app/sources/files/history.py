"""A history kept as one file per session (toolnexus, glean-json, goose exports, goose's legacy
`.jsonl` folder) — or a single such file.

The reader only ever reads. Listing needs every session's title, times and counts, so each file
is parsed once and summarised into a catalog kept in Gander's data folder (keyed by the file's
name and `Stamp`, and checked by its first and last blocks), never beside the user's files: a
folder opened again lists at once, and only files that changed are parsed again. A file that
cannot be read becomes a session whose one message says why. Sessions are listed by last
activity, else by file time, newest first. Everything is built lazily, in whichever worker
asks first, under a lock.
"""

import contextlib
import functools
import hashlib
import itertools
import json
import logging
import math
import multiprocessing
import os
import sys
import threading
import time
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from stat import S_ISREG
from typing import Any, BinaryIO, NamedTuple, Protocol

from desktop_app.domain.errors import SourceNotFound, UnknownSession
from desktop_app.domain.message import CursorList, Message, MessageCursor, Role, sort_rank
from desktop_app.domain.parts import UnsupportedPart
from desktop_app.domain.session import Session
from desktop_app.domain.source import (
    Resume,
    SessionCursor,
    SessionPage,
    SessionQuery,
    SessionState,
    SourceInfo,
    with_lineage,
)
from desktop_app.domain.usage import TokenUsage, amount, count
from desktop_app.sources.files.background import collector_paused, quick_switches
from desktop_app.sources.files.following import MARK_BYTES, ReadMark
from desktop_app.sources.files.pages import (
    DOMAIN,
    MessagePages,
    PagesDropped,
    PagesView,
    Placed,
    kept_in,
    layout,
    resident,
    restore,
    row_ids,
    tallied_only,
)
from desktop_app.sources.files.values import Line, json_lines, parsed_lines, unreadable_line
from desktop_app.sources.readers import BY_KIND

_LOG = logging.getLogger(__name__)

KEEP_FROM = 16_000_000
"""A log this long is read for the catalog keeping its pages and reader (`summary_of`): opened
again, it took a second for every 25–40 MB (a 2 GB log: a minute), and read on from the kept
reading it takes what reading its page does."""
MAX_FILE_BYTES = 64_000_000
"""Larger JSON documents (not logs of JSON lines) are not parsed whole: parsing one takes
several times its size in memory. A format that can read one a value at a time does
(`FileFormat.parse_large`: Gemini CLI's recordings); any other such file is listed with a
message saying it is too large. A log of any size is read, a block at a time, into
`MessagePages`."""
PARSED_CACHE_MESSAGES = 20_000
"""Parsed files kept for reading, newest used first, up to this many messages in all (a search
page reads back a few messages from each of some twenty files; the open transcript is one)."""
PARALLEL_FROM = 200
"""A first opening parses this many files or more in worker processes."""
PARALLEL_CHUNK = 100
BEHIND_CHUNK = 8
"""A reading behind the listing hands its workers this many files at a time, and lists each
chunk as it comes back: the newest sessions show in a moment, and a large file holds back
only the few beside it."""
FIRST_HERE_BYTES = 1_000_000
"""Of the newest files, those this small are read first on the reading's own thread, while
the worker processes start."""
BEHIND_BYTES = 64_000_000
"""A first opening of files this large in all reads them behind the listing too, however few:
one 2 GB log held the first window's list empty for three minutes, with nothing said."""
READING_REFRESH_S = 3.0
"""While files are read behind the listing, the change token changes when the first are read,
then this often."""
READ_NOW_FILES = 16
"""Of the files not read yet whose names hold a session id asked for, this many are read at
once (a short id is in many names; the rest come with the reading)."""
MAX_WORKERS = 8
SCAN_REUSE_S = 1.0
"""Listing and reading reuse a scan of the folder this recent (the change poll's, every second)."""
CATALOG_FORMAT = 5
"""Raised when summaries change meaning: 2 adds the current usage, and re-reads goose YAML
exports whose ids and times a YAML 1.1 loader had misread; 3 counts the coding agents'
messages as every kind does (`values.counted`: those shown to the user); 4 keeps the cache
tokens read and written (the usage panel showed "–" for what Claude Code and pi record); 5
keeps each file's inode, change time, first and last blocks and lineage (see `Stamp`)."""


@dataclass(frozen=True, slots=True)
class ParsedSession:
    """What a format's parser makes of one file."""

    session: Session
    messages: Sequence[Message]
    """A list, or a log's `MessagePages` (most of them out of memory)."""


Parser = Callable[[Path, bytes], ParsedSession]


class LogParser(Protocol):
    """A JSON-lines log read a line at a time, so a log an agent is still writing is read on
    from where it was left (never from its start again)."""

    def feed(self, line: Line) -> None: ...

    def result(self, path: Path) -> ParsedSession: ...

    def pages(self) -> MessagePages:
        """Where the messages read are kept."""
        ...


class LineReader(Protocol):
    """A format's reader of a log's lines, one object at a time, and the messages so far."""

    session_id: str
    messages: MessagePages

    def take(self, row: int, value: dict[str, Any]) -> None: ...


class LinesLog:
    """The `LogParser` of a JSON-lines format: a line that could not be read is shown with its
    reason, the others go to the format's reader; `result` makes the session of what was read
    (from a copy of the messages, so an earlier result never changes under its reader)."""

    def __init__(
        self, reader: LineReader, result: Callable[[Any, Path], ParsedSession], kind: str
    ) -> None:
        self.reader = reader
        self._result = result
        self._kind = kind

    def feed(self, line: Line) -> None:
        if line.value is None:
            self.reader.messages.append(unreadable_line(self.reader.session_id, line, self._kind))
        else:
            self.reader.take(line.row, line.value)

    def result(self, path: Path) -> ParsedSession:
        return self._result(self.reader, path)

    def pages(self) -> MessagePages:
        return self.reader.messages


def read_log(open_log: Callable[[Path], LogParser], path: Path, data: bytes) -> ParsedSession:
    """A whole log through its line parser: what `FileFormat.parse` is for such formats."""
    log = open_log(path)
    for line in json_lines(data):
        log.feed(line)
    return log.result(path)


@dataclass
class _OpenLog:
    """How far a log has been read, by whom, and what it held there (`ReadMark`)."""

    offset: int
    rows: int
    parser: LogParser
    mark: ReadMark

    def read_on(self, handle: BinaryIO, inode: int, size: int) -> bool:
        """The whole lines after the offset fed to the parser, a block at a time, up to `size`
        (a half-written last line waits); False when the bytes before the offset are not what
        was read. They are compared before and after the new ones are read, so a rewrite while
        reading is noticed now or at the next read."""
        if size < self.offset or not self.mark.holds(handle, inode, self.offset):
            return False
        handle.seek(self.offset)
        for block in _line_blocks(handle, b"", size - self.offset):
            complete = block[: block.rfind(b"\n") + 1]
            for line in json_lines(complete, self.rows):
                self.parser.feed(line)
            self.advance(complete)
            if len(complete) < len(block):
                break  # the last line, still being written
        return self.mark.holds(handle, inode, self.offset)

    def advance(self, complete: bytes) -> None:
        """Past these bytes (whole lines), read."""
        self.mark.advance(complete)
        self.offset += len(complete)
        self.rows += complete.count(b"\n")


@dataclass(frozen=True, slots=True)
class FileFormat:
    kind: str
    suffixes: tuple[str, ...]
    sniff: Callable[[bytes], bool]
    """Whether the first 64 kB of a file look like this format."""
    parse: Parser
    depth: int = 0
    """How many folder levels below an opened folder hold this format's files (Claude Code:
    `projects/<project>/<session>/subagents/agent-*.jsonl` is 3)."""
    prefixes: tuple[str, ...] = ()
    """When given, only files whose names start so are sessions (Gemini CLI's `session-*`;
    its `logs.json` beside them is a prompt log)."""
    open_log: Callable[[Path], LogParser] | None = None
    """For JSON-lines logs that grow: a parser fed line by line (see `LogParser`)."""
    parse_large: Callable[[Path, BinaryIO, int], ParsedSession] | None = None
    """For a file over `MAX_FILE_BYTES` of a format that is not such a log: read from the
    open file (its size when opened) a value at a time, its messages in `MessagePages`;
    without one, such a file says it is too large to read."""
    resume: Callable[[Session, Path], Resume] | None = None
    """The agent's command that resumes a session, from the session and its file (`Resumable`);
    `None` for formats whose program resumes nothing."""


def is_regular_file(entry: os.DirEntry[str]) -> bool:
    """A file (or a link to one); a link that loops or leads nowhere is not."""
    try:
        return entry.is_file()
    except OSError:
        return False


def walk_files(
    folder: Path, suffixes: tuple[str, ...], depth: int
) -> list[tuple[str, os.DirEntry[str] | Path]]:
    """Each file of a history folder with its name, its path below the folder (`a/b.jsonl`),
    in name order. Folders are walked `depth` levels down; linked folders are not followed, so a
    link loop cannot make the walk endless, and each folder is listed once."""
    found: list[tuple[str, os.DirEntry[str] | Path]] = []
    pending: list[tuple[Path, str, int]] = [(folder, "", 0)]
    while pending:
        current, prefix, level = pending.pop()
        try:
            with os.scandir(current) as entries:
                for entry in entries:
                    if entry.name.endswith(suffixes) and is_regular_file(entry):
                        found.append((prefix + entry.name, entry))
                    elif level < depth and entry.is_dir(follow_symlinks=False):
                        pending.append((Path(entry.path), f"{prefix}{entry.name}/", level + 1))
        except OSError:
            if level == 0:
                raise
    return sorted(found, key=lambda item: item[0])


def file_time(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, tz=UTC)


def broken_file(path: Path, kind: str, reason: str, modified: float) -> ParsedSession:
    """A file that could not be read, as a session that says so (the rest still opens)."""
    message = Message(
        session_id=path.stem,
        row_id=0,
        message_id=None,
        role=Role.UNKNOWN,
        role_raw="",
        created_at=None,
        created_raw=None,
        parts=(UnsupportedPart(source_type=kind, raw_text="", reason=reason),),
    )
    session = Session(id=path.stem, name=path.name, updated_at=file_time(modified), message_count=1)
    return ParsedSession(session=session, messages=[message])


def _format_of(formats: Sequence[FileFormat], path: Path, head: bytes) -> FileFormat | None:
    return next((f for f in formats if path.name.endswith(f.suffixes) and f.sniff(head)), None)


NOT_A_FILE = "it is not a file (a named pipe, a socket or a device), so it is not read"


HEAD_BYTES = 65_536
"""What a file's format is told by (`FileFormat.sniff`)."""
STREAM_BLOCK = 8_000_000
"""A JSON-lines log is read this much at a time, cut after its last line end: its bytes are
never all held beside what is made of them (a 60 MB log peaked at its size twice over: the
bytes and their lines)."""


def open_regular(path: Path) -> BinaryIO | None:
    """The file opened for reading, or None when it is no file: opened without waiting and
    checked, so a named pipe or a device (even one put in a file's place after the folder was
    listed) never blocks or runs on."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    handle = os.fdopen(descriptor, "rb")
    if S_ISREG(os.fstat(descriptor).st_mode):
        return handle
    handle.close()
    return None


def parse_file(path: Path, formats: Sequence[FileFormat]) -> ParsedSession:
    """One file, by the first of `formats` it looks like; whatever goes wrong, a session that
    says so (`collector_paused` meanwhile)."""
    with collector_paused():
        return _parse_file(path, formats)


def _parse_file(path: Path, formats: Sequence[FileFormat]) -> ParsedSession:
    kind = formats[0].kind
    try:
        stat = path.stat()
        handle = open_regular(path)
        if handle is None:
            return broken_file(path, kind, NOT_A_FILE, stat.st_mtime)
    except OSError as error:
        return broken_file(path, kind, f"the file cannot be read ({error.strerror})", 0.0)
    with handle:
        chosen = formats[0]
        try:
            size = os.fstat(handle.fileno()).st_size
            head = handle.read(HEAD_BYTES)
            chosen = _format_of(formats, path, head) or chosen
            if chosen.open_log is not None:
                return _read_stream(chosen.open_log, path, handle, head, size)
            if size > MAX_FILE_BYTES and chosen.parse_large is not None:
                return chosen.parse_large(path, handle, size)
            if size > MAX_FILE_BYTES:
                reason = f"the file is {size:,} bytes, too large to read"
                return broken_file(path, chosen.kind, reason, stat.st_mtime)
            return chosen.parse(path, head + handle.read())
        except OSError as error:
            return broken_file(path, kind, f"the file cannot be read ({error.strerror})", 0.0)
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as error:
            reason = f"the file could not be read: {error}"
            return broken_file(path, chosen.kind, reason, stat.st_mtime)


def _read_stream(
    open_log: Callable[[Path], LogParser], path: Path, handle: BinaryIO, head: bytes, size: int
) -> ParsedSession:
    """A log as `read_log` reads it whole — the same lines, rows and values — read a block of
    whole lines at a time, and no further than its size when it was opened (an agent still
    writing it, or something appending for ever, cannot keep the reading going)."""
    log = open_log(path)
    row = 0
    for block in _line_blocks(handle, head, size - len(head)):
        lines = block.splitlines()
        for line in parsed_lines(lines, row):
            log.feed(line)
        row += len(lines)
    return log.result(path)


def _line_blocks(handle: BinaryIO, first: bytes, remaining: int) -> Iterator[bytes]:
    """`first`, then `remaining` more bytes of the file, in blocks that end just after a line
    end (the last one where the bytes end): cut so, the blocks' lines are the whole's. Ends:
    each turn reads at least a byte of the finite `remaining`, or stops."""
    pending = first
    while remaining > 0:
        more = handle.read(min(STREAM_BLOCK, remaining))
        if not more:
            break
        remaining -= len(more)
        pending += more
        cut = pending.rfind(b"\n") + 1
        if cut:
            yield pending[:cut]
            pending = pending[cut:]
    if pending:
        yield pending


class Keeping(NamedTuple):
    """Where the catalog of a history keeps long logs' readings (`MessagePages.seal`): the
    folder, and the history's key (a file of it is named by the key, then the log's path's)."""

    folder: str
    key: str

    def file_of(self, path: Path) -> Path:
        digest = hashlib.sha256(str(path).encode("utf-8", "surrogateescape")).hexdigest()
        return Path(self.folder) / f"{self.key}-{digest[:24]}.pages"


def _long_to_read(names: list[str], stats: dict[str, "Stamp"]) -> bool:
    """Whether reading these files is for behind the listing: many, or large in all."""
    return len(names) >= PARALLEL_FROM or sum(stats[n].size for n in names) >= BEHIND_BYTES


def summary_of(
    path: Path, formats: Sequence[FileFormat], keeping: Keeping | None = None
) -> dict[str, Any]:
    """What the catalog keeps of a file, read for that alone: a log's pages are tallied, not
    kept (`tallied_only`) — read again, keeping them, when its reader went back to one. A log
    of `KEEP_FROM` bytes or more is read keeping its pages and its reader's state for the
    window's opening of it (`keeping`), which then reads on from there."""
    if keeping is not None:
        kept = _summary_kept(path, formats, keeping.file_of(path))
        if kept is not None:
            return kept
    try:
        with tallied_only():
            parsed = parse_file(path, formats)
    except PagesDropped:
        parsed = parse_file(path, formats)
    return _summary(parsed, len(parsed.messages))


def _summary_kept(path: Path, formats: Sequence[FileFormat], target: Path) -> dict[str, Any] | None:
    """A long log read as the window reads it (`FileHistory._parse`), its reading sealed as
    `target` — or, when a reading of it is kept already and it only grew since, read on from
    that reading (a running agent's log costs the lines it added, not the whole log again);
    None when the file is no long log or cannot be read so (read as any other)."""
    try:
        handle = open_regular(path)
        if handle is None:
            return None
        with handle, collector_paused():
            now = os.fstat(handle.fileno())
            chosen = _format_of(formats, path, handle.read(HEAD_BYTES))
            if now.st_size < KEEP_FROM or chosen is None or chosen.open_log is None:
                return None
            log = restored_log(target, path, chosen.open_log)
            if log is None or not log.read_on(handle, now.st_ino, now.st_size):
                log = read_fresh(chosen.open_log, path, handle, now, target)
            if log is None:
                return None
            parsed = log.parser.result(path)
    except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None  # read as any other file, which says what went wrong
    return _summary(parsed, len(parsed.messages))


def read_fresh(
    opener: Callable[[Path], LogParser],
    path: Path,
    handle: BinaryIO,
    now: os.stat_result,
    target: Path | None,
) -> _OpenLog | None:
    """A log read from its start, to read on as it grows; its reading sealed as `target` when
    one is given (a long log's: `KEEP_FROM`) — also after a reading kept before could not be
    used (another Gander's, or of a log since rewritten), so the next opening reads on from
    this one. None when the log was rewritten as it was read."""
    if target is None:
        log = _OpenLog(0, 0, opener(path), ReadMark(now.st_ino))
    else:
        with kept_in(target.parent):  # the reader's pages, made now, are to be kept
            log = _OpenLog(0, 0, opener(path), ReadMark(now.st_ino))
    if not log.read_on(handle, now.st_ino, now.st_size):
        return None
    if target is not None:
        try:
            log.parser.pages().seal(log, target, reading_shape(opener))
        except (OSError, RecursionError):  # a full disk, a value nested past what pickle
            # writes (`HELD`): read as it is, and read again next time
            _LOG.warning("Gander could not keep its reading of %s in %s.", path, target)
    return log


@functools.cache
def reading_shape(opener: Callable[[Path], LogParser]) -> bytes:
    """The `layout` of what a reading of this format holds: the domain's classes, the files'
    (`_OpenLog`, `ReadMark`, `Tally`), the reader's module's, and the attributes a fresh reader
    has (a reader is pickled by its attributes: one added since would be missing)."""
    reader: object = getattr(opener(Path("shape")), "reader", None)
    attributes = sorted(vars(reader)) if reader is not None else []
    return layout(
        (*DOMAIN, __name__, type(reader).__module__),
        f"{type(reader).__module__}.{type(reader).__qualname__}:{','.join(attributes)}",
    )


def restored_log(kept: Path, path: Path, opener: Callable[[Path], LogParser]) -> _OpenLog | None:
    """The catalog's reading of a long log (`summary_of`), to read on from (it says itself
    whether the log is still the one it read: `_OpenLog.read_on`); None when there is none
    this Gander can read."""
    try:
        state = restore(kept, reading_shape(opener))
    except FileNotFoundError:
        return None
    except Exception:  # a damaged or foreign file of Gander's cache: the log is read afresh
        _LOG.warning("Gander could not use its reading of %s kept in %s.", path, kept)
        return None
    return state if isinstance(state, _OpenLog) else None


def _summarise(
    paths: list[str], formats: Sequence[FileFormat], keeping: Keeping | None = None
) -> list[dict[str, Any]]:
    """In a worker process: the summaries of some files."""
    return [summary_of(Path(path), formats, keeping) for path in paths]


def _yielding() -> None:
    """In a worker process: the CPU goes to the window (and to the agents) whenever they want
    it: the first window's reading of a new machine's histories had it stall 210–250 ms."""
    if hasattr(os, "nice"):
        os.nice(10)


def summaries_in_parallel(
    paths: list[str], formats: Sequence[FileFormat], keeping: Keeping | None = None
) -> list[dict[str, Any]]:
    """The summaries of many files, parsed by one worker process per core (started fresh, not
    forked: the window's threads must not be copied), in order."""
    streamed = summaries_streamed(paths, formats, keeping=keeping)
    return [summary for _, chunk in streamed for summary in chunk]


def summaries_streamed(
    paths: list[str],
    formats: Sequence[FileFormat],
    *,
    size: int | None = None,
    keeping: Keeping | None = None,
) -> Iterator[tuple[list[str], list[dict[str, Any]]]]:
    """The summaries of many files chunk by chunk, by worker processes (as
    `summaries_in_parallel`): in order, or — given a chunk `size` — each chunk as soon as it
    is parsed (a large file holds back only its own chunk). Chunks not started when the
    caller stops are never parsed."""
    workers = min(os.cpu_count() or 1, MAX_WORKERS)
    in_order = size is None
    size = size or max(1, min(PARALLEL_CHUNK, len(paths) // (workers * 4) or 1))
    chunks = [paths[start : start + size] for start in range(0, len(paths), size)]
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_yielding)
    try:
        if in_order:
            results = pool.map(
                _summarise, chunks, [list(formats)] * len(chunks), [keeping] * len(chunks)
            )
            yield from zip(chunks, results, strict=True)
            return
        submitted = {
            pool.submit(_summarise, chunk, list(formats), keeping): chunk for chunk in chunks
        }
        for future in as_completed(submitted):
            yield submitted[future], future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


# ---- the catalog: one summary per file ------------------------------------------------------

_TIME_FIELDS = ("created_at", "updated_at", "last_message_at", "archived_at")
_TOKEN_FIELDS = (
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
)


def _summary(parsed: ParsedSession, total: int) -> dict[str, Any]:
    """What the catalog keeps of a session. A value not of the catalog's type (a reader passing
    on a file's odd value, a time no timestamp can hold) is kept as absent, so every catalog
    written is one `_stored_entry` reads back."""
    s = parsed.session
    summary: dict[str, Any] = {
        "id": s.id,
        "name": s.name,
        "session_type": s.session_type,
        "working_dir": s.working_dir,
        "message_count": s.message_count,
        "total": total,
        "provider": s.provider,
        "model": s.model,
        "cost": s.cost,
        "parent": s.parent_session_id,
    }
    for name in _TIME_FIELDS:
        summary[name] = _seconds(getattr(s, name))
    summary = {key: value if _CHECKS[key](value) else None for key, value in summary.items()}
    for key, usage in (("usage", s.accumulated_usage), ("current_usage", s.usage)):
        figures = [getattr(usage, name) for name in _TOKEN_FIELDS]
        summary[key] = [figure if _whole(figure) else None for figure in figures]
    return summary


def _seconds(value: Any) -> float | None:
    if not isinstance(value, datetime):
        return None
    try:
        return value.timestamp()
    except (OverflowError, OSError, ValueError):
        return None


def _summary_key(summary: dict[str, Any]) -> float:
    """What the list is ordered by: the last message's time, else the file's."""
    for name in ("last_message_at", "updated_at"):
        value = summary.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    return float("-inf")


def _session(summary: dict[str, Any], session_id: str) -> Session:
    def time(name: str) -> datetime | None:
        value = summary.get(name)
        return file_time(value) if isinstance(value, int | float) else None

    def tokens(key: str) -> TokenUsage:
        figures = summary.get(key) or [None] * len(_TOKEN_FIELDS)
        return TokenUsage(**{n: count(v) for n, v in zip(_TOKEN_FIELDS, figures, strict=False)})

    return Session(
        id=session_id,
        name=str(summary.get("name") or session_id),
        session_type=str(summary.get("session_type") or "user"),
        working_dir=summary.get("working_dir"),
        message_count=count(summary.get("message_count")),
        provider=summary.get("provider"),
        model=summary.get("model"),
        cost=amount(summary.get("cost")),
        parent_session_id=summary.get("parent"),
        usage=tokens("current_usage"),
        accumulated_usage=tokens("usage"),
        created_at=time("created_at"),
        updated_at=time("updated_at"),
        last_message_at=time("last_message_at"),
        archived_at=time("archived_at"),
        list_key=_summary_key(summary),
    )


def _list_key(session: Session) -> float:
    return session.list_key if session.list_key is not None else float("-inf")


def _stored_entry(name: str, item: Any) -> "_Entry":
    """A catalog entry as a catalog file holds it, every field of the type `_summary` writes;
    `ValueError` otherwise (a file damaged or written by something else)."""
    if not isinstance(item, dict) or not isinstance(item.get("summary"), dict):
        raise ValueError(name)
    summary: dict[str, Any] = item["summary"]
    stamp: list[Any] = [item.get(field) for field in _STAMP_FIELDS]
    head, tail, lineage = item.get("head"), item.get("tail"), item.get("lineage")
    if not (isinstance(head, str) and isinstance(tail, str) and isinstance(lineage, str)):
        raise ValueError(name)
    valid = (
        all(type(value) is int for value in stamp)
        and all(check(summary.get(field)) for field, check in _CHECKS.items())
        and all(_figures(summary.get(field)) for field in ("usage", "current_usage"))
    )
    if not valid:
        raise ValueError(name)
    return _Entry(name, Stamp(*stamp), head, tail, lineage, summary)


def _text(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _whole(value: Any) -> bool:
    return value is None or type(value) is int


def _number(value: Any) -> bool:
    return value is None or (type(value) in (int, float) and math.isfinite(value))


def _timestamp(value: Any) -> bool:
    if value is None:
        return True
    if type(value) not in (int, float):
        return False
    try:
        file_time(value)
    except (OverflowError, OSError, ValueError):
        return False
    return True


_CHECKS: dict[str, Callable[[Any], bool]] = {
    **dict.fromkeys(
        ("id", "name", "session_type", "working_dir", "provider", "model", "parent"), _text
    ),
    **dict.fromkeys(("message_count", "total"), _whole),
    "cost": _number,
    **dict.fromkeys(_TIME_FIELDS, _timestamp),
}
"""The type of each of a summary's fields but its usage figures."""


def _figures(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) == len(_TOKEN_FIELDS)
        and all(_whole(figure) for figure in value)
    )


class Stamp(NamedTuple):
    """What a scan of the folder knows of a file without reading it. The inode and the change
    time tell a file rewritten with its size and modification time kept (`cp -p`, `rsync -t`,
    `touch -d`, `os.utime`): writing or setting times sets the change time to now."""

    size: int
    mtime_ns: int
    inode: int
    ctime_ns: int


_STAMP_FIELDS = Stamp._fields


INODES = sys.platform != "win32"
"""Windows' folder listing (`os.DirEntry.stat`) gives every file inode 0, and `os.stat` the
real one: there the stamp keeps none (two stamps of one file always compare equal), and its
change time is the file's creation time — the first and last blocks stand in."""


def stamp_of(info: os.stat_result) -> Stamp:
    return Stamp(info.st_size, info.st_mtime_ns, info.st_ino if INODES else 0, info.st_ctime_ns)


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def blocks_of(path: Path, end: int) -> tuple[str, str] | None:
    """The digests of the first `MARK_BYTES` of a file's first `end` bytes and of the last
    `MARK_BYTES` of them: a content check where the stamp cannot tell (a change time some file
    systems do not keep), and how an entry tells a file appended to from one rewritten.
    None when the file cannot be read (or is no longer a file)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:  # bare descriptor calls: this runs for every file of a folder opened again
        if not S_ISREG(os.fstat(descriptor).st_mode):
            return None
        head = os.pread(descriptor, min(MARK_BYTES, end), 0)
        tail = os.pread(descriptor, min(MARK_BYTES, end), max(0, end - MARK_BYTES))
    except OSError:
        return None
    finally:
        os.close(descriptor)
    return _digest(head), _digest(tail)


@dataclass(slots=True)
class _Entry:
    name: str
    stamp: Stamp
    head: str
    tail: str
    """The digests of the file's first and last `MARK_BYTES` when it was summarised."""
    lineage: str
    """Kept while the file is only appended to, new when it was rewritten (see `with_lineage`)."""
    summary: dict[str, Any]

    @property
    def revision(self) -> str:
        return with_lineage(self.lineage, ":".join(map(str, self.stamp)))

    def holds(self, path: Path) -> bool:
        """Whether the file's first and last blocks are those summarised."""
        return blocks_of(path, self.stamp.size) == (self.head, self.tail)

    def grown(self, path: Path, size: int) -> bool:
        """Whether the file is this one with lines appended: longer, and its first block and
        the block that was its last are those summarised."""
        return size > self.stamp.size and self.holds(path)


def _by_id(entries: dict[str, _Entry]) -> dict[str, _Entry]:
    """Each file under its session's id. Of two files with one id the first (by file name)
    keeps it; the other is named `id (file)`, or, when a real id or an earlier such name is
    that already, with ` (2)`, ` (3)`… added: real ids are taken first, so a name given to a
    duplicate is never one a file holds, and no two files ever list as one session."""
    ids = {name: str(entry.summary.get("id") or Path(name).stem) for name, entry in entries.items()}
    found: dict[str, _Entry] = {}
    duplicates: list[tuple[str, _Entry]] = []
    for name, entry in entries.items():
        if ids[name] in found:
            duplicates.append((ids[name], entry))
        else:
            found[ids[name]] = entry
    for session_id, entry in duplicates:
        given = f"{session_id} ({entry.name})"
        tried = given
        for number in itertools.count(2):  # ends: each number tried is new, `found` is finite
            if tried not in found:
                break
            tried = f"{given} ({number})"
        found[tried] = entry
    return found


class _Kept:
    """A parsed file kept for reading, with its messages' positions: a page is found by
    bisection, so reading a session of N messages a page at a time (an export, find, the
    index) costs N, not N per page (a 200,000-message log took 85 s to show as JSON). A log's
    messages are in the order of their rows with no stored time (always, for `MessagePages`):
    their positions are their rows, bisected as they are; any other order is sorted once."""

    __slots__ = ("_keys", "_order", "parsed", "positions", "revision")

    def __init__(self, revision: str, parsed: ParsedSession) -> None:
        self.revision = revision
        self.parsed = parsed
        messages = parsed.messages
        rows = row_ids(messages)
        self.positions = CursorList((None, row) for row in rows)
        self._keys: Sequence[tuple[int, int | float | bytes, int]]
        self._order: Sequence[int]
        if isinstance(messages, MessagePages | PagesView | Placed) or (
            all(m.created_raw is None for m in messages) and _ascending(rows)
        ):
            self._keys = _RowKeys(rows)
            self._order = range(len(rows))
        else:
            keyed = sorted((m.cursor.key(), index) for index, m in enumerate(messages))
            self._keys = [key for key, _ in keyed]
            self._order = [index for _, index in keyed]

    def _span(self, first: MessageCursor, last: MessageCursor) -> Sequence[int]:
        low = bisect_left(self._keys, first.key())
        high = bisect_right(self._keys, last.key(), lo=low)
        return self._order[low:high]

    def between(self, first: MessageCursor, last: MessageCursor) -> list[Message]:
        """The messages from `first` to `last`, in the file's order."""
        messages = self.parsed.messages
        return [messages[index] for index in sorted(self._span(first, last))]

    def at(self, positions: Sequence[MessageCursor]) -> list[Message]:
        """The messages at these positions, in the file's order."""
        chosen = {index for position in positions for index in self._span(position, position)}
        messages = self.parsed.messages
        return [messages[index] for index in sorted(chosen)]


def _ascending(rows: Sequence[int]) -> bool:
    return all(a <= b for a, b in itertools.pairwise(rows))


class _RowKeys(Sequence[tuple[int, int | float | bytes, int]]):
    """The cursor keys of positions with no stored time, made as bisection asks for them."""

    __slots__ = ("_rows",)

    def __init__(self, rows: Sequence[int]) -> None:
        self._rows = rows

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, index: Any) -> Any:
        return (*sort_rank(None), self._rows[index])


@dataclass
class _Reading:
    """A first reading of many files behind the listing (`catalogue_in_background`): the files
    still to read, how many there were, each one's stamp when the reading began and what the
    catalog knew of it then (a file that only grew keeps its lineage), and when it is over."""

    pending: set[str]
    total: int
    stats: dict[str, Stamp]
    earlier: dict[str, _Entry]
    done: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None
    started: float = field(default_factory=time.monotonic)


class FileHistory:
    """The reader contract (and a change feed) over one file or a folder of files."""

    def __init__(
        self, location: Path, formats: Sequence[FileFormat], cache_dir: Path | None
    ) -> None:
        self.location = Path(os.path.abspath(location))
        if not self.location.exists():
            raise SourceNotFound(f"There is no file or folder at {location}.")
        self.formats = list(formats)
        self.kind = self.formats[0].kind
        key = hashlib.sha256(str(self.location).encode()).hexdigest()[:20]
        self._cache_file = cache_dir / "catalog" / f"{key}.json" if cache_dir else None
        self._keeping = Keeping(str(cache_dir / "pages"), key) if cache_dir else None
        """Where long logs' readings are kept (`summary_of`); none without a data folder."""
        self._lock = threading.RLock()
        self._entries: dict[str, _Entry] | None = None
        self._order: list[tuple[float, str]] = []
        """Every session's (list key, id), newest first."""
        self._by_id: dict[str, _Entry] = {}
        self._parents: set[str] = set()
        self._logs: dict[str, _OpenLog] = {}
        """Logs being followed (those of the parsed files kept for reading)."""
        """Sessions that other files name as their parent (sub-agents' sessions)."""
        self._built: dict[str, Session] = {}
        """Sessions made from their summaries so far: only those a page or a reader asked for."""
        self._parsed: OrderedDict[str, _Kept] = OrderedDict()
        self._scanned: tuple[float, dict[str, Stamp]] | None = None
        self._catalogued: dict[str, Stamp] = {}
        """The stamp of each file as the catalog has it."""
        self._catalogued_from: dict[str, Stamp] | None = None
        """The scan the catalog was last found current with (the same scan needs no check)."""
        self._suspect: set[str] = set()
        """Files whose stamp is the catalog's but whose content is not: summarised again."""
        self._behind = False
        """Whether a first reading of many files may run behind the listing."""
        self._reading: _Reading | None = None

    def info(self) -> SourceInfo:
        row = BY_KIND.get(self.kind)
        return SourceInfo(
            kind=self.kind, location=str(self.location), agent=row.agent if row else ""
        )

    # ---- files ------------------------------------------------------------------------------

    def _files(self) -> list[tuple[str, os.DirEntry[str] | Path]]:
        if self.location.is_file():
            return [(self.location.name, self.location)]
        suffixes = tuple(s for f in self.formats for s in f.suffixes)
        found = walk_files(self.location, suffixes, max(f.depth for f in self.formats))
        prefixes = tuple(p for f in self.formats for p in f.prefixes)
        if prefixes and all(f.prefixes for f in self.formats):
            found = [(n, e) for n, e in found if n.rsplit("/", 1)[-1].startswith(prefixes)]
        return found

    def _stat(self, max_age_s: float = 0.0) -> dict[str, Stamp]:
        """Every file's stamp: from a scan at most `max_age_s` old. The change poll always
        scans afresh, so whatever a detected change triggers sees at least that scan."""
        with self._lock:
            if self._scanned is not None and time.monotonic() - self._scanned[0] <= max_age_s:
                return self._scanned[1]
        found: dict[str, Stamp] = {}
        for name, item in self._files():
            try:
                found[name] = stamp_of(item.stat())
            except OSError:
                continue
        with self._lock:
            self._scanned = (time.monotonic(), found)
        return found

    def _path(self, name: str) -> Path:
        return self.location if self.location.is_file() else self.location / name

    def _parse(self, name: str, *, keep: bool = False) -> ParsedSession:
        """A file parsed. A log already being followed (or one to follow, `keep`) is read on
        from where it was left: the new complete lines only; a half-written last line waits."""
        opener = self.formats[0].open_log if len(self.formats) == 1 else None
        if opener is None or (not keep and name not in self._logs):
            return parse_file(self._path(name), self.formats)
        path = self._path(name)
        try:
            stat = path.stat()
            if not S_ISREG(stat.st_mode):
                return parse_file(path, self.formats)
            with path.open("rb") as handle, collector_paused():
                now = os.fstat(handle.fileno())
                log = self._logs.pop(name, None) or self._restored(path, opener)
                if log is None or not log.read_on(handle, now.st_ino, now.st_size):
                    log = read_fresh(opener, path, handle, now, self._kept_as(path, now))
                    if log is None:
                        return parse_file(path, self.formats)  # rewritten as it was read
                self._logs[name] = log
                return log.parser.result(path)
        except OSError:
            return parse_file(path, self.formats)

    def _restored(self, path: Path, opener: Callable[[Path], LogParser]) -> _OpenLog | None:
        if self._keeping is None:
            return None
        return restored_log(self._keeping.file_of(path), path, opener)

    def _kept_as(self, path: Path, now: os.stat_result) -> Path | None:
        """Where a long log's reading read here is kept (`read_fresh`); None for a short one."""
        if self._keeping is None or now.st_size < KEEP_FROM:
            return None
        return self._keeping.file_of(path)

    def _summaries(
        self, names: list[str]
    ) -> tuple[dict[str, dict[str, Any]], dict[str, ParsedSession]]:
        """Parse these files and summarise them: in worker processes when there are many (a
        first opening), one file at a time otherwise, with the parsed files to keep for reading
        (`show` of a long session parses its file once, not for the list and again). A log is
        kept only when followed (or long and kept, `_kept_long`): its reading follows it (a
        half-written last line waits); one not followed is read for its summary alone
        (`summary_of`: a long one's reading kept for its opening)."""
        if len(names) >= PARALLEL_FROM and (os.cpu_count() or 1) > 1:
            paths = [str(self._path(name)) for name in names]
            try:
                found = summaries_in_parallel(paths, self.formats, self._keeping)
                return dict(zip(names, found, strict=True)), {}
            except (OSError, BrokenProcessPool):
                pass  # no worker processes here (a sandbox, no /dev/shm): parse them in turn
        logs = self.formats[0].open_log is not None and len(self.formats) == 1
        followed = [n for n in names if not logs or n in self._logs or self._kept_long(n)]
        parses = {n: self._parse(n, keep=True) for n in followed}
        summaries = {name: _summary(p, len(p.messages)) for name, p in parses.items()}
        return summaries | {n: self._summary_here(n) for n in names if n not in parses}, parses

    def _kept_long(self, name: str) -> bool:
        """Whether a log has a reading kept (`summary_of`): read again (it changed), it is read
        on from that reading and followed from then on, in memory — a running agent's long log
        costs the lines it adds, not a restored reading at every change."""
        return self._keeping is not None and self._keeping.file_of(self._path(name)).exists()

    # ---- the catalog ------------------------------------------------------------------------

    def _load_cache(self) -> dict[str, _Entry]:
        if self._cache_file is None or not self._cache_file.exists():
            return {}
        try:
            raw = json.loads(self._cache_file.read_text(encoding="utf-8"))
            if raw.get("format") != CATALOG_FORMAT or raw.get("location") != str(self.location):
                return {}
            files = raw["files"]
            if not isinstance(files, dict):
                raise TypeError("files")
            return {name: _stored_entry(name, item) for name, item in files.items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            # every file is parsed again and the catalog written afresh: a damaged one said
            # once, not met as a traceback by every listing after
            _LOG.warning(
                "The catalog of %s in %s was damaged, so Gander read the files again.",
                self.location,
                self._cache_file,
            )
            return {}

    def _save_cache(self, entries: dict[str, _Entry]) -> None:
        if self._cache_file is None:
            return
        payload = {
            "format": CATALOG_FORMAT,
            "location": str(self.location),
            "files": {
                e.name: {
                    **e.stamp._asdict(),
                    "head": e.head,
                    "tail": e.tail,
                    "lineage": e.lineage,
                    "summary": e.summary,
                }
                for e in entries.values()
            },
        }
        self._forget_readings(entries)
        temporary = self._cache_file.with_suffix(".part")
        try:
            self._cache_file.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_text(json.dumps(payload), encoding="utf-8")
            temporary.replace(self._cache_file)
        except OSError:
            # a catalog that cannot be written (a full disk) only makes the next opening
            # slower; what was written of it must not stay behind, filling the disk further
            with contextlib.suppress(OSError):
                temporary.unlink(missing_ok=True)

    def _forget_readings(self, entries: dict[str, _Entry]) -> None:
        """Readings kept of this history's logs (`summary_of`) that no log of the catalog is
        long enough for, or that no log has any more, deleted (a log still to be read keeps
        its own); and any a reading left unsealed an hour ago (a worker stopped as it wrote)."""
        if self._keeping is None:
            return
        long = [name for name, entry in entries.items() if entry.stamp.size >= KEEP_FROM]
        reading = self._reading  # its files not read yet may have been read just now
        wanted = {
            self._keeping.file_of(self._path(name))
            for name in [*long, *(reading.pending if reading is not None else ())]
        }
        folder = Path(self._keeping.folder)
        try:
            stale = [f for f in folder.glob(f"{self._keeping.key}-*.pages") if f not in wanted]
            cutoff = time.time() - 3600
            stale += [f for f in folder.glob(".*.part") if f.stat().st_mtime < cutoff]
        except OSError:
            return
        for found in stale:
            with contextlib.suppress(OSError):
                found.unlink()

    def _catalog(self, max_age_s: float = SCAN_REUSE_S) -> dict[str, _Entry]:
        """The files as they are now (or as a scan `max_age_s` ago found them): unchanged ones
        from the catalog, the rest parsed. An entry of the catalog file is trusted only when
        its first and last blocks are still those summarised (once, when the catalog is read).
        While a first reading runs behind the listing, the files it has not read yet are left
        out; when it may (`catalogue_in_background`), a first opening of many files starts one
        rather than reading them all first."""
        with self._lock:
            stats = self._stat(max_age_s)
            if (
                self._entries is not None
                and not self._suspect
                and (stats is self._catalogued_from or stats == self._catalogued)
            ):
                self._catalogued_from = stats
                return self._entries
            loaded = self._entries is None
            known = self._load_cache() if self._entries is None else self._entries
            unchanged = {
                name: old
                for name, old in known.items()
                if name in stats
                and name not in self._suspect
                and old.stamp == stats[name]
                and (not loaded or old.holds(self._path(name)))
            }
            todo = [name for name in stats if name not in unchanged]
            if self._behind and self._reading is None and _long_to_read(todo, stats):
                self._read_behind(todo, stats, known)
            pending = self._reading.pending if self._reading is not None else set()
            todo = [name for name in todo if name not in pending]
            fresh, parses = self._summaries(todo)
            entries: dict[str, _Entry] = {}
            for name, stamp in stats.items():
                if name in unchanged or name in fresh:
                    entries[name] = unchanged.get(name) or self._entry(
                        name, stamp, known.get(name), fresh[name]
                    )
            if todo or len(entries) != len(known):
                self._save_cache(entries)
            self._entries = entries
            self._suspect.clear()
            self._catalogued = {n: e.stamp for n, e in entries.items()}
            self._catalogued_from = stats
            self._index(entries)
            for name, parsed in parses.items():
                if name in self._parsed or self._room_for(resident(parsed.messages)):
                    self._remember(name, entries[name].revision, parsed)
            return entries

    def catalogue_in_background(self) -> None:
        """From now on a first opening of many files lists at once: they are read behind the
        listing, newest first, and the list shows those read so far (the window asks this; the
        CLI does not, and lists only once every file is read)."""
        self._behind = True

    def cataloguing(self) -> tuple[int, int] | None:
        """While files are read behind the listing: how many are read, of how many."""
        reading = self._reading
        if reading is None:
            return None
        return reading.total - len(reading.pending), reading.total

    def _read_behind(
        self, names: list[str], stats: dict[str, Stamp], known: dict[str, _Entry]
    ) -> None:
        """Start reading these files on a thread of their own (under the lock: `_catalog`),
        with what the catalog knew of them (a file that only grew keeps its lineage)."""
        newest_first = sorted(names, key=lambda name: stats[name].mtime_ns, reverse=True)
        reading = _Reading(
            pending=set(names),
            total=len(names),
            stats={name: stats[name] for name in names},
            earlier={name: known[name] for name in names if name in known},
        )
        reading.thread = threading.Thread(
            target=self._read_all, args=(reading, newest_first), name="gander-catalog"
        )
        reading.thread.daemon = True
        self._reading = reading
        reading.thread.start()

    def _read_all(self, reading: _Reading, names: list[str]) -> None:
        """The reading behind the listing: each chunk of files, as it is read, joins the
        catalog (`_join`). Whatever goes wrong, the reading ends: the files it did not read are
        read by the next listing, in turn."""
        try:
            for chunk, summaries in self._summaries_in_turn(names):
                with self._lock:
                    if self._reading is not reading:
                        return  # closed
                    self._join(reading, dict(zip(chunk, summaries, strict=True)))
        except Exception:  # a reading that fails must end, and say so in the log
            _LOG.warning("Reading the files of %s stopped early.", self.location, exc_info=True)
        finally:
            with self._lock:
                if self._reading is reading:
                    self._reading = None
                    if self._entries is not None:
                        self._save_cache(self._entries)
            reading.done.set()

    def _summaries_in_turn(
        self, names: list[str]
    ) -> Iterator[tuple[list[str], list[dict[str, Any]]]]:
        """Summaries of these files chunk by chunk: by worker processes when there is more than
        one core and they can start, else one file after another here."""
        first = [n for n in names[:BEHIND_CHUNK] if self._size(n) <= FIRST_HERE_BYTES]
        if first:  # listed while the workers start (about a second), gently (`quick_switches`)
            with quick_switches():
                summaries = [self._summary_here(name) for name in first]
            yield first, summaries
            read_first = set(first)
            names = [n for n in names if n not in read_first]
        paths = [str(self._path(name)) for name in names]
        by_path = dict(zip(paths, names, strict=True))
        done = 0
        if (os.cpu_count() or 1) > 1:
            try:
                streamed = summaries_streamed(
                    paths, self.formats, size=BEHIND_CHUNK, keeping=self._keeping
                )
                for chunk, summaries in streamed:
                    yield [by_path[path] for path in chunk], summaries
                    done += len(chunk)
            except (OSError, BrokenProcessPool):
                pass  # no worker processes here: the rest one after another
            else:
                return
        for start in range(done, len(names), PARALLEL_CHUNK):
            chunk = names[start : start + PARALLEL_CHUNK]
            yield chunk, [self._summary_here(name) for name in chunk]

    def _summary_here(self, name: str) -> dict[str, Any]:
        return summary_of(self._path(name), self.formats, self._keeping)

    def _size(self, name: str) -> int:
        try:
            return self._path(name).stat().st_size
        except OSError:
            return 0

    def _read_through(self) -> None:
        """Wait for a reading behind the listing to end (never under the lock, which it needs;
        never on its own thread)."""
        reading = self._reading
        if reading is not None and threading.current_thread() is not reading.thread:
            reading.done.wait()

    def _read_now(self, session_id: str) -> None:
        """While files are read behind the listing, a session asked for by id that is not read
        yet: the files still to read whose names hold the id (every coding agent names a
        session's file by its id) are read at once, here. A session whose file does not is
        unknown until the reading reaches it — the shared worker is never held for the whole
        reading (the window asks for the session it last showed, perhaps of another history,
        before the list). Under the lock (`_catalog` has just run)."""
        with self._lock:
            reading = self._reading
            if reading is None or session_id in self._by_id:
                return
            names = sorted(
                n
                for n in reading.pending
                if session_id in n and reading.stats[n].size < BEHIND_BYTES
            )[:READ_NOW_FILES]  # a long log is left to the reading: it would hold the worker
            if names:
                self._join(reading, {name: self._summary_here(name) for name in names})

    def _join(self, reading: _Reading, summaries: dict[str, dict[str, Any]]) -> None:
        """Files read behind the listing join the catalog (under the lock), each once: one
        read at once for a reader (`_read_now`) is not joined again when the reading reaches
        it. A file changed meanwhile is read again by the next listing (its stamp differs from
        the reading's)."""
        entries = dict(self._entries or {})
        for name, summary in summaries.items():
            if name in reading.pending:
                stamp = reading.stats[name]
                entries[name] = self._entry(name, stamp, reading.earlier.get(name), summary)
                reading.pending.discard(name)
        self._entries = entries
        self._catalogued = {n: e.stamp for n, e in entries.items()}
        self._index(entries)

    def _room_for(self, messages: int) -> bool:
        """Whether a file parsed for the catalog fits among those kept without pushing out one
        being read (a 200,000-message session read page by page must not be parsed again
        because another file changed), or nothing is kept yet (`show` of one long file)."""
        kept = sum(resident(k.parsed.messages) for k in self._parsed.values())
        return not self._parsed or kept + messages <= PARSED_CACHE_MESSAGES

    def _entry(
        self, name: str, stamp: Stamp, old: _Entry | None, summary: dict[str, Any]
    ) -> _Entry:
        """A file summarised afresh; its lineage kept when it only grew (lines appended)."""
        path = self._path(name)
        head, tail = blocks_of(path, stamp.size) or ("", "")
        if old is not None and old.grown(path, stamp.size):
            lineage = old.lineage
        else:
            lineage = _digest(f"{name}\0{tuple(stamp)}\0{head}{tail}".encode())
        return _Entry(name, stamp, head, tail, lineage, summary)

    def _index(self, entries: dict[str, _Entry]) -> None:
        """The order of the list, from the summaries alone (a `Session` is made only when a
        page or a reader needs it: opening a large folder again stays quick)."""
        self._by_id = _by_id(entries)
        self._built = {}
        self._order = sorted(
            ((_summary_key(entry.summary), sid) for sid, entry in self._by_id.items()),
            reverse=True,
        )
        self._parents = {
            str(parent)
            for entry in self._by_id.values()
            if (parent := entry.summary.get("parent")) in self._by_id
        }

    def _session(self, session_id: str) -> Session:
        found = self._built.get(session_id)
        if found is None:
            found = _session(self._by_id[session_id].summary, session_id)
            if session_id in self._parents:
                found = replace(found, has_children=True)
            self._built[session_id] = found
        return found

    def _remember(self, name: str, revision: str, parsed: ParsedSession) -> _Kept:
        kept_file = _Kept(revision, parsed)
        self._parsed[name] = kept_file
        self._parsed.move_to_end(name)
        kept = sum(resident(k.parsed.messages) for k in self._parsed.values())
        while kept > PARSED_CACHE_MESSAGES and len(self._parsed) > 1:
            evicted, dropped = self._parsed.popitem(last=False)
            kept -= resident(dropped.parsed.messages)
            self._logs.pop(evicted, None)
        return kept_file

    def _kept(self, session_id: str) -> _Kept:
        """A session's file as parsed: parsed again only when its stamp or its first or last
        block changed (a `stat` and two small reads of its own, not a scan of the folder), else
        the parse kept, with its index."""
        with self._lock:
            self._catalog()
            self._read_now(session_id)  # perhaps in a file not read yet
            entry = self._by_id.get(session_id)
            if entry is None:
                raise UnknownSession(f"There is no session with id {session_id!r}.")
            path = self._path(entry.name)
            try:
                changed = stamp_of(path.stat()) != entry.stamp
            except OSError:
                changed = True
            if not changed and not entry.holds(path):
                self._suspect.add(entry.name)
                changed = True
            if changed:
                self._catalog(max_age_s=0.0)
                entry = self._by_id.get(session_id)
                if entry is None:
                    raise UnknownSession(f"There is no session with id {session_id!r}.")
            cached = self._parsed.get(entry.name)
            if cached is not None and cached.revision == entry.revision:
                self._parsed.move_to_end(entry.name)
                return cached
            return self._remember(entry.name, entry.revision, self._parse(entry.name, keep=True))

    # ---- the reader contract ------------------------------------------------------------------

    def list_sessions(
        self, query: SessionQuery, *, after: SessionCursor | None = None, limit: int = 100
    ) -> SessionPage:
        page: list[Session] = []
        more = False
        with self._lock:
            self._catalog()
            start = 0
            if after is not None:
                bound = (after.sort_at, after.session_id)
                start = next(
                    (i for i, key in enumerate(self._order) if key < bound), len(self._order)
                )
            for _, session_id in itertools.islice(self._order, start, None):
                session = self._session(session_id)
                if not query.matches(session):
                    continue
                if len(page) == limit:
                    more = True
                    break
                page.append(session)
        cursor = None
        if more and page:
            last = page[-1]
            cursor = SessionCursor(_list_key(last), last.id)
        return SessionPage(sessions=tuple(page), next_cursor=cursor)

    def count_sessions(self, query: SessionQuery) -> int:
        with self._lock:
            self._catalog()
            return sum(
                1 for _, session_id in self._order if query.matches(self._session(session_id))
            )

    def get_session(self, session_id: str, *, with_message_count: bool = True) -> Session:
        del with_message_count  # counted when the file was catalogued
        with self._lock:
            self._catalog()
            self._read_now(session_id)  # perhaps in a file not read yet
            if session_id not in self._by_id:
                raise UnknownSession(f"There is no session with id {session_id!r}.")
            return self._session(session_id)

    def positions(self, session_id: str) -> Sequence[MessageCursor]:
        try:
            return self._kept(session_id).positions
        except UnknownSession:
            return CursorList()

    def messages_between(
        self, session_id: str, first: MessageCursor, last: MessageCursor
    ) -> Sequence[Message]:
        return self._kept(session_id).between(first, last)

    def messages_at(self, session_id: str, positions: Sequence[MessageCursor]) -> Sequence[Message]:
        return self._kept(session_id).at(positions)

    def close(self) -> None:
        with self._lock:
            self._parsed.clear()
            self._reading = None  # a reading behind the listing stops at its next chunk

    # ---- the agent's own ways in ------------------------------------------------------------

    def session_file(self, session_id: str) -> str | None:
        """The session's file, from the catalog as the list last read it: asked by the window
        for the open session, so it never scans the folder (nor waits for a scan to end)."""
        entry = self._by_id.get(session_id)  # replaced whole by `_index`, never changed in place
        return str(self._path(entry.name)) if entry is not None else None

    def resume(self, session: Session) -> Resume | None:
        """The command of the history's format (`FileFormat.resume`), for one of its files."""
        command = self.formats[0].resume
        found = self.session_file(session.id)
        return command(session, Path(found)) if command and found else None

    # ---- change feed ------------------------------------------------------------------------

    def change_token(self) -> str:
        """The files' names, sizes and times: a cheap scan of the folder."""
        digest = hashlib.sha256(json.dumps(sorted(self._stat().items())).encode()).hexdigest()
        return f"files:{digest}" + self._reading_step()

    def _reading_step(self) -> str:
        """While files are read behind the listing, what of the token changes as they are: when
        the first are read, then every `READING_REFRESH_S` — the window lists them at once, then
        every few seconds rather than at every poll (a refresh of a long list costs the window
        40–60 ms: its reset, the selection kept, the rows painted again)."""
        reading = self._reading
        if reading is None:
            return ""
        if len(reading.pending) == reading.total:
            return ":reading 0"
        return f":reading {1 + int((time.monotonic() - reading.started) / READING_REFRESH_S)}"

    def changed_since(self, token: str) -> frozenset[str] | None:
        del token
        return None  # every session's revision is at hand: comparing them all is cheap

    def session_states(self, session_ids: Sequence[str] | None) -> dict[str, SessionState]:
        self._read_through()  # every session: one not read yet is not one gone
        with self._lock:
            self._catalog(max_age_s=0.0)
            chosen = self._by_id if session_ids is None else session_ids
            return {
                sid: SessionState(
                    session=self._session(sid),
                    revision=self._by_id[sid].revision,
                    message_total=self._by_id[sid].summary.get("total"),
                )
                for sid in chosen
                if sid in self._by_id
            }
