"""A JSON document read one value at a time (`sources/common/json_stream.py`) gives what
`jsontext.loads` of the whole gives: every member, every element of the array in order, each
element's bytes where it says they are, and the same refusals."""

import io
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.domain.jsontext import loads
from desktop_app.sources.common import json_stream
from desktop_app.sources.common.json_stream import Element, Member, members, read_at

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=12,
)
spaces = st.sampled_from(["", " ", "\n  ", "\t", "\r\n"])


def _read(data: bytes, array: tuple[str, ...], size: int | None = None) -> list[Member | Element]:
    return list(members(io.BytesIO(data), len(data) if size is None else size, array))


def _document(
    header: dict[str, Any], items: list[Any], indent: int | None, after: dict[str, Any]
) -> dict[str, Any]:
    return {**header, "messages": items, **after}


@pytest.fixture(autouse=True)
def _small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of a few bytes: every value is cut by a block's end somewhere."""
    monkeypatch.setattr(json_stream, "BLOCK", 7)


members_around = st.dictionaries(
    st.text(max_size=6).filter(lambda key: key != "messages"), values, max_size=3
)
"""Members before or after the array."""


@settings(max_examples=300)
@given(
    st.tuples(members_around, st.lists(values, max_size=6), members_around),
    st.sampled_from([None, 0, 2]),
    st.booleans(),
    st.booleans(),
)
def test_members_and_elements_are_the_whole_documents(
    parts: tuple[dict[str, Any], list[Any], dict[str, Any]],
    indent: int | None,
    ascii_only: bool,
    bom: bool,
) -> None:
    header, items, after = parts
    document = {**header, "messages": items, **{k: v for k, v in after.items() if k not in header}}
    text = json.dumps(document, indent=indent, ensure_ascii=ascii_only)
    data = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")
    read = _read(data, ("messages",))
    got = [r.value for r in read if isinstance(r, Element)]
    assert got == loads(data)["messages"] == items
    assert {r.path[0]: r.value for r in read if isinstance(r, Member)} == {
        k: v for k, v in document.items() if k != "messages"
    }
    handle = io.BytesIO(data)
    for element in (r for r in read if isinstance(r, Element)):
        assert loads(data[element.offset : element.offset + element.length]) == element.value
        assert read_at(handle, element.offset, element.length) == element.value


@given(st.lists(values, max_size=4), st.text(max_size=4), spaces)
def test_the_array_may_be_inside_another_object(items: list[Any], name: str, space: str) -> None:
    """goose's exports hold their messages in `conversation.messages` (older ones in
    `conversation`)."""
    document = {"id": name, "conversation": {"messages": items, "n": 1}, "z": [1]}
    data = json.dumps(document, separators=("," + space, ": ")).encode()
    read = _read(data, ("conversation", "messages"))
    assert [r.value for r in read if isinstance(r, Element)] == items
    assert [(r.path, r.value) for r in read if isinstance(r, Member)] == [
        (("id",), name),
        (("conversation", "n"), 1),
        (("z",), [1]),
    ]


def test_an_array_where_the_path_leads_elsewhere_is_a_member() -> None:
    data = b'{"conversation": [1, 2], "messages": {"a": 1}}'
    assert _read(data, ("conversation", "messages")) == [
        Member(("conversation",), [1, 2]),
        Member(("messages",), {"a": 1}),
    ]
    assert _read(b'{"messages": "none"}', ("messages",)) == [Member(("messages",), "none")]


def test_empty_objects_and_arrays() -> None:
    assert _read(b"{}", ("messages",)) == []
    assert _read(b' { "messages" : [ ] } ', ("messages",)) == []
    assert _read(b'{"messages": [{}], "a": {}}', ("messages",)) == [
        Element(14, 2, {}),
        Member(("a",), {}),
    ]


def test_numbers_cut_by_a_block_are_read_whole() -> None:
    data = b'{"messages": [123456789012345, 1.5e300, -0.000001]}'
    assert [r.value for r in _read(data, ("messages",))] == [123456789012345, 1.5e300, -0.000001]


def test_an_integer_too_long_for_python_is_infinite_as_loads_reads_it() -> None:
    data = b'{"messages": [' + b"9" * 5000 + b"]}"
    assert (
        [r.value for r in _read(data, ("messages",))] == [float("inf")] == loads(data)["messages"]
    )


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b'{"messages": [1, 2}',
        b'{"messages": [1 2]}',
        b'{"messages": [1, 2]',
        b'{"messages": [1, 2]} x',
        b'{"a" 1}',
        b"{1: 2}",
        b'{"messages": [tru]}',
        b'{"messages": ["unterminated]}',
        b"\xff\xfe{}",
    ],
)
def test_what_loads_refuses_is_refused(data: bytes) -> None:
    with pytest.raises(ValueError, match=r"."):
        loads(data)
    with pytest.raises(ValueError, match=r"."):
        _read(data, ("messages",))


def test_a_document_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(json.JSONDecodeError, match=r"Expecting '\{'"):
        _read(b"[1, 2]", ("messages",))


def test_nothing_past_the_size_when_opened_is_read() -> None:
    """A file still growing: what was written after it was opened is not read."""
    data = b'{"messages": [1, 2]}{"more": 1}'
    assert [r.value for r in _read(data, ("messages",), size=20)] == [1, 2]
    with pytest.raises(json.JSONDecodeError, match="Expecting"):
        _read(data, ("messages",), size=15)


def test_deep_nesting_is_refused_as_loads_refuses_it() -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    with pytest.raises(RecursionError):
        loads(deep)
    with pytest.raises(RecursionError):
        _read(b'{"messages": [' + deep + b"]}", ("messages",))


def test_a_value_too_long_to_hold_is_refused_before_more_is_held(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A 2 GB message, or a document cut in the middle of its array, is not held whole."""
    monkeypatch.setattr(json_stream, "LONGEST_VALUE", 40)
    read: list[Member | Element] = []
    data = b'{"messages": [1, "' + b"x" * 1000 + b'", 2]}'
    with pytest.raises(ValueError, match="a value of over 40 characters"):
        read.extend(members(io.BytesIO(data), len(data), ("messages",)))
    assert [r.value for r in read] == [1]
    with pytest.raises(ValueError, match="a value of over 40 characters"):
        _read(b'{"messages": [{"a": "' + b"y" * 100, ("messages",))
