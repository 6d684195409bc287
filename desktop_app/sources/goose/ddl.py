"""goose's schema, every generation.

Gander never runs this against a user's database. It exists so the demo history and the tests
create files exactly as goose would: `fresh_schema()` is what goose 17 writes into a new file,
`migrated_schema(v)` is what an older install looks like after migrating up to version `v`.
"""

import sqlite3

CURRENT_VERSION = 17

_BASELINE = (
    """CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        description TEXT NOT NULL DEFAULT '',
        working_dir TEXT NOT NULL,
        created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
        updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
        extension_data TEXT DEFAULT '{}',
        total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
        accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER,
        accumulated_output_tokens INTEGER,
        schedule_id TEXT,
        recipe_json TEXT
    )""",
    """CREATE TABLE messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL REFERENCES sessions(id),
        role TEXT NOT NULL,
        content_json TEXT NOT NULL,
        created_timestamp INTEGER NOT NULL,
        timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
        tokens INTEGER
    )""",
    "CREATE INDEX IF NOT EXISTS idx_messages_session ON messages(session_id)",
    "CREATE INDEX IF NOT EXISTS idx_messages_timestamp ON messages(timestamp)",
    "CREATE INDEX IF NOT EXISTS idx_sessions_updated ON sessions(updated_at DESC)",
)

_THREADS = (
    "ALTER TABLE sessions ADD COLUMN thread_id TEXT",
    "CREATE INDEX IF NOT EXISTS idx_sessions_thread ON sessions(thread_id)",
    """CREATE TABLE IF NOT EXISTS threads (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL DEFAULT 'New Chat',
        user_set_name BOOLEAN DEFAULT FALSE,
        working_dir TEXT,
        created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
        updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
        archived_at TIMESTAMP,
        metadata_json TEXT DEFAULT '{}'
    )""",
    """CREATE TABLE IF NOT EXISTS thread_messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        thread_id TEXT NOT NULL REFERENCES threads(id),
        session_id TEXT,
        message_id TEXT,
        role TEXT NOT NULL,
        content_json TEXT NOT NULL,
        created_timestamp INTEGER NOT NULL,
        metadata_json TEXT DEFAULT '{}'
    )""",
    "CREATE INDEX IF NOT EXISTS idx_thread_messages_thread ON thread_messages(thread_id)",
    "CREATE INDEX IF NOT EXISTS idx_thread_messages_message_id ON thread_messages(message_id)",
)

_PROVIDER_INVENTORY = (
    """CREATE TABLE IF NOT EXISTS provider_inventory_entries (
        inventory_key TEXT PRIMARY KEY,
        provider_id TEXT NOT NULL,
        provider_family TEXT NOT NULL,
        last_updated_at TEXT,
        last_refresh_attempt_at TEXT,
        last_refresh_error TEXT,
        created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
        updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
    )""",
    """CREATE TABLE IF NOT EXISTS provider_inventory_models (
        inventory_key TEXT NOT NULL
            REFERENCES provider_inventory_entries(inventory_key) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        model_id TEXT NOT NULL,
        name TEXT NOT NULL,
        family TEXT,
        context_limit INTEGER,
        reasoning BOOLEAN,
        recommended BOOLEAN,
        PRIMARY KEY (inventory_key, ordinal)
    )""",
)

_USAGE_LEDGER = """CREATE TABLE IF NOT EXISTS usage_ledger (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    created_timestamp INTEGER NOT NULL,
    model TEXT,
    input_tokens INTEGER,
    output_tokens INTEGER,
    total_tokens INTEGER,
    cache_read_tokens INTEGER,
    cache_write_tokens INTEGER,
    cost REAL,
    cost_source TEXT,
    is_compaction INTEGER DEFAULT 0
)"""

MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: (
        """CREATE TABLE IF NOT EXISTS schema_version (
            version INTEGER PRIMARY KEY,
            applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
        )""",
    ),
    2: ("ALTER TABLE sessions ADD COLUMN user_recipe_values_json TEXT",),
    3: ("ALTER TABLE messages ADD COLUMN metadata_json TEXT",),
    4: (
        "ALTER TABLE sessions ADD COLUMN name TEXT DEFAULT ''",
        "ALTER TABLE sessions ADD COLUMN user_set_name BOOLEAN DEFAULT FALSE",
    ),
    5: (
        "ALTER TABLE sessions ADD COLUMN session_type TEXT NOT NULL DEFAULT 'user'",
        "CREATE INDEX IF NOT EXISTS idx_sessions_type ON sessions(session_type)",
    ),
    6: (
        "ALTER TABLE sessions ADD COLUMN provider_name TEXT",
        "ALTER TABLE sessions ADD COLUMN model_config_json TEXT",
    ),
    7: (
        "ALTER TABLE messages ADD COLUMN message_id TEXT",
        "UPDATE messages SET message_id = 'msg_' || session_id || '_' || id",
        "CREATE INDEX IF NOT EXISTS idx_messages_message_id ON messages(message_id)",
    ),
    8: ("ALTER TABLE sessions ADD COLUMN goose_mode TEXT NOT NULL DEFAULT 'auto'",),
    9: (
        "UPDATE sessions SET session_type = 'acp' WHERE session_type = 'user' "
        "AND name = 'ACP Session' AND user_set_name = FALSE",
    ),
    10: _THREADS,
    11: _PROVIDER_INVENTORY,
    12: (
        "ALTER TABLE sessions ADD COLUMN archived_at TIMESTAMP",
        "ALTER TABLE sessions ADD COLUMN project_id TEXT",
    ),
    13: ("ALTER TABLE sessions ADD COLUMN accumulated_cost REAL",),
    14: (
        "ALTER TABLE sessions ADD COLUMN cache_read_tokens INTEGER",
        "ALTER TABLE sessions ADD COLUMN cache_write_tokens INTEGER",
        "ALTER TABLE sessions ADD COLUMN accumulated_cache_read_tokens INTEGER",
        "ALTER TABLE sessions ADD COLUMN accumulated_cache_write_tokens INTEGER",
    ),
    15: (
        "ALTER TABLE sessions ADD COLUMN parent_session_id TEXT",
        "CREATE INDEX IF NOT EXISTS idx_sessions_parent ON sessions(parent_session_id)",
        _USAGE_LEDGER,
        "CREATE INDEX IF NOT EXISTS idx_usage_ledger_session ON usage_ledger(session_id)",
    ),
    16: (
        "CREATE INDEX IF NOT EXISTS idx_messages_session_created "
        "ON messages(session_id, created_timestamp, id)",
    ),
    17: ("ALTER TABLE sessions ADD COLUMN parent_delegation TEXT",),
}

_FRESH = (
    """CREATE TABLE IF NOT EXISTS schema_version (
        version INTEGER PRIMARY KEY,
        applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
    )""",
    f"INSERT OR IGNORE INTO schema_version (version) VALUES ({CURRENT_VERSION})",
    """CREATE TABLE IF NOT EXISTS sessions (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL DEFAULT '',
        description TEXT NOT NULL DEFAULT '',
        user_set_name BOOLEAN DEFAULT FALSE,
        session_type TEXT NOT NULL DEFAULT 'user',
        working_dir TEXT NOT NULL,
        created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
        updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
        extension_data TEXT DEFAULT '{}',
        total_tokens INTEGER,
        input_tokens INTEGER,
        output_tokens INTEGER,
        cache_read_tokens INTEGER,
        cache_write_tokens INTEGER,
        accumulated_total_tokens INTEGER,
        accumulated_input_tokens INTEGER,
        accumulated_output_tokens INTEGER,
        accumulated_cache_read_tokens INTEGER,
        accumulated_cache_write_tokens INTEGER,
        accumulated_cost REAL,
        schedule_id TEXT,
        recipe_json TEXT,
        user_recipe_values_json TEXT,
        provider_name TEXT,
        model_config_json TEXT,
        goose_mode TEXT NOT NULL DEFAULT 'auto',
        archived_at TIMESTAMP,
        project_id TEXT,
        parent_session_id TEXT,
        parent_delegation TEXT
    )""",
    """CREATE TABLE IF NOT EXISTS messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        message_id TEXT,
        session_id TEXT NOT NULL REFERENCES sessions(id),
        role TEXT NOT NULL,
        content_json TEXT NOT NULL,
        created_timestamp INTEGER NOT NULL,
        timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
        tokens INTEGER,
        metadata_json TEXT
    )""",
    _USAGE_LEDGER,
    "CREATE INDEX IF NOT EXISTS idx_messages_session ON messages(session_id)",
    "CREATE INDEX IF NOT EXISTS idx_messages_timestamp ON messages(timestamp)",
    "CREATE INDEX IF NOT EXISTS idx_messages_message_id ON messages(message_id)",
    "CREATE INDEX IF NOT EXISTS idx_messages_session_created "
    "ON messages(session_id, created_timestamp, id)",
    "CREATE INDEX IF NOT EXISTS idx_sessions_updated ON sessions(updated_at DESC)",
    "CREATE INDEX IF NOT EXISTS idx_sessions_type ON sessions(session_type)",
    "CREATE INDEX IF NOT EXISTS idx_sessions_parent ON sessions(parent_session_id)",
    "CREATE INDEX IF NOT EXISTS idx_usage_ledger_session ON usage_ledger(session_id)",
    *_PROVIDER_INVENTORY,
)


def fresh_schema(conn: sqlite3.Connection) -> None:
    """What goose's `create_schema` writes into a new file, in WAL mode like goose."""
    conn.execute("PRAGMA journal_mode=WAL")
    with conn:
        for statement in _FRESH:
            conn.execute(statement)


def migrated_schema(conn: sqlite3.Connection, version: int) -> None:
    """The baseline layout migrated step by step up to `version` (0 = before `schema_version`)."""
    if not 0 <= version <= CURRENT_VERSION:
        raise ValueError(f"goose schema versions run from 0 to {CURRENT_VERSION}, not {version}")
    conn.execute("PRAGMA journal_mode=WAL")
    with conn:
        for statement in _BASELINE:
            conn.execute(statement)
        for step in range(1, version + 1):
            for statement in MIGRATIONS[step]:
                conn.execute(statement)
            conn.execute("INSERT INTO schema_version (version) VALUES (?)", (step,))
