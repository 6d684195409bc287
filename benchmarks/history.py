"""Build (or reuse) a large goose-schema history for the benchmarks.

`build(path, sessions=20_000, per_session=5, long_sessions=(5_000, 50_000))` writes a fresh v17
database with goose-shaped rows: user/assistant text, tool calls and long tool results, thinking,
per-message usage metadata. The long sessions get the ids `long_5000`, `long_50000`, and beside
each a session of only its last 40 messages, `tail_5000`, `tail_50000`.
"""

import json
import random
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

from desktop_app.sources.goose.ddl import fresh_schema

WORDS = [
    "the",
    "retry",
    "loop",
    "webhook",
    "deadline",
    "backoff",
    "payment",
    "refund",
    "ledger",
    "invoice",
    "cache",
    "redis",
    "latency",
    "migration",
    "index",
    "query",
    "plan",
    "terraform",
    "docker",
    "image",
    "layer",
    "pytest",
    "fixture",
    "flaky",
    "async",
    "await",
    "iterator",
    "borrow",
    "checker",
    "lifetime",
    "graphql",
    "cursor",
    "pagination",
    "cypress",
    "headless",
    "chrome",
]
BASE_TIME = 1_760_000_000


def compact(value: object) -> str:
    """serde_json's output: no spaces, as goose writes every JSON column."""
    return json.dumps(value, separators=(",", ":"))


RARE = [
    "zeppelin",
    "kubernetes",
    "quokka",
    "mandelbrot",
    "heisenbug",
    "tarball",
    "okapi",
    "fjord",
    "sphinx",
    "lagrange",
]
"""Words placed deep in the vocabulary's tail: the rare end of a search benchmark."""


FUNCTION_WORDS = [
    "the",
    "a",
    "to",
    "is",
    "and",
    "of",
    "in",
    "it",
    "we",
    "this",
    "that",
    "for",
    "on",
    "with",
    "be",
    "not",
    "you",
]
SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "ne",
    "ru",
    "sa",
    "ti",
    "vo",
    "ze",
    "qua",
    "ple",
    "tri",
    "bon",
    "dex",
    "fal",
    "gor",
    "hin",
    "jul",
]


def _vocabulary() -> tuple[list[str], list[float]]:
    """About 30,000 words ranked like natural language (Zipf, s = 1.07): function words first,
    then the technical words, then a long tail of made-up words and, deep in it, `RARE`."""
    tail = sorted({a + b + c for a in SYLLABLES for b in SYLLABLES for c in SYLLABLES})
    tail = [w for w in tail if w not in RARE]
    vocabulary = FUNCTION_WORDS + WORDS + tail[:2_000] + RARE + tail[2_000:]
    weights = []
    total = 0.0
    for rank in range(1, len(vocabulary) + 1):
        total += 1.0 / rank**1.07
        weights.append(total)
    return vocabulary, weights


VOCABULARY, CUMULATIVE = _vocabulary()


def _sentence(rng: random.Random, words: int) -> str:
    chosen = rng.choices(VOCABULARY, cum_weights=CUMULATIVE, k=words)
    return " ".join(chosen).capitalize() + "."


def _message(rng: random.Random, index: int) -> tuple[str, str, str]:
    visible = '{"userVisible":true,"agentVisible":true}'
    kind = index % 4
    if kind == 0:
        return "user", compact([{"type": "text", "text": _sentence(rng, 14)}]), visible
    if kind == 1:
        blocks = [
            {"type": "thinking", "thinking": _sentence(rng, 20), "signature": "sig"},
            {"type": "text", "text": f"{_sentence(rng, 25)}\n\n```python\nx = {index}\n```"},
            {
                "type": "toolRequest",
                "id": f"t{index}",
                "toolCall": {
                    "status": "success",
                    "value": {"name": "developer__shell", "arguments": {"command": "pytest -q"}},
                },
            },
        ]
        usage = {
            "userVisible": True,
            "agentVisible": True,
            "usage": {"inputTokens": 1000 + index, "outputTokens": 80, "totalTokens": 1080 + index},
        }
        return "assistant", compact(blocks), compact(usage)
    if kind == 2:
        output = "\n".join(_sentence(rng, 8) for _ in range(rng.randint(5, 120)))
        blocks = [
            {
                "type": "toolResponse",
                "id": f"t{index - 1}",
                "toolResult": {
                    "status": "success",
                    "value": {"content": [{"type": "text", "text": output}]},
                },
            }
        ]
        return "user", compact(blocks), visible
    return "assistant", compact([{"type": "text", "text": _sentence(rng, 40)}]), visible


def _rows(
    rng: random.Random, session_id: str, count: int, start: int
) -> Iterator[tuple[object, ...]]:
    for index in range(count):
        role, content, metadata = _message(rng, index)
        yield (f"msg_{session_id}_{index}", session_id, role, content, start + index * 7, metadata)


def build(
    path: Path,
    *,
    sessions: int = 20_000,
    per_session: int = 5,
    long_sessions: tuple[int, ...] = (5_000, 50_000),
) -> Path:
    """Create the database unless an identical one (same parameters) already exists."""
    stamp = path.with_suffix(".params")
    params = compact({"sessions": sessions, "per": per_session, "long": long_sessions, "v": 5})
    if path.exists() and stamp.exists() and stamp.read_text() == params:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    stamp.unlink(missing_ok=True)  # written again only once the database is whole
    for stale in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        stale.unlink(missing_ok=True)
    rng = random.Random(42)
    conn = sqlite3.connect(path, isolation_level=None)
    fresh_schema(conn)
    conn.execute("PRAGMA synchronous=OFF")
    conn.execute("BEGIN")
    session_sql = (
        "INSERT INTO sessions (id, name, working_dir, created_at, updated_at,"
        " accumulated_total_tokens, accumulated_cost, provider_name, model_config_json)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
    )
    message_sql = (
        "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp,"
        " metadata_json) VALUES (?, ?, ?, ?, ?, ?)"
    )
    config = '{"model_name":"claude-sonnet-4-5"}'
    for count in long_sessions:
        sid = f"long_{count}"
        start = BASE_TIME + 20_000 * 600
        conn.execute(
            session_sql,
            (
                sid,
                f"Long session of {count} messages",
                "/w/long",
                "2025-10-01 00:00:00",
                "2025-10-01 00:00:00",
                count * 900,
                count * 0.01,
                "anthropic",
                config,
            ),
        )
        conn.executemany(message_sql, _rows(rng, sid, count, start))
        # The same last 40 messages alone: what the window shows on opening either session, so
        # the two opening times differ only by what grows with length (issue #13, item 3).
        conn.execute(
            "INSERT INTO sessions (id, name, working_dir, created_at, updated_at,"
            " accumulated_total_tokens, accumulated_cost, provider_name, model_config_json)"
            " SELECT ?, name || ' (its last 40 messages)', working_dir, created_at, updated_at,"
            " accumulated_total_tokens, accumulated_cost, provider_name, model_config_json"
            " FROM sessions WHERE id = ?",
            (f"tail_{count}", sid),
        )
        conn.execute(
            "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp,"
            " metadata_json) SELECT message_id, ?, role, content_json, created_timestamp,"
            " metadata_json FROM messages WHERE session_id = ?"
            " ORDER BY created_timestamp DESC, id DESC LIMIT 40",
            (f"tail_{count}", sid),
        )
    for i in range(sessions):
        sid = f"s{i:06d}"
        start = BASE_TIME + i * 600
        stamp_text = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(start))
        conn.execute(
            session_sql,
            (
                sid,
                _sentence(rng, 4)[:-1],
                f"/w/project{i % 40}",
                stamp_text,
                stamp_text,
                per_session * 900,
                per_session * 0.01,
                "anthropic",
                config,
            ),
        )
        conn.executemany(message_sql, _rows(rng, sid, per_session, start))
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    stamp.write_text(params)
    return path
