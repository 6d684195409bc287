"""Reading a long file session whole is linear (issue #18, item 8): each page of an export,
a find or the index is found in the file's parse kept, never by looking at every message of
the session again (25k messages took 1.3 s, 200k 85 s). Counted, not timed: the messages
looked at and the lines parsed across a whole read of N and of 4N messages."""

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from desktop_app.domain.message import Message, MessageCursor
from desktop_app.domain.reading import PAGE, chunks, find_in_session, iter_messages
from desktop_app.sources.claude_code.format import FORMAT as CLAUDE_CODE
from desktop_app.sources.files import history, values
from desktop_app.sources.files.history import FileFormat, FileHistory, ParsedSession
from desktop_app.sources.files.values import Line
from desktop_app.sources.goose_export.format import FORMAT as GOOSE_EXPORT
from tests.fixtures import histories

SESSION = "00000000-0000-4000-8000-000000000000"


def _log(folder: Path, lines: int) -> Path:
    """A Claude Code log of `lines` prompts and replies, in the shape Claude Code writes (as in
    tests/fixtures/agents/claude_code), one message a line."""
    folder.mkdir()
    path = folder / f"{SESSION}.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for row in range(lines):
            common = {
                "uuid": f"u{row}",
                "sessionId": SESSION,
                "cwd": "/w",
                "timestamp": "2026-01-01T00:00:00.000Z",
            }
            if row % 2 == 0:
                line = {"type": "user", "message": {"role": "user", "content": f"step {row}"}}
            else:
                content = [{"type": "text", "text": f"done {row}"}]
                line = {
                    "type": "assistant",
                    "message": {"id": f"m{row}", "role": "assistant", "content": content},
                }
            handle.write(json.dumps({**common, **line}) + "\n")
    return folder


class _Counts:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.cursors = 0
        self.lines = 0
        plain_cursor = Message.cursor
        plain_lines = values.json_lines
        plain_parsed = values.parsed_lines

        def cursor(message: Message) -> MessageCursor:
            self.cursors += 1
            return plain_cursor.__get__(message)  # type: ignore[no-any-return]

        def json_lines(data: bytes, first_row: int = 0) -> Iterator[Line]:
            for line in plain_lines(data, first_row):
                self.lines += 1
                yield line

        def parsed_lines(lines: list[bytes], first_row: int = 0) -> Iterator[Line]:
            for line in plain_parsed(lines, first_row):
                self.lines += 1
                yield line

        monkeypatch.setattr(Message, "cursor", property(cursor))
        # the names the reading uses: a log followed, and a log read a block at a time
        monkeypatch.setattr(history, "json_lines", json_lines)
        monkeypatch.setattr(history, "parsed_lines", parsed_lines)


def _whole_read(tmp_path: Path, lines: int) -> _Counts:
    source = FileHistory(_log(tmp_path / f"n{lines}", lines), [CLAUDE_CODE], cache_dir=None)
    with pytest.MonkeyPatch.context() as monkeypatch:
        counts = _Counts(monkeypatch)
        source.get_session(SESSION)  # what `show` does first: the file catalogued
        assert sum(1 for _ in iter_messages(source, SESSION)) == lines
        assert len(find_in_session(source, SESSION, "done")) == lines // 2
    return counts


@pytest.mark.parametrize("lines", [4 * PAGE])
def test_a_whole_read_looks_at_each_message_a_bounded_number_of_times(
    tmp_path: Path, lines: int
) -> None:
    small = _whole_read(tmp_path, lines)
    large = _whole_read(tmp_path, 4 * lines)
    # the log parsed twice in all (for the catalog, then followed for reading), never per page;
    # each message's position taken once: linear. Before, each of the 4N/PAGE pages looked at
    # all 4N messages (16 times more for 4 times the size)
    assert small.lines == 2 * lines
    assert large.lines == 2 * 4 * lines
    assert small.cursors <= 2 * lines
    assert large.cursors <= 2 * 4 * lines


def test_messages_at_a_few_positions_looks_at_no_other_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search page reads back a few messages from each of some twenty files."""
    source = FileHistory(_log(tmp_path / "log", 3 * PAGE), [CLAUDE_CODE], cache_dir=None)
    positions = source.positions(SESSION)
    wanted = [positions[7], positions[900], positions[1_400]]
    counts = _Counts(monkeypatch)
    found = source.messages_at(SESSION, list(reversed(wanted)))
    assert [m.row_id for m in found] == [7, 900, 1_400]  # in the file's order
    assert counts.cursors == 0
    assert counts.lines == 0
    between = source.messages_between(SESSION, positions[10], positions[12])
    assert [m.row_id for m in between] == [10, 11, 12]
    assert counts.cursors == 0


def test_a_session_being_read_is_not_parsed_again_when_another_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file the change poll summarises again is kept for reading only when there is room: it
    must not push out a long session being read page by page, which would be parsed again for
    each page while an agent writes elsewhere in the folder."""
    monkeypatch.setattr(history, "PARSED_CACHE_MESSAGES", 100)
    folder = tmp_path / "exports"
    folder.mkdir()
    long = histories.goose_export("long")
    long["conversation"] = histories.goose_conversation() * 300
    histories.write_json(folder / "long.json", long)
    histories.write_json(folder / "other.json", histories.goose_export("other"))
    source = FileHistory(folder, [GOOSE_EXPORT], cache_dir=None)
    parsed: list[str] = []
    plain = history.parse_file

    def parse_file(path: Path, formats: Sequence[FileFormat]) -> ParsedSession:
        parsed.append(path.name)
        return plain(path, formats)

    monkeypatch.setattr(history, "parse_file", parse_file)
    read = 0
    for page, part in enumerate(chunks(source.positions("long"))):
        other = histories.goose_export("other")
        other["name"] = f"renamed {page}"
        histories.write_json(folder / "other.json", other)
        source.change_token()  # the window's change poll: a fresh scan
        read += len(source.messages_between("long", part[0], part[len(part) - 1]))
        assert source.get_session("other").name == f"renamed {page}"
    assert read == 1_200
    assert parsed.count("long.json") == 1
