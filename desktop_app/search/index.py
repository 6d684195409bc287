"""The search index of one history: its file (`storage`), keeping it current (`updating`) and
answering queries (`querying`), behind one object whose every error is a sentence.

Damage met in the middle of a search or an update starts the file afresh and says so; a full
disk, a read-only folder or a busy file is one sentence. Several open histories each have their
own index, ranked together (`search.histories`).
"""

import hashlib
import os
import re
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager, suppress
from pathlib import Path
from typing import TypeVar

from desktop_app.domain.errors import GanderError
from desktop_app.domain.search import SearchResults, SessionResult
from desktop_app.domain.source import Source
from desktop_app.search.parallel import SourceFactory
from desktop_app.search.query import ParsedQuery, QueryError, parse_query
from desktop_app.search.querying import (
    RANK_CAP,
    RankedSession,
    Ranking,
    prepare,
    rank_sessions,
    run_query,
    session_results,
)
from desktop_app.search.storage import IndexBusy, IndexStorage
from desktop_app.search.updating import IndexUpdater, Progress, UpdateReport

_T = TypeVar("_T")

__all__ = ["RANK_CAP", "SearchIndex", "UpdateReport", "index_path", "open_index"]


UPDATE_WAIT_S = 60.0
"""How long an update waits for another Gander's update of the same index to end."""


class SearchIndexUnavailable(GanderError):
    pass


class SearchIndexRebuilt(GanderError):
    """The index was damaged and has been started afresh; searching again rebuilds it."""


def _is_damage(error: sqlite3.Error) -> bool:
    text = str(error).lower()
    return any(word in text for word in ("malformed", "corrupt", "not a database"))


def _describe(path: Path, error: sqlite3.Error | OSError) -> str:
    text = str(error).lower()
    if "full" in text:
        return f"The disk holding the search index ({path.parent}) is full; free some space."
    if "readonly" in text or "read-only" in text:
        return f"The search index at {path} cannot be written (read-only)."
    if "locked" in text or "busy" in text:
        return "The search index is busy in another Gander; try again in a moment."
    if isinstance(error, sqlite3.Error) and getattr(error, "sqlite_errorcode", None) is None:
        # Python's own complaint (a connection closed while in use), not SQLite's.
        return f"The search index at {path} could not be used just now; search again."
    return f"The search index at {path} failed ({error})."


def _indexed(location: str) -> str:
    """The location an index is for: a path resolved (one index through any symlink), a
    server's URL as its reader shows it (its public form; a URL is no path to resolve)."""
    return location if "://" in location else str(Path(location).resolve())


_FOLDED_URL = re.compile(r"/postgres(?:ql)?:/(?!/)")
"""A server's URL folded as a path (`/cwd/postgresql:/me@host/db?…`), as earlier Gander named a
server's index, its metadata holding any secret parameter the URL carried."""


def _forget_folded_urls(folder: Path) -> None:
    """Deletes the index files an earlier Gander made for a server under its URL folded as a
    path: no reader opens them again, their metadata may hold a secret, and a server's index
    is rebuilt from the server. Each file is read only (never waited on); one that cannot be
    read is left alone."""
    for path in sorted(folder.glob("*.sqlite")):
        try:
            with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=0)) as db:
                row = db.execute("SELECT value FROM meta WHERE key = 'source'").fetchone()
        except sqlite3.Error:
            continue
        if row and isinstance(row[0], str) and _FOLDED_URL.search(row[0]):
            for suffix in ("", "-wal", "-shm"):
                with suppress(OSError):
                    Path(f"{path}{suffix}").unlink(missing_ok=True)


def index_path(data_dir: Path, location: str) -> Path:
    key = hashlib.sha256(_indexed(location).encode()).hexdigest()[:20]
    return data_dir / "search" / f"{key}.sqlite"


def open_index(
    data_dir: Path, source: Source, reopen: SourceFactory | None = None
) -> "SearchIndex":
    """The index of `source`, in Gander's data directory."""
    path = index_path(data_dir, source.info().location)
    try:
        if "://" in source.info().location:
            _forget_folded_urls(path.parent)
        return SearchIndex(path, source, reopen)
    except (OSError, sqlite3.Error) as error:
        raise SearchIndexUnavailable(_describe(path, error)) from error


class SearchIndex:
    def __init__(self, path: Path, source: Source, reopen: SourceFactory | None = None) -> None:
        """`reopen` opens the same history in another process; with it, a large first build
        reads and tokenises in parallel."""
        self.path = path
        self.source = source
        self.location = _indexed(source.info().location)
        self._folder = "://" not in self.location and Path(self.location).is_dir()
        """Whether the history was a folder when opened (once deleted, nothing says so)."""
        self._storage = IndexStorage(path, self.location)
        prepare(self._storage.reader)
        self._updater = IndexUpdater(self._storage, source, reopen)

    @property
    def rebuilt(self) -> bool:
        """Whether the file was (re)started empty when it was opened."""
        return self._storage.rebuilt

    def update(self, progress: Progress | None = None, *, full_check: bool = False) -> UpdateReport:
        """Bring the index up to date; `full_check` compares every session with the history
        (done once when the index is opened, and after a build). Another Gander updating the
        same file is waited for (`UPDATE_WAIT_S`); the update then plans from what it wrote.
        The outer guard is for the turn's own lock file, the inner one for the update, so
        damage met in it is started afresh while this Gander still has the turn."""
        with (
            self._guarded(),
            self._storage.turn(UPDATE_WAIT_S) as mine,
            self._guarded(),
        ):
            if not mine:
                raise IndexBusy(
                    "Another Gander has been updating this search index for over a minute; "
                    "try again when it is done."
                )
            self._storage.follow_writer()
            return self._updater.update(progress, full_check=full_check)

    def search(self, text: str, limit: int = 50, *, offset: int = 0) -> SearchResults:
        """A page of sessions from `offset`, with at most `limit` hits among them."""
        parsed = parse_query(text)
        return self._querying(
            lambda conn: run_query(conn, self.source, text, parsed, limit, offset=offset)
        )

    def rank(self, parsed: ParsedQuery) -> Ranking:
        """Every matching session, counted and in order, before any hit is read."""
        return self._querying(lambda conn: rank_sessions(conn, parsed))

    def page(
        self, parsed: ParsedQuery, chosen: Sequence[tuple[RankedSession, int]]
    ) -> list[SessionResult]:
        """The chosen sessions (from `rank`), each with as many of its best hits as asked."""
        return self._querying(lambda conn: session_results(conn, self.source, parsed, chosen))

    def _querying(self, query: Callable[[sqlite3.Connection], _T]) -> _T:
        with self._guarded():
            if self._storage.follow_reader():
                prepare(self._storage.reader)
            try:
                return query(self._storage.reader)
            except sqlite3.OperationalError as error:
                if _is_damage(error) or "fts5" not in str(error):
                    raise
                raise QueryError(f"This search cannot be run ({error}).") from error

    def close(self) -> None:
        self._storage.close()

    @contextmanager
    def _guarded(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as error:
            if _is_damage(error):
                try:
                    self._storage.start_afresh()
                    prepare(self._storage.reader)
                except (OSError, sqlite3.Error) as again:
                    raise SearchIndexUnavailable(_describe(self.path, again)) from again
                raise SearchIndexRebuilt(
                    "The search index was damaged, so Gander started it afresh; it is being "
                    "rebuilt."
                ) from error
            raise SearchIndexUnavailable(_describe(self.path, error)) from error
        except OSError as error:
            raise SearchIndexUnavailable(self._unreadable(error)) from error

    def _unreadable(self, error: OSError) -> str:
        """Whose file failed: the index's own (under its folder), or the history's, named as
        the history (a folder deleted under Gander is the folder, not the index's path)."""
        reason = error.strerror or str(error)
        named = error.filename
        if isinstance(named, str | bytes | os.PathLike) and Path(os.fsdecode(named)).is_relative_to(
            self.path.parent
        ):
            return f"The search index at {self.path} cannot be used ({reason})."
        location = self.source.info().location
        if "://" not in location and not os.path.lexists(location):
            what = "folder" if self._folder else "file"
            return f"The history {what} {location} is gone (moved or deleted)."
        return f"The history at {location} cannot be read ({reason})."
