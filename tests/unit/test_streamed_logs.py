"""A JSON-lines log is read a block of whole lines at a time, to the same session as read whole.

On the agents' own logs (tests/fixtures/agents/README.md credits them), cut into blocks as small
as 7 bytes: every block boundary falls inside lines, line ends (`\\r\\n` too) and JSON values."""

import io
from pathlib import Path
from typing import Any

import pytest

from desktop_app.sources.claude_code.format import FORMAT as CLAUDE_CODE
from desktop_app.sources.codex.format import FORMAT as CODEX
from desktop_app.sources.files import history
from desktop_app.sources.files.history import FileFormat, parse_file
from desktop_app.sources.pi.format import FORMAT as PI

AGENTS = Path(__file__).parents[1] / "fixtures/agents"
LOGS = [
    (path, fmt)
    for fmt, folder in ((CLAUDE_CODE, "claude_code"), (CODEX, "codex"), (PI, "pi"))
    for path in sorted((AGENTS / folder).rglob("*.jsonl"))
]


@pytest.mark.parametrize("block", [7, 1000, 1 << 20])
def test_every_genuine_log_reads_in_blocks_as_it_reads_whole(
    block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(history, "STREAM_BLOCK", block)
    assert len(LOGS) > 20
    for path, fmt in LOGS:
        assert parse_file(path, [fmt]) == fmt.parse(path, path.read_bytes()), path


def test_line_ends_of_every_kind_and_a_last_line_without_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(history, "STREAM_BLOCK", 3)
    path = tmp_path / "odd.jsonl"
    lines = [b'{"type":"user","a":1}', b"", b"not json", b'{"b":2}', b'{"c":"\\r"}']
    path.write_bytes(b"\r\n".join(lines[:2]) + b"\r" + b"\n".join(lines[2:]))
    assert parse_file(path, [CLAUDE_CODE]) == CLAUDE_CODE.parse(path, path.read_bytes())


def test_a_log_is_never_read_whole_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = max((p for p, _ in LOGS), key=lambda p: p.stat().st_size)
    monkeypatch.setattr(history, "STREAM_BLOCK", 1024)
    monkeypatch.setattr(history, "HEAD_BYTES", 8192)
    asked: list[int] = []
    opened = history.open_regular

    class Counting(io.BufferedReader):
        def read(self, size: int | None = -1, /) -> bytes:
            asked.append(-1 if size is None else size)
            return super().read(size)

    def counting(where: Path) -> Any:
        handle = opened(where)
        assert isinstance(handle, io.BufferedReader)
        return Counting(handle.detach())

    monkeypatch.setattr(history, "open_regular", counting)
    fmt: FileFormat = next(f for p, f in LOGS if p == path)
    assert path.stat().st_size > 4 * 8192
    parse_file(path, [fmt])
    assert len(asked) > 10
    assert all(0 < size <= 8192 for size in asked), asked


def test_the_reading_stops_at_the_size_the_log_had_when_it_was_opened() -> None:
    """Something appending for ever cannot keep the reading going."""
    growing = io.BytesIO(b'{"a":1}\n' * 1000)
    blocks = list(history._line_blocks(growing, b"", 80))
    assert b"".join(blocks) == b'{"a":1}\n' * 10
