"""A followed log that is rewritten, not appended to (issue #18, item 12): rewritten in place
(longer, or of the same length), truncated and written again, or replaced by `os.replace`
with a file that was given the freed inode again (ext4 does so at once). Each is read afresh
as a fresh opening reads it, never on from the old offset (old lines, a "not JSON" line where
the offset fell mid-line, then the new tail). On Claude Code's genuine log
(tests/fixtures/agents/claude_code/project/sample_session.jsonl, simonw/claude-code-transcripts)."""

import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from desktop_app.domain.message import Message
from desktop_app.domain.parts import UnsupportedPart
from desktop_app.domain.reading import EVERY_SESSION, iter_messages, iter_sessions
from desktop_app.sources.claude_code.format import FORMAT as CLAUDE_CODE
from desktop_app.sources.files import history, values
from desktop_app.sources.files.history import FileHistory
from desktop_app.sources.files.values import Line

GENUINE = Path(__file__).parents[1] / "fixtures/agents/claude_code/project/sample_session.jsonl"
PROMPT = b"Create a hello world function"
SAME_LENGTH = b"Create a HELLO WORLD function"
LONGER = b"Create a goodbye world function, and test it"


def _one_more_line(data: bytes) -> bytes:
    line = {
        "type": "user",
        "timestamp": "2025-12-24T10:09:00.000Z",
        "sessionId": "test-session-id",
        "message": {"role": "user", "content": "And one more thing"},
        "uuid": "msg-more",
    }
    return data + json.dumps(line).encode() + b"\n"


def _in_place(log: Path, data: bytes) -> None:
    with log.open("r+b") as handle:  # the same file (inode), written over from its start
        handle.write(data)
        handle.truncate()


def _truncated_and_written(log: Path, data: bytes) -> None:
    os.truncate(log, 0)
    with log.open("ab") as handle:
        handle.write(data)


def _replaced_on_the_same_inode(log: Path, data: bytes) -> None:
    """`os.replace` by a new file; then again, until the file holds the inode the followed one
    had (ext4 gives a freed inode to the next file at once)."""
    inode = log.stat().st_ino
    for attempt in range(32):  # ends: a bounded number of tries
        temporary = log.with_name(f"new-{attempt}.tmp")
        temporary.write_bytes(data)
        os.replace(temporary, log)
        if log.stat().st_ino == inode:
            return
    pytest.skip("this file system does not give a freed inode again")


def _followed(tmp_path: Path) -> tuple[FileHistory, Path, str]:
    folder = tmp_path / "project"
    folder.mkdir()
    log = folder / GENUINE.name
    shutil.copyfile(GENUINE, log)
    assert PROMPT in log.read_bytes()
    source = FileHistory(folder, [CLAUDE_CODE], cache_dir=None)
    (session,) = iter_sessions(source, EVERY_SESSION)
    assert any(PROMPT.decode() in repr(m.parts) for m in iter_messages(source, session.id))
    return source, log, session.id


def _as_read_afresh(log: Path, session_id: str) -> list[Message]:
    return list(iter_messages(FileHistory(log.parent, [CLAUDE_CODE], cache_dir=None), session_id))


@pytest.mark.parametrize(
    ("rewrite", "new"),
    [
        (_in_place, lambda data: data.replace(PROMPT, LONGER)),
        (_in_place, lambda data: data.replace(PROMPT, SAME_LENGTH)),
        (_truncated_and_written, lambda data: _one_more_line(data.replace(PROMPT, SAME_LENGTH))),
        (_replaced_on_the_same_inode, lambda data: _one_more_line(data.replace(PROMPT, LONGER))),
        (
            _replaced_on_the_same_inode,
            lambda data: _one_more_line(data.replace(PROMPT, SAME_LENGTH)),
        ),
    ],
    ids=["in-place-longer", "in-place-same-length", "truncated", "replaced", "replaced-same"],
)
def test_a_rewritten_log_is_read_afresh(
    tmp_path: Path,
    rewrite: Callable[[Path, bytes], None],
    new: Callable[[bytes], bytes],
) -> None:
    source, log, session_id = _followed(tmp_path)
    rewrite(log, new(GENUINE.read_bytes()))
    read = list(iter_messages(source, session_id))
    assert read == _as_read_afresh(log, session_id)
    assert not [m for m in read if any(isinstance(p, UnsupportedPart) for p in m.parts)]
    assert not any(PROMPT.decode() in repr(m.parts) for m in read)
    assert source.get_session(session_id).message_count == len(
        [m for m in read if m.visibility.user]
    )


def test_a_log_appended_to_is_still_read_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check costs no re-reading: appended lines are read on, from the offset."""
    source, log, session_id = _followed(tmp_path)
    before = list(iter_messages(source, session_id))
    parsed: list[int] = []

    def json_lines(data: bytes, first_row: int = 0) -> Iterator[Line]:
        for line in values.json_lines(data, first_row):
            parsed.append(line.row)
            yield line

    monkeypatch.setattr(history, "json_lines", json_lines)
    with log.open("ab") as handle:
        handle.write(_one_more_line(b""))
    read = list(iter_messages(source, session_id))
    assert parsed == [len(GENUINE.read_bytes().splitlines())]  # the new line alone
    assert read[: len(before)] == before
    assert len(read) == len(before) + 1
    assert read == _as_read_afresh(log, session_id)
