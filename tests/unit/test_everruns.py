"""everruns on a real PostgreSQL server (#11): sessions and events in everruns' own tables
(tests/fixtures/everruns/*.sql, from its migrations), events shaped as everruns writes them —
the public examples of `knowledge/execution/events.md` and the payload structs of
`crates/core/src/events.rs` (github.com/everruns/everruns), current and legacy names."""

import json
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from desktop_app.cli import main
from desktop_app.domain.errors import GanderError, SourceUnreadable, UnknownSession
from desktop_app.domain.message import Role
from desktop_app.domain.parts import (
    ImagePart,
    NotificationPart,
    ReasoningPart,
    RedactedReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from desktop_app.domain.reading import iter_messages, iter_sessions
from desktop_app.domain.source import BulkMessages, ChangeFeed, SessionQuery, UsageHistory
from desktop_app.rendering.transcript_blocks import MessageRenderer
from desktop_app.sources.everruns.server import EverrunsServer
from desktop_app.sources.registry import absolute, open_history
from tests.fixtures.goose_db import GooseDb
from tests.fixtures.postgres import READER_PASSWORD, EverrunsDb, PostgresServer

SIGNATURE = "EqQBCkgIARABGAIiQL" + "x" * 200
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5Er"
    "kJggg=="
)


def _user(text: str, **extra: Any) -> dict[str, Any]:
    message = {"id": "message_01", "role": "user", "content": [{"type": "text", "text": text}]}
    return {"message": {**message, "created_at": "2026-03-01T10:00:00.118Z", **extra}}


def _turn(db: EverrunsDb, session: str) -> list[int]:
    """Example A1 of the reference (a photo, a weather tool call, reasoning), plus the events a
    transcript leaves out (deltas, turn and reason lifecycle)."""
    return db.add_events(
        session,
        [
            (
                "input.message",
                {
                    "message": {
                        "id": "message_m1",
                        "role": "user",
                        "content": [
                            {"type": "text", "text": "What is in this photo, and the weather?"},
                            {"type": "image", "base64": PNG, "media_type": "image/png"},
                        ],
                        "external_actor": {
                            "actor_id": "U0123456789",
                            "actor_name": "Alice",
                            "source": "slack",
                        },
                        "created_at": "2026-03-01T10:00:00.118Z",
                    }
                },
            ),
            ("turn.started", {"turn_id": "turn_t1", "input_message_id": "message_m1"}),
            ("output.message.delta", {"turn_id": "turn_t1", "delta": "That", "accumulated": ""}),
            (
                "output.message.completed",
                {
                    "message": {
                        "id": "message_m2",
                        "role": "agent",
                        "content": [
                            {
                                "type": "reasoning",
                                "provider": "anthropic",
                                "text": {"kind": "plain", "text": "Describe, then get weather."},
                                "signature": SIGNATURE,
                            },
                            {"type": "text", "text": "A ginger cat. Checking the weather."},
                            {
                                "type": "tool_call",
                                "id": "toolu_01A",
                                "name": "get_weather",
                                "arguments": {"city": "Kyiv"},
                            },
                        ],
                        "phase": "commentary",
                        "phase_source": "derived",
                        "created_at": "2026-03-01T10:00:04.880Z",
                    },
                    "metadata": {"model": "claude-sonnet-4-5"},
                    "usage": {"input_tokens": 1834, "output_tokens": 212},
                },
            ),
            (
                "tool.completed",
                {
                    "tool_call_id": "toolu_01A",
                    "tool_name": "get_weather",
                    "success": True,
                    "status": "success",
                    "result": [{"type": "text", "text": '{"temp_c":4}'}],
                    "duration_ms": 312,
                },
            ),
            (
                "tool.completed",
                {
                    "tool_call_id": "toolu_01B",
                    "tool_name": "get_news",
                    "success": False,
                    "status": "timeout",
                    "error": "timed out after 30 s",
                },
            ),
            (
                "output.message.completed",
                {
                    "message": {
                        "id": "message_m3",
                        "role": "agent",
                        "content": [
                            {
                                "type": "reasoning",
                                "provider": "anthropic",
                                "text": {"kind": "redacted"},
                                "signature": SIGNATURE,
                            },
                            {"type": "text", "text": "Kyiv: 4 °C and overcast."},
                        ],
                        "phase": "final_answer",
                        "created_at": "2026-03-01T10:00:06.990Z",
                    },
                    "metadata": {"model": "claude-sonnet-4-5"},
                    "usage": {"input_tokens": 2101, "output_tokens": 18, "cache_read_tokens": 900},
                },
            ),
            ("turn.completed", {"turn_id": "turn_t1", "iterations": 2}),
            (
                "session.model.changed",
                {
                    "previous_model_name": "claude-sonnet-4-5",
                    "model_id": "model_02",
                    "model_name": "gpt-5",
                },
            ),
            (
                "context.compacted",
                {
                    "strategy_used": "native",
                    "messages_before": 120,
                    "messages_after": 8,
                    "duration_ms": 900,
                },
            ),
        ],
        turn="turn_t1",
    )


@pytest.fixture
def everruns(postgres: PostgresServer, request: pytest.FixtureRequest) -> EverrunsDb:
    name = "ev_" + "".join(c for c in request.node.name.lower() if c.isalnum())[:40]
    return postgres.everruns_database(name)


def test_a_conversation_is_rebuilt_from_the_canonical_events(everruns: EverrunsDb) -> None:
    session = everruns.add_session("Weather in Kyiv")
    _turn(everruns, session)
    source = open_history(everruns.url)
    assert isinstance(source, EverrunsServer)
    listed = source.list_sessions(SessionQuery()).sessions
    assert [s.name for s in listed] == ["Weather in Kyiv"]
    assert listed[0].agent == "Support bot"
    assert listed[0].model == "claude-sonnet-4-5"
    assert listed[0].status == "started"
    assert listed[0].message_count == 7  # every message shown: the seven below
    assert listed[0].accumulated_usage.input_tokens == 1834 + 2101
    assert listed[0].accumulated_usage.output_tokens == 212 + 18
    assert listed[0].accumulated_usage.cache_read_tokens == 900
    assert listed[0].usage.input_tokens == 2101  # the last reply: the context now
    messages = list(iter_messages(source, session))
    assert [m.role for m in messages] == [
        Role.USER,
        Role.ASSISTANT,
        Role.TOOL,
        Role.TOOL,
        Role.ASSISTANT,
        Role.SYSTEM,
        Role.SYSTEM,
    ]
    user, first, ok, failed, final, changed, compacted = messages
    assert isinstance(user.parts[1], ImagePart)
    assert user.author is not None
    assert user.author.name == "Alice"
    assert user.author.kind == "slack"
    reasoning, _text, call = first.parts
    assert isinstance(reasoning, ReasoningPart)
    assert reasoning.text == "Describe, then get weather."
    assert SIGNATURE not in json.dumps(reasoning.raw)
    assert isinstance(call, ToolCallPart)
    assert call.arguments == {"city": "Kyiv"}
    assert first.phase == "commentary"
    assert first.usage is not None
    assert first.usage.tokens.input_tokens == 1834
    assert first.inference is not None
    assert first.inference.model == "claude-sonnet-4-5"
    result = ok.parts[0]
    assert isinstance(result, ToolResultPart)
    assert result.call_id == "toolu_01A"
    assert result.duration_ms == 312
    assert not result.is_error
    bad = failed.parts[0]
    assert isinstance(bad, ToolResultPart)
    assert bad.is_error
    assert bad.status == "timeout"
    assert isinstance(final.parts[0], RedactedReasoningPart)
    assert final.usage is not None
    assert final.usage.tokens.cache_read_tokens == 900
    assert isinstance(changed.parts[0], NotificationPart)
    assert changed.parts[0].text == "Model changed from claude-sonnet-4-5 to gpt-5."
    assert isinstance(compacted.parts[0], NotificationPart)
    assert "from 120 to 8 messages" in compacted.parts[0].text
    source.close()


def test_legacy_names_and_layouts_are_read(postgres: PostgresServer) -> None:
    db = postgres.everruns_database("ev_legacy", schema="schema_v0_3.sql")
    session = db.add_session(None)
    db.add_events(
        session,
        [
            ("message.user", _user("Summarise the incident")),
            (
                "message.agent",
                {
                    "message": {
                        "id": "message_02",
                        "role": "agent",
                        "content": [{"type": "text", "text": "Here is the summary."}],
                        "thinking": "The user wants a summary.",
                        "thinking_signature": SIGNATURE,
                        "created_at": "2026-01-05T09:00:00Z",
                    },
                    "usage": {"input_tokens": 10, "output_tokens": 5},
                },
            ),
            ("tool.call_completed", {"tool_call_id": "c1", "success": True, "result": {"rows": 3}}),
        ],
    )
    source = EverrunsServer(db.url)
    (listed,) = source.list_sessions(SessionQuery()).sessions
    assert listed.name == "Summarise the incident"  # untitled: its first prompt
    user, agent, tool = iter_messages(source, session)
    assert user.role is Role.USER
    assert isinstance(agent.parts[0], ReasoningPart)
    assert agent.parts[0].text == "The user wants a summary."
    assert isinstance(tool.parts[0], ToolResultPart)
    assert isinstance(tool.parts[0].content[0], TextPart)
    assert json.loads(tool.parts[0].content[0].text) == {"rows": 3}
    source.close()


def test_reasoning_events_show_only_when_the_message_has_none(everruns: EverrunsDb) -> None:
    session = everruns.add_session("Reasoning")
    everruns.add_events(
        session,
        [
            ("input.message", _user("Think first")),
            ("reason.thinking.completed", {"turn_id": "turn_a", "thinking": "Kept apart."}),
            (
                "output.message.completed",
                {
                    "message": {
                        "id": "m",
                        "role": "agent",
                        "content": [{"type": "text", "text": "Answer A"}],
                    }
                },
            ),
        ],
        turn="turn_a",
    )
    everruns.add_events(
        session,
        [
            (
                "reason.item",
                {
                    "turn_id": "turn_b",
                    "provider": "openai",
                    "item_id": "rs_1",
                    "summary": ["Duplicate summary"],
                    "encrypted_content": SIGNATURE,
                },
            ),
            (
                "output.message.completed",
                {
                    "message": {
                        "id": "n",
                        "role": "agent",
                        "content": [
                            {
                                "type": "reasoning",
                                "provider": "openai",
                                "text": {"kind": "summary", "parts": ["Duplicate summary"]},
                            },
                            {"type": "text", "text": "Answer B"},
                        ],
                    }
                },
            ),
        ],
        turn="turn_b",
    )
    source = EverrunsServer(everruns.url)
    messages = list(iter_messages(source, session))
    texts = [p.text for m in messages for p in m.parts if isinstance(p, TextPart | ReasoningPart)]
    assert texts == ["Think first", "Kept apart.", "Answer A", "Duplicate summary", "Answer B"]
    assert len(source.positions(session)) == 4
    source.close()


def test_many_sessions_page_by_last_activity(everruns: EverrunsDb) -> None:
    ids = [
        everruns.add_session(f"Chat {n}", updated_at=f"2026-02-{n % 28 + 1:02d} 10:00:00+00")
        for n in range(230)
    ]
    source = EverrunsServer(everruns.url)
    listed = list(iter_sessions(source, SessionQuery()))
    assert len(listed) == len({s.id for s in listed}) == 230
    assert set(ids) == {s.id for s in listed}
    keys = [(s.updated_at, s.id) for s in listed]
    assert keys == sorted(keys, reverse=True)
    assert source.count_sessions(SessionQuery()) == 230
    assert source.count_sessions(SessionQuery(with_empty=False)) == 0
    with pytest.raises(UnknownSession):
        source.get_session("00000000-0000-0000-0000-000000000000")
    source.close()


def test_the_change_feed_sees_new_events(everruns: EverrunsDb) -> None:
    session = everruns.add_session("Live")
    everruns.add_events(session, [("input.message", _user("one"))])
    source = EverrunsServer(everruns.url)
    assert isinstance(source, ChangeFeed)
    token = source.change_token()
    assert source.changed_since(token) == frozenset()
    everruns.add_events(session, [("input.message", _user("two"))])
    assert source.changed_since(token) == frozenset({session})
    assert source.change_token() != token
    assert set(source.session_states([session, "not-a-uuid"])) == {session}
    states = source.session_states(None)
    assert set(states) == {session}
    source.close()


def test_reads_are_read_only_transactions(everruns: EverrunsDb) -> None:
    source = EverrunsServer(everruns.url)
    with source._reading() as conn:
        assert conn.execute(text("SHOW transaction_read_only")).scalar_one() == "on"
        assert conn.execute(text("SHOW statement_timeout")).scalar_one() == "15s"
    source.close()


def test_credentials_and_failures_are_sentences(
    everruns: EverrunsDb, postgres: PostgresServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(GanderError, match="refused the login") as refused:
        EverrunsServer(postgres.url(everruns.name, user="reader", password="wr0ng-pw"))
    assert "wr0ng-pw" not in str(refused.value)
    good = EverrunsServer(postgres.url(everruns.name, user="reader", password=READER_PASSWORD))
    assert READER_PASSWORD not in good.info().location
    good.close()
    monkeypatch.setenv("PGPASSWORD", READER_PASSWORD)
    from_env = EverrunsServer(postgres.url(everruns.name, user="reader"))
    from_env.close()
    with pytest.raises(GanderError, match="cannot be reached"):
        EverrunsServer(f"postgresql://gander@/nowhere?host={postgres.root}/missing")
    assert READER_PASSWORD not in absolute(
        postgres.url(everruns.name, user="reader", password=READER_PASSWORD)
    )


def test_the_cli_lists_shows_and_searches(
    everruns: EverrunsDb, capsys: pytest.CaptureFixture[str]
) -> None:
    session = everruns.add_session("Weather in Kyiv")
    _turn(everruns, session)
    assert main(["list", "--db", everruns.url, "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["name"] == "Weather in Kyiv"
    assert row["agent"] == "Support bot"
    assert row["accumulated_usage"]["input_tokens"] == 1834 + 2101
    assert main(["show", session, "--db", everruns.url]) == 0
    shown = capsys.readouterr().out
    assert "Kyiv: 4 °C and overcast." in shown
    assert SIGNATURE not in shown
    assert main(["search", "overcast", "--db", everruns.url]) == 0
    assert "Weather in Kyiv" in capsys.readouterr().out


def test_everruns_details_are_shown(everruns: EverrunsDb) -> None:
    """Phase, the Slack user, citations as links, an image kept by the server, a URL image
    that is never fetched."""
    session = everruns.add_session("Details")
    _turn(everruns, session)
    cited = {
        "type": "text",
        "text": "Kyiv is the capital.",
        "annotations": [
            {
                "start": 0,
                "end": 4,
                "origin": "web",
                "source": {"uri": "https://en.wikipedia.org/wiki/Kyiv", "title": "Kyiv"},
            },
            {"start": 5, "end": 7, "source": {"uri": "javascript:alert(1)", "title": "bad"}},
        ],
    }
    everruns.add_events(
        session,
        [
            (
                "input.message",
                {
                    "message": {
                        "id": "u2",
                        "role": "user",
                        "content": [
                            {
                                "type": "image_file",
                                "image_id": "img_0195a1b2",
                                "filename": "cat.png",
                            },
                            {"type": "image", "url": "https://example.com/cat.png"},
                        ],
                    }
                },
            ),
            (
                "output.message.completed",
                {"message": {"id": "a2", "role": "agent", "content": [cited]}},
            ),
        ],
    )
    source = EverrunsServer(everruns.url)
    assert source.get_session(session).accumulated_usage.input_tokens == 1834 + 2101
    rendered = [MessageRenderer().render(m) for m in iter_messages(source, session)]
    labels = [r.role_label for r in rendered]
    assert labels[0] == "User · Alice (slack)"
    assert labels[1] == "Assistant · commentary"
    assert labels[4] == "Assistant · final answer"
    assert rendered[1].muted  # commentary: interim text, drawn muted
    assert not rendered[4].muted
    assert rendered[3].blocks[0].title == "Result · get_news · ✗ timeout"
    stored, linked = rendered[-2].blocks
    assert stored.title == "Image stored on the server · img_0195a1b2"
    assert linked.title == "Image at a link (not loaded)"
    assert rendered[-2].images == ()
    html = rendered[-1].blocks[0].html
    assert '<a href="https://en.wikipedia.org/wiki/Kyiv">Kyiv</a>' in html
    assert "javascript:" not in html
    source.close()


def test_a_statement_timeout_is_one_sentence(
    everruns: EverrunsDb, postgres: PostgresServer
) -> None:
    """A table locked by another client (a migration, say): the read gives up after the
    statement timeout with a sentence, and the next read works."""
    everruns.add_session("Locked")
    source = EverrunsServer(everruns.url, statement_timeout_ms=300)
    with postgres.connect(everruns.name) as other:
        other.execute("BEGIN")
        other.execute("LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE")
        with pytest.raises(GanderError, match="took too long to answer"):
            source.list_sessions(SessionQuery())
        other.execute("ROLLBACK")
    assert len(source.list_sessions(SessionQuery()).sessions) == 1
    source.close()


def test_the_server_going_away_and_coming_back(
    everruns: EverrunsDb, postgres: PostgresServer
) -> None:
    everruns.add_session("Survivor")
    source = EverrunsServer(everruns.url)
    assert len(source.list_sessions(SessionQuery()).sessions) == 1
    postgres.stop()
    try:
        with pytest.raises(GanderError, match="cannot be reached"):
            source.list_sessions(SessionQuery())
    finally:
        postgres.start()
    assert len(source.list_sessions(SessionQuery()).sessions) == 1  # reconnected by itself
    source.close()


def test_bulk_reads_match_the_session_reads(everruns: EverrunsDb) -> None:
    """What the search index reads (many sessions in one query; a page of hits) is exactly
    what a session's own reads give."""
    ids = [everruns.add_session(f"Bulk {n}") for n in range(3)]
    for sid in ids:
        _turn(everruns, sid)
    ids.append("not-a-uuid")
    source = EverrunsServer(everruns.url)
    assert isinstance(source, BulkMessages)
    bulk = list(source.messages_of(ids))
    one_by_one = [m for sid in ids for m in iter_messages(source, sid)]
    assert [(m.session_id, m.row_id) for m in bulk] == [
        (m.session_id, m.row_id) for m in one_by_one
    ]
    assert bulk == one_by_one
    wanted = {ids[0]: [one_by_one[1].cursor], ids[2]: [one_by_one[-1].cursor]}
    picked = {(m.session_id, m.row_id) for m in source.messages_at_each(wanted)}
    assert picked == {(ids[0], one_by_one[1].row_id), (ids[2], one_by_one[-1].row_id)}
    source.close()


def test_usage_history_for_the_usage_panel(everruns: EverrunsDb) -> None:
    session = everruns.add_session("Usage")
    _turn(everruns, session)
    source = EverrunsServer(everruns.url)
    assert isinstance(source, UsageHistory)
    series = source.usage_series(session)
    assert [(p.input_tokens, p.output_tokens) for p in series] == [(1834, 212), (2101, 18)]
    days = source.usage_by_day(date(2000, 1, 1))
    assert sum(d.tokens for d in days) == 1834 + 212 + 2101 + 18
    assert source.top_sessions_by_cost(10) == []
    assert source.session_totals(session).tokens.input_tokens == 1834 + 2101
    source.close()


def test_passwords_from_pgpass_and_a_service(
    everruns: EverrunsDb, postgres: PostgresServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """libpq finds the password in `~/.pgpass` (0600) and the whole connection in a service
    file: the URL a team shares holds no secret."""
    monkeypatch.delenv("PGPASSWORD", raising=False)
    pgpass = tmp_path / "pgpass"
    pgpass.write_text(f"*:*:*:reader:{READER_PASSWORD}\n")
    pgpass.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(pgpass))
    EverrunsServer(postgres.url(everruns.name, user="reader")).close()
    services = tmp_path / "pg_service.conf"
    services.write_text(
        f"[team-history]\nhost={postgres.socket}\ndbname={everruns.name}\nuser=reader\n"
    )
    monkeypatch.setenv("PGSERVICEFILE", str(services))
    source = open_history("postgresql:///?service=team-history")
    assert source.list_sessions(SessionQuery()).sessions == ()
    assert source.info().location == "postgresql:///?service=team-history"
    source.close()


def test_the_cli_beside_goose(
    everruns: EverrunsDb,
    make_db: Callable[..., GooseDb],
    capsys: pytest.CaptureFixture[str],
) -> None:
    session = everruns.add_session("Weather in Kyiv")
    _turn(everruns, session)
    goose = make_db()
    goose.add_session("g1", name="Goose chat about the weather")
    goose.add_message("g1", content="is it overcast in Kyiv?")
    both = ["--db", everruns.url, "--db", str(goose.path)]
    assert main(["list", *both, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["history"]["kind"] for r in rows} == {"everruns", "goose"}
    assert main(["search", "overcast", *both, "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert {h["session_id"] for h in hits} == {session, "g1"}
    assert main(["show", f"everruns:{session}", *both]) == 0
    assert "Kyiv: 4 °C and overcast." in capsys.readouterr().out


def test_a_connection_given_back_after_close_is_closed(postgres: PostgresServer) -> None:
    """A worker still reading when its window closes gives its connection back afterwards:
    it is closed then, not left open (and to the garbage collector) in the disposed pool. The
    read itself is cut by the close (#18 item 6), and ends in a sentence."""
    everruns = postgres.everruns_database("ev_late_checkin")
    source = EverrunsServer(everruns.url)
    given: list[Any] = []

    def read_across_the_close() -> None:
        with source._reading() as conn:
            given.append(conn.connection.dbapi_connection)
            source.close()
            assert not given[0].closed

    with pytest.raises(SourceUnreadable):
        read_across_the_close()
    assert given[0].closed
