"""Search benchmark: 20,000 sessions, 500,000 messages.

    python -m benchmarks.search [--data DIR]

Builds (or reuses) the history, then in one run: the full index build (messages/s, the CPU
seconds of this process and of its worker processes, the peak RSS of the process tree, and the
machine's load average before and after: other programs on the cores slow the wall time), an
incremental update after 100 new messages, and a fixed set of queries timed against Gander's
index (first page, median of 5) and against goose's own keyword SQL (the
desktop list query with the keyword clause, page of 50) on the same file.
"""

import argparse
import functools
import json
import os
import resource
import shutil
import sqlite3
import statistics
import time
from pathlib import Path

from benchmarks.history import build
from benchmarks.process_tree import TreePeak
from desktop_app.search.index import SearchIndex
from desktop_app.sources.goose import GooseSource

QUERIES = [
    "zeppelin",
    "quokka",
    "heisenbug",
    "mandelbrot fjord",
    "kubernetes",
    "retry",
    "the",
    "redis latency",
    "pytest fixture",
    "webhook deadline backoff",
    '"borrow checker"',
    '"retry loop"',
    '"async await"',
    "lat*",
    "terra*",
    "zepp*",
    "retry role:user",
    "redis in:tools",
    "graphql -cursor",
    "docker OR kubernetes",
    "cache after:2026-01-01",
    "flaky tool:shell",
    "chrome session:s000123",
    "ledger in:project7",
]

GOOSE_SQL = """
SELECT s.id, s.name, s.working_dir, 0 AS message_count,
       MAX(CASE WHEN m.created_timestamp > 10000000000 THEN m.created_timestamp / 1000
                ELSE m.created_timestamp END) AS last_message_timestamp,
       COALESCE(MAX(CASE WHEN m.created_timestamp > 10000000000 THEN m.created_timestamp / 1000
                         ELSE m.created_timestamp END), unixepoch(s.updated_at)) AS sort_timestamp
FROM sessions s
INNER JOIN messages m ON s.id = m.session_id
WHERE s.session_type IN ('user', 'scheduled', 'acp')
  AND EXISTS (
    SELECT 1 FROM messages mq
    WHERE mq.session_id = s.id
      AND COALESCE(json_extract(mq.metadata_json, '$.userVisible'), 1) != 0
      AND EXISTS (
        SELECT 1 FROM json_each(mq.content_json)
        WHERE json_extract(value, '$.type') = 'text' AND ({terms})
      )
  )
GROUP BY s.id
ORDER BY sort_timestamp DESC, s.id DESC
LIMIT 51
"""


def goose_words(query: str) -> list[str]:
    """What goose's keyword search would get: the query's plain words, lower-cased."""
    words = []
    for token in query.split():
        if ":" in token or token == "OR" or token.startswith("-"):
            continue
        words.append(token.strip('"*').lower())
    return [w for w in words if w]


def goose_search(conn: sqlite3.Connection, query: str) -> tuple[float, int]:
    words = goose_words(query)
    clause = " OR ".join("instr(LOWER(json_extract(value, '$.text')), ?) > 0" for _ in words)
    started = time.perf_counter()
    rows = conn.execute(GOOSE_SQL.format(terms=clause), words).fetchall()
    return (time.perf_counter() - started) * 1000, len(rows)


def add_messages(db: Path, count: int) -> None:
    conn = sqlite3.connect(db, isolation_level=None, timeout=30)
    conn.execute("BEGIN IMMEDIATE")
    for i in range(count):
        text = json.dumps([{"type": "text", "text": f"incremental okapi message {i}"}])
        conn.execute(
            "INSERT INTO messages (session_id, role, content_json, created_timestamp,"
            " metadata_json) VALUES ('s000001', 'user', ?, strftime('%s','now'), ?)",
            (text, '{"userVisible":true,"agentVisible":true}'),
        )
    conn.execute("COMMIT")
    conn.close()


def remove_added(db: Path) -> None:
    conn = sqlite3.connect(db, isolation_level=None, timeout=30)
    conn.execute("DELETE FROM messages WHERE content_json LIKE '%incremental okapi message%'")
    conn.close()


def _cpu_s() -> tuple[float, float]:
    """CPU seconds so far of this process and of the children it waited for (the workers)."""
    mine = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime, children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=Path(__file__).parent / "data")
    args = parser.parse_args()
    started = time.perf_counter()
    db = build(args.data / "search-history.db", sessions=20_000, per_session=25, long_sessions=())
    remove_added(db)
    print(f"history ready in {time.perf_counter() - started:.1f} s: {db}")

    index_dir = args.data / "search-index"
    shutil.rmtree(index_dir, ignore_errors=True)
    source = GooseSource(db)
    index = SearchIndex(index_dir / "index.sqlite", source, functools.partial(GooseSource, db))
    load = os.getloadavg()[0]
    peak = TreePeak(os.getpid(), 0.25)
    cpu = _cpu_s()
    started = time.perf_counter()
    report = index.update()
    build_s = time.perf_counter() - started
    writer_s, workers_s = (after - before for after, before in zip(_cpu_s(), cpu, strict=True))
    print(
        f"full index build: {report.added:,} messages in {build_s:.1f} s = "
        f"{report.added / build_s:,.0f} messages/s   budget ≥ 20,000/s"
    )
    print(
        f"  CPU: this process {writer_s:.1f} s, its workers {workers_s:.1f} s; peak RSS of the"
        f" process tree {peak.stop():.0f} MB (budget ≤ 450 MB); load average {load:.1f} before,"
        f" {os.getloadavg()[0]:.1f} after"
    )
    print(f"index size: {index.path.stat().st_size / 1e6:.0f} MB")

    add_messages(db, 100)
    started = time.perf_counter()
    report = index.update()
    print(
        f"incremental update, 100 new messages: {(time.perf_counter() - started) * 1000:.0f} ms"
        f" ({report.added} added)   budget ≤ 200 ms"
    )
    remove_added(db)

    goose = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    print(f"\n{'query':32} {'gander ms':>10} {'hits':>6} {'goose ms':>10} {'sessions':>8} {'×':>6}")
    gander_times, goose_times = [], []
    for query in QUERIES:
        runs = []
        for _ in range(5):
            results = index.search(query, limit=20)
            runs.append(results.elapsed_ms)
        ours = statistics.median(runs)
        theirs, found = goose_search(goose, query)
        gander_times.append(ours)
        goose_times.append(theirs)
        capped = "+" if results.capped else ""
        print(
            f"{query:32} {ours:10.1f} {results.total_hits:>5}{capped:1} {theirs:10.0f} {found:>8}"
            f" {theirs / ours:6.0f}"
        )
    ours_median = statistics.median(gander_times)
    theirs_median = statistics.median(goose_times)
    print(
        f"\nmedian over {len(QUERIES)} queries: gander {ours_median:.1f} ms (budget ≤ 50 ms), "
        f"goose {theirs_median:.0f} ms, {theirs_median / ours_median:.0f}× faster (budget ≥ 50×)"
    )
    print(f"slowest gander query: {max(gander_times):.1f} ms")
    index.close()
    source.close()
    goose.close()


if __name__ == "__main__":
    main()
