"""A log's messages kept in pages, most of them out of memory (`MessagePages`): the same
messages, in the same places, as a list would hold — for the agents' genuine logs too — and
never more than a few pages in memory, whatever the log's size."""

import json
from bisect import insort
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop_app.domain.message import Message, MessageCursor, Role
from desktop_app.domain.parts import TextPart
from desktop_app.domain.source import SessionQuery
from desktop_app.sources.claude_code import format as claude_code
from desktop_app.sources.codex import format as codex
from desktop_app.sources.files import history, pages
from desktop_app.sources.files.history import FileHistory, parse_file
from desktop_app.sources.files.pages import MessagePages, placed, resident, row_ids
from desktop_app.sources.pi import format as pi

AGENTS = Path(__file__).parent.parent / "fixtures" / "agents"
LOGS = [
    *sorted((AGENTS / "claude_code").rglob("*.jsonl")),
    *sorted((AGENTS / "codex").rglob("*.jsonl")),
    *sorted((AGENTS / "pi").rglob("*.jsonl")),
]
FORMATS = {"claude_code": claude_code.FORMAT, "codex": codex.FORMAT, "pi": pi.FORMAT}


def message(row: int, text: str = "") -> Message:
    return Message(
        session_id="s",
        row_id=row,
        message_id=None,
        role=Role.USER,
        role_raw="user",
        created_at=None,
        created_raw=None,
        parts=(TextPart(text=text or f"row {row}", raw=text),),
    )


@pytest.fixture
def tiny_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pages of two messages, one kept behind, one read back: every log here spills."""
    monkeypatch.setattr(pages, "PAGE_MESSAGES", 2)
    monkeypatch.setattr(pages, "BEHIND", 1)
    monkeypatch.setattr(pages, "LOADED", 1)


def format_of(path: Path) -> history.FileFormat:
    return FORMATS[path.relative_to(AGENTS).parts[0]]


@pytest.mark.usefixtures("tiny_pages")
def test_pages_hold_what_a_list_holds_in_its_places() -> None:
    kept = MessagePages()
    plain: list[Message] = []
    for row in range(41):
        for copy in range(row % 3):  # rows of none, one or two messages
            plain.append(message(row, f"{row}.{copy}"))
            kept.append(plain[-1])
    assert kept == plain
    assert len(kept) == len(plain)
    assert [kept[i] for i in range(len(plain))] == plain
    assert kept[-1] == plain[-1]
    assert kept[-len(plain)] == plain[0]
    assert kept[3:9] == plain[3:9]
    assert kept[::-5] == plain[::-5]
    assert list(row_ids(kept)) == [m.row_id for m in plain]
    assert resident(kept) <= 2 * (pages.BEHIND + 1) + 2 * pages.LOADED
    with pytest.raises(IndexError):
        kept[len(plain)]
    # Replaced where it was written out, and in memory: read back as replaced.
    for index in (0, 5, len(plain) - 1):
        plain[index] = replace(plain[index], parts=(TextPart(text="changed", raw="changed"),))
        kept[index] = plain[index]
    assert kept == plain
    kept.close()


@pytest.mark.usefixtures("tiny_pages")
def test_a_view_keeps_its_length_while_more_are_appended() -> None:
    kept = MessagePages()
    for row in range(7):
        kept.append(message(row))
    view = kept.view()
    for row in range(7, 20):
        kept.append(message(row))
    assert len(view) == 7
    assert list(view) == [message(row) for row in range(7)]
    assert list(row_ids(view)) == list(range(7))
    with pytest.raises(IndexError):
        view[7]


def test_pages_refuse_what_would_put_messages_out_of_place() -> None:
    kept = MessagePages()
    kept.append(message(5))
    with pytest.raises(ValueError, match="order"):
        kept.append(message(4))
    with pytest.raises(ValueError, match="rows alone"):
        kept.append(replace(message(6), created_raw=1))
    with pytest.raises(ValueError, match="same row"):
        kept[0] = message(6)


@given(
    base=st.lists(st.integers(0, 30), max_size=30).map(sorted),
    held=st.lists(st.integers(0, 35), max_size=5),
)
def test_held_messages_are_placed_as_insort_places_them(base: list[int], held: list[int]) -> None:
    messages = [message(row, f"base {i}") for i, row in enumerate(base)]
    extra = [message(row, f"held {i}") for i, row in enumerate(held)]
    expected = list(messages)
    for one in extra:
        insort(expected, one, key=lambda m: m.row_id)
    shown = placed(messages, extra)
    assert list(shown) == expected
    assert [shown[i] for i in range(len(expected))] == expected
    assert list(row_ids(shown)) == [m.row_id for m in expected]


@pytest.mark.parametrize("log", LOGS, ids=lambda p: str(p.relative_to(AGENTS)))
def test_a_genuine_log_reads_the_same_in_pages(log: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every message, its raw JSON and the session's figures as read whole, with every page
    but the last few written out and read back (Claude Code's replies added to after)."""
    whole = parse_file(log, [format_of(log)])
    monkeypatch.setattr(pages, "PAGE_MESSAGES", 1)
    monkeypatch.setattr(pages, "BEHIND", 0)
    monkeypatch.setattr(pages, "LOADED", 1)
    paged = parse_file(log, [format_of(log)])
    assert paged.session == whole.session
    assert list(paged.messages) == list(whole.messages)
    assert [paged.messages[i] for i in range(len(whole.messages))] == list(whole.messages)


def claude_log(copies: int) -> bytes:
    """Claude Code's genuine sample, its replies and lines made new for each copy."""
    lines = (AGENTS / "claude_code" / "project" / "sample_session.jsonl").read_bytes()
    return b"".join(
        lines.replace(b'"msg_', b'"msg_%d_' % copy).replace(b'"uuid":"', b'"uuid":"%d-' % copy)
        for copy in range(copies)
    )


@pytest.mark.usefixtures("tiny_pages")
def test_a_long_log_is_opened_and_paged_with_a_few_pages_in_memory(tmp_path: Path) -> None:
    log = tmp_path / "7f3c2a10-0000-4000-8000-00000000ffff.jsonl"
    log.write_bytes(claude_log(60))
    source = FileHistory(log, [claude_code.FORMAT], tmp_path / "data")
    session = source.list_sessions(SessionQuery()).sessions[0]
    positions = source.positions(session.id)
    whole = parse_file(log, [claude_code.FORMAT]).messages
    assert len(positions) == len(whole) > 100
    read = [
        m
        for start in range(0, len(positions), 7)
        for m in source.messages_between(
            session.id, positions[start], positions[min(start + 6, len(positions) - 1)]
        )
    ]
    assert read == list(whole)
    last = positions[-1]
    assert source.messages_at(session.id, [last, MessageCursor(None, -1)]) == [whole[-1]]
    kept = source._kept(session.id).parsed.messages
    assert resident(kept) <= 2 * (pages.BEHIND + 1) + 2 * pages.LOADED


def test_a_log_larger_than_any_document_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The size limit is a JSON document's: a log past it is read whole; a document is not."""
    monkeypatch.setattr(history, "MAX_FILE_BYTES", 1_000)
    log = tmp_path / "7f3c2a10-0000-4000-8000-00000000eeee.jsonl"
    log.write_bytes(claude_log(3))
    read = parse_file(log, [claude_code.FORMAT])
    assert (read.session.message_count or 0) > 3
    assert "too large" not in json.dumps([str(m.parts) for m in read.messages])
    export = tmp_path / "export.json"
    export.write_text(json.dumps({"id": "x", "conversation": ["x" * 2_000]}))
    from desktop_app.sources.goose_export import format as goose_export

    refused = parse_file(export, [goose_export.FORMAT])
    assert "too large to read" in str(refused.messages[0].parts)


@pytest.mark.usefixtures("tiny_pages")
def test_a_log_followed_in_pages_reads_on_as_a_whole_read(tmp_path: Path) -> None:
    """A log that grows past pages written out: read on from where it was, each step the
    same as reading the log as it then stands."""
    log = tmp_path / "7f3c2a10-0000-4000-8000-00000000dddd.jsonl"
    lines = claude_log(4).splitlines(keepends=True)
    log.write_bytes(b"")
    source = FileHistory(log, [claude_code.FORMAT], tmp_path / "data")
    for end in range(0, len(lines), 9):
        with log.open("ab") as handle:
            handle.write(b"".join(lines[end : end + 9]))
        session = source.list_sessions(SessionQuery()).sessions[0]
        positions = source.positions(session.id)
        read = source.messages_between(session.id, positions[0], positions[-1])
        assert read == list(parse_file(log, [claude_code.FORMAT]).messages)
