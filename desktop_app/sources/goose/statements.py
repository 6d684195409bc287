"""Statements for goose's file and running them on a SQLAlchemy connection.

The session list (`listing.py`) is composed with `select()` over `tables.py`'s lightweight
tables, its hand-tuned probes SQL text of Gander's constants; the other hand-tuned statements
(`message_queries.py`, `usage_queries.py`, `totals.py`, `writes.py`) are SQLAlchemy `text()`
with **named** bind parameters, built by `sql()`. Only Gander's own constants are
written into the text (a column name only when it is one of Gander's own and the schema probe
found it: a file's own names could say anything); every value from a user or a file is a bound
parameter, so no value is ever formatted into SQL. In `text()`, `:name` is a parameter: a
literal colon in the SQL is written `\\:`.
"""

from collections.abc import Iterator
from typing import Any

from sqlalchemy import BindParameter, Connection, Executable, TextClause, bindparam, text


def sql(statement: str, **values: Any) -> TextClause:
    """`text(statement)` with each of `values` bound to its `:name`; a list or a tuple is an
    expanding parameter (`IN :ids` becomes `IN (?, ?, …)` with one value each)."""
    binds: list[BindParameter[Any]] = [
        bindparam(name, value, expanding=isinstance(value, list | tuple))
        for name, value in values.items()
    ]
    return text(statement).bindparams(*binds)


def iter_rows(conn: Connection, statement: Executable) -> Iterator[dict[str, Any]]:
    """Each row as a mapping from column label to value, as SQLite returns it."""
    result = conn.execute(statement)
    names = list(result.keys())
    for row in result:
        yield dict(zip(names, row, strict=True))


def rows(conn: Connection, statement: Executable) -> list[dict[str, Any]]:
    return list(iter_rows(conn, statement))


def tuples(conn: Connection, statement: Executable) -> list[tuple[Any, ...]]:
    return [tuple(row) for row in conn.execute(statement)]


def one(conn: Connection, statement: Executable) -> tuple[Any, ...]:
    """The only row of a statement that always returns exactly one (an aggregate)."""
    found = tuples(conn, statement)
    assert len(found) == 1, f"expected one row, got {len(found)}"
    return found[0]
