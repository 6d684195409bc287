"""Reference §4.1 (timestamps) and §5.3 (message metadata)."""

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import create_engine

from desktop_app.cli import main
from desktop_app.domain.message import Visibility
from desktop_app.sources.common.goose_json.metadata import parse_metadata
from desktop_app.sources.common.goose_json.timestamps import (
    from_epoch,
    iso_utc,
    parse_stored_time,
    parse_text_form,
)
from desktop_app.sources.goose.listing import archived_sql, visible_sql
from desktop_app.sources.goose.schema import GooseSchema, probe_schema
from tests.fixtures.goose_db import GooseDb

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        ("2026-01-02 03:04:05", WHEN),
        ("2026-01-02T03:04:05", WHEN),
        ("2026-01-02T03:04:05Z", WHEN),
        ("2026-01-02T03:04:05+00:00", WHEN),
        ("2026-01-02T05:04:05+02:00", WHEN),
        ("2026-01-01T22:04:05-05:00", WHEN),
        ("2026-01-02 03:04:05.123", WHEN.replace(microsecond=123000)),
        ("2026-01-02 03:04:05.123456789", WHEN.replace(microsecond=123456)),
        ("2026-01-02T03:04:05.123456789+00:00", WHEN.replace(microsecond=123456)),
        ("2026-01-02 03:04", WHEN.replace(second=0)),
        ("  2026-01-02 03:04:05  ", WHEN),
        (1767323045, WHEN),
        (2461042.6278356484, WHEN),
        ("yesterday", None),
        ("2026-13-45 99:99:99", None),
        ("", None),
        (None, None),
    ],
)
def test_stored_time_forms(stored: object, expected: datetime | None) -> None:
    parsed = parse_stored_time(stored)
    if expected is None or parsed is None:
        assert parsed is expected
    else:
        assert abs((parsed - expected).total_seconds()) < 0.001


def test_message_time_seconds_and_milliseconds() -> None:
    assert from_epoch(1767323045) == WHEN
    assert from_epoch(1767323045123) == WHEN
    assert from_epoch(10_000_000_000) == datetime.fromtimestamp(10_000_000_000, UTC)
    assert from_epoch(10_000_000_001) == datetime.fromtimestamp(10_000_000, UTC)
    assert from_epoch(10_000_000_001.5) == datetime.fromtimestamp(10_000_000.0015, UTC)
    assert from_epoch(None) is None
    assert iso_utc(WHEN) == "2026-01-02T03:04:05Z"


ARCHIVED_VALUES = [
    "2026-01-02 03:04:05",
    "2026-01-02 03:04:05.123456789",
    "2026-01-02T03:04:05.123456789+00:00",
    "2026-01-02T03:04:05Z",
    "garbage",
    "now",
    "2026-01-02",
    "",
    None,
]


def _with_flag(path: Path, flag: Callable[[GooseSchema], str], table: str) -> list[tuple[Any, ...]]:
    """Each row's raw column and the SQL flag computed from it, in row order."""
    engine = create_engine(f"sqlite:///{path}")
    with engine.connect() as conn:
        schema = probe_schema(conn, path)
        column = "archived_at" if table == "sessions" else "metadata_json"
        found = conn.exec_driver_sql(f"SELECT {column}, {flag(schema)} FROM {table} ORDER BY id")
        rows = [tuple(row) for row in found]
    engine.dispose()
    return rows


def test_sql_archived_flag_agrees_with_python_parse(make_db: object) -> None:
    """A malformed archived_at reads as not archived, in SQL filters and in Python alike."""
    db: GooseDb = make_db()  # type: ignore[operator]
    for index, value in enumerate(ARCHIVED_VALUES):
        db.add_session(f"s{index}", archived_at=value)
    rows = _with_flag(db.path, lambda schema: archived_sql(schema, "sessions"), "sessions")
    assert len(rows) == len(ARCHIVED_VALUES)
    for value, flag in rows:
        assert bool(flag) == (parse_stored_time(value) is not None), value


def test_metadata_defaults_and_parse_failures() -> None:
    assert parse_metadata(None).visibility == Visibility(user=True, agent=True)
    assert parse_metadata("{}").visibility == Visibility(user=True, agent=True)
    broken = parse_metadata("{not json")
    assert broken.visibility == Visibility(user=True, agent=True)
    assert broken.problem is not None
    assert "not valid JSON" in broken.problem
    assert parse_metadata("[1]").problem == "metadata is not a JSON object"


@pytest.mark.parametrize(
    ("metadata", "user", "agent"),
    [
        ('{"userVisible":false,"agentVisible":true}', False, True),
        ('{"userVisible":true,"agentVisible":false}', True, False),
        ('{"userVisible":false,"agentVisible":false}', False, False),
        ('{"agentVisible":false}', True, False),
        ('{"userVisible":0}', False, True),
    ],
)
def test_visibility_presets(metadata: str, user: bool, agent: bool) -> None:
    assert parse_metadata(metadata).visibility == Visibility(user=user, agent=agent)


def test_full_metadata_with_usage_and_inference() -> None:
    parsed = parse_metadata(
        '{"userVisible":true,"agentVisible":true,'
        '"inference":{"provider":"anthropic","requestedModel":"claude-sonnet-4-5",'
        '"resolvedModel":"claude-sonnet-4-5-20250929","providerSessionId":"p1"},'
        '"outputTokenLimitReached":true,"steer":true,"turnContext":true,'
        '"usage":{"inputTokens":1200,"outputTokens":80,"totalTokens":1280,"cacheReadTokens":1000,'
        '"cacheWriteTokens":0,"cost":0.0042,"costSource":"estimated","elapsedMs":2100,'
        '"timeToFirstTokenMs":450,"isCompaction":true},"operations":{"op":{"k":1}}}'
    )
    assert parsed.inference is not None
    assert parsed.inference.model == "claude-sonnet-4-5-20250929"
    assert parsed.inference.provider == "anthropic"
    assert parsed.output_token_limit_reached
    assert parsed.steer
    assert parsed.turn_context
    assert parsed.usage is not None
    assert parsed.usage.tokens.input_tokens == 1200
    assert parsed.usage.tokens.cache_read_tokens == 1000
    assert parsed.usage.cost == 0.0042
    assert parsed.usage.elapsed_ms == 2100
    assert parsed.usage.time_to_first_token_ms == 450
    assert parsed.usage.is_compaction
    assert parsed.raw["operations"] == {"op": {"k": 1}}


METADATA_FORMS = [
    None,
    "",
    "{}",
    '{"userVisible":true,"agentVisible":true}',
    '{"userVisible":false,"agentVisible":true}',
    '{"userVisible":false}',
    '{"userVisible":true}',
    '{ "userVisible" : false }',
    '{"agentVisible":true,"userVisible":false}',
    '{"userVisible":false,"agentVisible":true',
    '{"userVisible":falsey}',
    '{"userVisible":0}',
    '{"userVisible":"false"}',
    "[1, 2]",
    "not json",
]


def test_sql_visibility_agrees_with_python(make_db: object) -> None:
    """The fast SQL visibility test gives goose's answer for every metadata form."""
    db: GooseDb = make_db()  # type: ignore[operator]
    db.add_session("s")
    for index, metadata in enumerate(METADATA_FORMS):
        db.conn.execute(
            "INSERT INTO messages (session_id, role, content_json, created_timestamp,"
            " metadata_json) VALUES ('s', 'user', '[]', ?, ?)",
            (index, metadata),
        )
    rows = _with_flag(db.path, lambda schema: visible_sql(schema, "messages"), "messages")
    assert len(rows) == len(METADATA_FORMS)
    for metadata, flag in rows:
        assert bool(flag) == parse_metadata(metadata).visibility.user, metadata


def test_threshold_is_the_same_in_listing_sql_and_in_python(
    make_db: Callable[..., GooseDb], capsys: pytest.CaptureFixture[str]
) -> None:
    """10,000,000,000 is seconds (year 2286); one more is milliseconds (April 1970), in the
    list's SQL as in every message (issue #8, point 17)."""
    db = make_db()
    db.add_session("at", name="at the threshold")
    db.add_message("at", created=10_000_000_000)
    db.add_session("above", name="just above")
    db.add_message("above", created=10_000_000_001)
    assert main(["list", "--db", str(db.path), "--json"]) == 0
    listed = {s["id"]: s["last_message_at"] for s in json.loads(capsys.readouterr().out)}
    assert listed == {"at": "2286-11-20T17:46:40Z", "above": "1970-04-26T17:46:40Z"}
    assert main(["show", "above", "--db", str(db.path), "--format", "json"]) == 0
    (message,) = json.loads(capsys.readouterr().out)["messages"]
    assert message["created_at"] == "1970-04-26T17:46:40Z"


@given(
    st.tuples(
        st.integers(0, 10_000),
        st.integers(0, 13),
        st.integers(0, 32),
        st.sampled_from(" T"),
        st.integers(0, 25),
        st.integers(0, 61),
        st.integers(0, 61),
    )
)
def test_the_fast_path_for_sqlite_times_agrees_with_the_full_parser(
    parts: tuple[int, int, int, str, int, int, int],
) -> None:
    """`YYYY-MM-DD HH:MM:SS` skips the regular expression (#13: 20,000 sessions list in a
    second); it must decode exactly what the full parser decodes, and refuse what it refuses."""
    year, month, day, separator, hour, minute, second = parts
    value = f"{year:04d}-{month:02d}-{day:02d}{separator}{hour:02d}:{minute:02d}:{second:02d}"
    # A trailing space keeps the value off the fast path; the full parser strips it.
    assert parse_stored_time(value) == parse_text_form(value + " ")
