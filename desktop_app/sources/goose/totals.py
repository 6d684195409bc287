"""A session's cost including its sub-agents, as goose's `get_session_usage_totals` computes it:
for each session in the tree take the larger of the running total and the ledger sum, then add up.
"""

import sqlite3
from typing import Any

from desktop_app.domain.source import SessionTotals
from desktop_app.domain.usage import TokenUsage, amount, count, count_of_amount
from desktop_app.sources.goose.schema import GooseSchema
from desktop_app.sources.goose.usage_queries import column_or_null, overflow_free_sum

_TOKEN_KINDS = ("input", "output", "total", "cache_read", "cache_write")


def _tree_ids(conn: sqlite3.Connection, schema: GooseSchema, session_id: str) -> list[str]:
    """The session and its sub-agents at any depth (UNION, not UNION ALL: a cycle of parents
    in a damaged file ends)."""
    children = ""
    if schema.session_has("parent_session_id"):
        children = (
            " UNION SELECT child.id FROM sessions AS child, tree "
            "WHERE child.parent_session_id = tree.id"
        )
    rows = conn.execute(
        f"WITH RECURSIVE tree(id) AS (SELECT id FROM sessions WHERE id = ?{children}) "
        "SELECT id FROM tree",
        (session_id,),
    )
    return [str(row[0]) for row in rows]


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
    marks = ", ".join("?" * len(ids))
    acc_names = [f"accumulated_{kind}_tokens" for kind in _TOKEN_KINDS] + ["accumulated_cost"]
    columns = ", ".join(column_or_null(name, schema.session_columns) for name in acc_names)
    accumulated = {
        str(row[0]): dict(zip(acc_names, row[1:], strict=True))
        for row in conn.execute(f"SELECT id, {columns} FROM sessions WHERE id IN ({marks})", ids)
    }
    ledger_sums: dict[str, dict[str, Any]] = {}
    ledger = schema.ledger_columns
    if ledger is not None:
        ledger_names = [f"{kind}_tokens" for kind in _TOKEN_KINDS] + ["cost"]
        sums = ", ".join(overflow_free_sum(column_or_null(name, ledger)) for name in ledger_names)
        statement = (
            f"SELECT session_id, {sums} FROM usage_ledger WHERE session_id IN ({marks}) "
            "GROUP BY session_id"
        )
        for row in conn.execute(statement, ids):
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
