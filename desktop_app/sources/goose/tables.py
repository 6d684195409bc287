"""goose's tables as SQLAlchemy Core sees them, for the statements written with `select()`.

Lightweight `table()` objects naming only the columns those statements use (no `MetaData`, no
reflection: the schema probe, `schema.py`, says what a particular file has). `session_type` is
not in every generation: the statement naming it runs only when the probe found it.
"""

from sqlalchemy import column, table

sessions = table(
    "sessions", column("id"), column("working_dir"), column("updated_at"), column("session_type")
)

messages = table("messages", column("id"), column("session_id"))
