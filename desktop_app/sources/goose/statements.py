"""Running a statement on an sqlite3 connection, whichever way it was written.

Everything a window or `gander list`/`show`/`search` reads is SQL text with bound parameters
(`listing.py`, `message_queries.py`), so none of them imports SQLAlchemy (150 ms, a third of a
whole `list` run). The usage figures (`usage_queries.py`, `totals.py`) are SQLAlchemy Core,
compiled here for SQLite on first use, on the same connections.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    import sqlite3

    from sqlalchemy.engine.interfaces import Dialect
    from sqlalchemy.sql.expression import Executable


@dataclass(frozen=True)
class Sql:
    """SQL text and its parameters, in `?` order. Only Gander's own constants are ever written
    into the text; every value that comes from a user or a file is a parameter."""

    text: str
    params: tuple[Any, ...] = ()


Statement: TypeAlias = "Sql | Executable"


@cache
def _sqlite() -> "Dialect":
    from sqlalchemy.dialects import sqlite

    return sqlite.dialect()


def as_sql(statement: Statement) -> Sql:
    """The statement as SQLite text; an `IN` list is spelled out, one parameter per value."""
    if isinstance(statement, Sql):
        return statement
    compiled = statement.compile(  # type: ignore[attr-defined]
        dialect=_sqlite(), compile_kwargs={"render_postcompile": True}
    )
    values = compiled.construct_params()
    return Sql(compiled.string, tuple(values[name] for name in compiled.positiontup or ()))


def iter_rows(conn: "sqlite3.Connection", statement: Statement) -> Iterator[dict[str, Any]]:
    """Each row as a mapping from column label to value, as SQLite returns it."""
    sql = as_sql(statement)
    cursor = conn.execute(sql.text, sql.params)
    names = [column[0] for column in cursor.description or ()]
    for row in cursor:
        yield dict(zip(names, row, strict=True))


def rows(conn: "sqlite3.Connection", statement: Statement) -> list[dict[str, Any]]:
    return list(iter_rows(conn, statement))


def tuples(conn: "sqlite3.Connection", statement: Statement) -> list[tuple[Any, ...]]:
    sql = as_sql(statement)
    return [tuple(row) for row in conn.execute(sql.text, sql.params)]


def one(conn: "sqlite3.Connection", statement: Statement) -> tuple[Any, ...]:
    """The only row of a statement that always returns exactly one (an aggregate)."""
    found = tuples(conn, statement)
    assert len(found) == 1, f"expected one row, got {len(found)}"
    return found[0]
