"""JSON read a bounded step at a time (`domain.json_steps`) gives what `json.loads` gives, and
no call into C covers more than a step: the window's thread waits on the interpreter lock at
most that long while a huge message is read."""

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from desktop_app.domain import json_steps
from desktop_app.domain.json_steps import decode_in_steps, loads_in_steps
from desktop_app.domain.jsontext import loads

TRICKY = 'a"\\/\b\f\n\r\t\x00\x1f\u00e9\u2028\ud83d\ude00\ud800 \udc00\\u'
"""Every kind of escape, a surrogate pair and lone surrogates, wherever a cut may fall."""

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text()
    | st.text(alphabet=TRICKY),
    lambda children: (
        st.lists(children, max_size=5)
        | st.dictionaries(st.text(max_size=5) | st.text(alphabet=TRICKY, max_size=5), children)
    ),
    max_leaves=30,
)


@contextmanager
def _steps(window: int, piece: int) -> Iterator[None]:
    """Tiny steps, so that every cut and window edge is tried on small values."""
    before = json_steps.WINDOW, json_steps.PIECE
    json_steps.WINDOW, json_steps.PIECE = window, piece
    try:
        yield
    finally:
        json_steps.WINDOW, json_steps.PIECE = before


def _outcome(parse: Callable[[str], Any], text: str) -> tuple[str, Any]:
    try:
        return "value", parse(text)
    except ValueError:
        return "error", None


@given(json_values, st.booleans(), st.integers(1, 40), st.integers(1, 20))
@example(["x" * 50, {"k": TRICKY * 3}], False, 8, 1)
@example(TRICKY * 5, True, 1, 1)
def test_any_json_reads_as_json_loads_reads_it(
    value: Any, ascii_only: bool, window: int, piece: int
) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only)
    with _steps(window, piece):
        assert loads_in_steps(text) == json.loads(text)


@given(
    st.text(alphabet='{}[]",:\\ u0123456789abcdefnrtl-.eE\n\u00e9\ud83d', max_size=60),
    st.integers(1, 30),
    st.integers(1, 10),
)
@example('["ab\\', 4, 2)
@example('"ab\\u12', 4, 2)
@example("[1, 2] x", 4, 2)
@example('{"a": [1, "b"}', 4, 2)
def test_any_text_is_refused_or_read_as_json_loads_does(text: str, window: int, piece: int) -> None:
    with _steps(window, piece):
        assert _outcome(loads_in_steps, text) == _outcome(json.loads, text)


@given(st.text(alphabet=TRICKY + "xyz", max_size=80), st.booleans(), st.integers(1, 12))
def test_a_string_cut_anywhere_is_whole_again(text: str, ascii_only: bool, piece: int) -> None:
    """(Whole as `json.loads` reads it: a lone surrogate's escape before a low one's makes a
    pair.)"""
    written = json.dumps(text, ensure_ascii=ascii_only)
    with _steps(4, piece):
        assert loads_in_steps(written) == json.loads(written)


def test_a_long_run_of_backslashes_is_read_whole() -> None:
    """No place is safe inside `\\\\\\\\…`: the piece grows until one is (or the string ends)."""
    text = "\\" * 30_000 + "end"
    with _steps(16, 8):
        assert loads_in_steps(json.dumps([text, text])) == [text, text]


@given(
    st.binary(max_size=200) | st.text().map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.sampled_from(["strict", "replace", "surrogateescape", "surrogatepass"]),
    st.integers(1, 9),
)
def test_bytes_decode_as_a_whole_decode_does(data: bytes, errors: str, piece: int) -> None:
    def whole(text: str) -> str:
        return text.encode("latin-1").decode("utf-8", errors)

    def in_steps(text: str) -> str:
        return decode_in_steps(text.encode("latin-1"), errors)

    as_text = data.decode("latin-1")
    with _steps(4, piece):
        assert _outcome(in_steps, as_text) == _outcome(whole, as_text)


def _scanned(monkeypatch: pytest.MonkeyPatch) -> tuple[list[int], list[int]]:
    """How much text each call into C covered: string scans (closing quote less opening
    place) and container windows."""
    strings: list[int] = []
    windows: list[int] = []
    c_scanstring = json_steps._c_scanstring
    c_make_scanner = json_steps._c_make_scanner
    assert c_make_scanner is not None

    def scanstring(text: str, start: int, strict: bool = True) -> tuple[str, int]:
        value, end = c_scanstring(text, start, strict)
        strings.append(end - start)
        return value, end

    def make_scanner(context: Any) -> Callable[[str, int], Any]:
        scanner = c_make_scanner(context)

        def scan(window: str, index: int) -> Any:
            windows.append(len(window))
            return scanner(window, index)

        return scan

    monkeypatch.setattr(json_steps, "_c_scanstring", scanstring)
    monkeypatch.setattr(json_steps, "_c_make_scanner", make_scanner)
    return strings, windows


def test_a_huge_message_is_read_in_bounded_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    """A goose content of a 3 MB text with escapes, and 40,000 small blocks: every string scan
    covers at most a piece, every container read in C at most a window."""
    strings, windows = _scanned(monkeypatch)
    prose = ('Lorem ipsum "dolor" sit\n\tamet \u00e9\ud83d\ude00 ' * 70_000)[:3_000_000]
    content = [{"type": "text", "text": prose}] + [
        {"type": "toolRequest", "id": str(n), "toolCall": {"value": {"n": n}}}
        for n in range(40_000)
    ]
    text = json.dumps(content)
    assert loads(text) == json.loads(text)
    assert max(strings) <= json_steps.PIECE + 2
    assert max(windows) <= json_steps.WINDOW
    assert sum(strings) >= len(prose)  # the huge text went through the pieces


def test_a_huge_document_of_one_value_is_read_in_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    strings, windows = _scanned(monkeypatch)
    text = json.dumps({"a": [[n, str(n)] for n in range(100_000)]})
    assert loads(text) == json.loads(text)
    assert max(windows) <= json_steps.WINDOW
    assert max(strings, default=0) <= json_steps.PIECE + 2


def test_loads_reads_big_bytes_and_odd_numbers_as_small_ones_are_read() -> None:
    big = "x" * (json_steps.WINDOW + 1)
    text = json.dumps({"text": big, "m": 1.5})[:-1] + ', "n": ' + "9" * 5_000 + "}"
    assert loads(text) == {"text": big, "m": 1.5, "n": float("inf")}
    assert loads(text.encode()) == loads(text)
    assert loads(text.encode("utf-16")) == loads(text)
    assert loads(b"\xef\xbb\xbf" + text.encode()) == loads(text)  # json.loads: a BOM is read
    with pytest.raises(json.JSONDecodeError, match="Expecting"):
        loads(text[:-1])


def test_loads_reads_deep_big_json_as_json_loads_does() -> None:
    """The steps' frames are deeper than the C parser's: a big document nested deeper than they
    reach is read by `json.loads` after all."""
    depth = 1_500
    text = "[" * depth + json.dumps("y" * json_steps.WINDOW) + "]" * depth
    value = loads(text)
    for _ in range(depth):
        value = value[0]
    assert value == "y" * json_steps.WINDOW


def test_a_string_at_the_texts_start_is_cut_in_pieces_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cut place near the start of the text looks at what is before it there, not at the
    text's end (a slice from a negative place), and never needs the whole-string fallback."""
    strings, _ = _scanned(monkeypatch)
    text = json.dumps("\n\u00e9x" * 60)
    with _steps(4, 2):
        assert loads_in_steps(text) == json.loads(text)
    assert max(strings) < 20


@pytest.mark.parametrize("depth", [10_000, 150_000])
def test_big_json_nested_past_any_limit_is_refused_as_json_loads_refuses_it(depth: int) -> None:
    """Deeper than the C parser goes: `RecursionError`, which every reader turns into an
    unsupported part or line, as it did before the steps."""
    text = "[" * depth + json.dumps("y" * json_steps.WINDOW) + "]" * depth
    with pytest.raises(RecursionError):
        json.loads(text)
    with pytest.raises(RecursionError):
        loads(text)
