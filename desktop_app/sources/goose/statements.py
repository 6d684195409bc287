"""Statements as SQL text with their parameters, and running them on an sqlite3 connection.

Everything Gander runs against goose's file is written here as text (`listing.py`,
`message_queries.py`, `usage_queries.py`, `totals.py`, `writes.py`): no reader of goose's file
imports SQLAlchemy, which costs 150 ms to import (a third of a whole `gander list`) and, imported
in the window's worker, held the interpreter lock long enough to stall the window.
"""

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Sql:
    """SQL text and its parameters, in `?` order. Only Gander's own constants are written into
    the text (a column name is written only when it is one of Gander's own and the probe found
    it: a file's own names could say anything); every value from a user or a file is a
    parameter."""

    text: str
    params: tuple[Any, ...] = ()


def iter_rows(conn: sqlite3.Connection, statement: Sql) -> Iterator[dict[str, Any]]:
    """Each row as a mapping from column label to value, as SQLite returns it."""
    cursor = conn.execute(statement.text, statement.params)
    names = [column[0] for column in cursor.description or ()]
    for row in cursor:
        yield dict(zip(names, row, strict=True))


def rows(conn: sqlite3.Connection, statement: Sql) -> list[dict[str, Any]]:
    return list(iter_rows(conn, statement))


def tuples(conn: sqlite3.Connection, statement: Sql) -> list[tuple[Any, ...]]:
    return [tuple(row) for row in conn.execute(statement.text, statement.params)]


def one(conn: sqlite3.Connection, statement: Sql) -> tuple[Any, ...]:
    """The only row of a statement that always returns exactly one (an aggregate)."""
    found = tuples(conn, statement)
    assert len(found) == 1, f"expected one row, got {len(found)}"
    return found[0]
