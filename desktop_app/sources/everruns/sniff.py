"""Whether a file holds everruns event envelopes, told by the structure of its first envelope
rather than by the bytes it starts with.

An envelope's fields may come in any order, and a JSON writer need not put `session_id` near
the start: pydantic models (everruns-sdk's `Event`) dump their fields alphabetically, so
`context` and `data` come first, and one event with an image in its `data` pushes
`session_id` megabytes into the file. So the first envelope — the file's first object (JSONL,
one envelope), the first element of a top-level array, or of the `data` array of a
`{"data": [...]}` page — is walked to its end, skipping over string contents and nested
values, and its own keys are compared with an envelope's. A key no envelope (or page) has,
met before `type` and `session_id`, ends the walk at once — so another format's JSON is told
apart in its first bytes — and the walk is bounded (SNIFF_LIMIT bytes, read in chunks), so a
large file that is not an export costs at most that much.
"""

import re
from pathlib import Path
from typing import BinaryIO

ENVELOPE_KEYS = frozenset({"type", "session_id", "data"})
ENVELOPE_FIELDS = ENVELOPE_KEYS | {"id", "ts", "context", "metadata", "tags", "sequence"}
"""An envelope's fields (`Event` in `crates/core/src/events/mod.rs`, a frozen contract)."""
PAGE_FIELDS = frozenset({"data", "total", "offset", "limit", "has_more", "next_cursor"})
"""A page of the events API (`{"data": [...], …}`; everruns-sdk's `ListResponse`)."""
SNIFF_LIMIT = 64_000_000
"""The most of a file read to find where its first envelope ends (as `local.MAX_LINE_BYTES`)."""
_CHUNK = 1 << 16
_KEY_LIMIT = 256
"""A longer key is no envelope field: skipped, not kept."""
_STRING_STOP = re.compile(rb'["\\]')
_STRUCTURE = re.compile(rb'["\[\]{}]')
_WHITESPACE = b" \t\r\n"


class _NotEnvelopes(Exception):
    """The structure ended, broke or ran past SNIFF_LIMIT before an envelope was seen."""


class _Reader:
    """A bounded cursor over a binary file, refilled a chunk at a time."""

    def __init__(self, handle: BinaryIO) -> None:
        self.handle = handle
        self.buffer = b""
        self.at = 0
        self.read = 0

    def _fill(self) -> None:
        if self.read >= SNIFF_LIMIT:
            raise _NotEnvelopes
        chunk = self.handle.read(_CHUNK)
        if not chunk:
            raise _NotEnvelopes
        self.read += len(chunk)
        self.buffer = self.buffer[self.at :] + chunk
        self.at = 0

    def next_char(self) -> int:
        """The next byte that is not whitespace, consumed."""
        while True:
            while self.at < len(self.buffer):
                byte = self.buffer[self.at]
                self.at += 1
                if byte not in _WHITESPACE:
                    return byte
            self._fill()

    def peek_char(self) -> int:
        byte = self.next_char()
        self.at -= 1
        return byte

    def string(self) -> bytes | None:
        """The rest of a string whose opening quote was consumed: its bytes when short (a
        key), else None; either way the reader ends after the closing quote."""
        kept = bytearray()
        while True:
            found = _STRING_STOP.search(self.buffer, self.at)
            if found is None:
                if len(kept) <= _KEY_LIMIT:
                    kept += self.buffer[self.at :]
                self.at = len(self.buffer)
                self._fill()
                continue
            if len(kept) <= _KEY_LIMIT:
                kept += self.buffer[self.at : found.start()]
            self.at = found.end()
            if found.group() == b'"':
                return bytes(kept) if len(kept) <= _KEY_LIMIT else None
            if self.at >= len(self.buffer):  # the escaped character is in the next chunk
                self._fill()
            kept += self.buffer[self.at : self.at + 1]
            self.at += 1

    def skip_value(self) -> None:
        """Past one JSON value (a scalar, or a whole array or object with what it nests)."""
        first = self.next_char()
        if first == ord('"'):
            self.string()
            return
        if first not in b"[{":
            while self.peek_raw() not in b",]}" + _WHITESPACE:
                self.at += 1
            return
        depth = 1
        while depth:
            found = _STRUCTURE.search(self.buffer, self.at)
            if found is None:
                self.at = len(self.buffer)
                self._fill()
                continue
            self.at = found.end()
            mark = found.group()
            if mark == b'"':
                self.string()
            elif mark in (b"[", b"{"):
                depth += 1
            else:
                depth -= 1

    def peek_raw(self) -> int:
        if self.at >= len(self.buffer):
            self._fill()
        return self.buffer[self.at]


def _object_keys(reader: _Reader, *, page: bool) -> bool:
    """Whether the object just opened is an envelope — or, when `page`, a `{"data": [...]}`
    page whose first element is one."""
    keys: set[str] = set()
    while True:
        mark = reader.next_char()
        if mark == ord("}"):
            return keys >= ENVELOPE_KEYS
        if mark == ord(","):
            continue
        if mark != ord('"'):
            raise _NotEnvelopes
        key = reader.string()
        if reader.next_char() != ord(":"):
            raise _NotEnvelopes
        name = key.decode("utf-8", "replace") if key is not None else ""
        if page and name == "data" and reader.peek_char() == ord("["):
            reader.next_char()
            return reader.next_char() == ord("{") and _object_keys(reader, page=False)
        known = ENVELOPE_FIELDS | PAGE_FIELDS if page else ENVELOPE_FIELDS
        if name not in known and not {"type", "session_id"} <= keys:
            return False  # another format's object: no need to walk the rest of it
        keys.add(name)
        reader.skip_value()


def looks_like_envelopes(path: Path) -> bool:
    """Whether `path` holds everruns envelopes (a JSON array, a page, or JSONL); False for
    anything else, a file that cannot be read included (the caller says why it cannot)."""
    try:
        with path.open("rb") as handle:
            reader = _Reader(handle)
            first = reader.next_char()
            if first == ord("["):
                return reader.next_char() == ord("{") and _object_keys(reader, page=False)
            return first == ord("{") and _object_keys(reader, page=True)
    except (_NotEnvelopes, OSError):
        return False
