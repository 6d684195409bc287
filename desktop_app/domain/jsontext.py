"""JSON text of any stored value, however deeply nested.

`json.dumps` recurses once per level and raises `RecursionError` somewhere near a thousand
levels — less when the caller is already deep in the stack — so tool arguments nested 500 deep
would stop an export half-way. `dumps` uses the C encoder when it can and falls back to an
explicit stack when it cannot, with the same output — except that indentation stops at
`INDENT_DEPTH` levels (deeper levels continue on the same line), since indenting a value nested
100,000 deep would take 10^10 spaces.
"""

import json
import math
import sys
from collections.abc import Callable, Iterator
from typing import Any

from desktop_app.domain.json_steps import WINDOW, decode_in_steps, loads_in_steps

INDENT_DEPTH = 64
PARSE_DEPTH = 4_000
"""Python's recursion limit while Gander runs. `json.loads` takes one level of it per level of
nesting, and the default 1,000 (less the caller's own depth) refuses JSON that goose writes and
reads back (tool arguments 980 levels deep). 4,000 frames fit the 8 MB stacks of the main and
worker threads many times over."""


def loads(text: str | bytes) -> Any:
    """`json.loads(text)`, except that an integer too long for Python to convert (over
    `sys.get_int_max_str_digits()` digits, 4,300 by default: `ValueError: Exceeds the limit`)
    is read as a float — ±inf — as JavaScript's `JSON.parse` and serde_json (the agents' own
    readers) read a number beyond their integers, so one such number costs its field, not the
    line, the file or the server's every search. Text that is not JSON still raises
    `ValueError` (`json.JSONDecodeError`), as `json.loads` does.

    A text longer than `json_steps.WINDOW` is read in steps (`json_steps`), so reading one
    huge message never holds the interpreter lock, and with it the window, for long."""
    if len(text) <= WINDOW:
        return _loads(json.loads, text)
    if isinstance(text, bytes):
        encoding = json.detect_encoding(text)
        as_text = (
            decode_in_steps(text, "surrogatepass")
            if encoding == "utf-8"
            else text.decode(encoding, "surrogatepass")
        )
    else:
        as_text = text
    try:
        return _loads(loads_in_steps, as_text)
    except RecursionError:  # the steps' own frames are deeper than the C parser's
        return _loads(json.loads, as_text)


def _loads(parse: Callable[..., Any], text: str | bytes) -> Any:
    try:
        return parse(text)
    except json.JSONDecodeError:
        raise
    except ValueError:  # only the integer conversion limit raises a plain ValueError
        return parse(text, parse_int=_integer)


def _integer(digits: str) -> int | float:
    limit = sys.get_int_max_str_digits()
    return float(digits) if limit and len(digits.lstrip("-")) > limit else int(digits)


_PLAIN = json.JSONDecoder()
_WIDE = json.JSONDecoder(parse_int=_integer)


def raw_decode(text: str, index: int) -> tuple[Any, int]:
    """The JSON value that starts at `index` of `text`, and the index just past it, read as
    `loads` reads a value (an integer too long for Python is ±inf): how a document too large
    to parse whole is read a value at a time (`sources.common.json_stream`)."""
    try:
        return _PLAIN.raw_decode(text, index)
    except json.JSONDecodeError:
        raise
    except ValueError:  # only the integer conversion limit raises a plain ValueError
        return _WIDE.raw_decode(text, index)


def allow_deep_json() -> None:
    """Raise the interpreter's recursion limit to PARSE_DEPTH (never lower it): called once by
    the entry point, before anything is read."""
    if sys.getrecursionlimit() < PARSE_DEPTH:
        sys.setrecursionlimit(PARSE_DEPTH)


def dumps(
    value: Any, *, indent: int | None = None, ascii_only: bool = False, standard: bool = False
) -> str:
    """`json.dumps(value, ensure_ascii=ascii_only, indent=indent, default=str)`, at any depth.
    `standard`: JSON any parser reads — NaN and ±inf (which Python writes as the bare words
    `NaN` and `Infinity`, and which a log's `NaN` or a 5,000-digit number read by `loads`
    become) are written `null`, as `JSON.stringify` writes them."""
    if indent is not None and _deeper_than(value, INDENT_DEPTH):
        return "".join(_pieces(value, indent, ascii_only, standard=standard))
    try:
        return json.dumps(
            value, ensure_ascii=ascii_only, indent=indent, default=str, allow_nan=not standard
        )
    except RecursionError:
        return "".join(_pieces(value, indent, ascii_only, standard=standard))
    except ValueError:  # a float that is not finite (or an integer Python cannot convert)
        if not standard:
            raise
        return "".join(_pieces(value, indent, ascii_only, standard=standard))


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether containers nest more than `limit` levels (stops at the first such path)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if depth >= limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def dumps_head(value: Any, *, indent: int | None, limit: int) -> tuple[str, bool]:
    """The first `limit` characters of `dumps(value, indent=indent)`, and whether that is all of
    it, in time and memory that grow with `limit`, not with the value: the pieces stop once
    `limit` is passed, and a string longer than `limit` is cut before it is escaped (escaping
    goes character by character, so what is shown is unchanged)."""
    taken: list[str] = []
    size = 0
    for piece in _pieces(value, indent, clip=limit):
        taken.append(piece)
        size += len(piece)
        if size > limit:
            return "".join(taken)[:limit], False
    return "".join(taken), True


def _pieces(
    value: Any,
    indent: int | None,
    ascii_only: bool = False,
    clip: int | None = None,
    *,
    standard: bool = False,
) -> Iterator[str]:
    def _scalar(item: Any) -> str:
        if clip is not None and isinstance(item, str) and len(item) > clip:
            item = item[:clip]
        if standard and isinstance(item, float) and not math.isfinite(item):
            return "null"
        return json.dumps(item, ensure_ascii=ascii_only, default=str)

    item_separator = ", " if indent is None else ","

    def newline(depth: int) -> str:
        if indent is None or depth > INDENT_DEPTH:
            return ""
        return "\n" + " " * (indent * depth)

    def opening(item: Any) -> tuple[str, str, Iterator[Any]] | None:
        if isinstance(item, dict):
            return "{", "}", iter(item.items())
        if isinstance(item, list | tuple):
            return "[", "]", iter(item)
        return None

    first_frame = opening(value)
    if first_frame is None:
        yield _scalar(value)
        return
    # Each frame: its closing bracket, its items, whether it is a mapping, whether an item
    # was written yet.
    stack: list[tuple[str, Iterator[Any], bool, list[bool]]] = []
    yield first_frame[0]
    stack.append((first_frame[1], first_frame[2], first_frame[0] == "{", [False]))
    while stack:
        closing, items, is_mapping, written = stack[-1]
        item: Any = next(items, _END)
        if item is _END:
            stack.pop()
            yield (newline(len(stack)) if written[0] else "") + closing
            continue
        yield (item_separator if written[0] else "") + newline(len(stack))
        written[0] = True
        if is_mapping:
            key: Any = item[0]
            item = item[1]
            yield _scalar(key if isinstance(key, str) else str(key)) + ": "
        frame = opening(item)
        if frame is None:
            yield _scalar(item)
        else:
            yield frame[0]
            stack.append((frame[1], frame[2], frame[0] == "{", [False]))


_END = object()
