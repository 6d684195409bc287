"""A Gemini CLI recording too large to hold (#22 item 1: over `MAX_FILE_BYTES`) is read a
value at a time into `MessagePages` — the same session and the same messages as read whole.

Checked on every genuine recording of the fixtures (written by gemini-cli's own
`ChatRecordingService`: tests/fixtures/agents/README.md), on recordings hypothesis writes in
both of the recorder's shapes (a JSON document, and JSON lines with `$set`, a message written
again when its tools finish, `$rewindTo`, lines that do not parse), with blocks of a few bytes
so that every value is cut by a block's end somewhere, and through the files history, which
lists such a file and opens it instead of saying it is too large."""

import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.domain.source import SessionQuery
from desktop_app.sources.common import json_stream
from desktop_app.sources.files import history, values
from desktop_app.sources.files.history import FileHistory
from desktop_app.sources.gemini_cli import format as gemini

AGENTS = Path(__file__).resolve().parents[1] / "fixtures" / "agents"
GENUINE = sorted(
    path
    for path in (AGENTS / "gemini_cli").rglob("session-*")
    if path.suffix in {".json", ".jsonl"}
)


@pytest.fixture(autouse=True)
def _small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(json_stream, "BLOCK", 5)
    monkeypatch.setattr(values, "PLACED_BLOCK", 7)


def _both(path: Path, data: bytes) -> None:
    whole = gemini.parse(path, data)
    large = gemini.parse_large(path, io.BytesIO(data), len(data))
    assert large.session == whole.session
    assert list(large.messages) == list(whole.messages)
    assert len(large.messages) == len(whole.messages)


def test_the_genuine_recordings_are_there() -> None:
    assert len(GENUINE) >= 8
    assert {path.suffix for path in GENUINE} == {".json", ".jsonl"}


@pytest.mark.parametrize("path", GENUINE, ids=lambda path: path.name)
def test_a_genuine_recording_reads_as_it_does_whole(path: Path) -> None:
    _both(path, path.read_bytes())


texts = st.text(max_size=12)
contents = texts | st.lists(st.fixed_dictionaries({"text": texts}), max_size=2)
ids = st.sampled_from(["a", "b", "c", "d", "e"])
tokens = st.fixed_dictionaries(
    {"input": st.integers(0, 10**6), "output": st.integers(0, 10**4)},
    optional={"total": st.integers(0, 10**6), "cached": st.integers(0, 10**5)},
)
calls = st.lists(
    st.fixed_dictionaries(
        {"id": ids, "name": st.sampled_from(["read_file", "run_shell_command", "x"])},
        optional={"args": st.dictionaries(texts, texts, max_size=2), "status": texts},
    ),
    max_size=2,
)
records = st.one_of(
    st.fixed_dictionaries(
        {"id": ids, "type": st.just("user"), "content": contents},
        optional={"timestamp": st.just("2026-12-01T10:00:00Z"), "displayContent": contents},
    ),
    st.fixed_dictionaries(
        {"id": ids, "type": st.just("gemini"), "content": contents},
        optional={
            "tokens": tokens,
            "model": st.sampled_from(["gemini-2.5-pro", ""]),
            "toolCalls": calls,
        },
    ),
    st.fixed_dictionaries(
        {"id": ids, "type": st.sampled_from(["info", "warning", "error", "odd"]), "content": texts}
    ),
)
header = st.fixed_dictionaries(
    {"sessionId": texts, "projectHash": st.just("hash")},
    optional={"startTime": st.just("2026-12-01T09:00:00Z"), "summary": texts},
)


@settings(max_examples=150)
@given(header, st.lists(records, max_size=8), st.sampled_from([None, 2]))
def test_a_recorded_document_reads_as_it_does_whole(
    top: dict[str, Any], recorded: list[dict[str, Any]], indent: int | None
) -> None:
    document = {
        **top,
        "messages": [*recorded, "not a record"],
        "lastUpdated": "2026-12-01T11:00:00Z",
    }
    _both(Path("session-doc.json"), json.dumps(document, indent=indent).encode())


lines = st.one_of(
    records.map(json.dumps),
    st.builds(lambda target: json.dumps({"$rewindTo": target}), ids),
    st.builds(lambda summary: json.dumps({"$set": {"summary": summary}}), texts),
    st.sampled_from(["", "not json", "[1, 2]", '{"kind": "a header line"}', "   "]),
)


@settings(max_examples=150)
@given(header, st.lists(lines, max_size=10), st.sampled_from(["\n", "\r\n"]))
def test_recorded_lines_read_as_they_do_whole(
    top: dict[str, Any], written: list[str], ending: str
) -> None:
    data = ending.join([json.dumps(top), *written]).encode() + ending.encode()
    _both(Path("session-lines.jsonl"), data)


@pytest.mark.parametrize("catalogued", [False, True])
def test_a_large_recording_is_listed_and_opened_not_called_too_large(
    catalogued: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "tmp" / "hash" / "chats"
    folder.mkdir(parents=True)
    genuine = next(path for path in GENUINE if path.suffix == ".json")
    (folder / genuine.name).write_bytes(genuine.read_bytes())
    monkeypatch.setattr(history, "MAX_FILE_BYTES", 100)
    cache = tmp_path / "cache" if catalogued else None
    source = FileHistory(tmp_path / "tmp", (gemini.FORMAT,), cache_dir=cache)
    try:
        [session] = source.list_sessions(SessionQuery()).sessions
        whole = gemini.parse(genuine, genuine.read_bytes())
        assert session.name == whole.session.name
        assert session.message_count == whole.session.message_count
        opened = list(source.messages_between(session.id, *_ends(source, session.id)))
        assert opened == list(whole.messages)
        assert not any("too large" in str(m.parts) for m in opened)
    finally:
        source.close()


def _ends(source: FileHistory, session_id: str) -> tuple[Any, Any]:
    positions = source.positions(session_id)
    return positions[0], positions[len(positions) - 1]


def test_lines_have_their_places_and_one_too_long_is_passed_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(values, "LONGEST_LINE", 30)
    lines = [b'{"a": 1}', b"x" * 100, b'{"b": 2}', b"", b'{"c": "' + b"z" * 40 + b'"}', b"[3]"]
    data = b"\n".join(lines) + b"\r\n"
    found = list(values.placed_lines(io.BytesIO(data), len(data)))
    assert [(line.row, line.problem) for line, _ in found] == [
        (0, ""),
        (1, "a line of 101 bytes, too long to read"),
        (2, ""),
        (4, "a line of 50 bytes, too long to read"),
        (5, "a line that is not a JSON object"),
    ]
    for line, offset in found:
        if not line.problem.startswith("a line of"):
            assert data[offset : offset + len(line.raw)] == line.raw
    assert found[1][0].raw == b"x" * 100 or len(found[1][0].raw) <= values.RAW_SHOWN_BYTES


def test_a_large_document_cut_short_is_one_line_that_could_not_be_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Cut in the middle of its array (a copy that stopped), a recording is not held whole:
    as the whole reading does, it is read as JSON lines — one line, too long to read."""
    monkeypatch.setattr(json_stream, "LONGEST_VALUE", 50)
    monkeypatch.setattr(values, "LONGEST_LINE", 60)
    data = b'{"sessionId": "s", "projectHash": "h", "messages": [{"id": "a", "content": "'
    data += b"w" * 500
    parsed = gemini.parse_large(Path("session-cut.json"), io.BytesIO(data), len(data))
    [message] = list(parsed.messages)
    assert "too long to read" in message.parts[0].reason  # type: ignore[union-attr]


def test_a_large_file_of_anything_else_keeps_a_bounded_number_of_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """200 MB of something else is a million lines that do not parse: a few are shown, the
    rest counted, so memory stays bounded."""
    monkeypatch.setattr(gemini, "MOST_UNREADABLE", 3)
    data = b'{"sessionId": "s", "projectHash": "h"}\n' + b"not json\n" * 10
    parsed = gemini.parse_large(Path("session-odd.jsonl"), io.BytesIO(data), len(data))
    messages = list(parsed.messages)
    assert len(messages) == 4
    assert [m.parts[0].reason for m in messages] == [  # type: ignore[union-attr]
        "a line that is not JSON",
        "a line that is not JSON",
        "a line that is not JSON",
        "7 more lines that are not JSON objects",
    ]
    assert [m.row_id for m in messages] == [0, 1, 2, 3]


HOSTILE = {
    "empty": b"",
    "binary garbage": bytes(range(256)) * 400,
    "nested 10,000 deep": b'{"messages": [' + b"[" * 10_000 + b"]" * 10_000 + b"]}",
    "nested lines": b'{"sessionId": "s"}\n' + b"[" * 10_000 + b"]" * 10_000 + b"\n",
    "wrong types": json.dumps(
        {
            "sessionId": 5,
            "startTime": [],
            "summary": {},
            "messages": [
                {"id": 1, "type": "gemini", "content": 3, "tokens": "x", "toolCalls": "y"},
                {"id": [], "type": None, "thoughts": 7, "model": 9, "timestamp": 1.5},
                "str",
                5,
            ],
        }
    ).encode(),
    "messages not a list": b'{"sessionId": "s", "projectHash": "h", "messages": "nope"}',
    "duplicate ids, rewinds to nothing": b'{"sessionId": "s"}\n'
    + b'{"id": "a", "type": "user", "content": "one"}\n' * 3
    + b'{"$rewindTo": "a"}\n{"$rewindTo": "zz"}\n',
    "cut mid-record": b'{"sessionId": "s", "messages": [{"id": "a", "type": "user"}, {"id": "b"',
}


@pytest.mark.parametrize("data", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_recordings_read_as_they_do_whole(data: bytes) -> None:
    """Each ends as a session (what cannot be read shown as such), never an exception."""
    _both(Path("session-hostile.json"), data)
