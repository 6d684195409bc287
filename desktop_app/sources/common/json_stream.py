"""A JSON document too large to parse whole, read one value at a time.

Gemini CLI's recordings and goose's exports are single JSON objects. Nearly all of such a file
is one array, the messages. Parsed whole, a document takes several times its size in memory.
`members` reads the object one member at a time, and the array one element at a time. Each
value is decoded by the standard library's scanner (`jsontext.raw_decode`, which reads numbers
as `jsontext.loads` does) from a window of the file, so at most one value and one block are
held at once. Each element comes with the place of its bytes, so it can be read again alone
(`read_at`).

What the scanner refuses, this refuses too: the same `ValueError` (or `RecursionError`) is
raised where `jsontext.loads` of the whole text would raise one. Each read is bounded by the
file's size when it was opened: a file that goes on growing cannot keep the reading going.
"""

import codecs
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from desktop_app.domain.jsontext import loads, raw_decode

BLOCK = 1 << 20
"""Bytes read at a time; a value longer than what is held is read on in doubling blocks."""
LONGEST_VALUE = 64_000_000
"""A value (a message) held whole is at most this long in the file: a longer one, or a
document cut in the middle of its array, is refused (`ValueError`) before more is held."""
_SPACE = " \t\n\r"
_NUMBER_GOES_ON = "0123456789.eE+-"


@dataclass(frozen=True, slots=True)
class Member:
    """A member of the document's objects that is not on the way to the array: its keys from
    the top (`("sessionId",)`, `("conversation", "id")`) and its value."""

    path: tuple[str, ...]
    value: Any


@dataclass(frozen=True, slots=True)
class Element:
    """An element of the array: its value and where its bytes are in the file."""

    offset: int
    length: int
    value: Any


class _Window:
    """The text of the file from the value being read on, decoded a block at a time."""

    def __init__(self, handle: BinaryIO, size: int) -> None:
        self._handle = handle
        self._left = size
        # `utf-8-sig`: a byte order mark is not text, as `json.loads` of the bytes skips it.
        self._decoder = codecs.getincrementaldecoder("utf-8-sig")("surrogatepass")
        self.text = ""
        self.pos = 0
        self.offset = 0
        """Where `pos` is in the file, in bytes."""
        self._bom = 0
        self._started = False

    @property
    def ended(self) -> bool:
        return self._left <= 0

    def more(self, at_least: int = 0) -> bool:
        """Read on (at least `at_least` bytes, if the file has them); False at its end."""
        if self._left <= 0:
            return False
        data = self._handle.read(min(self._left, max(at_least, BLOCK)))
        if not data:
            self._left = 0
            self.text += self._decoder.decode(b"", final=True)
            return False
        if not self._started:
            self._started = True
            self._bom = 3 if data.startswith(codecs.BOM_UTF8) else 0
            self.offset = self._bom
        self._left -= len(data)
        if self.pos > len(self.text) // 2:  # what is read is let go, never copied twice over
            self.text = self.text[self.pos :]
            self.pos = 0
        self.text += self._decoder.decode(data, final=self._left <= 0)
        return True

    def _cut(self, value: Any, end: int) -> bool:
        """Whether a value decoded may be cut by the window's end: a value that ends there, or
        a number followed by what could go on with it (`-0` of `-0.5`); in JSON a number is
        only ever followed by space, a comma or a closing bracket."""
        if end >= len(self.text):
            return True
        number = isinstance(value, int | float) and not isinstance(value, bool)
        return number and self.text[end] in _NUMBER_GOES_ON

    def _grow(self, want: int) -> bool:
        """More of the file for the value being read (`more`), as long as it is within
        `LONGEST_VALUE`."""
        if len(self.text) - self.pos > LONGEST_VALUE:
            raise ValueError(
                f"a value of over {LONGEST_VALUE:,} characters at byte {self.offset:,}"
            )
        return self.more(want)

    def advance(self, to: int) -> None:
        """Past the text up to `to`, keeping count of its bytes."""
        self.offset += len(self.text[self.pos : to].encode("utf-8", "surrogatepass"))
        self.pos = to

    def skip_space(self) -> str:
        """The next character that is not white space ('' at the end of the file)."""
        while True:
            text, pos = self.text, self.pos
            while pos < len(text) and text[pos] in _SPACE:
                pos += 1
            self.advance(pos)
            if pos < len(text):
                return text[pos]
            if not self.more():
                return ""

    def expect(self, characters: str) -> str:
        found = self.skip_space()
        if not found or found not in characters:
            raise json.JSONDecodeError(
                f"Expecting {' or '.join(repr(c) for c in characters)}", self.text, self.pos
            )
        self.advance(self.pos + 1)
        return found

    def value(self) -> tuple[Any, int, int]:
        """The value starting here, its byte offset and length; the window moves past it. A
        value cut by the window's end is read again with more of the file (`_cut`)."""
        self.skip_space()
        want = BLOCK
        while True:
            try:
                value, end = raw_decode(self.text, self.pos)
            except json.JSONDecodeError:
                if self._grow(want):
                    want *= 2
                    continue
                raise
            if not self._cut(value, end) or not self._grow(want):
                break
            want *= 2
        offset = self.offset
        self.advance(end)
        return value, offset, self.offset - offset


def members(handle: BinaryIO, size: int, array: tuple[str, ...]) -> Iterator[Member | Element]:
    """The document's members and the elements of the array at `array` (its keys from the
    top), in file order, read from `handle`'s start to at most `size` bytes. An `array` that
    is not an array where it is looked for is a member like the others."""
    window = _Window(handle, size)
    window.more()
    yield from _object(window, (), array)
    if window.skip_space():
        raise json.JSONDecodeError("Extra data", window.text, window.pos)


def _object(
    window: _Window, path: tuple[str, ...], array: tuple[str, ...]
) -> Iterator[Member | Element]:
    window.expect("{")
    if window.skip_space() == "}":
        window.advance(window.pos + 1)
        return
    while True:
        key, _, _ = window.value()
        if not isinstance(key, str):
            raise json.JSONDecodeError("Expecting property name", window.text, window.pos)
        window.expect(":")
        here = (*path, key)
        following = array[: len(here)] == here
        start = window.skip_space()
        if following and here == array and start == "[":
            yield from _elements(window)
        elif following and here != array and start == "{":
            yield from _object(window, here, array)
        else:
            yield Member(here, window.value()[0])
        if window.expect(",}") == "}":
            return


def _elements(window: _Window) -> Iterator[Element]:
    window.expect("[")
    if window.skip_space() == "]":
        window.advance(window.pos + 1)
        return
    while True:
        value, offset, length = window.value()
        yield Element(offset, length, value)
        if window.expect(",]") == "]":
            return


def read_at(handle: BinaryIO, offset: int, length: int) -> Any:
    """An element read again alone from where `members` found it."""
    handle.seek(offset)
    return loads(handle.read(length))
