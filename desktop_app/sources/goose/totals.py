"""A session's cost including its sub-agents, as goose's `get_session_usage_totals` computes it:
for each session in the tree take the larger of the running total and the ledger sum, then add up.
"""

from collections.abc import Sequence

from sqlalchemy import Connection, TextClause

from desktop_app.domain.source import SessionTotals
from desktop_app.domain.usage import TokenUsage, amount, count_of_amount
from desktop_app.sources.goose.schema import GooseSchema
from desktop_app.sources.goose.statements import sql
from desktop_app.sources.goose.usage_queries import column_or_null, overflow_free_sum

_TOKEN_KINDS = ("input", "output", "total", "cache_read", "cache_write")

CHUNK = 500
"""Roots per query: well under SQLite's bound-parameter limit."""


def _tree(schema: GooseSchema) -> str:
    """`tree(root, id)`: each of `:roots` the file has, with itself and its sub-agents at any
    depth (UNION, not UNION ALL: a cycle of parents in a damaged file ends)."""
    children = ""
    if schema.session_has("parent_session_id"):
        children = (
            " UNION SELECT tree.root, child.id FROM sessions AS child, tree "
            "WHERE child.parent_session_id = tree.id"
        )
    return (
        "WITH RECURSIVE tree(root, id) AS "
        f"(SELECT id, id FROM sessions WHERE id IN :roots{children}) "
    )


def session_totals(conn: Connection, schema: GooseSchema, session_id: str) -> SessionTotals | None:
    return trees_totals(conn, schema, [session_id]).get(session_id)


def trees_totals(
    conn: Connection, schema: GooseSchema, roots: Sequence[str]
) -> dict[str, SessionTotals]:
    """`session_totals` of each root, a chunk of roots per query, added up inside SQLite (a
    whole list of 20,000 trees added up in Python took longer than listing them); a session
    the file does not have is left out."""
    found: dict[str, SessionTotals] = {}
    for start in range(0, len(roots), CHUNK):
        chunk = list(roots[start : start + CHUNK])
        for root, members, given, produced, total, read, written, cost in conn.execute(
            _statement(schema, chunk)
        ):
            found[str(root)] = SessionTotals(
                tokens=TokenUsage(
                    input_tokens=_count(given),
                    output_tokens=_count(produced),
                    total_tokens=_count(total),
                    cache_read_tokens=_count(read),
                    cache_write_tokens=_count(written),
                ),
                cost=amount(cost),
                session_count=int(members),
            )
    return found


def _count(value: object) -> int | None:
    return None if value is None else count_of_amount(value)


def _number(expression: str, types: str) -> str:
    """The value when it is of these types (a token count an integer, as the list reads it;
    a cost any number); a text or a blob in a damaged file is none."""
    return f"(CASE WHEN typeof({expression}) IN ({types}) THEN {expression} END)"


def _larger(a: str, b: str) -> str:
    """The larger of two figures, either of which may be absent (SQLite's max() would be
    NULL then)."""
    return f"(CASE WHEN {a} IS NULL THEN {b} WHEN {b} IS NULL THEN {a} ELSE max({a}, {b}) END)"


def _statement(schema: GooseSchema, roots: list[str]) -> TextClause:
    """Per root: its tree's size and, per figure, the sum over the tree of each session's
    larger of running total and ledger sum (as goose's `get_session_usage_totals`)."""
    names = [f"{kind}_tokens" for kind in _TOKEN_KINDS] + ["cost"]
    ledger = schema.ledger_columns
    ledger_sums = ""
    if ledger is not None:
        sums = ", ".join(
            f"{overflow_free_sum(column_or_null(name, ledger))} AS {name}" for name in names
        )
        ledger_sums = (
            f", ledger AS (SELECT session_id, {sums} FROM usage_ledger "
            "WHERE session_id IN (SELECT id FROM tree) GROUP BY session_id)"
        )
    figures = []
    for name in names:
        column = f"accumulated_{name}"
        types = "'integer', 'real'" if name == "cost" else "'integer'"
        own = _number(f"sessions.{column}", types) if column in schema.session_columns else "NULL"
        figures.append(
            overflow_free_sum(_larger(own, f"ledger.{name}") if ledger is not None else own)
        )
    joined = " LEFT JOIN ledger ON ledger.session_id = tree.id" if ledger is not None else ""
    return sql(
        f"{_tree(schema)}{ledger_sums} SELECT tree.root, count(*), {', '.join(figures)} "
        f"FROM tree JOIN sessions ON sessions.id = tree.id{joined} GROUP BY tree.root",
        roots=roots,
    )
