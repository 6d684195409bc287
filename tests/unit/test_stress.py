"""A short run of the stress harness (the 60-second run is `python -m benchmarks.stress`)."""

from pathlib import Path

from tests.fixtures.stress import run_stress

WAL_LIMIT = 32 * 1024 * 1024


def test_gander_and_a_busy_goose_lose_nothing(tmp_path: Path) -> None:
    report = run_stress(6.0, tmp_path)
    assert report.errors == []
    assert report.problems == []
    assert report.gander_operations > 20
    assert report.gander_searches >= 4
    assert report.goose_inserted > 300
    assert report.goose_rewrites >= 1
    assert report.max_wal_bytes < WAL_LIMIT
