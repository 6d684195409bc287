"""The messages of a log of any size, most of them out of memory.

A coding agent's log can be gigabytes (Claude Code transcripts of 2.4 GB, Codex rollouts of
328 MB are reported): its messages take several times the log's size in memory, so they cannot
all be held. A log's reader appends its messages to `MessagePages` as it reads; past the first
few pages each full page is pickled, compressed (zstandard: a page of Claude Code messages
shrinks about twelvefold) and written to a file of its own that no other process can open — an
unnamed temporary file, gone when it is closed or the process ends, so nothing of a transcript
is left on disk. A page is read back (and a few kept) when asked for. Only Gander writes that
file, and only this process reads it back, so unpickling it runs nothing that was not Gander's.

The pages hold what the log's reader made; the last `BEHIND` of them stay in memory for the
reader to change (one Claude Code reply is written over several lines, and may be added to
later). A page already written is written again when changed.

A long log read for the catalog may keep its pages for the next process (`kept_in`): they are
written to a file of Gander's own data folder, and sealed (`seal`) with its reader's state
pickled after them, so the window opens it, and reads on as it grows, without reading it again
(`restore`). Such a file is only ever read as Gander wrote it: its first and last bytes say so,
and the layout of every class it holds must be this Gander's (`layout`).
"""

import dataclasses
import hashlib
import importlib
import itertools
import os
import pickle
import tempfile
import threading
import weakref
from abc import abstractmethod
from array import array
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, BinaryIO, overload

import zstandard

from desktop_app.domain.message import Message
from desktop_app.sources.files.tally import Counting, Everything, Tally

PAGE_MESSAGES = 512
"""Messages per page: a page of Claude Code messages is 5–10 MB in memory."""
BEHIND = 2
"""Full pages kept in memory behind the one being filled before they are written out: a log of
this many pages or fewer never touches the disk."""
LOADED = 4
"""Pages read back and kept, newest used first (a transcript page, a search hit's neighbours)."""
LEVEL = 3
"""zstandard's level: level 1 writes faster, but level 3's pages are smaller, and writing
costs a tenth of what making the messages did."""


class PagesDropped(Exception):
    """A message of a page dropped was asked for (`tallied_only`): read the log again, keeping
    its pages."""


_KEEPING: ContextVar[bool | Path] = ContextVar("keeping", default=True)
"""Pages are kept in a temporary file (True), only tallied (False) or kept in a file in this
folder for the next process (`kept_in`)."""
_BASE: ContextVar[list[Any] | None] = ContextVar("base", default=None)
"""The sealed file pages are being restored from (`restore`), and whether pages took it."""
MAGIC = b"GanderP1"
"""A sealed pages file's first and last bytes."""


DOMAIN = (
    "desktop_app.domain.actions",
    "desktop_app.domain.combined",
    "desktop_app.domain.message",
    "desktop_app.domain.parts",
    "desktop_app.domain.reading",
    "desktop_app.domain.search",
    "desktop_app.domain.session",
    "desktop_app.domain.source",
    "desktop_app.domain.usage",
    "desktop_app.sources.files.following",
    "desktop_app.sources.files.tally",
)
"""The modules whose classes a sealed reading holds, whatever its format (named, not walked:
a bundled Gander lists no package's modules); test_kept_readings.py checks the domain's are
all here."""
LAYOUT_BYTES = 32
HELD = 2
"""A page's place (`MessagePages._spans`) when it stays in memory: pickling it ran out of
recursion (a value nested some 500 deep, which JSON reads but pickle cannot write)."""


def layout(modules: Iterable[str], *more: str) -> bytes:
    """A digest of the fields of every dataclass of `modules`, and of `more`: a reading is
    read back only by a Gander whose classes are made the same (a dataclass pickles its values
    in the order of its fields, so a field added would read back as its neighbour's value)."""
    shapes = set(more)
    for name in modules:
        for value in vars(importlib.import_module(name)).values():
            if dataclasses.is_dataclass(value) and isinstance(value, type):
                names = [f.name for f in dataclasses.fields(value)]
                shapes.add(f"{value.__module__}.{value.__qualname__}:{','.join(names)}")
    digest = hashlib.blake2b("\n".join(sorted(shapes)).encode(), digest_size=LAYOUT_BYTES // 2)
    return digest.hexdigest().encode()


@contextmanager
def tallied_only() -> Iterator[None]:
    """Logs read meanwhile (on this thread) keep only their pages' tallies, not the pages: what
    the catalog needs of a log, without the cost of writing its messages out (a third of the
    reading). A reader that goes back to a message no longer kept raises `PagesDropped`."""
    token = _KEEPING.set(False)
    try:
        yield
    finally:
        _KEEPING.reset(token)


@contextmanager
def kept_in(folder: Path) -> Iterator[None]:
    """Logs read meanwhile (on this thread) keep their pages in a file of their own in `folder`
    (see `seal`) rather than in a temporary one."""
    token = _KEEPING.set(folder)
    try:
        yield
    finally:
        _KEEPING.reset(token)


class _Listed(Sequence[Message]):
    """Compared as a list is (with a list, or another such sequence), element by element."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, list | _Listed):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {len(self):,} messages>"

    @overload
    def __getitem__(self, index: int) -> Message: ...

    @overload
    def __getitem__(self, index: slice) -> list[Message]: ...

    def __getitem__(self, index: int | slice) -> Message | list[Message]:
        if isinstance(index, slice):
            return [self._at(i) for i in range(*index.indices(len(self)))]
        return self._at(self._place(index))

    def _place(self, index: int) -> int:
        """`index` counted from the start (a negative one from the end); `IndexError` when it
        is no message's."""
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("message index out of range")
        return index

    @abstractmethod
    def _at(self, index: int) -> Message:
        """The message at `index`, a place of one (`_place`)."""


class MessagePages(_Listed):
    """A log's messages in order: appended to, read and replaced by index, every
    position's row id at hand (`row_ids`) without reading a page. Positions are ordered by
    their row ids as a log's are: file readers give no stored timestamp (`created_raw`), only
    the row of the line a message came from, so a message is only appended at or after the last
    one's row."""

    def __init__(self, counting: Counting | None = None) -> None:
        self._counting: Counting = counting or Everything()
        self._keep = _KEEPING.get()
        """Whether pages written out are kept (else only tallied: `tallied_only`), and where
        (a folder: `kept_in`)."""
        self._size = PAGE_MESSAGES
        self._tallies: list[Tally] = []
        """Each page written out, tallied when it was (`tally`)."""
        self._rows = array("q")
        self._tail: list[Message] = []
        """The messages from `_tail_start` on, in memory."""
        self._tail_start = 0
        self._spans: list[tuple[int, int, int]] = []
        """Where each page written out is: (file, offset, length), the file 0 this process's
        own, 1 the sealed file the pages were restored from; offset -1 when not kept."""
        self._file: BinaryIO | None = None
        self._path: Path | None = None
        """The file's, while it is one to seal (`kept_in`)."""
        self._base: BinaryIO | None = None
        self._end = 0
        self._loaded: OrderedDict[int, list[Message]] = OrderedDict()
        self._held: dict[int, list[Message]] = {}
        """Pages that could not be pickled (`HELD`), by number."""
        self._lock = threading.RLock()
        """A transcript's worker reads pages while the log's reader appends (a growing log)."""

    # ---- writing ------------------------------------------------------------------------------

    def append(self, message: Message) -> None:
        if message.created_raw is not None:
            raise ValueError("a log's messages are ordered by their rows alone")
        if self._rows and message.row_id < self._rows[-1]:
            raise ValueError("a log's messages come in the order of their rows")
        with self._lock:
            self._rows.append(message.row_id)
            self._tail.append(message)
            if len(self._tail) >= self._size * (BEHIND + 1):
                self._write(len(self._spans), self._tail[: self._size], None)
                del self._tail[: self._size]
                self._tail_start += self._size

    def __setitem__(self, index: int, message: Message) -> None:
        """The message at `index` replaced by one of the same row (a reply's later lines)."""
        with self._lock:
            index = self._place(index)
            if message.row_id != self._rows[index] or message.created_raw is not None:
                raise ValueError("a message is replaced by one of the same row")
            if index >= self._tail_start:
                self._tail[index - self._tail_start] = message
                return
            number, within = divmod(index, self._size)
            page = list(self._page(number))
            page[within] = message
            self._write(number, page, self._spans[number])

    def _write(self, number: int, page: list[Message], old: tuple[int, int, int] | None) -> None:
        """A page written after the others (a changed page's old bytes are left unread), and
        tallied; only tallied when pages are not kept (`tallied_only`)."""
        span = (0, -1, 0)
        self._held.pop(number, None)
        if self._keep is not False:
            try:
                pickled = pickle.dumps(page, protocol=pickle.HIGHEST_PROTOCOL)
            except RecursionError:  # a value nested some 500 deep: this page stays in memory
                self._held[number] = page
                span = (HELD, 0, 0)
            else:
                data = zstandard.ZstdCompressor(level=LEVEL).compress(pickled)
                span = (0, self._append(data), len(data))
        tally = Tally.of(page, self._counting)
        if old is None:
            self._spans.append(span)
            self._tallies.append(tally)
        else:
            self._spans[number] = span
            self._tallies[number] = tally
        if number in self._loaded:
            self._loaded[number] = page

    def _append(self, data: bytes) -> int:
        """Where `data` went, written after all else in this process's own file."""
        if self._file is None:
            if isinstance(self._keep, Path):
                self._keep.mkdir(parents=True, exist_ok=True)
                handle, name = tempfile.mkstemp(prefix=".", suffix=".part", dir=self._keep)
                self._file = os.fdopen(handle, "w+b", buffering=0)  # read by `os.pread`
                self._path = Path(name)
                weakref.finalize(self, _discard, self._file, self._path)  # unless sealed
                self._file.write(MAGIC)
                self._end = len(MAGIC)
            else:
                self._file = tempfile.TemporaryFile(buffering=0)  # noqa: SIM115 - finalized
                weakref.finalize(self, self._file.close)  # or when the pages are let go
        self._file.seek(self._end)
        self._file.write(data)
        self._end += len(data)
        return self._end - len(data)

    def seal(self, state: object, final: Path, shape: bytes) -> None:
        """The pages and `state` (what holds them: the log's reader, read on from where it
        stopped) kept as `final` for the next process (`restore`): after the pages, the
        state's `shape` (its classes' `layout`) and the state pickled, then where they start,
        then `MAGIC`. Only for pages `kept_in` a folder."""
        with self._lock:
            if self._path is None:
                self._append(b"")  # no page written out yet: the file, for the state
            assert self._file is not None
            assert self._path is not None
            data = zstandard.ZstdCompressor(level=LEVEL).compress(
                pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
            )
            if len(shape) != LAYOUT_BYTES:
                raise ValueError("a reading's shape is a `layout`")
            start = self._append(shape + data)
            self._append(start.to_bytes(8, "little") + MAGIC)
            os.replace(self._path, final)
            # Read on, the pages written so far are read from the sealed file, and new ones
            # go to a temporary file: appended to, the sealed one would no longer end sealed.
            self._base, self._file, self._path, self._end = self._file, None, None, 0
            self._spans = [(w if w == HELD else 1, o, n) for w, o, n in self._spans]

    def __getstate__(self) -> dict[str, Any]:
        """What `seal` keeps of the pages: every page in the file being sealed."""
        if self._path is None or self._base is not None:
            raise pickle.PicklingError("only pages being sealed are pickled")
        kept = ("_counting", "_tallies", "_rows", "_tail", "_tail_start", "_size", "_held")
        return {
            **{name: getattr(self, name) for name in kept},
            "_spans": [
                (w if w == HELD else 1, offset, length) for w, offset, length in self._spans
            ],
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Pages restored from a sealed file (`restore`): read from it, new ones written to a
        temporary file of this process's own."""
        MessagePages.__init__(self)
        self.__dict__.update(state)
        self._keep = True
        base = _BASE.get()
        if base is not None:
            self._base = base[0]
            base[1] = True
            weakref.finalize(self, self._base.close)  # when the pages are let go

    # ---- reading ------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._rows)

    def _at(self, index: int) -> Message:
        with self._lock:
            if index >= self._tail_start:
                return self._tail[index - self._tail_start]
            number, within = divmod(index, self._size)
            return self._page(number)[within]

    def _page(self, number: int) -> list[Message]:
        page = self._loaded.get(number)
        if page is None:
            page = self._read(number)
            self._loaded[number] = page
            while len(self._loaded) > LOADED:
                self._loaded.popitem(last=False)
        self._loaded.move_to_end(number)
        return page

    def _read(self, number: int) -> list[Message]:
        where, offset, length = self._spans[number]
        if where == HELD:
            return self._held[number]
        handle = self._base if where else self._file
        if offset < 0 or handle is None:
            raise PagesDropped(f"page {number:,} was not kept")
        data = zstandard.ZstdDecompressor().decompress(os.pread(handle.fileno(), length, offset))
        page: list[Message] = pickle.loads(data)  # Gander's own file (see above)
        return page

    def __iter__(self) -> Iterator[Message]:
        """Every message in order, a page at a time (pages read for this are not kept)."""
        for number in itertools.count():  # ends: pages are only added, and at most one per
            with self._lock:  # `PAGE_MESSAGES` appended, each of them a message yielded here
                if number >= len(self._spans):
                    tail = self._tail[: len(self._rows) - self._tail_start]
                    break
                page = self._loaded.get(number) or self._read(number)
            yield from page
        yield from tail

    def row_ids(self) -> "array[int]":
        """Each message's row, in order (without reading a page)."""
        return self._rows

    def tally(self) -> Tally:
        """The figures of every message (without reading a page): the pages' tallies, then
        the messages in memory's."""
        with self._lock:
            total = Tally.of(self._tail, self._counting)
            for tally in reversed(self._tallies):
                total = tally.then(total)
            return total

    @property
    def resident(self) -> int:
        """How many messages are in memory."""
        loaded = sum(len(page) for page in self._loaded.values())
        return len(self._tail) + loaded + sum(len(page) for page in self._held.values())

    def view(self) -> "PagesView":
        """The messages so far: a view that does not grow as more are appended."""
        return PagesView(self, len(self))


class PagesView(_Listed):
    """The first `length` messages of `MessagePages`: what a result made of a log at one time
    holds while the log's reader reads on."""

    __slots__ = ("_length", "_pages")

    def __init__(self, pages: MessagePages, length: int) -> None:
        self._pages = pages
        self._length = length

    def __len__(self) -> int:
        return self._length

    def _at(self, index: int) -> Message:
        return self._pages[index]

    def __iter__(self) -> Iterator[Message]:
        for _, message in zip(range(self._length), self._pages, strict=False):
            yield message

    def row_ids(self) -> "array[int]":
        return self._pages.row_ids()[: self._length]

    @property
    def resident(self) -> int:
        return self._pages.resident


class Placed(_Listed):
    """Messages with a few more put in their places by row (after those of the same row):
    what a reader holds back for what follows, shown where it was read."""

    __slots__ = ("_base", "_extra")

    def __init__(self, base: Sequence[Message], held: Sequence[Message]) -> None:
        self._base = base
        rows = row_ids(base)
        # Stable by row, each after the base's messages of its row: as `insort` one by one.
        ordered = sorted(held, key=lambda message: message.row_id)
        self._extra = [
            (bisect_right(rows, message.row_id) + number, message)
            for number, message in enumerate(ordered)
        ]

    def __len__(self) -> int:
        return len(self._base) + len(self._extra)

    def _at(self, index: int) -> Message:
        before = 0
        for place, message in self._extra:  # a few: what a reader holds back
            if place == index:
                return message
            if place > index:
                break
            before += 1
        return self._base[index - before]

    def __iter__(self) -> Iterator[Message]:
        base = iter(self._base)
        extra = iter(self._extra)
        upcoming = next(extra, None)
        for index in range(len(self)):  # the places only grow: each is met in turn
            if upcoming is not None and upcoming[0] == index:
                yield upcoming[1]
                upcoming = next(extra, None)
            else:
                yield next(base)

    def row_ids(self) -> "array[int]":
        rows = array("q", row_ids(self._base))
        for place, message in self._extra:
            rows.insert(place, message.row_id)
        return rows

    @property
    def resident(self) -> int:
        return resident(self._base) + len(self._extra)


def row_ids(messages: Sequence[Message]) -> "array[int]":
    """Each message's row, in order: from the pages without reading them."""
    if isinstance(messages, MessagePages | PagesView | Placed):
        return messages.row_ids()
    return array("q", (message.row_id for message in messages))


def resident(messages: Sequence[Message]) -> int:
    """How many of these messages are in memory."""
    if isinstance(messages, MessagePages | PagesView | Placed):
        return messages.resident
    return len(messages)


def placed(messages: Sequence[Message], held: Sequence[Message]) -> Sequence[Message]:
    """`messages` with `held` ones in their places (see `Placed`); the same when none are."""
    return Placed(messages, held) if held else messages


def _discard(handle: BinaryIO, path: Path) -> None:
    """A file of pages never sealed (its reading failed or stopped): gone with its pages."""
    handle.close()
    path.unlink(missing_ok=True)


def restore(path: Path, shape: bytes) -> object:
    """The state a sealed pages file keeps (`MessagePages.seal`), its pages read from the file;
    `ValueError` when the file is not one sealed by this Gander with this `shape`."""
    handle = path.open("rb")
    try:
        size = os.fstat(handle.fileno()).st_size
        end = os.pread(handle.fileno(), 16, size - 16) if size >= 24 else b""
        if os.pread(handle.fileno(), len(MAGIC), 0) != MAGIC or end[8:] != MAGIC:
            raise ValueError(f"{path} is no sealed file of pages")
        start = int.from_bytes(end[:8], "little")
        if not len(MAGIC) <= start <= size - 16 - LAYOUT_BYTES:
            raise ValueError(f"{path} is damaged")
        kept = os.pread(handle.fileno(), size - 16 - start, start)
        if kept[:LAYOUT_BYTES] != shape:
            raise ValueError(f"{path} was sealed by another Gander")
        data = zstandard.ZstdDecompressor().decompress(kept[LAYOUT_BYTES:])
        taken: list[Any] = [handle, False]
        token = _BASE.set(taken)
        try:
            state = pickle.loads(data)  # Gander's own file (see above)
        finally:
            _BASE.reset(token)
    except BaseException:
        handle.close()
        raise
    if not taken[1]:
        handle.close()  # no pages in it
    return state
