"""goose's tables as SQLAlchemy Core sees them, for the statements written with `select()`.

Lightweight `table()` objects (no `MetaData`, no reflection): they name every column Gander
knows, and a statement names only those the schema probe (`schema.py`) found in a particular
file, so a statement never names a column the file lacks, nor one the file's own names made up.
"""

from sqlalchemy import column, table

SESSION_COLUMNS = (
    "id",
    "name",
    "description",
    "user_set_name",
    "session_type",
    "working_dir",
    "created_at",
    "updated_at",
    "extension_data",
    "total_tokens",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "accumulated_total_tokens",
    "accumulated_input_tokens",
    "accumulated_output_tokens",
    "accumulated_cache_read_tokens",
    "accumulated_cache_write_tokens",
    "accumulated_cost",
    "schedule_id",
    "recipe_json",
    "provider_name",
    "model_config_json",
    "goose_mode",
    "archived_at",
    "project_id",
    "parent_session_id",
)

sessions = table("sessions", column("rowid"), *(column(name) for name in SESSION_COLUMNS))

messages = table("messages", column("id"), column("session_id"))
