"""The search index and its query language (issue #4)."""

import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from desktop_app.domain.message import Message, MessageCursor
from desktop_app.search.index import (
    RANK_CAP,
    SearchIndex,
    SearchIndexUnavailable,
    index_path,
    open_index,
)
from desktop_app.search.query import QueryError, parse_query
from desktop_app.sources.goose import GooseSource
from desktop_app.sources.registry import open_history
from tests.fixtures.goose_db import GooseDb

HIDDEN = {"userVisible": False, "agentVisible": True}
BASE = 1_767_323_045  # 2026-01-02


def call(call_id: str, name: str, args: dict[str, object]) -> dict[str, object]:
    return {
        "type": "toolRequest",
        "id": call_id,
        "toolCall": {"status": "success", "value": {"name": name, "arguments": args}},
    }


def result(call_id: str, text: str, *, error: bool = False) -> dict[str, object]:
    return {
        "type": "toolResponse",
        "id": call_id,
        "toolResult": {
            "status": "success",
            "value": {"content": [{"type": "text", "text": text}], "isError": error},
        },
    }


@pytest.fixture
def corpus(make_db: Callable[..., GooseDb]) -> GooseDb:
    db = make_db()
    db.add_session("s1", name="Webhook retries", working_dir="/home/me/payments")
    db.add_message("s1", "user", "Why does the webhook retry flake?", created=BASE)
    db.add_message(
        "s1",
        "assistant",
        [
            {
                "type": "thinking",
                "thinking": "The deadline is checked after sleeping.",
                "signature": "s",
            },
            {"type": "text", "text": "The retry loop has a deadline bug."},
            call("t1", "developer__shell", {"command": "pytest -k retry"}),
        ],
        created=BASE + 10,
    )
    db.add_message(
        "s1",
        "user",
        [result("t1", "FAILED test_retry — deadline exceeded", error=True)],
        created=BASE + 20,
    )
    db.add_message(
        "s1",
        "assistant",
        "Summary for the model: deadline fixed",
        created=BASE + 30,
        metadata=HIDDEN,
    )
    db.add_session(
        "s2",
        name="Café menu naïve design",
        working_dir="/home/me/web",
        session_type="scheduled",
        archived_at="2026-01-05 00:00:00",
    )
    db.add_message(
        "s2",
        "user",
        "Résumé of the café menu, 日本語のテスト and 🦆 emoji",
        created=BASE + 86400 * 30,
    )
    db.add_message(
        "s2",
        "assistant",
        [
            {"type": "text", "text": "Here is the picture"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
        ],
        created=BASE + 86400 * 30 + 5,
    )
    db.add_session("s3", name="Other", working_dir="/srv/ops")
    db.add_message("s3", "assistant", [call("t9", "git__log", {"n": 5})], created=BASE + 100)
    db.add_message(
        "s3",
        "user",
        [result("t9", "retry retry retry in the tool output only")],
        created=BASE + 101,
    )
    return db


@pytest.fixture
def index(corpus: GooseDb, tmp_path: Path) -> Iterator[tuple[SearchIndex, GooseSource]]:
    source = GooseSource(corpus.path)
    built = SearchIndex(index_path(tmp_path / "data", str(corpus.path)), source)
    report = built.update()
    assert report.rebuilt
    assert report.added == 8
    yield built, source
    built.close()
    source.close()


def ids(index: SearchIndex, query: str) -> list[tuple[str, int]]:
    return [(h.session_id, h.row_id) for h in index.search(query).hits]


def sessions(index: SearchIndex, query: str) -> list[str]:
    return [s.session_id for s in index.search(query).sessions if s.hits]


def test_words_are_anded_and_prose_ranks_before_tool_output(
    index: tuple[SearchIndex, GooseSource],
) -> None:
    idx, _ = index
    hits = idx.search("retry").hits
    assert [h.in_tool_output_only for h in hits] == sorted(h.in_tool_output_only for h in hits)
    assert hits[-1].session_id == "s3"
    assert hits[-1].in_tool_output_only
    assert not hits[0].in_tool_output_only
    assert sessions(idx, "retry deadline") == ["s1"]
    assert ids(idx, "webhook flake") == [("s1", 1)]


def test_phrase_prefix_or_and_exclusion(index: tuple[SearchIndex, GooseSource]) -> None:
    idx, _ = index
    assert ids(idx, '"retry loop"') == [("s1", 2)]
    assert ids(idx, '"loop retry"') == []
    assert {h.row_id for h in idx.search("dead*").hits} == {2, 3}
    assert set(sessions(idx, "webhook OR café")) == {"s1", "s2"}
    assert {h.row_id for h in idx.search("retry -pytest -webhook").hits} == {3, 8}
    assert set(ids(idx, 'retry -"retry loop" -webhook -pytest')) == {("s3", 8), ("s1", 3)}


def test_filters(index: tuple[SearchIndex, GooseSource]) -> None:
    idx, _ = index
    assert {h.row_id for h in idx.search("retry role:user").hits} == {1}
    assert {h.row_id for h in idx.search("retry role:tool").hits} == {3, 8}
    assert {h.row_id for h in idx.search("retry tool:shell").hits} == {2}
    assert {h.row_id for h in idx.search("tool:git").hits} == {7}
    assert sessions(idx, "retry in:payments") == ["s1"]
    assert sessions(idx, "menu type:scheduled") == ["s2"]
    assert sessions(idx, "retry type:scheduled") == []
    assert sessions(idx, "menu is:archived") == ["s2"]
    assert sessions(idx, "retry is:archived") == []
    assert [h.row_id for h in idx.search("has:image").hits] == [6]
    assert {h.row_id for h in idx.search("has:error").hits} == {3}
    assert sessions(idx, "retry session:s3") == ["s3"]
    assert sessions(idx, "menu after:2026-01-20") == ["s2"]
    assert sessions(idx, "menu before:2026-01-20") == []
    assert set(sessions(idx, "retry before:2026-01-20")) == {"s1", "s3"}


def test_scopes_and_hidden_messages(index: tuple[SearchIndex, GooseSource]) -> None:
    idx, _ = index
    assert ids(idx, "summary") == []
    assert ids(idx, "summary in:hidden") == [("s1", 4)]
    assert {h.row_id for h in idx.search("sleeping in:reasoning").hits} == {2}
    assert ids(idx, "webhook in:reasoning") == []
    assert {h.row_id for h in idx.search("pytest in:tools").hits} == {2}
    assert {h.row_id for h in idx.search("exceeded in:tools").hits} == {3}


def test_accents_cjk_emoji_and_case(index: tuple[SearchIndex, GooseSource]) -> None:
    idx, _ = index
    assert ids(idx, "resume") == [("s2", 5)]
    assert ids(idx, "CAFE menu") == [("s2", 5)]
    assert ids(idx, "テスト") == [("s2", 5)]
    assert ids(idx, "日本") == [("s2", 5)]
    assert ids(idx, "のテ") == [("s2", 5)]
    assert ids(idx, "emoji") == [("s2", 5)]
    assert idx.search("naive").sessions[0].name_matched


def test_snippets_mark_the_hits(index: tuple[SearchIndex, GooseSource]) -> None:
    idx, _ = index
    (hit,) = idx.search("flake").hits
    assert "\x02flake\x03" in hit.snippet
    assert hit.message_id is None
    assert hit.role == "user"


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ('"open', "quotation mark is not closed"),
        ("-only", "at least one word"),
        ("OR x", "OR needs a word"),
        ("x OR", "OR needs a word"),
        ("role:robot x", "role: can be user, assistant or tool"),
        ("before:soon x", "before: needs a date"),
        ("has:cats", "has: can be has:image or has:error"),
        ("is:pinned", "is: only knows is:archived"),
        ("-role:user x", "filters cannot be negated"),
        ("tool:", "tool: needs a value"),
    ],
)
def test_malformed_queries_get_a_sentence(query: str, message: str) -> None:
    with pytest.raises(QueryError, match=message):
        parse_query(query)


def test_punctuation_only_and_fts_syntax_are_safe(index: tuple[SearchIndex, GooseSource]) -> None:
    """FTS5's own syntax in a query is words like any other, never operators: the corpus has
    "retry" beside "deadline" (which FTS5's NEAR and AND would find) but never the words "near"
    or "and" with them, so read as words these queries find nothing."""
    idx, _ = index
    assert idx.search("*** ::: ((").hits == ()
    assert ids(idx, "retry deadline") != []
    assert ids(idx, "NEAR(retry deadline)") == []
    assert ids(idx, "retry AND deadline") == []
    assert ids(idx, 'NEAR(retry deadline) AND "deadline"') == []
    assert ids(idx, "retry) OR (webhook") == ids(idx, "retry OR webhook") != []


GOOSE_ADDS = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
for i in range(100):
    conn.execute(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json)"
        " VALUES ('s3', 'user', ?, 1767400000, '{\\"userVisible\\":true}')",
        ('[{"type":"text","text":"zebra number %d"}]' % i,),
    )
conn.execute("COMMIT")
"""


def test_incremental_update_after_another_process_writes(
    index: tuple[SearchIndex, GooseSource], corpus: GooseDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The update reads the new messages and at most those it had of the one session that
    grew, never the others: counted, not timed (a loaded machine is slow, not wrong)."""
    idx, source = index
    subprocess.run([sys.executable, "-c", GOOSE_ADDS, str(corpus.path)], check=True, timeout=30)
    read: list[str] = []
    messages_between = source.messages_between

    def counting(session_id: str, first: MessageCursor, last: MessageCursor) -> list[Message]:
        messages = list(messages_between(session_id, first, last))
        read.extend(session_id for _ in messages)
        return messages

    monkeypatch.setattr(source, "messages_between", counting)
    report = idx.update()
    assert report.added == 100
    assert not report.rebuilt
    assert report.reindexed_sessions == 0
    assert idx.search("zebra").total_hits == 100
    assert set(read) == {"s3"}
    assert 100 <= len(read) <= 102  # s3 had two messages before


def test_rewritten_and_deleted_sessions_are_reindexed(
    index: tuple[SearchIndex, GooseSource], corpus: GooseDb
) -> None:
    idx, _source = index
    corpus.conn.execute("DELETE FROM messages WHERE session_id = 's3'")
    corpus.add_message("s3", "user", "brand new wording", created=BASE + 500)
    corpus.conn.execute("DELETE FROM messages WHERE session_id = 's2'")
    corpus.conn.execute("DELETE FROM sessions WHERE id = 's2'")
    report = idx.update()
    assert report.removed_sessions == 1
    assert sessions(idx, "retry") == ["s1"]
    assert sessions(idx, "wording") == ["s3"]
    assert idx.search("café").sessions == ()


def test_corrupt_index_is_rebuilt(corpus: GooseDb, tmp_path: Path) -> None:
    path = index_path(tmp_path / "data", str(corpus.path))
    source = GooseSource(corpus.path)
    first = SearchIndex(path, source)
    first.update()
    first.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\x00garbage" * ((4096 - 100) // 8)
    path.write_bytes(bytes(data))
    again = SearchIndex(path, source)
    assert again.rebuilt
    assert again.update().added == 8
    assert sessions(again, "webhook") == ["s1"]
    again.close()
    path.write_bytes(b"not a database at all")
    third = SearchIndex(path, source)
    assert third.rebuilt
    third.close()
    source.close()


def test_index_of_another_file_or_older_format_is_rebuilt(
    corpus: GooseDb, tmp_path: Path, make_db: Callable[..., GooseDb]
) -> None:
    path = index_path(tmp_path / "data", str(corpus.path))
    source = GooseSource(corpus.path)
    idx = SearchIndex(path, source)
    idx.update()
    idx.close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = '0' WHERE key = 'format'")
    conn.commit()
    conn.close()
    assert SearchIndex(path, source).rebuilt

    other = make_db(name="replacement.db")
    other.add_session("z", name="z")
    other.add_message("z", content="entirely different", created=BASE)
    idx = SearchIndex(path, source)
    idx.update()
    idx.close()
    source.close()
    corpus.close()
    other.close()
    corpus.path.unlink()
    Path(f"{corpus.path}-wal").unlink(missing_ok=True)
    Path(f"{corpus.path}-shm").unlink(missing_ok=True)
    other.path.rename(corpus.path)
    replaced = GooseSource(corpus.path)
    idx = SearchIndex(path, replaced)
    report = idx.update()
    assert report.removed_sessions == 3
    assert sessions(idx, "entirely") == ["z"]
    assert sessions(idx, "webhook") == []
    idx.close()
    replaced.close()


def test_common_words_rank_only_the_newest_matches(
    make_db: Callable[..., GooseDb], tmp_path: Path
) -> None:
    db = make_db()
    db.add_session("big", name="big")
    db.conn.execute("BEGIN")
    db.conn.executemany(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES (?,?,?,?)",
        [
            ("big", "user", f'[{{"type":"text","text":"common word {i}"}}]', BASE + i)
            for i in range(RANK_CAP + 500)
        ],
    )
    db.conn.execute("COMMIT")
    source = GooseSource(db.path)
    idx = SearchIndex(index_path(tmp_path, str(db.path)), source)
    idx.update()
    results = idx.search("common", limit=10)
    assert results.capped
    assert results.total_hits == RANK_CAP + 500  # every match is counted, the newest ranked
    assert len(results.hits) == 10
    assert min(h.row_id for h in results.hits) > 500
    idx.close()
    source.close()


def test_huge_queries_get_a_sentence_or_work(index: tuple[SearchIndex, GooseSource]) -> None:
    """150 exclusions overflowed FTS5's parser; 1,000 filters went past SQLite's expression
    depth; both were tracebacks (issue #8, point 10)."""
    idx, _ = index
    exclusions = "retry " + " ".join(f"-nothing{n}" for n in range(150))
    assert {h.row_id for h in idx.search(exclusions).hits} == {1, 2, 3, 8}
    for query, message in (
        (" ".join(f"word{n}" for n in range(300)), "This search has 300 words"),
        (" ".join(f"tool:t{n}" for n in range(1000)), "This search has 1000 filters"),
        ("x" * 5000, "This search is 5,000 characters long"),
    ):
        with pytest.raises(QueryError, match=message):
            idx.search(query)


def test_cli_search_errors_are_sentences(
    corpus: GooseDb, capsys: pytest.CaptureFixture[str]
) -> None:
    from desktop_app.cli import main

    assert (
        main(["search", " ".join(f"tool:t{n}" for n in range(1000)), "--db", str(corpus.path)]) == 1
    )
    err = capsys.readouterr().err
    assert err == "gander: This search has 1000 filters; a search can have 64 at most.\n"


def _damage_full_text_tables(path: Path) -> None:
    """Overwrites FTS5's own blocks, so every offset in them points past the page; SQLite's
    `quick_check` still says ok. (Random bytes were used once and could, now and then, parse
    as an empty but valid segment, so the damage went unseen and the test failed.)"""
    conn = sqlite3.connect(path)
    blocks = conn.execute("SELECT id, length(block) FROM fts_data WHERE id > 10").fetchall()
    assert blocks
    conn.executemany(
        "UPDATE fts_data SET block = ? WHERE id = ?", [(b"\xff" * n, i) for i, n in blocks]
    )
    conn.commit()
    assert conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    conn.close()


def test_damage_inside_fts_found_in_use_rebuilds_and_says_so(
    corpus: GooseDb, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from desktop_app.cli import main
    from desktop_app.files.places import data_dir

    db_args = ["--db", str(corpus.path)]
    for n in range(60):
        corpus.add_message("s3", "user", f"filler message number {n} about retries")
    assert main(["search", "retry", *db_args]) == 0
    capsys.readouterr()
    _damage_full_text_tables(index_path(data_dir(), str(corpus.path)))
    assert main(["search", "retry", *db_args]) == 0
    captured = capsys.readouterr()
    assert "The search index was damaged, so Gander started it afresh" in captured.err
    assert "s1  Webhook retries" in captured.out
    assert main(["search", "retry", *db_args]) == 0
    assert "damaged" not in capsys.readouterr().err


def test_an_index_not_closed_cleanly_is_checked_on_opening(corpus: GooseDb, tmp_path: Path) -> None:
    path = index_path(tmp_path / "data", str(corpus.path))
    source = GooseSource(corpus.path)
    for n in range(60):
        corpus.add_message("s3", "user", f"filler message number {n}")
    first = SearchIndex(path, source)
    first.update()
    first.close()
    clean = SearchIndex(path, source)
    assert not clean.rebuilt
    clean.update()
    # Left open, as a killed process leaves it; then damaged.
    clean._storage.conn.close()
    clean._storage.reader.close()
    _damage_full_text_tables(path)
    checked = SearchIndex(path, source)
    assert checked.rebuilt
    assert checked.update().added == 68
    assert sessions(checked, "webhook") == ["s1"]
    checked.close()
    source.close()


def test_a_full_disk_under_the_index_is_one_sentence(corpus: GooseDb, tmp_path: Path) -> None:
    from tests.fixtures.mounts import in_mount_namespace

    for n in range(400):
        corpus.add_message("s3", "user", f"{n} " + " ".join(f"word{n}x{k}" for k in range(60)))
    data = tmp_path / "data"
    data.mkdir()
    result = in_mount_namespace(
        f"mount -t tmpfs -o size=96k tmpfs {data}\n"
        f"$GANDER search word1x1 --db {corpus.path} > {tmp_path}/out 2> {tmp_path}/err ||"
        f" echo $? > {tmp_path}/code",
        {"XDG_DATA_HOME": str(data)},
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "code").read_text().strip() == "1"
    err = (tmp_path / "err").read_text()
    assert err.startswith("gander: The disk holding the search index (")
    assert err.endswith(") is full; free some space.\n")


def test_before_and_after_at_exactly_midnight_utc(
    make_db: Callable[..., GooseDb], tmp_path: Path
) -> None:
    """`after:D` includes a message at D 00:00:00 UTC, `before:D` excludes it; the second
    before midnight is the other way round (issue #8, point 17)."""
    db = make_db()
    db.add_session("s", name="edges")
    midnight = 1_768_867_200  # 2026-01-20T00:00:00Z
    db.add_message("s", "user", "edge at midnight", created=midnight)
    db.add_message("s", "user", "edge just before", created=midnight - 1)
    db.add_message("s", "user", "edge in milliseconds", created=midnight * 1000)
    source = GooseSource(db.path)
    idx = SearchIndex(index_path(tmp_path / "data", str(db.path)), source)
    idx.update()
    try:
        after = {h.row_id for h in idx.search("edge after:2026-01-20").hits}
        before = {h.row_id for h in idx.search("edge before:2026-01-20").hits}
        assert after == {1, 3}
        assert before == {2}
        assert {h.row_id for h in idx.search("edge after:2026-01-21").hits} == set()
        assert {h.row_id for h in idx.search("edge before:2026-01-21").hits} == {1, 2, 3}
    finally:
        idx.close()
        source.close()


def test_a_long_session_is_indexed_in_pieces_and_a_broken_piece_leaves_no_duplicates(
    make_db: Callable[..., GooseDb], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session longer than `SESSION_PIECE` is indexed a piece at a time in this process (a
    worker's whole-session result stalled the window while it was unpickled); a piece that
    fails leaves the session unmarked, and the next update indexes it once, afresh."""
    from desktop_app.search import updating

    monkeypatch.setattr(updating, "SESSION_PIECE", 7)
    db = make_db()
    db.add_session("long", name="Long")
    for n in range(30):
        db.add_message("long", content=f"piece word{n} albatross", created=1767323000 + n)
    db.add_session("short", name="Short")
    db.add_message("short", content="albatross once", created=1767323100)
    source = GooseSource(db.path)
    original = source.messages_between
    calls: list[int] = []

    def failing_second_piece(*args: object) -> object:
        calls.append(1)
        if len(calls) == 2:
            raise OSError("the disk went away")
        return original(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(source, "messages_between", failing_second_piece)
    path = tmp_path / "index.sqlite"
    index = SearchIndex(path, source)
    with pytest.raises(SearchIndexUnavailable, match="disk went away"):
        index.update()
    monkeypatch.setattr(source, "messages_between", original)
    report = index.update()
    assert report.added == 30
    assert index.search("albatross").total_hits == 31  # each message once: no duplicates
    assert sum(1 for n in range(30) if sessions(index, f"word{n}") == ["long"]) == 30
    index.close()
    source.close()


def test_a_tool_argument_is_indexed_up_to_its_cap(
    make_db: Callable[..., GooseDb], tmp_path: Path
) -> None:
    """Words early in a huge tool argument are found; the argument is not written out whole
    to be indexed (`ARGUMENTS_CAP`)."""
    from desktop_app.search.documents import ARGUMENTS_CAP

    db = make_db()
    db.add_session("s", name="Writes a file")
    text = "zebrafinch " + "filler " * (ARGUMENTS_CAP // 7) + "kingfisher"
    db.add_message(
        "s", "assistant", content=[call("c1", "developer__text_editor", {"file_text": text})]
    )
    source = GooseSource(db.path)
    index = SearchIndex(tmp_path / "index.sqlite", source)
    index.update()
    assert sessions(index, "zebrafinch") == ["s"]
    assert sessions(index, "kingfisher") == []  # past the cap
    index.close()
    source.close()


CLAUDE_2_1 = (
    Path(__file__).resolve().parents[1]
    / "fixtures/agents/claude_code/written/2.1.47/-tmp-ccrun-g147-payments-api"
)
STREAMED = "9900a45f-f488-45fe-911f-5c40ddaabd3c"
"""Claude Code 2.1.47 with streaming tool execution: a reply's last block (a Read of
app/handlers.py) written after the result of the tool it called first."""


def test_a_reply_that_grows_in_place_is_found_by_its_new_words(tmp_path: Path) -> None:
    """The log read while Claude Code wrote it: the reply's late block adds no message (it
    joins the reply where it is), yet a search finds its words after the next update; an
    update that finds nothing changed forgets no document."""
    lines = (CLAUDE_2_1 / f"{STREAMED}.jsonl").read_text(encoding="utf-8").splitlines(True)
    cut = next(i for i, line in enumerate(lines) if '"tool_result"' in line) + 1
    folder = tmp_path / "project"
    folder.mkdir()
    log = folder / f"{STREAMED}.jsonl"
    log.write_text("".join(lines[:cut]), encoding="utf-8")
    source = open_history(folder)
    index = open_index(tmp_path / "data", source)
    index.update()
    assert not index.search("tool:read handlers").hits
    with log.open("a", encoding="utf-8") as grown:
        grown.write(lines[cut])  # the reply's late tool call, nothing else
    index.update()
    assert [hit.session_id for hit in index.search("tool:read handlers").hits] == [STREAMED]
    with log.open("a", encoding="utf-8") as grown:
        grown.write(lines[cut + 1])  # a progress line: nothing shown changes
    orphans = index._storage.meta("orphans")
    index.update()
    assert index._storage.meta("orphans") == orphans
    assert len(index.search("tool:read handlers").hits) == 1
    index.close()
    source.close()


def test_a_deleted_history_folder_is_named_as_the_folder(tmp_path: Path) -> None:
    """A Claude Code folder deleted while its index is open: the sentence names the folder.
    Before: "The search index at …/search/….sqlite cannot be used (No such file or
    directory)", as if Gander's own file had failed (#18, item 14)."""
    import shutil

    folder = tmp_path / "claude_code"
    shutil.copytree(Path(__file__).parents[1] / "fixtures" / "agents" / "claude_code", folder)
    source = open_history(folder)
    index = open_index(tmp_path / "data", source)
    assert index.update().added > 0
    shutil.rmtree(folder)
    gone = f"The history folder {folder} is gone (moved or deleted)."
    with pytest.raises(SearchIndexUnavailable) as failed:
        index.update(full_check=True)
    assert str(failed.value) == gone
    index.close()
    source.close()


def test_a_bug_is_said_in_a_sentence_of_ours(caplog: pytest.LogCaptureFixture) -> None:
    """What every failure callback of the window shows: a GanderError's sentence, or for any
    other exception (a bug) a sentence of Gander's, Python's text going to the log (#18, 14)."""
    from desktop_app.domain.errors import sentence

    assert sentence(QueryError("This search has 1000 filters.")) == "This search has 1000 filters."
    said = sentence(TypeError("'NoneType' object is not subscriptable"))
    assert said == (
        "Gander met an error it did not expect (TypeError); its details are written to "
        "standard error."
    )
    assert "not subscriptable" in caplog.text


def test_one_history_that_fails_leaves_the_others_indexed(tmp_path: Path) -> None:
    """Two folders searched together, the first deleted: its sentence is said, and the second
    is still brought up to date. Before: the first's error ended the update, so no other
    history's index moved again (#18, item 14)."""
    import shutil

    from desktop_app.domain.combined import CombinedHistory
    from desktop_app.search.histories import HistoriesIndex

    logs = Path(__file__).parents[1] / "fixtures" / "agents" / "claude_code" / "project"
    gone, kept = tmp_path / "gone", tmp_path / "kept"
    shutil.copytree(logs.parent, gone)
    (kept / "project").mkdir(parents=True)
    shutil.copy(logs / "sample_session.jsonl", kept / "project")
    both = CombinedHistory([open_history(gone), open_history(kept)])
    index = HistoriesIndex(tmp_path / "data", both)
    index.update()
    kept_index = index._parts[1][1]
    before = kept_index.search("the").total_hits
    shutil.rmtree(gone)
    shutil.copy(logs / "representative_messages.jsonl", kept / "project")
    with pytest.raises(SearchIndexUnavailable, match="is gone"):
        index.update(full_check=True)
    assert kept_index.search("the").total_hits > before
    index.close()
    both.close()
