"""The index's first build (issue #22 item 4): documents made as rows, the full-text table's
settings, and a large build whose long sessions are read in the worker processes a piece at a
time — on goose and on a file history."""

import functools
import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from desktop_app.domain.message import Message, Role, Visibility
from desktop_app.domain.parts import ImagePart, TextPart, ToolCallPart, ToolResultPart
from desktop_app.domain.reading import EVERY_SESSION, iter_messages, iter_sessions
from desktop_app.search import parallel, updating
from desktop_app.search.documents import document_row, to_document
from desktop_app.search.index import SearchIndex, SearchIndexUnavailable
from desktop_app.search.parallel import ONE_AT_A_TIME, Piece, SourceFactory, Work, share
from desktop_app.search.storage import PENDING_BYTES, IndexStorage
from desktop_app.sources.goose import GooseSource
from desktop_app.sources.registry import open_history
from tests.fixtures.goose_db import GooseDb

CLAUDE = (
    Path(__file__).resolve().parents[1]
    / "fixtures/agents/claude_code/written/2.1.47/-tmp-ccrun-g147-payments-api"
)
"""Logs Claude Code 2.1.47 wrote (credited in tests/fixtures/agents/README.md)."""


def test_a_document_made_as_a_row_has_each_field_in_its_place() -> None:
    """`document_row` builds the tuple by position: every field of the document is distinct
    here, so one out of place is a field of another's value."""
    message = Message(
        session_id="s1",
        row_id=7,
        message_id="m-7",
        role=Role.ASSISTANT,
        role_raw="assistant",
        created_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        created_raw=1767323045,
        parts=(
            TextPart(text="said aloud"),
            ToolCallPart(call_id="c1", name="Shell", arguments={"command": "ls"}),
            ToolResultPart(call_id="c1", is_error=True, content=(ImagePart(data_b64="AA=="),)),
        ),
        visibility=Visibility(user=False, agent=True),
    )
    document = to_document(message)
    assert (
        document.session_id,
        document.message_id,
        document.role,
        document.created,
        document.visible,
        document.has_image,
        document.has_error,
        document.tool_names,
        document.body,
        document.reasoning,
        document.tools,
        document.output,
    ) == ("s1", "m-7", "assistant", 1767323045, False, True, True, " shell ", "said aloud", "",
          'Shell\n{"command": "ls"}', "")  # fmt: skip
    assert document.position == document_row(message)[1]


def test_the_full_text_table_buffers_16_mb_and_has_no_prefix_index(tmp_path: Path) -> None:
    """A first build's transaction is one segment (`PENDING_BYTES`), and no word is written a
    second time for a prefix index — prefix queries still find what they found."""
    storage = IndexStorage(tmp_path / "index.sqlite", "x")
    config = dict(storage.conn.execute("SELECT k, v FROM fts_config").fetchall())
    assert config["hashsize"] == PENDING_BYTES == 16 * 1024 * 1024
    sql = storage.conn.execute("SELECT sql FROM sqlite_master WHERE name = 'fts'").fetchone()[0]
    assert "prefix" not in sql
    storage.close()


def test_an_index_of_the_format_before_is_built_again(
    make_db: Callable[..., GooseDb], tmp_path: Path
) -> None:
    db = make_db()
    db.add_session("s", name="Latency")
    db.add_message("s", content="latency and lattices")
    source = GooseSource(db.path)
    path = tmp_path / "index.sqlite"
    index = SearchIndex(path, source)
    index.update()
    index.close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE meta SET value = '6' WHERE key = 'format'")
    conn.close()
    index = SearchIndex(path, source)
    assert index.update().rebuilt
    assert index.search("lat*").total_hits == 1
    index.close()
    source.close()


class _Recorded:
    """`documents_in_parallel` as the updater calls it, with what it was given."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.works: list[tuple[Work, int]] = []
        self._original = parallel.documents_in_parallel
        monkeypatch.setattr(updating, "documents_in_parallel", self)

    def __call__(
        self, reopen: SourceFactory, works: Sequence[tuple[Work, int]], workers: int
    ) -> Iterator[tuple[Work, list[tuple[object, ...]]]]:
        self.works = list(works)
        return self._original(reopen, works, workers)

    def pieces(self) -> list[Piece]:
        return [work for work, _ in self.works if isinstance(work, Piece)]


def _large_build(monkeypatch: pytest.MonkeyPatch, piece: int) -> _Recorded:
    """Every build counts as large (worker processes start) and a long session is one of more
    than `piece` messages."""
    monkeypatch.setattr(updating, "PARALLEL_FROM", 1)
    monkeypatch.setattr(updating, "SESSION_PIECE", piece)
    monkeypatch.setattr(updating, "CHUNK_MESSAGES", 3)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    return _Recorded(monkeypatch)


def test_a_large_goose_build_reads_long_sessions_in_the_workers_a_piece_at_a_time(
    make_db: Callable[..., GooseDb], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The long session's pieces go to the workers (it was read whole in this process), the
    last to the session's end; each message is indexed once and the session marked with all of
    them; short sessions are chunked by their messages too (`CHUNK_MESSAGES`)."""
    recorded = _large_build(monkeypatch, piece=7)
    db = make_db()
    db.add_session("long", name="Long")
    for n in range(30):
        db.add_message("long", content=f"piece word{n} albatross", created=1767323000 + n)
    for s in range(4):
        db.add_session(f"short{s}", name=f"Short {s}")
        db.add_message(f"short{s}", content=f"albatross short{s}", created=1767323100)
        db.add_message(f"short{s}", content="and again", created=1767323101)
    source = GooseSource(db.path)
    index = SearchIndex(tmp_path / "index.sqlite", source, functools.partial(GooseSource, db.path))
    report = index.update()
    assert report.added == 38
    assert recorded.pieces() == [
        Piece("long", 0, 7),
        Piece("long", 7, 14),
        Piece("long", 14, 21),
        Piece("long", 21, 28),
        Piece("long", 28, None),
    ]
    chunks = [work for work, _ in recorded.works if isinstance(work, list)]
    assert chunks == [["short0", "short1"], ["short2", "short3"]]
    assert index.search("albatross").total_hits == 34
    assert all(index.search(f"word{n}").total_hits == 1 for n in range(30))
    assert index._storage.indexed(["long"])["long"].indexed_count == 30
    assert index.update().added == 0  # marked as indexed: nothing to do again
    index.close()
    source.close()


def test_a_large_file_history_build_reads_long_sessions_in_the_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code's own logs, every session a long one: read in the workers (through the
    history opened again there), each message indexed once."""
    recorded = _large_build(monkeypatch, piece=3)
    source = open_history(CLAUDE, cache_dir=tmp_path / "cache")
    reopen = functools.partial(open_history, str(CLAUDE), cache_dir=tmp_path / "cache")
    index = SearchIndex(tmp_path / "index.sqlite", source, reopen)
    report = index.update()
    everything = {
        s.id: list(iter_messages(source, s.id)) for s in iter_sessions(source, EVERY_SESSION)
    }
    assert report.added == sum(len(messages) for messages in everything.values())
    long = {sid for sid, messages in everything.items() if len(messages) > 3}
    assert long
    assert {piece.session_id for piece in recorded.pieces()} == long
    indexed = index._storage.indexed()
    assert {sid: indexed[sid].indexed_count for sid in everything} == {
        sid: len(messages) for sid, messages in everything.items()
    }
    index.close()
    source.close()


def test_huge_sessions_are_read_by_one_worker_one_after_another() -> None:
    """Two sessions of more than `ONE_AT_A_TIME` messages are not parsed at once (a file
    history parses a session's file whole): both go to the first worker, in turn, and the
    chunks and the other long session go to the second until it has as many messages."""

    def pieces(session_id: str, total: int) -> list[tuple[Work, int]]:
        count = -(-total // 1_000)
        return [
            (Piece(session_id, n * 1_000, None if n == count - 1 else (n + 1) * 1_000), 1_000)
            for n in range(count)
        ]

    huge = ONE_AT_A_TIME + 1_000
    chunks: list[tuple[Work, int]] = [(["a", "b"], 4_000), (["c"], 4_000)]
    works = [*chunks, *pieces("long", 3_000), *pieces("huge1", huge), *pieces("huge2", huge)]
    first, second = share(works, 2)
    assert {w.session_id for w in first if isinstance(w, Piece)} == {"huge1", "huge2"}
    assert [w.start for w in first if isinstance(w, Piece) and w.session_id == "huge1"] == [
        n * 1_000 for n in range(huge // 1_000)
    ]
    assert list(second) == [["a", "b"], ["c"], *(w for w, _ in pieces("long", 3_000))]


def test_a_chunk_is_written_a_batch_at_a_time_as_it_is_read(
    make_db: Callable[..., GooseDb], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sessions of large messages, one chunk: their documents reach the index in batches of
    at most `BATCH_CHARS` characters (six 20 MB messages read whole before any was written
    took the window from 211 MB to 464 MB), in the chunk's one transaction, each session
    marked with all its documents."""
    monkeypatch.setattr(updating, "BATCH_CHARS", 2_500)
    db = make_db()
    for s in range(3):
        db.add_session(f"s{s}", name=f"Big {s}")
        for n in range(2):
            db.add_message(f"s{s}", content=f"osprey{s}x{n} " + "feather " * 150, created=1 + n)
    batches: list[int] = []
    original = IndexStorage.insert_rows

    def recorded(storage: IndexStorage, rows: Sequence[tuple[object, ...]]) -> None:
        assert storage.conn.in_transaction
        batches.append(len(rows))
        original(storage, rows)

    monkeypatch.setattr(IndexStorage, "insert_rows", recorded)
    source = GooseSource(db.path)
    index = SearchIndex(tmp_path / "index.sqlite", source)
    assert index.update().added == 6
    assert batches == [2, 2, 2]  # 1,200 characters a message: two to a batch
    assert index.search("feather").total_hits == 6
    assert all(index.search(f"osprey{s}x1").total_hits == 1 for s in range(3))
    indexed = index._storage.indexed([f"s{s}" for s in range(3)])
    assert [indexed[f"s{s}"].indexed_count for s in range(3)] == [2, 2, 2]
    index.close()
    source.close()


def test_a_chunk_that_fails_half_way_is_written_not_at_all(
    make_db: Callable[..., GooseDb], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading fails after a batch was written: the chunk's transaction is rolled back, no
    session is marked, and the next update indexes them all."""
    monkeypatch.setattr(updating, "BATCH_CHARS", 10)
    db = make_db()
    for s in range(3):
        db.add_session(f"s{s}", name=f"S {s}")
        db.add_message(f"s{s}", content=f"heron{s} wading", created=1)
    source = GooseSource(db.path)
    index = SearchIndex(tmp_path / "index.sqlite", source)
    real = document_row
    seen: list[int] = []

    def failing(message: Message) -> tuple[object, ...]:
        seen.append(1)
        if len(seen) == 3:
            raise OSError("the disk went away")
        return real(message)

    monkeypatch.setattr(updating, "document_row", failing)
    with pytest.raises(SearchIndexUnavailable, match="went away"):
        index.update()
    assert index.search("wading").total_hits == 0
    assert all(not s.indexed_count for s in index._storage.indexed(["s0", "s1", "s2"]).values())
    monkeypatch.setattr(updating, "document_row", real)
    assert index.update().added == 3
    assert index.search("wading").total_hits == 3
    index.close()
    source.close()


def test_a_message_of_no_session_asked_for_is_left_out_with_a_warning(
    make_db: Callable[..., GooseDb],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A reader's slip (a Gemini CLI line that did not parse once said no session): the
    message is not indexed under a session that does not exist, the build goes on, and the
    sessions asked for are marked with their own documents."""
    db = make_db()
    db.add_session("s0", name="Kept")
    db.add_message("s0", content="kestrel hovering", created=1)
    source = GooseSource(db.path)
    real = GooseSource.messages_of

    def slipping(self: GooseSource, session_ids: Sequence[str]) -> Iterator[Message]:
        for message in real(self, session_ids):
            yield message
            yield Message(
                session_id="",
                row_id=99,
                message_id=None,
                role=Role.UNKNOWN,
                role_raw="",
                created_at=None,
                created_raw=None,
                parts=(TextPart(text="kestrel stray"),),
            )

    monkeypatch.setattr(GooseSource, "messages_of", slipping)
    index = SearchIndex(tmp_path / "index.sqlite", source)
    assert index.update().added == 1
    assert index.search("kestrel").total_hits == 1
    assert index._storage.indexed(["s0"])["s0"].indexed_count == 1
    assert "1 messages of no session asked for" in caplog.text
    index.close()
    source.close()
