"""A short run of the stress harness (the long run is `python -m benchmarks.stress`). It counts
rows, never time: the writer writes `ROWS` messages and Gander works until it is done, so a
loaded machine makes the run longer, not red (issue #18, item 16)."""

from pathlib import Path

from tests.fixtures.stress import run_stress

WAL_LIMIT = 32 * 1024 * 1024
ROWS = 400
ROUNDS = 20
"""Gander's rounds at the least, one in five with an index update and a search."""


def test_gander_and_a_busy_goose_lose_nothing(tmp_path: Path) -> None:
    report = run_stress(ROWS, tmp_path, least_operations=ROUNDS)
    assert report.errors == []
    assert report.problems == []
    assert report.goose_inserted == ROWS
    assert report.gander_operations >= ROUNDS
    assert report.gander_searches >= ROUNDS // 5
    assert report.goose_rewrites >= 1
    assert report.max_wal_bytes < WAL_LIMIT
