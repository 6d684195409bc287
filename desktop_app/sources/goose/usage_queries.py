"""Usage over time: per call for one session, per day for all.

The ledger (v15+) records every provider call; before it existed, goose kept only running totals
on the session row, so days then come from each session's last update.
"""

import sqlite3
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import ColumnElement, case, func, literal, select

from desktop_app.domain.usage import DayUsage, UsagePoint, amount, count, count_of_amount
from desktop_app.sources.goose.schema import GooseSchema
from desktop_app.sources.goose.statements import one, tuples
from desktop_app.sources.goose.timestamps import from_epoch


def overflow_free_sum(column: ColumnElement[Any]) -> ColumnElement[Any]:
    """SUM that cannot fail: SQLite's SUM raises "integer overflow" past 2^63 (a hostile or
    broken file can hold such values), TOTAL never does; NULL when nothing was summed, as SUM."""
    return case((func.count(column) == 0, None), else_=func.total(column))


def _point(created: Any, input_tokens: Any, output_tokens: Any, cost: Any) -> UsagePoint:
    return UsagePoint(
        at=from_epoch(count(created) if isinstance(created, int) else amount(created)),
        input_tokens=count(input_tokens),
        output_tokens=count(output_tokens),
        cost=amount(cost),
    )


SERIES_LIMIT = 2_000
"""The most recent calls a series covers: a sparkline has no room for more, and reading every
message's metadata of a 50,000-message session would cost as much as a full scan."""


def usage_series(
    conn: sqlite3.Connection, schema: GooseSchema, session_id: str
) -> list[UsagePoint]:
    ledger = schema.usage_ledger
    if ledger is not None:
        rows = tuples(
            conn,
            select(
                ledger.c.created_timestamp,
                ledger.c.input_tokens,
                ledger.c.output_tokens,
                ledger.c.cost,
            )
            .where(ledger.c.session_id == session_id)
            .order_by(ledger.c.created_timestamp.desc(), ledger.c.id.desc())
            .limit(SERIES_LIMIT),
        )[::-1]
        if rows:
            return [_point(*row) for row in rows]
    if not schema.message_has("metadata_json"):
        return []
    m = schema.messages
    meta = m.c.metadata_json
    rows = tuples(
        conn,
        select(
            m.c.created_timestamp,
            func.json_extract(meta, "$.usage.inputTokens"),
            func.json_extract(meta, "$.usage.outputTokens"),
            func.json_extract(meta, "$.usage.cost"),
        )
        .where(
            m.c.session_id == session_id,
            func.instr(meta, '"usage"') > 0,
            func.json_valid(meta) == 1,
        )
        .order_by(m.c.created_timestamp.desc(), m.c.id.desc())
        .limit(SERIES_LIMIT),
    )[::-1]
    return [_point(*row) for row in rows if row[1] is not None or row[2] is not None]


def usage_by_day(conn: sqlite3.Connection, schema: GooseSchema, since: date) -> list[DayUsage]:
    ledger = schema.usage_ledger
    if ledger is not None and one(conn, select(func.count()).select_from(ledger))[0]:
        since_epoch = int(datetime(since.year, since.month, since.day, tzinfo=UTC).timestamp())
        day = func.date(ledger.c.created_timestamp, "unixepoch")
        statement = (
            select(day, func.total(ledger.c.total_tokens), overflow_free_sum(ledger.c.cost))
            .where(ledger.c.created_timestamp >= since_epoch)
            .group_by(day)
        )
    else:
        s = schema.sessions
        if "accumulated_total_tokens" not in s.c:
            return []
        day = func.date(s.c.updated_at)
        cost = s.c.accumulated_cost if "accumulated_cost" in s.c else literal(None)
        statement = (
            select(day, func.total(s.c.accumulated_total_tokens), overflow_free_sum(cost))
            .where(day >= since.isoformat())
            .group_by(day)
        )
    result = []
    for day_text, tokens, spent in tuples(conn, statement.order_by(day)):
        if isinstance(day_text, str):
            result.append(
                DayUsage(
                    day=date.fromisoformat(day_text),
                    tokens=count_of_amount(tokens) or 0,
                    cost=amount(spent),
                )
            )
    return result
