"""Shared fixtures: every test runs with its own data directory and no real goose database."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from desktop_app.domain.jsontext import allow_deep_json
from desktop_app.sources.goose import GooseSource
from tests.fixtures.goose_db import GooseDb
from tests.fixtures.postgres import PostgresServer

allow_deep_json()  # as `gander` does on start, before any test reads anything

# CI must be deterministic: the same examples on every run, no example database carried between
# runs, no per-example deadline on a loaded 2-core machine (`.ci/run` selects it). Developers keep
# hypothesis' random search, which is what finds new failures.
settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never touch the developer's real goose database or Gander data."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("GOOSE_PATH_ROOT", str(tmp_path / "no-goose-here"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


@pytest.fixture
def make_db(tmp_path: Path) -> Iterator[Callable[..., GooseDb]]:
    """Build a real goose database: `make_db(version=12)`; closed at teardown."""
    created: list[GooseDb] = []

    def factory(version: int = 17, *, fresh: bool = True, name: str = "sessions.db") -> GooseDb:
        db = GooseDb(tmp_path / name, version=version, fresh=fresh)
        created.append(db)
        return db

    yield factory
    for db in created:
        db.close()


@pytest.fixture
def open_source() -> Iterator[Callable[[GooseDb], GooseSource]]:
    opened: list[GooseSource] = []

    def factory(db: GooseDb) -> GooseSource:
        source = GooseSource(db.path, busy_timeout_s=5)
        opened.append(source)
        return source

    yield factory
    for source in opened:
        source.close()


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """One throwaway PostgreSQL server for the whole run (see tests/fixtures/postgres.py)."""
    server = PostgresServer()
    yield server
    server.close()
