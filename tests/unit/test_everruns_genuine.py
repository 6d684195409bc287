"""everruns against a library-written export and the newest schema (#17 items 13–18):
`tests/fixtures/everruns/sdk_export.json` is two sessions' events as everruns-sdk 0.3.1 fetches
and dumps them through its own `Event` model (`make_sdk_export.py`), payloads from upstream's
`crates/core/src/events/`; `schema_newest.sql` is the base schema with the later migrations
(archived_events, harnesses, sub-agent sessions)."""

import json
from pathlib import Path
from typing import Any

import pytest

from desktop_app.domain.message import Message, Role
from desktop_app.domain.parts import ErrorPart, NotificationPart, TextPart, UnsupportedPart
from desktop_app.domain.reading import iter_messages
from desktop_app.domain.source import ArchivedFilter, SessionQuery
from desktop_app.rendering.json_export import message_to_json
from desktop_app.rendering.markdown_export import MarkdownWriter
from desktop_app.search.documents import to_document
from desktop_app.sources.everruns.local import EverrunsEvents
from desktop_app.sources.everruns.server import EverrunsServer
from desktop_app.sources.registry import open_history
from tests.fixtures.postgres import EverrunsDb, PostgresServer

EXPORT = Path(__file__).parents[1] / "fixtures" / "everruns" / "sdk_export.json"
PARENT = "session_0195f0a1b2c37000800000000000a001"
CHILD = "session_0195f0a1b2c37000800000000000a002"
LATEST_TITLE = "Lighthouse photo and Lisbon weather"


def _envelopes() -> list[dict[str, Any]]:
    loaded: list[dict[str, Any]] = json.loads(EXPORT.read_text(encoding="utf-8"))
    return loaded


def _texts(message: Message) -> list[str]:
    found = []
    for part in message.parts:
        if isinstance(part, TextPart | NotificationPart):
            found.append(part.text)
        elif isinstance(part, ErrorPart):
            found.append(f"{part.error_kind}: {part.message}")
    return found


def _transcript(source: Any, session: str) -> list[Message]:
    return list(iter_messages(source, session))


def test_an_sdk_export_is_recognised_by_its_structure() -> None:
    """Item 17: pydantic dumps `context` and `data` first, so the first `session_id` is
    beyond the first 4 kB; the file is still an everruns export."""
    head = EXPORT.read_bytes()[:4096]
    assert b'"session_id"' not in head  # the case the byte window missed
    source = open_history(EXPORT)
    assert isinstance(source, EverrunsEvents)


def test_the_title_is_the_latest_title_event(tmp_path: Path) -> None:
    """Item 13, in an export and in the local mode's events.jsonl (beside a local.db whose
    catalog is older): the latest `session.title.updated`, not the first prompt."""
    source = EverrunsEvents(EXPORT)
    assert source.get_session(PARENT).name == LATEST_TITLE
    assert source.get_session(CHILD).name == "Find today's weather in Lisbon."  # untitled
    log = tmp_path / "events.jsonl"
    log.write_text("".join(json.dumps(e) + "\n" for e in _envelopes()), encoding="utf-8")
    assert EverrunsEvents(tmp_path).get_session(PARENT).name == LATEST_TITLE


def test_task_sessions_nest_under_their_parent() -> None:
    """Item 14: `task.created` links the sub-agent's session (`links.child_session_id`)."""
    source = EverrunsEvents(EXPORT)
    (top,) = source.list_sessions(SessionQuery()).sessions
    assert top.id == PARENT
    assert top.has_children
    children = source.list_sessions(
        SessionQuery(session_types=None, parent_session_id=PARENT)
    ).sessions
    assert [c.id for c in children] == [CHILD]
    assert children[0].parent_session_id == PARENT


def test_totals_and_model_come_from_the_replies() -> None:
    """Item 16: cache tokens summed over the replies, the model the replies name."""
    session = EverrunsEvents(EXPORT).get_session(PARENT)
    tokens = session.accumulated_usage
    assert (tokens.input_tokens, tokens.output_tokens) == (2700, 70)
    assert (tokens.cache_read_tokens, tokens.cache_write_tokens) == (1900, 300)
    assert session.model == "gpt-5-mini"


def test_the_context_now_is_the_latest_reply_s_usage() -> None:
    """As the server reads it (`latest.last_usage`): the usage panel said "not recorded" for
    a file's session beside its totals."""
    source = EverrunsEvents(EXPORT)
    current = source.get_session(PARENT).usage
    assert (current.input_tokens, current.output_tokens, current.total_tokens) == (1500, 30, 1530)
    assert (current.cache_read_tokens, current.cache_write_tokens) == (1100, None)
    (listed,) = source.list_sessions(SessionQuery()).sessions
    assert listed.usage == current


def _check_new_types(messages: list[Message]) -> None:
    texts = [" | ".join(_texts(m)) for m in messages]
    joined = "\n".join(texts)
    for expected in (
        "Task “Weather lookup” (subagent) created: running",
        "Task “Weather lookup” (subagent): succeeded — Lisbon: 21°C and sunny.",
        "To task task_0195f0a1b2c37000800000000000d001: Use Celsius.",
        "From task task_0195f0a1b2c37000800000000000d001: Halfway: found a forecast.",
        "llm_rate_limited: The model provider is rate limiting requests. (provider: openai)",
        "A tool call left without a result was repaired (synthesize): call_2 (web_fetch)",
        "A malformed call of web_fetch was repaired (local-salvage).",
        "An interrupted reply was recovered (finalize, 412 characters).",
        "Compaction was considered and skipped (cooldown_active).",
        "Compaction failed (summarization): summarizer request failed: upstream timed out",
        "The turn was sealed to stop waste (no_progress): 3 reclaims without progress",
        "The turn was cancelled: user requested",
    ):
        assert expected in joined, expected
    spoken = {m.role: t for m, t in zip(messages, texts, strict=True) if "weekend" in t}
    assert spoken == {Role.USER: "Will it rain at the weekend?"}
    assert any(
        m.role is Role.ASSISTANT and t == "No rain is forecast until Monday."
        for m, t in zip(messages, texts, strict=True)
    )
    # an error reply and a failed turn are found by has:error; lifecycle events are not shown
    errors = [m for m in messages if to_document(m).has_error]
    assert len(errors) == 3  # the error reply, turn.failed, compaction failed
    reply = next(m for m in errors if m.role is Role.ASSISTANT)
    assert _texts(reply)[0] == "The model provider is rate limiting requests."
    assert _texts(reply)[1] == "llm_rate_limited: The reply reports a failure (provider: openai)"
    kinds = {(m.metadata_raw or {}).get("type") for m in messages}
    assert not kinds & {"turn.started", "turn.completed", "voice.session.started"}
    assert "session.title.updated" not in kinds


def test_new_event_types_are_shown_from_an_export() -> None:
    """Item 14 on the library-written export."""
    _check_new_types(_transcript(EverrunsEvents(EXPORT), PARENT))


def test_an_unknown_event_type_stays_visible(tmp_path: Path) -> None:
    """Item 14: a type Gander never heard of (or the retired `subagent.*`) is unsupported, not
    dropped; a delta is not conversation."""
    base = _envelopes()[0]
    extra = [
        base | {"type": "subagent.spawned", "sequence": 2, "data": {"name": "Test Runner"}},
        base | {"type": "workflow.checkpointed", "sequence": 3, "data": {"step": 4}},
        base | {"type": "output.message.delta", "sequence": 4, "data": {"delta": "x"}},
    ]
    log = tmp_path / "events.jsonl"
    log.write_text("".join(json.dumps(e) + "\n" for e in [base, *extra]), encoding="utf-8")
    messages = _transcript(EverrunsEvents(log), PARENT)
    assert len(messages) == 3
    unknown = [m.parts[0] for m in messages[1:]]
    assert all(isinstance(p, UnsupportedPart) for p in unknown)
    assert [p.source_type for p in unknown if isinstance(p, UnsupportedPart)] == [
        "subagent.spawned",
        "workflow.checkpointed",
    ]
    assert "Test Runner" in unknown[0].raw_text  # type: ignore[union-attr]


def _delegated_call(session: str) -> list[dict[str, Any]]:
    """A delegated voice call as upstream's own test of it runs one
    (`test_voice_channel_call_speaks_greeting_sends_utterances_and_speaks_answers`): the
    utterance is both a transcript and a user message with `metadata.source = "voice"`."""
    said = "What is the weather in Kyiv?"
    voice = {"voice_connection_id": "voice_1", "item_id": "item_1", "phase": "user_final"}
    message = {
        "id": "message_v1",
        "role": "user",
        "content": [{"type": "text", "text": said}],
        "metadata": {"source": "voice"},
        "created_at": "2026-05-04T10:00:01Z",
    }
    events = [
        ("voice.input_transcript.completed", voice | {"accumulated": said}),
        ("input.message", {"message": message}),
        ("voice.output_transcript.completed", voice | {"accumulated": "It is sunny."}),
    ]
    return [
        {
            "id": f"event_v{n}",
            "type": kind,
            "ts": f"2026-05-04T10:00:0{n}Z",
            "session_id": session,
            "context": {},
            "data": data,
            "sequence": n,
        }
        for n, (kind, data) in enumerate(events, 1)
    ]


def test_a_delegated_voice_call_is_shown_once(tmp_path: Path, postgres: PostgresServer) -> None:
    """Item 14: a delegated call's transcripts repeat its messages, so only the messages are
    shown; a call with transcripts alone (the export) shows its transcripts."""
    log = tmp_path / "events.jsonl"
    log.write_text("".join(json.dumps(e) + "\n" for e in _delegated_call(PARENT)), "utf-8")
    source = EverrunsEvents(log)
    (only,) = _transcript(source, PARENT)
    assert only.role is Role.USER
    assert _texts(only) == ["What is the weather in Kyiv?"]
    assert source.get_session(PARENT).message_count == 1
    db = postgres.everruns_database("ev_voice", schema="schema_newest.sql")
    session = db.add_session(None, agent_id=None, model_id=None)
    db.add_events(session, [(e["type"], e["data"]) for e in _delegated_call(session)])
    server = EverrunsServer(db.url)
    try:
        (shown,) = _transcript(server, session)
        assert shown.role is Role.USER
        assert server.get_session(session).message_count == 1
    finally:
        server.close()


def test_the_exports_keep_the_author_and_the_phase() -> None:
    """Item 18: the Slack author and the phase, as the window's label shows them."""
    messages = _transcript(EverrunsEvents(EXPORT), PARENT)
    first, commentary = messages[0], messages[1]
    writer = MarkdownWriter()
    assert writer.message(first).startswith("### User · Alice (slack) · ")
    assert writer.message(commentary).startswith("### Assistant · commentary · ")
    shown = message_to_json(first)
    assert shown["author"] == {
        "kind": "slack",
        "name": "Alice",
        "external_id": "U0123456789",
        "channel": "#support",
    }
    assert message_to_json(commentary)["phase"] == "commentary"


# ---- the server, every schema generation --------------------------------------------------


def _load(db: EverrunsDb, **columns: Any) -> dict[str, str]:
    """The export's two sessions and their events into the database; the child session
    marked as the parent's sub-agent when the schema has `parent_session_id`."""
    parent = db.add_session(None, **columns)
    child_columns = dict(columns)
    if "agent_id" in columns:  # the newest schema
        child_columns |= {"parent_session_id": parent, "subagent_name": "Weather lookup"}
    child = db.add_session(None, **child_columns)
    ids = {PARENT: parent, CHILD: child}
    for envelope in _envelopes():
        db.add_events(
            ids[envelope["session_id"]],
            [(envelope["type"], envelope["data"])],
            turn=envelope["context"]["turn_id"],
            ts=envelope["ts"],
        )
    return ids


@pytest.mark.parametrize("schema", ["schema_v0_3.sql", "schema_v0_4.sql", "schema_newest.sql"])
def test_every_schema_generation_opens(postgres: PostgresServer, schema: str) -> None:
    """Item 15: v0.3, v0.4 and the newest tables all open and read the same conversation."""
    db = postgres.everruns_database(
        "ev_gen_" + schema.split(".", maxsplit=1)[0].removeprefix("schema_"), schema=schema
    )
    newest = schema == "schema_newest.sql"
    ids = _load(db, agent_id=None, model_id=None) if newest else _load(db)
    source = EverrunsServer(db.url)
    try:
        messages = _transcript(source, ids[PARENT])
        _check_new_types(messages)
        assert source.get_session(ids[PARENT]).model in ("claude-sonnet-4-5", "gpt-5-mini")
    finally:
        source.close()


def test_the_newest_schema_nests_archives_and_names_the_model(postgres: PostgresServer) -> None:
    """Item 15 and 16: events moved to `archived_events` are still read, a sub-agent's
    session (`parent_session_id`) nests under its parent, an archived or deleted session is
    archived, and a session without `model_id` (a harness's default) takes its replies'."""
    db = postgres.everruns_database("ev_newest", schema="schema_newest.sql")
    ids = _load(db, agent_id=None, model_id=None)
    with postgres.connect(db.name) as conn:  # what the retention job does
        conn.execute(
            "INSERT INTO archived_events (id, session_id, sequence, event_type, data, ts, "
            "context, metadata, tags, created_at) SELECT id, session_id, sequence, event_type, "
            "data, ts, context, metadata, tags, created_at FROM events WHERE sequence <= 5"
        )
        conn.execute("DELETE FROM events WHERE sequence <= 5")
        conn.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader")
    source = EverrunsServer(db.url)
    try:
        messages = _transcript(source, ids[PARENT])
        assert _texts(messages[0])[0] == "What is in this photo, and what's the weather?"
        (top,) = source.list_sessions(SessionQuery()).sessions
        assert top.id == ids[PARENT]
        assert top.has_children
        assert top.model == "gpt-5-mini"
        (child,) = source.list_sessions(
            SessionQuery(session_types=None, parent_session_id=ids[PARENT])
        ).sessions
        assert child.id == ids[CHILD]
        assert child.parent_session_id == ids[PARENT]
        assert child.name == "Find today's weather in Lisbon."
        assert source.count_sessions(SessionQuery()) == 1
    finally:
        source.close()


def test_archived_and_deleted_sessions_are_archived(postgres: PostgresServer) -> None:
    """Item 15: `archived_at`/`deleted_at` on sessions (added here by hand, as the
    lifecycle migration adds them to agents and harnesses: the sessions migration was not
    found upstream) leave a session out of the default list, in the archive."""
    db = postgres.everruns_database("ev_lifecycle", schema="schema_newest.sql")
    ids = _load(db, agent_id=None, model_id=None)
    kept = db.add_session("Kept", agent_id=None, model_id=None)
    with postgres.connect(db.name) as conn:
        conn.execute("ALTER TABLE sessions ADD COLUMN archived_at TIMESTAMPTZ")
        conn.execute("ALTER TABLE sessions ADD COLUMN deleted_at TIMESTAMPTZ")
        conn.execute("UPDATE sessions SET archived_at = NOW() WHERE id = %s", (ids[PARENT],))
        conn.execute("UPDATE sessions SET deleted_at = NOW() WHERE id = %s", (ids[CHILD],))
    source = EverrunsServer(db.url)
    try:
        listed = source.list_sessions(SessionQuery(session_types=None)).sessions
        assert [s.id for s in listed] == [kept]
        archived = source.list_sessions(
            SessionQuery(session_types=None, archived=ArchivedFilter.ONLY)
        ).sessions
        assert {s.id for s in archived} == {ids[PARENT], ids[CHILD]}
        assert source.get_session(ids[CHILD]).status == "deleted"
    finally:
        source.close()
