"""A session's own figures and its tree's (issue #17, item 2): `list --json`'s `usage` and
`accumulated_usage` are the session's own for every kind, and `tree_usage` adds its sub-agents
at any depth — goose's own `get_session_usage_totals` for goose, each session's own figures
added up for every other kind (the figure the usage panel's "With sub-agents" shows too); and
one message count for every kind (item 21)."""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from desktop_app.cli import main
from desktop_app.domain.reading import (
    count_sessions,
    iter_messages,
    session_totals,
    visible_count,
)
from desktop_app.domain.source import SessionQuery, Source
from desktop_app.sources.goose import GooseSource
from desktop_app.sources.registry import open_history
from tests.fixtures.goose_db import GooseDb
from tests.fixtures.postgres import EverrunsDb, PostgresServer

AGENTS = Path(__file__).parents[1] / "fixtures" / "agents"
CLAUDE_PROJECT = AGENTS / "claude_code" / "project"
MAIN_SESSION = "7f3c2a10-0000-4000-8000-000000000001"
SUB_AGENT = "agent-ci0001"
TOKENS = ("input_tokens", "output_tokens", "total_tokens")


def _listed(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, dict[str, Any]]:
    assert main([*args, "list", "--json", "--all"]) == 0
    return {item["id"]: item for item in json.loads(capsys.readouterr().out)}


def test_a_genuine_claude_code_tree_is_its_session_and_its_sub_agent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    listed = _listed(capsys, "--db", str(CLAUDE_PROJECT))
    main_session, sub_agent = listed[MAIN_SESSION], listed[SUB_AGENT]
    tree = main_session["tree_usage"]
    assert tree["session_count"] == 2
    for name in TOKENS:
        own = main_session["accumulated_usage"][name]
        assert tree[name] == own + sub_agent["accumulated_usage"][name], name
    assert sub_agent["tree_usage"]["session_count"] == 1
    assert sub_agent["tree_usage"]["total_tokens"] == sub_agent["accumulated_usage"]["total_tokens"]
    alone = listed["edge_cases"]
    assert alone["tree_usage"]["session_count"] == 1
    assert alone["tree_usage"]["cost"] is None, "no cost recorded is not a cost of zero"


def test_the_window_and_the_cli_add_up_the_same_tree() -> None:
    source = open_history(CLAUDE_PROJECT)
    session = source.get_session(MAIN_SESSION)
    sub_agent = source.get_session(SUB_AGENT)
    totals = session_totals(source, session)
    assert totals.session_count == 2
    own = (session.accumulated_usage.total_tokens or 0) + (
        sub_agent.accumulated_usage.total_tokens or 0
    )
    assert totals.tokens.total_tokens == own > 0
    source.close()


def _goose_tree(make_db: Callable[..., GooseDb]) -> GooseDb:
    db = make_db()
    db.add_session("root", name="Root", accumulated_total_tokens=100, accumulated_cost=1.0)
    db.add_session(
        "child",
        name="Child",
        session_type="sub_agent",
        parent_session_id="root",
        accumulated_total_tokens=20,
        accumulated_cost=0.25,
    )
    db.add_session(
        "grandchild",
        name="Grandchild",
        session_type="sub_agent",
        parent_session_id="child",
        accumulated_total_tokens=3,
    )
    for session_id in ("root", "child", "grandchild"):
        db.add_message(session_id, "user", [{"type": "text", "text": "go"}], created=1767323001)
    return db


def test_goose_tree_usage_is_goose_s_own_total(
    make_db: Callable[..., GooseDb], capsys: pytest.CaptureFixture[str]
) -> None:
    db = _goose_tree(make_db)
    listed = _listed(capsys, "--db", str(db.path))
    root = listed["root"]
    assert root["accumulated_usage"]["total_tokens"] == 100, "the session's own"
    assert root["cost"] == 1.0
    source = GooseSource(db.path)
    goose_total = source.session_totals("root")
    source.close()
    assert root["tree_usage"]["total_tokens"] == goose_total.tokens.total_tokens == 123
    assert root["tree_usage"]["cost"] == goose_total.cost == 1.25
    assert root["tree_usage"]["session_count"] == 3
    assert listed["grandchild"]["tree_usage"]["session_count"] == 1


@pytest.mark.parametrize(
    "history",
    [
        AGENTS / "claude_code" / "project",
        AGENTS / "codex" / "sessions",
        AGENTS / "gemini_cli" / "tmp",
        AGENTS / "pi" / "sessions",
    ],
    ids=["claude-code", "codex", "gemini-cli", "pi"],
)
def test_one_message_count_for_every_kind(
    history: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`message_count` is, for every kind, the messages shown to the user — what goose counts
    and the header calls "shown" — not "prompts and replies" for some kinds (issue #17,
    item 21: "8 msgs" beside "34 messages stored")."""
    listed = _listed(capsys, "--db", str(history))
    assert listed
    source = open_history(history)
    for session_id, item in listed.items():
        shown = visible_count(list(iter_messages(source, session_id)))
        assert item["message_count"] == shown, session_id
    source.close()


def test_goose_counts_the_same_messages(
    make_db: Callable[..., GooseDb], capsys: pytest.CaptureFixture[str]
) -> None:
    db = _goose_tree(make_db)
    db.add_message("root", "assistant", [{"type": "text", "text": "on it"}], created=1767323002)
    hidden = {"userVisible": False, "agentVisible": True}
    db.add_message(
        "root", "user", [{"type": "text", "text": "summary"}], created=1767323003, metadata=hidden
    )
    listed = _listed(capsys, "--db", str(db.path))
    source = GooseSource(db.path)
    assert listed["root"]["message_count"] == visible_count(list(iter_messages(source, "root")))
    assert listed["root"]["message_count"] == 2
    assert len(source.positions("root")) == 3
    source.close()


EVERRUNS_EXPORT = Path(__file__).parents[1] / "fixtures" / "everruns" / "sdk_export.json"
EVERRUNS_PARENT = "session_0195f0a1b2c37000800000000000a001"
EVERRUNS_CHILD = "session_0195f0a1b2c37000800000000000a002"


def _added_up(listed: dict[str, dict[str, Any]], parent: str, child: str) -> None:
    tree = listed[parent]["tree_usage"]
    assert tree["session_count"] == 2
    for name in TOKENS:
        own = listed[parent]["accumulated_usage"][name] + listed[child]["accumulated_usage"][name]
        assert tree[name] == own, name
    assert tree["cost"] is None, "everruns records tokens, not prices"


def test_an_everruns_export_s_tree_is_its_session_and_its_sub_agent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The export everruns-sdk writes (the sub-agent's session nested under its parent)."""
    _added_up(_listed(capsys, "--db", str(EVERRUNS_EXPORT)), EVERRUNS_PARENT, EVERRUNS_CHILD)


def test_an_everruns_server_s_tree_is_its_session_and_its_sub_agent(
    postgres: PostgresServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same events in the newest schema, the child marked by `parent_session_id`: the
    server's own `session_totals` adds the sub-agent too (it was the session's alone)."""
    db = postgres.everruns_database("ev_tree_usage", schema="schema_newest.sql")
    parent = db.add_session(None, agent_id=None, model_id=None)
    child = db.add_session(
        None,
        agent_id=None,
        model_id=None,
        parent_session_id=parent,
        subagent_name="Weather lookup",
    )
    _load_export(db, {EVERRUNS_PARENT: parent, EVERRUNS_CHILD: child})
    _added_up(_listed(capsys, "--db", db.url), parent, child)


def _load_export(db: EverrunsDb, ids: dict[str, str]) -> None:
    """The SDK export's events, each as the next event of the session `ids` maps it to."""
    for envelope in json.loads(EVERRUNS_EXPORT.read_text(encoding="utf-8")):
        db.add_events(
            ids[envelope["session_id"]],
            [(envelope["type"], envelope["data"])],
            turn=envelope["context"]["turn_id"],
            ts=envelope["ts"],
        )


def _counted_as_shown(listed: dict[str, dict[str, Any]], source: Source) -> None:
    for session_id, item in listed.items():
        shown = visible_count(list(iter_messages(source, session_id)))
        assert item["message_count"] == shown, session_id
    source.close()


def test_an_everruns_export_counts_the_messages_it_shows(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Item 21 for everruns' files: the count is every message the window shows (notices,
    tool results and errors too), not only what was said (7 beside 20 shown)."""
    listed = _listed(capsys, "--db", str(EVERRUNS_EXPORT))
    assert listed[EVERRUNS_PARENT]["message_count"] == 20
    _counted_as_shown(listed, open_history(EVERRUNS_EXPORT))


def test_an_everruns_server_counts_the_messages_it_shows(
    postgres: PostgresServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 21 for the server, whose list counts in SQL: the export's events, plus a reasoning
    event shown on its own and one the turn's reply absorbs (it carries the reasoning)."""
    db = postgres.everruns_database("ev_shown_count", schema="schema_newest.sql")
    parent = db.add_session(None, agent_id=None, model_id=None)
    child = db.add_session(None, agent_id=None, model_id=None, parent_session_id=parent)
    _load_export(db, {EVERRUNS_PARENT: parent, EVERRUNS_CHILD: child})
    reply = {"message": {"id": "m", "role": "agent", "content": [{"type": "text", "text": "A"}]}}
    db.add_events(
        parent,
        [
            ("reason.thinking.completed", {"thinking": "Shown."}),
            ("output.message.completed", reply),
        ],
        turn="turn_a",
    )
    thought = {"type": "reasoning", "provider": "openai", "text": {"kind": "plain", "text": "T"}}
    absorbed = {"message": {"id": "n", "role": "agent", "content": [thought]}}
    db.add_events(
        parent,
        [("reason.item", {"summary": ["T"]}), ("output.message.completed", absorbed)],
        turn="turn_b",
    )
    listed = _listed(capsys, "--db", db.url)
    server = open_history(db.url)
    assert listed[parent]["message_count"] == 20 + 3, "the reply absorbs one reasoning"
    assert len(server.positions(parent)) == 23
    _counted_as_shown(listed, server)


def test_an_everruns_session_with_a_message_shown_is_not_empty(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    """Empty is a message count of 0 in both readers: a session whose one shown message is a
    failure is listed by the window (which leaves empty sessions out), one with only lifecycle
    events is not."""
    failed: tuple[str, dict[str, Any]] = ("turn.failed", {"error": "No provider is configured."})
    started: tuple[str, dict[str, Any]] = ("session.started", {})
    db = postgres.everruns_database("ev_not_empty", schema="schema_newest.sql")
    lone, quiet = (db.add_session(None, agent_id=None, model_id=None) for _ in range(2))
    db.add_events(lone, [started, failed])
    db.add_events(quiet, [started])
    log = tmp_path / "events.jsonl"
    envelopes = [(lone, *started), (lone, *failed), (quiet, *started)]
    log.write_text(
        "".join(
            json.dumps(
                {"type": kind, "session_id": sid, "data": data, "ts": "2026-05-04T09:00:00Z"}
            )
            + "\n"
            for sid, kind, data in envelopes
        ),
        encoding="utf-8",
    )
    for source in (open_history(db.url), open_history(log)):
        shown = source.list_sessions(SessionQuery(with_empty=False)).sessions
        assert [(s.id, s.message_count) for s in shown] == [(lone, 1)]
        assert count_sessions(source, SessionQuery(with_empty=False)) == 1
        source.close()
