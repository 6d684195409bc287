"""Tokens and cost: session columns, per-message usage, the ledger, and sub-agent roll-up (§6.6)."""

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, date, datetime

from desktop_app.domain.combined import CombinedHistory
from desktop_app.domain.reading import EVERY_SESSION, iter_sessions, trees_totals
from desktop_app.sources.goose import GooseSource
from desktop_app.sources.goose.totals import CHUNK
from tests.fixtures.goose_db import GooseDb
from tests.fixtures.reading import all_messages

DbFactory = Callable[..., GooseDb]
SourceFactory = Callable[[GooseDb], GooseSource]


def test_session_usage_columns_provider_and_model(
    make_db: DbFactory, open_source: SourceFactory
) -> None:
    db = make_db()
    db.add_session(
        "s",
        provider_name="openai",
        model_config_json={
            "model_name": "gpt-4o",
            "context_limit": 64000,
            "temperature": None,
            "max_tokens": None,
            "toolshim": False,
            "toolshim_model": None,
        },
        input_tokens=100,
        output_tokens=20,
        total_tokens=120,
        cache_read_tokens=50,
        cache_write_tokens=5,
        accumulated_input_tokens=1000,
        accumulated_output_tokens=200,
        accumulated_total_tokens=1200,
        accumulated_cache_read_tokens=500,
        accumulated_cache_write_tokens=50,
        accumulated_cost=1.25,
    )
    session = open_source(db).get_session("s")
    assert (session.provider, session.model, session.context_limit) == ("openai", "gpt-4o", 64000)
    assert session.usage.as_dict() == {
        "input_tokens": 100,
        "output_tokens": 20,
        "total_tokens": 120,
        "cache_read_tokens": 50,
        "cache_write_tokens": 5,
    }
    assert session.accumulated_usage.total_tokens == 1200
    assert session.cost == 1.25


def test_missing_figures_stay_unknown_not_zero(
    make_db: DbFactory, open_source: SourceFactory
) -> None:
    db = make_db(12, fresh=False)
    db.add_session("s", name="old")
    session = open_source(db).get_session("s")
    assert session.usage.is_empty
    assert session.accumulated_usage.is_empty
    assert session.cost is None
    assert session.model is None


def test_per_message_usage(make_db: DbFactory, open_source: SourceFactory) -> None:
    db = make_db()
    db.add_session("s")
    db.add_message(
        "s",
        "assistant",
        "hi",
        metadata={
            "userVisible": True,
            "agentVisible": True,
            "usage": {"inputTokens": 1200, "outputTokens": 80, "totalTokens": 1280, "cost": 0.0042},
        },
    )
    (message,) = all_messages(open_source(db), "s")
    assert message.usage is not None
    assert message.usage.tokens.total_tokens == 1280
    assert message.usage.cost == 0.0042


def test_ledger_rows(make_db: DbFactory, open_source: SourceFactory) -> None:
    db = make_db()
    db.add_session("s")
    db.add_ledger(
        "s",
        model="m1",
        input_tokens=10,
        output_tokens=2,
        total_tokens=12,
        cost=0.01,
        cost_source="provider_reported",
        created_timestamp=200,
    )
    db.add_ledger(
        "s",
        model="m1",
        input_tokens=5,
        cost=None,
        cost_source="carried_forward",
        is_compaction=1,
        created_timestamp=100,
    )
    entries = open_source(db).usage_ledger("s")
    assert [e.created_at.timestamp() for e in entries if e.created_at] == [100, 200]
    assert entries[0].is_compaction
    assert entries[0].cost_source == "carried_forward"
    assert entries[1].tokens.total_tokens == 12


def test_ledger_absent_before_v15(make_db: DbFactory, open_source: SourceFactory) -> None:
    db = make_db(14, fresh=False)
    db.add_session("s", name="x")
    assert open_source(db).usage_ledger("s") == []


def test_totals_take_larger_of_columns_and_ledger_and_add_sub_agents(
    make_db: DbFactory, open_source: SourceFactory
) -> None:
    db = make_db()
    db.add_session("root", accumulated_input_tokens=100, accumulated_cost=1.0)
    db.add_ledger("root", input_tokens=150, cost=0.5)
    db.add_session(
        "kid",
        session_type="sub_agent",
        parent_session_id="root",
        accumulated_input_tokens=40,
        accumulated_cost=None,
    )
    db.add_ledger("kid", input_tokens=10, cost=0.25)
    db.add_session(
        "grandkid", session_type="sub_agent", parent_session_id="kid", accumulated_input_tokens=5
    )
    db.add_session("stranger", accumulated_input_tokens=999)
    totals = open_source(db).session_totals("root")
    assert totals.session_count == 3
    assert totals.tokens.input_tokens == 150 + 40 + 5
    assert totals.cost == 1.0 + 0.25
    assert totals.tokens.output_tokens is None


def test_usage_series_prefers_the_ledger_then_message_metadata(
    make_db: DbFactory, open_source: SourceFactory
) -> None:
    db = make_db()
    db.add_session("led")
    db.add_ledger("led", input_tokens=100, output_tokens=5, cost=0.1, created_timestamp=20)
    db.add_ledger("led", input_tokens=300, output_tokens=9, cost=0.2, created_timestamp=10)
    db.add_session("meta")
    for i, tokens in enumerate((1000, 2000)):
        db.add_message(
            "meta",
            "assistant",
            "x",
            created=100 + i,
            metadata={
                "userVisible": True,
                "agentVisible": True,
                "usage": {"inputTokens": tokens, "outputTokens": 10, "cost": 0.01},
            },
        )
    db.add_message("meta", "user", "no usage here", created=200)
    db.add_message("meta", "assistant", "broken", created=300, metadata='{"usage": nope')
    source = open_source(db)
    assert [p.input_tokens for p in source.usage_series("led")] == [300, 100]
    series = source.usage_series("meta")
    assert [(p.input_tokens, p.output_tokens, p.cost) for p in series] == [
        (1000, 10, 0.01),
        (2000, 10, 0.01),
    ]
    assert series[0].at is not None
    assert series[0].at.timestamp() == 100


def test_usage_by_day_from_ledger_and_from_sessions(
    make_db: DbFactory, open_source: SourceFactory
) -> None:
    db = make_db()
    db.add_session("s")
    day1 = int(datetime(2026, 3, 1, 10, tzinfo=UTC).timestamp())
    day2 = int(datetime(2026, 3, 2, 23, tzinfo=UTC).timestamp())
    db.add_ledger("s", total_tokens=100, cost=0.5, created_timestamp=day1)
    db.add_ledger("s", total_tokens=50, cost=0.25, created_timestamp=day1 + 60)
    db.add_ledger("s", total_tokens=7, cost=None, created_timestamp=day2)
    db.add_ledger("s", total_tokens=999, cost=9.0, created_timestamp=day1 - 86400 * 40)
    days = open_source(db).usage_by_day(date(2026, 2, 1))
    assert [(d.day, d.tokens, d.cost) for d in days] == [
        (date(2026, 3, 1), 150, 0.75),
        (date(2026, 3, 2), 7, None),
    ]
    old = make_db(14, fresh=False, name="old.db")
    old.add_session(
        "a", accumulated_total_tokens=10, accumulated_cost=1.0, updated_at="2026-03-01 10:00:00"
    )
    old.add_session(
        "b", accumulated_total_tokens=5, accumulated_cost=None, updated_at="2026-03-01 12:00:00"
    )
    old.add_session("c", accumulated_total_tokens=1, updated_at="2025-01-01 00:00:00")
    days = open_source(old).usage_by_day(date(2026, 1, 1))
    assert [(d.day, d.tokens, d.cost) for d in days] == [(date(2026, 3, 1), 15, 1.0)]


def test_top_sessions_by_cost(make_db: DbFactory, open_source: SourceFactory) -> None:
    db = make_db()
    db.add_session("cheap", accumulated_cost=0.1)
    db.add_session("dear", accumulated_cost=5.0, archived_at="2026-01-01 00:00:00")
    db.add_session("kid", accumulated_cost=1.0, session_type="sub_agent", parent_session_id="cheap")
    db.add_session("free")
    top = open_source(db).top_sessions_by_cost(2)
    assert [s.id for s in top] == ["dear", "kid"]
    assert top[0].archived


def test_many_trees_in_one_read_are_each_tree_alone(
    make_db: DbFactory, open_source: SourceFactory
) -> None:
    """`list --json`'s `tree_usage` reads every tree at once: each figure is the one goose's
    per-session total gives, across chunks, with a damaged parent cycle and a missing id."""
    db = make_db()
    for i in range(CHUNK + 7):
        db.add_session(f"s{i}", accumulated_input_tokens=i, accumulated_cost=0.5)
        if i % 3 == 0:
            db.add_session(
                f"kid{i}",
                session_type="sub_agent",
                parent_session_id=f"s{i}",
                accumulated_input_tokens=1,
            )
            db.add_ledger(f"kid{i}", input_tokens=7, cost=0.25)
    db.add_session("led-alone", accumulated_input_tokens=5, accumulated_cost=0.5)
    db.add_ledger("led-alone", input_tokens=50, cost=0.75)
    db.add_session("loop-a", parent_session_id="loop-b", accumulated_input_tokens=2)
    db.add_session("loop-b", parent_session_id="loop-a", accumulated_input_tokens=3)
    source = open_source(db)
    sessions = list(iter_sessions(source, EVERY_SESSION))
    wanted = [*sessions, replace(sessions[0], id="gone")]
    together = source.trees_totals(wanted)
    assert "gone" not in together
    assert len(together) == len(sessions) == (CHUNK + 7) + len(range(0, CHUNK + 7, 3)) + 3
    for session in sessions:
        assert together[session.id] == source.session_totals(session.id), session.id
    assert together["s3"].tokens.input_tokens == 3 + 7
    assert together["loop-a"].session_count == 2
    assert together["led-alone"].tokens.input_tokens == 50  # the ledger's, not the row's
    assert together["s4"].tokens.input_tokens == 4
    combined = CombinedHistory([source, open_source(db)])
    tagged = list(iter_sessions(combined, EVERY_SESSION))
    both = trees_totals(combined, tagged)
    assert both["goose-2:s3"] == both["goose:s3"] == together["s3"]
