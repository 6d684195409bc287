"""Which histories to open: those the user named (`--db`, once or more), else goose's own
database where goose keeps it, else the built-in demo. Several open together as one combined
history. Shared by the CLI and the window; no Qt here.
"""

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from desktop_app.domain.combined import CombinedHistory
from desktop_app.domain.errors import GanderError, SourceUnreadable
from desktop_app.domain.source import ChangeFeed, Source
from desktop_app.sources.agents_locate import default_database_path, found_agent_histories
from desktop_app.sources.goose import GooseSource
from desktop_app.sources.goose.connection import DEFAULT_BUSY_TIMEOUT_S
from desktop_app.sources.registry import KIND_SEPARATOR, absolute, is_server, open_history

__all__ = [
    "DEFAULT_BUSY_TIMEOUT_S",
    "OpenedHistories",
    "combine",
    "demo_history",
    "history_paths",
    "legacy_offer",
    "open_histories",
    "reopener",
]

DEMO_NOTE = "Showing the built-in demo history."
NO_GOOSE_NOTE = "No goose database was found, so Gander is showing its built-in demo history."


@dataclass(frozen=True)
class OpenedHistories:
    source: Source
    """The one reader, or all of them combined."""
    readers: tuple[Source, ...]
    is_demo: bool
    note: str | None
    """What to tell the user about the choice, e.g. that this is the demo history."""


def combine(readers: Sequence[Source]) -> Source:
    return readers[0] if len(readers) == 1 else CombinedHistory(readers)


def demo_history(data_dir: Path, busy_timeout_s: float = DEFAULT_BUSY_TIMEOUT_S) -> Source:
    # The generator (and its images) loads only when the demo is asked for.
    from desktop_app.demo.generator import ensure_demo_database  # noqa: PLC0415

    try:
        path = ensure_demo_database(data_dir / "demo")
    except OSError as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise SourceUnreadable(
            f"The demo history cannot be created in {data_dir / 'demo'} ({reason})."
        ) from error
    return GooseSource(path, busy_timeout_s=busy_timeout_s)


def open_histories(
    locations: Sequence[Path | str],
    *,
    demo: bool,
    data_dir: Path,
    busy_timeout_s: float = DEFAULT_BUSY_TIMEOUT_S,
) -> OpenedHistories:
    """Open each named history (none named: goose's database, else the demo). A location that
    cannot be opened is an error, never a reason to fall back to the demo."""
    readers: list[Source] = []
    note: str | None = None
    try:
        if demo:
            readers.append(demo_history(data_dir, busy_timeout_s))
            note = DEMO_NOTE
        for location in locations:
            readers.append(
                open_history(location, cache_dir=data_dir, busy_timeout_s=busy_timeout_s)
            )
        if not readers:
            found = default_database_path()
            if found is not None:
                readers.append(GooseSource(found, busy_timeout_s=busy_timeout_s))
            else:
                readers.append(demo_history(data_dir, busy_timeout_s))
                demo, note = True, NO_GOOSE_NOTE
    except GanderError:
        for reader in readers:
            reader.close()
        raise
    if demo and len(readers) > 1:
        note = f"Showing the built-in demo history and {len(readers) - 1} more."
    return OpenedHistories(combine(readers), tuple(readers), demo and len(readers) == 1, note)


def default_locations(disabled: Iterable[str] = ()) -> list[str]:
    """What the window opens when nothing is named or remembered: goose's database and every
    coding agent's logs found on this computer (each as `KIND=PATH`), less the agents turned
    off; empty when there is none of them (then the demo opens)."""
    off = set(disabled)
    found = [str(path) for path in (default_database_path(),) if path is not None]
    found += [
        f"{kind}{KIND_SEPARATOR}{path}" for kind, path in found_agent_histories() if kind not in off
    ]
    return found


def history_paths(source: Source) -> list[Path]:
    """Where each open history is on disk (what no export may overwrite)."""
    readers = [r for _, r in source.readers()] if isinstance(source, CombinedHistory) else [source]
    return [Path(r.info().location) for r in readers if not is_server(r.info().location)]


def reopener(data_dir: Path, reader: Source) -> Callable[[], Source]:
    """Opens `reader`'s history again, in another process (picklable): for a parallel first
    build of its search index. A server is reopened with the URL it was opened with, which
    may hold a password: it stays in memory and in the pipe to the worker, never on disk."""
    location = getattr(reader, "reopen_location", None) or reader.info().location
    return functools.partial(open_history, location, cache_dir=data_dir)


def legacy_offer(readers: Sequence[Source]) -> tuple[str, Path, int] | None:
    """goose's own sessions folder, when the open default database has legacy `.jsonl`
    sessions beside it that it does not hold (goose imports them only into a new database):
    the location that opens them, the folder and how many, to offer adding it."""
    default = default_database_path()
    for reader in readers:
        if not isinstance(reader, GooseSource) or default is None or reader.path != default:
            continue
        folder = reader.path.parent
        stems = {p.stem for p in folder.glob("*.jsonl")}
        if not stems or not isinstance(reader, ChangeFeed):
            return None
        missing = stems - set(reader.session_states(sorted(stems)))
        return (absolute(f"goose-legacy={folder}"), folder, len(missing)) if missing else None
    return None
