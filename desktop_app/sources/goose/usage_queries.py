"""Usage over time: per call for one session, per day for all.

The ledger (v15+) records every provider call; before it existed, goose kept only running totals
on the session row, so days then come from each session's last update.
"""

from collections.abc import Sequence
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import Connection

from desktop_app.domain.usage import DayUsage, UsagePoint, amount, count, count_of_amount
from desktop_app.sources.common.goose_json.timestamps import from_epoch
from desktop_app.sources.goose.schema import GooseSchema
from desktop_app.sources.goose.statements import sql


def overflow_free_sum(column: str) -> str:
    """SUM that cannot fail: SQLite's SUM raises "integer overflow" past 2^63 (a hostile or
    broken file can hold such values), TOTAL never does; NULL when nothing was summed, as SUM."""
    return f"CASE WHEN count({column}) = 0 THEN NULL ELSE total({column}) END"


def column_or_null(name: str, present: Sequence[str]) -> str:
    """The column when the table has it, else NULL (absent data, not zero)."""
    return name if name in present else "NULL"


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


def usage_series(conn: Connection, schema: GooseSchema, session_id: str) -> list[UsagePoint]:
    ledger = schema.ledger_columns
    if ledger is not None:
        figures = ", ".join(
            column_or_null(name, ledger)
            for name in ("created_timestamp", "input_tokens", "output_tokens", "cost")
        )
        rows = conn.execute(
            sql(
                f"SELECT {figures} FROM usage_ledger WHERE session_id = :session_id "
                "ORDER BY created_timestamp DESC, id DESC LIMIT :rows",
                session_id=session_id,
                rows=SERIES_LIMIT,
            )
        ).fetchall()[::-1]
        if rows:
            return [_point(*row) for row in rows]
    if not schema.message_has("metadata_json"):
        return []
    rows = conn.execute(
        sql(
            "SELECT created_timestamp, json_extract(metadata_json, '$.usage.inputTokens'), "
            "json_extract(metadata_json, '$.usage.outputTokens'), "
            "json_extract(metadata_json, '$.usage.cost') FROM messages "
            "WHERE session_id = :session_id AND instr(metadata_json, '\"usage\"') > 0 "
            "AND json_valid(metadata_json) = 1 ORDER BY created_timestamp DESC, id DESC "
            "LIMIT :rows",
            session_id=session_id,
            rows=SERIES_LIMIT,
        )
    ).fetchall()[::-1]
    return [_point(*row) for row in rows if row[1] is not None or row[2] is not None]


def usage_by_day(conn: Connection, schema: GooseSchema, since: date) -> list[DayUsage]:
    ledger = schema.ledger_columns
    if ledger is not None and conn.execute(sql("SELECT count(*) FROM usage_ledger")).scalar():
        since_epoch = int(datetime(since.year, since.month, since.day, tzinfo=UTC).timestamp())
        cost = overflow_free_sum(column_or_null("cost", ledger))
        rows = conn.execute(
            sql(
                "SELECT date(created_timestamp, 'unixepoch') AS day, "
                f"total({column_or_null('total_tokens', ledger)}), {cost} FROM usage_ledger "
                "WHERE created_timestamp >= :since GROUP BY day ORDER BY day",
                since=since_epoch,
            )
        ).fetchall()
    else:
        if not schema.session_has("accumulated_total_tokens"):
            return []
        cost = overflow_free_sum(column_or_null("accumulated_cost", schema.session_columns))
        rows = conn.execute(
            sql(
                "SELECT date(updated_at) AS day, total(accumulated_total_tokens), "
                f"{cost} FROM sessions WHERE day >= :since GROUP BY day ORDER BY day",
                since=since.isoformat(),
            )
        ).fetchall()
    result = []
    for day_text, tokens, spent in rows:
        if isinstance(day_text, str):
            result.append(
                DayUsage(
                    day=date.fromisoformat(day_text),
                    tokens=count_of_amount(tokens) or 0,
                    cost=amount(spent),
                )
            )
    return result
