"""A session's cost including its sub-agents, as goose's `get_session_usage_totals` computes it:
for each session in the tree take the larger of the running total and the ledger sum, then add up.
"""

import sqlite3
from typing import Any

from sqlalchemy import literal, select

from desktop_app.domain.source import SessionTotals
from desktop_app.domain.usage import TokenUsage, amount, count, count_of_amount
from desktop_app.sources.goose.schema import GooseSchema
from desktop_app.sources.goose.statements import tuples
from desktop_app.sources.goose.usage_queries import overflow_free_sum

_TOKEN_KINDS = ("input", "output", "total", "cache_read", "cache_write")


def _tree_ids(conn: sqlite3.Connection, schema: GooseSchema, session_id: str) -> list[str]:
    s = schema.sessions
    root = select(s.c.id).where(s.c.id == session_id).cte("tree", recursive=True)
    if schema.session_has("parent_session_id"):
        child = s.alias("child")
        root = root.union(select(child.c.id).where(child.c.parent_session_id == root.c.id))
    return [str(row[0]) for row in tuples(conn, select(root.c.id))]


def _larger(a: Any, b: Any) -> Any:
    values = [v for v in (a, b) if isinstance(v, int | float) and not isinstance(v, bool)]
    return max(values) if values else None


def _add(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if b is None:
        return a
    total = a + b
    return count(total) if isinstance(total, int) else amount(total)


def session_totals(
    conn: sqlite3.Connection, schema: GooseSchema, session_id: str
) -> SessionTotals | None:
    ids = _tree_ids(conn, schema, session_id)
    if not ids:
        return None
    s = schema.sessions
    acc_names = [f"accumulated_{kind}_tokens" for kind in _TOKEN_KINDS] + ["accumulated_cost"]
    columns = [s.c[name] if name in s.c else literal(None).label(name) for name in acc_names]
    accumulated = {
        str(row[0]): dict(zip(acc_names, row[1:], strict=True))
        for row in tuples(conn, select(s.c.id, *columns).where(s.c.id.in_(ids)))
    }
    ledger_sums: dict[str, dict[str, Any]] = {}
    ledger = schema.usage_ledger
    if ledger is not None:
        ledger_names = [f"{kind}_tokens" for kind in _TOKEN_KINDS] + ["cost"]
        sums = [
            (overflow_free_sum(ledger.c[name]) if name in ledger.c else literal(None)).label(name)
            for name in ledger_names
        ]
        statement = (
            select(ledger.c.session_id, *sums)
            .where(ledger.c.session_id.in_(ids))
            .group_by(ledger.c.session_id)
        )
        for row in tuples(conn, statement):
            sums_of_row = dict(zip(ledger_names, row[1:], strict=True))
            ledger_sums[str(row[0])] = {
                name: amount(value) if name == "cost" else count_of_amount(value)
                for name, value in sums_of_row.items()
            }
    totals: dict[str, Any] = {}
    for sid, acc in accumulated.items():
        led = ledger_sums.get(sid, {})
        for kind in _TOKEN_KINDS:
            value = _larger(acc[f"accumulated_{kind}_tokens"], led.get(f"{kind}_tokens"))
            totals[kind] = _add(totals.get(kind), value)
        totals["cost"] = _add(totals.get("cost"), _larger(acc["accumulated_cost"], led.get("cost")))
    return SessionTotals(
        tokens=TokenUsage(**{f"{kind}_tokens": totals.get(kind) for kind in _TOKEN_KINDS}),
        cost=totals.get("cost"),
        session_count=len(accumulated),
    )
