"""Which goose database to open: `--db`, goose's own, or the demo history (design §2, §4)."""

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from desktop_app.domain.errors import SourceUnreadable
from desktop_app.sources.goose.connection import DEFAULT_BUSY_TIMEOUT_S
from desktop_app.sources.goose.demo import ensure_demo_database
from desktop_app.sources.goose.locate import default_database_path
from desktop_app.sources.goose.source import GooseSource


@dataclass(frozen=True)
class OpenedSource:
    source: GooseSource
    is_demo: bool
    note: str | None
    """What to tell the user about the choice, e.g. that this is the demo history."""


def open_goose(
    db: Path | None,
    *,
    demo: bool,
    data_dir: Path,
    busy_timeout_s: float = DEFAULT_BUSY_TIMEOUT_S,
) -> OpenedSource:
    """Open `db`, else goose's database, else (when allowed) the generated demo history.

    An explicit `db` that does not exist is an error, never a reason to fall back to the demo.
    """
    if demo:
        path = _demo(data_dir)
        return OpenedSource(
            GooseSource(path, busy_timeout_s=busy_timeout_s),
            True,
            "Showing the built-in demo history.",
        )
    if db is not None:
        return OpenedSource(GooseSource(db, busy_timeout_s=busy_timeout_s), False, None)
    found = default_database_path()
    if found is not None:
        return OpenedSource(GooseSource(found, busy_timeout_s=busy_timeout_s), False, None)
    path = _demo(data_dir)
    note = "No goose database was found, so Gander is showing its built-in demo history."
    return OpenedSource(GooseSource(path, busy_timeout_s=busy_timeout_s), True, note)


def _demo(data_dir: Path) -> Path:
    """The demo history, generated into Gander's data folder on first use."""
    try:
        return ensure_demo_database(data_dir / "demo")
    except (OSError, sqlite3.Error) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise SourceUnreadable(
            f"The demo history cannot be created in {data_dir / 'demo'} ({reason})."
        ) from error
