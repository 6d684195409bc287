"""What the everruns readers (the server, and events files) promise and no other test broke when
it was broken (issue #18, item 15): keyset paging across pages, transcripts in `sequence` order
whatever the clocks said, a connection the server dropped replaced by itself, a feed that never
says "nothing changed" wrongly, reasoning events kept apart by the turn's rule, opaque state
withheld. Each test was checked by breaking the line it guards once (docs/mutation-pass.md)."""

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from desktop_app.domain.parts import ReasoningPart, TextPart
from desktop_app.domain.reading import iter_messages, iter_sessions
from desktop_app.domain.session import Session
from desktop_app.domain.source import SessionCursor, SessionQuery
from desktop_app.sources.everruns.local import EverrunsEvents
from desktop_app.sources.everruns.server import EverrunsServer
from desktop_app.sources.registry import open_history
from tests.fixtures.postgres import EverrunsDb, PostgresServer


@pytest.fixture
def everruns(postgres: PostgresServer, request: pytest.FixtureRequest) -> EverrunsDb:
    name = "evp_" + "".join(c for c in request.node.name.lower() if c.isalnum())[:40]
    return postgres.everruns_database(name)


SESSIONS = 1_234
"""More than two of the reader's own 500-session pages, so a walk crosses page boundaries; the
activity times repeat (seven of them), so most boundaries fall inside a run of ties."""


def _many_sessions(everruns: EverrunsDb) -> None:
    with everruns.server.connect(everruns.name) as conn:
        conn.execute(
            "INSERT INTO sessions (agent_id, title, model_id, updated_at) "
            "SELECT %s, 'Chat ' || n, %s, "
            "timestamptz '2026-02-01 10:00:00+00' + (n %% 7) * interval '1 hour' "
            "FROM generate_series(1, %s) n",
            (everruns.agent_id, everruns.model_id, SESSIONS),
        )


def _expected(everruns: EverrunsDb) -> list[str]:
    """The list order by SQL alone: last activity, newest first, then id."""
    with everruns.server.connect(everruns.name) as conn:
        rows = conn.execute("SELECT id::text FROM sessions ORDER BY updated_at DESC, id DESC")
        return [str(row[0]) for row in rows]


def _walk(source: EverrunsServer, limit: int) -> list[Session]:
    listed: list[Session] = []
    cursor: SessionCursor | None = None
    for _ in range(SESSIONS):  # bounded: a page that does not advance fails below
        page = source.list_sessions(SessionQuery(), after=cursor, limit=limit)
        assert len(page.sessions) <= limit
        listed += page.sessions
        if page.next_cursor is None:
            return listed
        assert page.next_cursor != cursor
        cursor = page.next_cursor
    raise AssertionError("paging did not end")


def test_keyset_paging_reaches_every_page_each_session_once_in_order(
    everruns: EverrunsDb,
) -> None:
    _many_sessions(everruns)
    expected = _expected(everruns)
    assert len(expected) == SESSIONS
    source = EverrunsServer(everruns.url)
    try:
        whole = [s.id for s in iter_sessions(source, SessionQuery())]  # 500 a page
        assert whole == expected
        for limit in (50, 7):
            assert [s.id for s in _walk(source, limit)] == expected
        assert source.count_sessions(SessionQuery()) == SESSIONS
    finally:
        source.close()


def _said(text: str, created_at: str) -> dict[str, Any]:
    message = {"id": f"m_{text}", "role": "user", "content": [{"type": "text", "text": text}]}
    return {"message": {**message, "created_at": created_at}}


def _replied(text: str, created_at: str) -> dict[str, Any]:
    message = {"id": f"m_{text}", "role": "agent", "content": [{"type": "text", "text": text}]}
    return {"message": {**message, "created_at": created_at}, "usage": {"output_tokens": 3}}


def _texts(messages: Any) -> list[str]:
    return [
        part.text
        for message in messages
        for part in message.parts
        if isinstance(part, TextPart) and part.text.startswith("step")
    ]


def test_a_transcript_follows_sequence_when_the_clocks_disagree(everruns: EverrunsDb) -> None:
    """Events written by workers whose clocks differ: both the stored `ts` and the messages' own
    `created_at` run backwards and forwards, and the transcript is still in `sequence` order,
    paged, whole and in the search index's bulk read alike."""
    session = everruns.add_session("Skewed")
    steps = [
        ("input.message", _said, "2026-03-01T12:00:00Z"),
        ("output.message.completed", _replied, "2026-03-01T09:00:00Z"),
        ("input.message", _said, "2026-03-01T11:30:00Z"),
        ("output.message.completed", _replied, "2026-03-01T08:00:00Z"),
        ("input.message", _said, "2026-03-01T12:30:00Z"),
    ]
    for number, (kind, make, at) in enumerate(steps, start=1):
        everruns.add_events(session, [(kind, make(f"step {number}", at))], ts=at)
    in_order = [f"step {n}" for n in range(1, len(steps) + 1)]
    source = EverrunsServer(everruns.url)
    try:
        assert _texts(iter_messages(source, session)) == in_order
        positions = source.positions(session)
        assert [p.row_id for p in positions] == sorted(p.row_id for p in positions)
        assert _texts(source.messages_between(session, positions[1], positions[3])) == in_order[1:4]
        assert _texts(source.messages_at(session, list(reversed(positions)))) == in_order
        assert _texts(source.messages_of([session])) == in_order
    finally:
        source.close()


def _gander_backends(postgres: PostgresServer, database: str) -> list[int]:
    with postgres.connect(database) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity "
            "WHERE application_name = 'gander' AND datname = current_database()"
        )
        return [int(row[0]) for row in rows]


def test_a_connection_the_server_dropped_is_replaced_by_itself(
    everruns: EverrunsDb, postgres: PostgresServer
) -> None:
    """The server (an idle timeout, a restart of a pooler, an administrator) ends Gander's idle
    connection: the next list opens a new one instead of failing on the dead one."""
    everruns.add_session("Idle")
    source = EverrunsServer(everruns.url)
    try:
        assert len(source.list_sessions(SessionQuery()).sessions) == 1
        idle = _gander_backends(postgres, everruns.name)
        assert idle, "Gander's pooled connection should be open and idle"
        with postgres.connect(everruns.name) as conn:
            for pid in idle:
                conn.execute("SELECT pg_terminate_backend(%s)", (pid,))
        assert len(source.list_sessions(SessionQuery()).sessions) == 1
        assert not set(_gander_backends(postgres, everruns.name)) & set(idle)
    finally:
        source.close()


def test_the_statement_timeout_is_set_on_the_connection_gander_reads_with(
    everruns: EverrunsDb,
) -> None:
    """Asked of the server on the reader's own pooled connection, for the default and for a
    timeout given (the server would otherwise wait on a locked table for ever)."""
    for given, shown in ((None, "15s"), (2_500, "2500ms")):
        source = (
            EverrunsServer(everruns.url)
            if given is None
            else EverrunsServer(everruns.url, statement_timeout_ms=given)
        )
        try:
            with source._reading() as conn:
                assert conn.execute(text("SHOW statement_timeout")).scalar_one() == shown
        finally:
            source.close()


def test_the_change_feed_never_says_nothing_changed_when_a_session_went(
    everruns: EverrunsDb,
) -> None:
    """A session deleted on the server leaves no newer event nor a newer `updated_at` behind:
    the feed must answer "cannot tell" (`None`) or name it, never "nothing changed"."""
    kept = everruns.add_session("Kept")
    gone = everruns.add_session("Gone")
    source = EverrunsServer(everruns.url)
    try:
        token = source.change_token()
        with everruns.server.connect(everruns.name) as conn:
            conn.execute("DELETE FROM sessions WHERE id = %s", (gone,))
        changed = source.changed_since(token)
        assert changed is None or gone in changed
        assert [s.id for s in iter_sessions(source, SessionQuery())] == [kept]
    finally:
        source.close()


# ---- the same rules on files: an events export, the local mode's log ------------------------


def _envelope(session: str, sequence: int, kind: str, data: dict[str, Any], at: str) -> Any:
    """An envelope as `crates/core/src/events.rs`'s `Event` serialises it."""
    return {
        "id": f"event_{session[-4:]}_{sequence}",
        "type": kind,
        "ts": at if "T" in at else f"2026-03-01T{at}",
        "session_id": session,
        "context": {"turn_id": "turn_1"},
        "data": data,
        "sequence": sequence,
    }


def test_an_export_out_of_sequence_order_reads_in_sequence_order(tmp_path: Path) -> None:
    """An export whose envelopes are not in `sequence` order (reversed here) and whose clocks
    disagree is still the conversation in `sequence` order."""
    session = "session_0195a1b2c3d47000800000000000cccc"
    steps = [
        ("input.message", _said, "12:00"),
        ("output.message.completed", _replied, "09:00"),
        ("input.message", _said, "11:00"),
        ("output.message.completed", _replied, "08:00"),
    ]
    envelopes = [
        _envelope(session, n, kind, make(f"step {n}", f"2026-03-01T{at}:00Z"), f"{at}:00.000Z")
        for n, (kind, make, at) in enumerate(steps, start=1)
    ]
    path = tmp_path / "events.json"
    path.write_text(json.dumps({"data": envelopes[::-1], "has_more": False}))
    source = open_history(path)
    assert _texts(iter_messages(source, session)) == ["step 1", "step 2", "step 3", "step 4"]


def test_the_local_log_pages_by_last_activity_each_session_once(tmp_path: Path) -> None:
    """Thirty sessions of the local mode's `events.jsonl`, ten at each of three times, listed
    four at a time: every one once, newest activity first, ties by id."""
    lines = []
    for n in range(30):
        session = f"session_0195a1b2c3d4700080000000{n:08d}"
        at = f"2026-03-0{n % 3 + 1}T10:00:00.000Z"
        lines.append(_envelope(session, 1, "input.message", _said(f"chat {n}", at), at))
    folder = tmp_path / "everruns-data"
    folder.mkdir()
    (folder / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in lines))
    source = EverrunsEvents(folder)
    listed: list[Session] = []
    cursor: SessionCursor | None = None
    for _ in range(30):
        page = source.list_sessions(SessionQuery(), after=cursor, limit=4)
        listed += page.sessions
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    expected = sorted(((s.updated_at, s.id) for s in listed), reverse=True)
    assert [(s.updated_at, s.id) for s in listed] == expected
    assert len({s.id for s in listed}) == len(listed) == 30
    newest = {s.id for s in listed[:10]}
    assert newest == {f"session_0195a1b2c3d4700080000000{n:08d}" for n in range(2, 30, 3)}


# ---- reasoning kept apart, and opaque state -------------------------------------------------

SEALED = {
    "signature": "S1gnatureSealedXq" * 8,
    "encrypted": "EncryptedSealedXq" * 8,
    "encrypted_content": "EncContentSealedXq" * 8,
    "thinking_signature": "ThinkSigSealedXq" * 8,
}
"""Opaque replay state everruns strips from every read, one value per key it knows."""


def _agent(text: str, *reasoning: dict[str, Any]) -> dict[str, Any]:
    content = [*reasoning, {"type": "text", "text": text}]
    return {"message": {"id": f"m_{text}", "role": "agent", "content": content}}


def _reasoning_turns() -> list[tuple[str, str, dict[str, Any]]]:
    """(turn, type, data): a turn whose message has no reasoning of its own (its reasoning
    event shows), one whose message has (the event does not), and a reasoning event whose turn
    was cancelled before its message, the next turn's message having reasoning (it shows)."""
    own = {"type": "reasoning", "provider": "openai", "text": {"kind": "summary", "parts": ["B"]}}
    own |= {key: SEALED[key] for key in ("signature", "encrypted", "thinking_signature")}
    return [
        ("turn_a", "input.message", _said("Think first", "2026-03-01T10:00:00Z")),
        ("turn_a", "reason.thinking.completed", {"turn_id": "turn_a", "thinking": "Kept A."}),
        ("turn_a", "output.message.completed", _agent("Answer A")),
        ("turn_b", "input.message", _said("Again", "2026-03-01T10:01:00Z")),
        (
            "turn_b",
            "reason.item",
            {
                "turn_id": "turn_b",
                "provider": "openai",
                "item_id": "rs_1",
                "summary": ["B"],
                "encrypted_content": SEALED["encrypted_content"],
            },
        ),
        ("turn_b", "output.message.completed", _agent("Answer B", own)),
        ("turn_c", "input.message", _said("Once more", "2026-03-01T10:02:00Z")),
        ("turn_c", "reason.thinking.completed", {"turn_id": "turn_c", "thinking": "Kept C."}),
        ("turn_c", "turn.cancelled", {"turn_id": "turn_c", "reason": "user"}),
        ("turn_d", "output.message.completed", _agent("Answer D", own)),
    ]


EXPECTED_REASONING = ["Think first", "Kept A.", "Answer A", "Again", "B", "Answer B"]
EXPECTED_REASONING += ["Once more", "Kept C.", "B", "Answer D"]


def _everything(messages: Any) -> str:
    """Every field of every message and part, their raw JSON included (which `repr` leaves
    out)."""
    return json.dumps([dataclasses.asdict(m) for m in messages], default=str)


def _shown_texts(messages: Any) -> list[str]:
    return [
        part.text
        for message in messages
        for part in message.parts
        if isinstance(part, TextPart | ReasoningPart)
    ]


def test_reasoning_events_show_only_when_their_turns_message_has_none_on_the_server(
    everruns: EverrunsDb,
) -> None:
    session = everruns.add_session("Reasoning")
    for turn, kind, data in _reasoning_turns():
        everruns.add_events(session, [(kind, data)], turn=turn)
    source = EverrunsServer(everruns.url)
    try:
        messages = list(iter_messages(source, session))
    finally:
        source.close()
    assert _shown_texts(messages) == EXPECTED_REASONING
    assert not any(value in _everything(messages) for value in SEALED.values())


def test_reasoning_events_and_opaque_state_in_an_events_file(tmp_path: Path) -> None:
    """The same rule in an events export (`shown_events`), and the opaque state withheld from
    the parts and their raw JSON."""
    session = "session_0195a1b2c3d47000800000000000dddd"
    envelopes = [
        {**_envelope(session, n, kind, data, "2026-03-01T10:00:00.000Z"), "context": {"turn_id": t}}
        for n, (t, kind, data) in enumerate(_reasoning_turns(), start=1)
    ]
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in envelopes))
    source = open_history(path)
    messages = list(iter_messages(source, session))
    assert _shown_texts(messages) == EXPECTED_REASONING
    assert not any(value in _everything(messages) for value in SEALED.values())
