"""Costs estimated from genai-prices where the agent records none (#20 item 12): offline, at
the session's day, marked "estimated", and no estimate for a model without a known price."""

import json
import socket
from datetime import UTC, datetime
from pathlib import Path
from typing import NoReturn

import pytest

from desktop_app.cli import main
from desktop_app.domain.session import Session
from desktop_app.domain.usage import TokenUsage
from desktop_app.sources.common import pricing
from desktop_app.sources.common.pricing import ESTIMATED, RECORDED, estimate, session_cost
from desktop_app.sources.registry import open_history

AGENTS = Path(__file__).resolve().parents[1] / "fixtures" / "agents"
CLAUDE_SESSION = "7f3c2a10-0000-4000-8000-000000000001"


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every estimate here is made with the network cut: a connection attempt fails the test."""

    def refused(*_args: object, **_kwargs: object) -> NoReturn:
        raise AssertionError("genai-prices tried the network")

    monkeypatch.setattr(socket.socket, "connect", refused)
    monkeypatch.setattr(socket, "create_connection", refused)
    monkeypatch.setattr(socket, "getaddrinfo", refused)
    pricing._rates.cache_clear()


def test_a_genuine_claude_code_session_is_priced_with_its_cache_reads_and_writes() -> None:
    source = open_history(AGENTS / "claude_code" / "project")
    session = source.get_session(CLAUDE_SESSION)
    source.close()
    assert session.cost is None
    tokens = session.accumulated_usage
    assert (tokens.input_tokens, tokens.cache_read_tokens, tokens.cache_write_tokens) == (
        43_025,
        41_000,
        2_000,
    )
    cost = session_cost(session)
    assert cost.basis == ESTIMATED
    # claude-opus-4-1: $15 a million uncached in (25), $1.50 read (41k), $18.75 written (2k),
    # $75 out (395).
    expected = (25 * 15 + 41_000 * 1.5 + 2_000 * 18.75 + 395 * 75) / 1e6
    assert cost.amount == pytest.approx(expected)
    assert cost.note == "estimated from genai-prices (claude-opus-4-1)"


def test_a_recorded_cost_is_the_agents_and_never_estimated() -> None:
    session = Session(
        id="s",
        name="",
        model="gpt-5",
        cost=0.5,
        accumulated_usage=TokenUsage(input_tokens=10**6, output_tokens=10**6),
    )
    cost = session_cost(session)
    assert (cost.amount, cost.basis, cost.estimated) == (0.5, RECORDED, False)


def test_an_unknown_model_or_none_gets_no_estimate_and_says_why() -> None:
    tokens = TokenUsage(input_tokens=800, output_tokens=41)
    unknown = estimate("synthetic-model", "synthetic", tokens, None)
    assert unknown.amount is None
    assert unknown.note == "no price known for synthetic-model: no estimate"
    assert estimate(None, None, tokens, None).note == "no model recorded: no estimate"
    assert estimate("gpt-5", "openai", TokenUsage(), None).amount is None
    # A damaged log's megabyte of a name is not searched for, nor written out whole.
    huge = estimate("x" * 1_000_000, None, tokens, None)
    assert huge.amount is None
    assert len(huge.note) < 100


def test_a_provider_genai_prices_does_not_know_falls_back_to_the_model() -> None:
    """The Codex logs written through a stub say provider "stub"; the model is gpt-5.1-codex."""
    cost = estimate("gpt-5.1-codex", "stub", TokenUsage(input_tokens=800, output_tokens=41), None)
    assert cost.amount == pytest.approx((800 * 1.25 + 41 * 10) / 1e6)


def test_the_price_is_the_one_of_the_sessions_day() -> None:
    """o3 cost $10 a million input tokens until 10 June 2025 and $2 from then (genai-prices'
    price history)."""
    tokens = TokenUsage(input_tokens=1_000_000, output_tokens=0)
    before = estimate("o3", "openai", tokens, datetime(2025, 5, 1, 9, tzinfo=UTC))
    after = estimate("o3", "openai", tokens, datetime(2025, 7, 1, 9, tzinfo=UTC))
    assert before.amount == pytest.approx(10.0)
    assert after.amount == pytest.approx(2.0)


def test_a_per_request_tier_is_not_applied_to_a_sessions_sum() -> None:
    """claude-sonnet-4-5 costs more per token above 200k input in one request; a session's
    400k over many calls is priced at the base rate ($3 a million)."""
    cost = estimate("claude-sonnet-4-5", "anthropic", TokenUsage(input_tokens=400_000), None)
    assert cost.amount == pytest.approx(1.2)


def test_list_json_gives_cost_estimated_beside_cost(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["list", "--json", "--db", f"pi={AGENTS / 'pi' / 'pi-mono'}"])
    pi = json.loads(capsys.readouterr().out)
    assert code == 0
    assert pi[0]["cost"] == pytest.approx(0.6024951)  # pi records its own cost
    assert pi[0]["cost_estimated"] is None
    main(["list", "--json", "--all", "--db", str(AGENTS / "claude_code" / "project")])
    claude = {s["id"]: s for s in json.loads(capsys.readouterr().out)}
    assert claude[CLAUDE_SESSION]["cost"] is None
    assert claude[CLAUDE_SESSION]["cost_estimated"] == pytest.approx(0.129)
    assert claude["sample_session"]["cost_estimated"] is None  # no model recorded
