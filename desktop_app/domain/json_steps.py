"""JSON read a bounded step at a time, so a huge value never holds the interpreter lock for long.

`json.loads` is one C call: on a 20 MB message it holds the interpreter lock for 40–50 ms, and
the window's thread — which needs the lock for every call into Python, a model's `data()`
included — stalls that long while a worker or the index reads the message. `loads_in_steps`
gives the same value (or raises where `json.loads` raises) from calls that each cover at most
`WINDOW` characters:

- containers are parsed by the C scanner inside a window of the text `WINDOW` long, starting
  where the value starts: one that ends inside it is read in one call (its value is exactly
  what the whole text gives: a container is complete only at its closing bracket); one that
  does not is read by the standard library's pure-Python object and array parsers, which call
  back here for each member;
- strings are decoded by the C string scanner a piece of at most `PIECE` characters at a time,
  cut where no escape sequence (nor a surrogate pair of them) is split;
- numbers and constants as the pure-Python scanner reads them.

The standard library's pure-Python and C scanners are the same parser (CPython's own tests run
both); the tests here check this one against `json.loads` on any JSON and on cut points.
`decode_in_steps` decodes UTF-8 bytes that are not ASCII the same way, a piece at a time.
"""

import codecs
import json
import json.decoder
import json.scanner
import re
from collections.abc import Callable
from typing import Any

WINDOW = 256 * 1024
"""The most text one call into the C scanner covers (about 1 ms of the interpreter lock)."""
PIECE = 256 * 1024
"""The most characters of one string, or bytes of UTF-8, decoded in one call."""

_SEARCH = 4_096
"""How far back from a piece's end a cut point is looked for before the piece is made longer."""
_HIGH_SURROGATE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}")
_c_scanstring: Callable[..., tuple[str, int]] = (
    json.decoder.c_scanstring or json.decoder.py_scanstring  # type: ignore[attr-defined]
)
_c_make_scanner: Callable[[Any], Any] | None = json.scanner.c_make_scanner  # type: ignore[attr-defined]
_Parse = Callable[..., tuple[Any, int]]
_parse_object: _Parse = vars(json.decoder)["JSONObject"]
_parse_array: _Parse = vars(json.decoder)["JSONArray"]
_py_make_scanner: Callable[[Any], _Parse] = vars(json.scanner)["py_make_scanner"]


def _cut(text: str, target: int, limit: int) -> int:
    """A place at or before `target` (and after `limit`) where a JSON string's body can be cut
    without splitting an escape or a surrogate pair, else -1. A place is safe when no backslash
    is among the six characters before it nor at it (no escape is longer than six), or when
    it starts a run of backslashes (the first of a run always begins an escape) that does not
    follow a high surrogate's escape."""
    place = target
    floor = max(limit, target - _SEARCH)
    while place > floor:
        before = max(place - 6, 0)
        if "\\" not in text[before : place + 1]:
            return place
        if (
            text[place] == "\\"
            and text[place - 1] != "\\"
            and not _HIGH_SURROGATE.match(text, before, place)
        ):
            return place
        place -= 1
    return -1


def scan_string(text: str, start: int, strict: bool = True) -> tuple[str, int]:
    """`json.decoder.scanstring(text, start, strict)`: the string whose body starts at `start`
    (just after its opening quote), and the index after its closing quote."""
    if _closes_before(text, start, start + PIECE):
        return _c_scanstring(text, start, strict)
    try:
        return _pieces_of_string(text, start, strict)
    except ValueError:
        return _c_scanstring(text, start, strict)  # raises json's own error, at its place


def _closes_before(text: str, start: int, stop: int) -> bool:
    """Whether the string whose body starts at `start` closes before `stop`: a quote there is
    its end unless an odd run of backslashes stands before it. (A regular expression for the
    body took 7 ms over 256 kB; `str.find` takes a hundredth of that.)"""
    at = start
    while (quote := text.find('"', at, stop)) >= 0:
        before = quote
        while before > start and text[before - 1] == "\\":
            before -= 1
        if (quote - before) % 2 == 0:
            return True
        at = quote + 1
    return False


def _pieces_of_string(text: str, start: int, strict: bool) -> tuple[str, int]:
    pieces: list[str] = []
    begin = start
    target = start + PIECE
    while True:
        if target >= len(text):
            value, end = _c_scanstring(text, begin, strict)
            pieces.append(value)
            return "".join(pieces), end
        place = _cut(text, target, begin)
        if place < 0:
            target += PIECE
            continue
        body = '"' + text[begin:place] + '"'
        value, end = _c_scanstring(body, 1, strict)
        pieces.append(value)
        if end < len(body):  # the string closed inside this piece
            return "".join(pieces), begin + end - 1
        begin, target = place, place + PIECE


class _StepDecoder(json.JSONDecoder):
    """A `json.JSONDecoder` whose scanner takes the steps above."""

    memo: dict[str, str]
    """Keys seen, each kept once (set by `json.JSONDecoder`, read by its Python parsers)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.parse_string = scan_string
        self._window = ""
        self._base = 0
        self._in_c = _c_make_scanner(self) if _c_make_scanner is not None else None
        self._scalar = _py_make_scanner(self)
        self.scan_once = self._scan_top

    def _scan_top(self, text: str, index: int) -> tuple[Any, int]:
        try:
            return self._scan(text, index)
        finally:
            self.memo.clear()
            self._window, self._base = "", 0

    def _scan(self, text: str, index: int) -> tuple[Any, int]:
        if index < len(text):
            first = text[index]
            if first == '"':
                return scan_string(text, index + 1, self.strict)
            if first in "{[":
                found = self._whole_in_window(text, index)
                if found is not None:
                    return found
                if first == "{":
                    return _parse_object(
                        (text, index + 1),
                        self.strict,
                        self._scan,
                        self.object_hook,
                        self.object_pairs_hook,
                        self.memo,
                    )
                return _parse_array((text, index + 1), self._scan)
        return self._scalar(text, index)

    def _whole_in_window(self, text: str, index: int) -> tuple[Any, int] | None:
        """The container at `index` read by the C scanner, when it ends within `WINDOW`
        characters; else None (also for a container with an error: the Python parsers then
        raise it where it is)."""
        if self._in_c is None:
            return None
        end_of_window = self._base + len(self._window)
        if index < self._base or (
            index + WINDOW // 2 > end_of_window and end_of_window < len(text)
        ):
            self._window, self._base = text[index : index + WINDOW], index
        try:
            value, end = self._in_c(self._window, index - self._base)
        except (ValueError, StopIteration, RecursionError):
            return None
        return value, self._base + end


def loads_in_steps(text: str, **options: Any) -> Any:
    """`json.loads(text, **options)` (a str, `strict` and the `parse_*` hooks), in steps."""
    return _StepDecoder(**options).decode(text)


def decode_in_steps(data: bytes | bytearray, errors: str = "strict") -> str:
    """`data.decode("utf-8", errors)`, a `PIECE` of bytes at a time when that holds the lock
    for less: 20 MB of CJK text decoded at once held it 28–46 ms, in steps 2–12 ms. ASCII is
    decoded at once (a copy: 3 ms for 20 MB, where the steps' pieces and their join cost
    more)."""
    if len(data) <= PIECE or data.isascii():
        return data.decode("utf-8", errors)
    view = memoryview(data)
    decoder = codecs.getincrementaldecoder("utf-8")(errors)
    pieces = [decoder.decode(view[at : at + PIECE]) for at in range(0, len(view), PIECE)]
    pieces.append(decoder.decode(b"", final=True))
    return "".join(pieces)
