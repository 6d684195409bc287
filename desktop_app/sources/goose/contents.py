"""A large message content read apart from its row, through SQLite's blob reading.

The driver copies a value into Python while it holds the interpreter lock: a 20 MB
`content_json` fetched with its row held the lock — and the window, whose every call into Python
needs it — 15–30 ms. A content over `INLINE_BYTES` is left out of the row (the statement gives
its row id instead, `message_queries._columns`) and read with `sqlite3.Blob.read`, which fills
the bytes with the lock released. Read on the statement's own connection; a row that is gone by
then (goose deleted it) or a file that refuses the blob reading gives the content by a
statement after all."""

import sqlite3
from collections.abc import Iterator
from typing import Any

from sqlalchemy import Connection, Executable

from desktop_app.sources.goose.rows import CONTENT_UTF8
from desktop_app.sources.goose.schema import GooseSchema
from desktop_app.sources.goose.statements import iter_rows, sql, tuples

INLINE_BYTES = 1 << 20
"""A content larger than this, in bytes, is read apart."""
CONTENT_ROWID = "content_rowid"
"""The row id of a content read apart; NULL for one read with its row."""


def message_rows(
    conn: Connection, statement: Executable, schema: GooseSchema
) -> Iterator[dict[str, Any]]:
    """The rows of a message statement, each content in `CONTENT_UTF8`, however large."""
    for row in iter_rows(conn, statement):
        yield with_content(conn, row, schema)


def with_content(conn: Connection, row: dict[str, Any], schema: GooseSchema) -> dict[str, Any]:
    """`row` with its content, read apart when it was left out (a new mapping: the row, kept
    in a list of rows, does not keep the large value alive)."""
    rowid = row.get(CONTENT_ROWID)
    if rowid is None or schema.message_rowid is None:
        return row
    return {**row, CONTENT_UTF8: _read_apart(conn, rowid, schema.message_rowid)}


def _read_apart(conn: Connection, rowid: int, rowid_name: str) -> bytes | None:
    driver = conn.connection.driver_connection
    if isinstance(driver, sqlite3.Connection):
        try:
            with driver.blobopen("messages", "content_json", rowid, readonly=True) as blob:
                return blob.read()
        except sqlite3.Error:
            pass  # gone since the statement, or a blob refused: the statement tells
    found = tuples(
        conn,
        sql(
            "SELECT CASE WHEN typeof(content_json) = 'text' THEN CAST(content_json AS BLOB) END "
            f"FROM messages WHERE {rowid_name} = :rowid",
            rowid=rowid,
        ),
    )
    return found[0][0] if found and isinstance(found[0][0], bytes) else None
