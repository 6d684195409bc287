"""Loads what the usage panel shows, in the worker, and hands it over by signal.

Every kind of history is read the same way — its sessions' own figures, with their
sub-agents — so the All sessions view covers every open history, not goose alone; the
per-call series of the context-growth chart comes from a reader with `UsageHistory`, else
from each reply's own usage in the log.
A session without a recorded cost is priced by genai-prices (`sources.common.pricing`).
"""

import heapq
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date

from PySide6.QtCore import QObject, Signal

from desktop_app.domain.combined import CombinedHistory
from desktop_app.domain.errors import GanderError, sentence
from desktop_app.domain.reading import (
    iter_messages,
    iter_sessions,
    list_facets,
    session_totals,
    trees_totals,
)
from desktop_app.domain.session import Session
from desktop_app.domain.source import ArchivedFilter, SessionQuery, Source, UsageHistory
from desktop_app.domain.usage import UsageBucket, UsagePoint, added, count
from desktop_app.sources.agents_locate import AGENT_NAMES
from desktop_app.sources.common.pricing import Cost, session_cost
from desktop_app.ui.tasks import TaskRunner

TOP_SESSIONS = 10
EVERY_SESSION = SessionQuery(session_types=None, archived=ArchivedFilter.INCLUDE)
NO_MODEL = "model not recorded"
NO_PROJECT = "no folder"


@dataclass(frozen=True, slots=True)
class UsageOverview:
    """Every open history's sessions added up (`buckets`), and the costliest sessions."""

    buckets: list[UsageBucket]
    top: list[tuple[Session, Cost]]
    sessions: int
    unpriced: int
    """Sessions with tokens but neither a recorded cost nor a price known for their model."""


def _agents(source: Source) -> dict[str | None, str]:
    """Each history's tag (a session's `history`) to its agent's name."""
    pairs = source.readers() if isinstance(source, CombinedHistory) else [(None, source)]
    names: dict[str | None, str] = {}
    for tag, reader in pairs:
        kind = reader.info().kind
        names[tag] = AGENT_NAMES.get(kind, kind)
    return names


def _chunks(sessions: Iterator[Session], size: int) -> Iterator[list[Session]]:
    chunk: list[Session] = []
    for session in sessions:
        chunk.append(session)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def usage_overview(source: Source) -> UsageOverview:
    """Each top-level session with its sub-agents, priced, added into buckets (in the worker:
    it reads the whole history once)."""
    agents = _agents(source)
    buckets: dict[tuple[date | None, str, str, str], UsageBucket] = {}
    top: list[tuple[float, int, Session, Cost]] = []
    seen = unpriced = 0
    for chunk in _chunks(iter_sessions(source, EVERY_SESSION), 200):
        trees = trees_totals(source, [s for s in chunk if s.has_children])
        for session in chunk:
            seen += 1
            tree = trees.get(session.id)
            tokens = session.accumulated_usage if tree is None else tree.tokens
            cost = session_cost(
                session, None if tree is None else tree.tokens, None if tree is None else tree.cost
            )
            total = tokens.total_tokens
            if total is None:
                total = (tokens.input_tokens or 0) + (tokens.output_tokens or 0)
            if total == 0 and cost.amount is None:
                continue
            if cost.amount is None:
                unpriced += 1
            when = session.updated_at or session.created_at
            key = (
                when.date() if when is not None else None,
                agents.get(session.history, agents.get(None, "")),
                session.model or NO_MODEL,
                session.working_dir or NO_PROJECT,
            )
            old = buckets.get(key)
            recorded = None if cost.estimated else cost.amount
            estimated = cost.amount if cost.estimated else None
            buckets[key] = UsageBucket(
                day=key[0],
                agent=key[1],
                model=key[2],
                project=key[3],
                tokens=count((old.tokens if old else 0) + total) or 0,
                recorded_cost=added(old.recorded_cost, recorded) if old else recorded,
                estimated_cost=added(old.estimated_cost, estimated) if old else estimated,
                sessions=(old.sessions if old else 0) + 1,
            )
            if cost.amount is not None and cost.amount > 0:
                entry = (cost.amount, -seen, session, cost)
                if len(top) < TOP_SESSIONS:
                    heapq.heappush(top, entry)
                else:
                    heapq.heappushpop(top, entry)
    costliest = [(s, c) for _, _, s, c in sorted(top, key=lambda e: (e[0], e[1]), reverse=True)]
    return UsageOverview(list(buckets.values()), costliest, seen, unpriced)


class UsageLoader(QObject):
    session_loaded = Signal(object, object, object, object)
    """Session (with message count), SessionTotals or None, list of UsagePoint, and the
    session's `Cost` and its tree's (a pair)."""
    overview_loaded = Signal(object)
    """`UsageOverview`: every open history's sessions added up."""
    facets_loaded = Signal(object)
    """`reading.Facets`: the folders and session types the list filter offers."""
    failed = Signal(str)

    def __init__(self, source: Source, tasks: TaskRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._source = source
        self._tasks = tasks
        self._wanted: str | None = None

    def load_session(self, session_id: str) -> None:
        self._wanted = session_id
        source = self._source

        def work() -> tuple[object, object, object, object]:
            session = source.get_session(session_id)  # counted: the header shows it too
            try:
                totals = session_totals(source, session)
            except GanderError:
                totals = None
            history = source.usage_series(session_id) if isinstance(source, UsageHistory) else []
            if not history:  # the logs' own per-reply usage (Claude Code, Codex, Gemini, pi)
                history = [
                    UsagePoint(
                        at=message.created_at,
                        input_tokens=message.usage.tokens.input_tokens,
                        output_tokens=message.usage.tokens.output_tokens,
                        cost=message.usage.cost,
                    )
                    for message in iter_messages(source, session_id)
                    if message.usage is not None
                ]
            own = session_cost(session)
            tree = None if totals is None else session_cost(session, totals.tokens, totals.cost)
            return session, totals, history, (own, tree)

        self._tasks.run(
            work,
            lambda result: self._deliver(session_id, result),
            lambda error: self.failed.emit(sentence(error)),
            wanted=lambda: self._wanted == session_id,
            background=True,
        )

    def _deliver(self, session_id: str, result: tuple[object, object, object, object]) -> None:
        if session_id == self._wanted:
            self.session_loaded.emit(*result)

    def load_facets(self) -> None:
        """What the list filter offers (loaded here with the other overview figures)."""
        self._tasks.run(
            lambda: list_facets(self._source),
            self.facets_loaded.emit,
            lambda error: self.failed.emit(sentence(error)),
            background=True,
        )

    def load_overview(self) -> None:
        source = self._source
        self._tasks.run(
            lambda: usage_overview(source),
            self.overview_loaded.emit,
            lambda error: self.failed.emit(sentence(error)),
            background=True,
        )
