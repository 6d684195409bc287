"""A log's messages kept in pages, most of them out of memory (`MessagePages`): the same
messages, in the same places, as a list would hold — for the agents' genuine logs too — and
never more than a few pages in memory, whatever the log's size."""

import gc
import json
import sys
import weakref
from bisect import insort
from dataclasses import replace
from datetime import UTC
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop_app.domain.message import Message, MessageCursor, Role, Visibility
from desktop_app.domain.parts import TextPart, UnsupportedPart
from desktop_app.domain.source import SessionQuery
from desktop_app.domain.usage import MessageUsage, TokenUsage
from desktop_app.sources.claude_code import format as claude_code
from desktop_app.sources.codex import format as codex
from desktop_app.sources.files import history, pages, tally
from desktop_app.sources.files.history import FileHistory, parse_file, summary_of
from desktop_app.sources.files.pages import (
    MessagePages,
    PagesDropped,
    placed,
    resident,
    row_ids,
    tallied_only,
)
from desktop_app.sources.files.tally import Tally
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


CLAUDE_LOG = (
    AGENTS / "claude_code" / "written" / "1.0.128" / "-tmp-ccrun-v10128-payments-api"
    / "8a6a6fac-acd0-4652-bce8-5020afab80f8.jsonl"
)  # fmt: skip
"""Written by Claude Code 1.0.128 (tests/fixtures/agents/README.md): three of its five replies
over several lines."""


def claude_log(copies: int) -> bytes:
    """Claude Code's genuine log, its replies, requests and lines made new for each copy."""
    lines = CLAUDE_LOG.read_bytes()
    return b"".join(
        lines.replace(b'"msg_', b'"msg_%d_' % copy)
        .replace(b'"req_', b'"req_%d_' % copy)
        .replace(b'"uuid":"', b'"uuid":"%d-' % copy)
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


def usage_message(row: int, draw: st.DataObject) -> Message:
    figures = st.none() | st.integers(0, 2**40)
    tokens = TokenUsage(**{name: draw.draw(figures) for name in tally.FIGURES})
    cost = draw.draw(st.none() | st.floats(allow_nan=True, allow_infinity=True))
    at = draw.draw(st.none() | st.datetimes(timezones=st.just(UTC)))
    return replace(
        message(row, draw.draw(st.sampled_from(["", "prompt", "  two  words "]))),
        created_at=at,
        usage=(draw.draw(st.booleans()) and MessageUsage(tokens=tokens, cost=cost)) or None,
        synthetic=draw.draw(st.booleans()),
        visibility=Visibility(user=draw.draw(st.booleans()), agent=True),
    )


class Odd:
    """Counting that skips odd rows, takes a prompt's text and measures what is not synthetic."""

    def own(self, message: Message) -> bool:
        return message.row_id % 2 == 0

    def prompt(self, message: Message) -> str | None:
        text = message.parts[0].text if isinstance(message.parts[0], TextPart) else ""
        return text.strip() or None

    def measured(self, message: Message) -> bool:
        return not message.synthetic


@given(st.data())
def test_pages_tallied_apart_add_up_to_the_whole(data: st.DataObject) -> None:
    """However the messages fall into pages, their tallies added up in order are the tally of
    all of them: times, counts, the first prompt, each figure, the context, the exact cost."""
    messages = [usage_message(row, data) for row in range(data.draw(st.integers(0, 40)))]
    cuts = sorted(data.draw(st.lists(st.integers(0, len(messages)), max_size=6)))
    pieces = [messages[a:b] for a, b in zip([0, *cuts], [*cuts, len(messages)], strict=True)]
    whole = Tally.of(messages, Odd())
    added = Tally()
    for piece in pieces:
        added = added.then(Tally.of(piece, Odd()))
    assert added == whole
    assert added.summed() == whole.summed()
    assert added.total_cost == whole.total_cost


@pytest.mark.usefixtures("tiny_pages")
@pytest.mark.parametrize("log", LOGS, ids=lambda p: str(p.relative_to(AGENTS)))
def test_the_catalog_reads_a_log_without_its_pages_as_with_them(log: Path) -> None:
    """Tallied only (`summary_of`), a log's summary is the one read keeping its pages — also
    when its reader goes back to a message no longer kept (read again, keeping them)."""
    kept = parse_file(log, [format_of(log)])
    assert summary_of(log, [format_of(log)]) == history._summary(kept, len(kept.messages))


@pytest.mark.usefixtures("tiny_pages")
def test_a_reader_going_back_to_a_dropped_page_is_told(tmp_path: Path) -> None:
    """A Claude Code reply whose later line comes pages after its first: the page it is in
    was dropped, so the reading says so (and `summary_of` reads again, keeping pages)."""
    lines = claude_log(2).splitlines(keepends=True)
    first_reply = next(i for i, line in enumerate(lines) if b'"type":"assistant"' in line)
    log = tmp_path / "7f3c2a10-0000-4000-8000-00000000cccc.jsonl"
    log.write_bytes(b"".join([*lines, lines[first_reply]]))  # the reply's line again, last
    with tallied_only(), pytest.raises(PagesDropped):
        parse_file(log, [claude_code.FORMAT])
    kept = parse_file(log, [claude_code.FORMAT])
    assert summary_of(log, [claude_code.FORMAT]) == history._summary(kept, len(kept.messages))


def test_a_summary_after_the_line_it_names_names_the_session(tmp_path: Path) -> None:
    """A summary's leaf is looked for among the lines before it (kept as hashes) as well as
    after it; a leaf no line has names nothing."""
    lines = CLAUDE_LOG.read_bytes().splitlines(keepends=True)
    leaf = json.loads(next(line for line in lines if b'"type":"assistant"' in line))["uuid"]
    log = tmp_path / "8a6a6fac-acd0-4652-bce8-5020afab80f8.jsonl"
    for named, title in ((leaf, "What the summary says"), ("not-a-line", None)):
        summary = {"type": "summary", "summary": "What the summary says", "leafUuid": named}
        log.write_bytes(b"".join([*lines, json.dumps(summary).encode() + b"\n"]))
        name = parse_file(log, [claude_code.FORMAT]).session.name
        assert name == title if title else name != "What the summary says"


def test_replies_whose_keys_hash_alike_stay_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    """Replies are found by their key's hash and checked against the key: with every key
    hashing alike, the log reads as it does with a hash of its own."""
    whole = parse_file(CLAUDE_LOG, [claude_code.FORMAT])
    monkeypatch.setattr(claude_code, "_key_hash", lambda _: 7)
    clashing = parse_file(CLAUDE_LOG, [claude_code.FORMAT])
    assert list(clashing.messages) == list(whole.messages)
    assert clashing.session == whole.session


@pytest.mark.parametrize("log", LOGS[::4], ids=lambda p: str(p.relative_to(AGENTS)))
def test_a_log_read_leaves_no_cycle_for_the_collector(log: Path) -> None:
    """A log's reading is freed as soon as it is let go: the catalog's workers read with the
    collector paused and freeze what is alive after (`collector_paused`), so a cycle — the
    reader holding its pages holding the reader — kept each log's last pages and state for the
    worker's life (the 300 MB corpus's catalog grew from 493 to 693 MB)."""
    gc.disable()
    try:
        parsed = parse_file(log, [format_of(log)])
        pages_ref = weakref.ref(parsed.messages._pages)  # type: ignore[attr-defined]
        del parsed
        assert pages_ref() is None
    finally:
        gc.enable()


@pytest.mark.usefixtures("tiny_pages")
def test_a_value_nested_past_what_pickle_writes_stays_in_memory(tmp_path: Path) -> None:
    """A line JSON reads (a value nested 600 deep) but pickle cannot write at Python's usual
    recursion limit: its page stays in memory, and the log reads whole (it was read as "the
    file could not be read")."""
    lines = claude_log(2).splitlines(keepends=True)
    deep = json.loads(next(line for line in lines if b'"type":"user"' in line))
    nested = json.loads("[" * 600 + "]" * 600)
    deep["message"]["content"] = [{"type": "text", "text": "deep", "extra": nested}]
    log = tmp_path / "7f3c2a10-0000-4000-8000-00000000ffee.jsonl"
    log.write_bytes(b"".join([*lines[:5], json.dumps(deep).encode() + b"\n", *lines[5:]]))
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1_000)  # Python's own (pytest's plugins raise it)
    try:
        read = parse_file(log, [claude_code.FORMAT])
        every = list(read.messages)
    finally:
        sys.setrecursionlimit(limit)
    assert not any(isinstance(p, UnsupportedPart) for m in every for p in m.parts)
    assert any(m.parts and getattr(m.parts[0], "text", "") == "deep" for m in every)
    assert every == [read.messages[i] for i in range(len(every))]
