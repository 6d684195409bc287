"""Loads what the usage panel shows, in the worker, and hands it over by signal.

Every kind of history is read the same way — its sessions' own figures, with their
sub-agents — so the All sessions view covers every open history, not goose alone; the
per-call series of the context-growth chart comes from a reader with `UsageHistory`, else
from each reply's own usage in the log.
A session without a recorded cost is priced by genai-prices (`sources.common.pricing`).
"""

import heapq
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from PySide6.QtCore import QObject, Signal

from desktop_app.domain.errors import GanderError, sentence
from desktop_app.domain.message import Message, MessageCursor
from desktop_app.domain.reading import (
    list_facets,
    session_totals,
    trees_totals,
)
from desktop_app.domain.session import Session
from desktop_app.domain.source import (
    ArchivedFilter,
    SessionCursor,
    SessionQuery,
    SessionTotals,
    SeveralHistories,
    Source,
    UsageHistory,
)
from desktop_app.domain.usage import UsageBucket, UsagePoint, added, count
from desktop_app.sources.common.pricing import Cost, session_cost
from desktop_app.sources.readers import agent_name
from desktop_app.ui.tasks import TaskRunner

TOP_SESSIONS = 10
OVERVIEW_PAGE = 500
EVERY_SESSION = SessionQuery(session_types=None, archived=ArchivedFilter.INCLUDE, with_counts=False)
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
    pairs = source.readers() if isinstance(source, SeveralHistories) else [(None, source)]
    names: dict[str | None, str] = {}
    for tag, reader in pairs:
        kind = reader.info().kind
        names[tag] = agent_name(kind)
    return names


@dataclass(frozen=True, slots=True)
class SessionFigures:
    """The open session's cost and its tree's (recorded or estimated), and the models its
    replies name, in order of first use (read from a log's replies; empty for goose)."""

    own_cost: Cost
    tree_cost: Cost | None
    models: tuple[str, ...] = ()


SCAN_STEP = 4_000
"""Messages read per background job for a session's per-reply usage (`load_session`)."""
SERIES_POINTS = 2_000
"""The most points the context growth chart is given: a sparkline a few hundred pixels wide."""


class _Series:
    """Each reply's usage in order, thinned to at most `SERIES_POINTS`: when full, every other
    point goes and later ones are taken at twice the stride (the chart's shape, in bounded
    memory, however long the session), and the models the replies name."""

    def __init__(self, recorded: list[UsagePoint]) -> None:
        # A recorded series is thinned alike: everruns' server gives a point for every reply,
        # all handed to the window's thread at every live update.
        stride = -(-len(recorded) // SERIES_POINTS)
        self.points = recorded[::stride] if stride > 1 else recorded
        self.models: dict[str, None] = {}
        self._stride = 1
        self._met = 0

    def add(self, message: Message) -> None:
        if message.synthetic:  # Claude Code's made-up "<synthetic>" replies
            return
        if message.inference is not None and message.inference.model:
            self.models[message.inference.model] = None
        if message.usage is None:
            return
        self._met += 1
        if (self._met - 1) % self._stride:
            return
        tokens = message.usage.tokens
        self.points.append(
            UsagePoint(
                at=message.created_at,
                input_tokens=tokens.input_tokens,
                output_tokens=tokens.output_tokens,
                cost=message.usage.cost,
            )
        )
        if len(self.points) >= SERIES_POINTS:
            del self.points[1::2]
            self._stride *= 2


@dataclass
class _Scan:
    """A session's figures, and how far its messages are read for its replies' usage."""

    session: Session
    totals: SessionTotals | None
    own: Cost
    tree: Cost | None
    positions: Sequence[MessageCursor]
    series: _Series
    read: int = 0
    first: bool = True

    @property
    def done(self) -> bool:
        return self.read >= len(self.positions)

    def step(self, source: Source, session_id: str) -> None:
        """`SCAN_STEP` more messages read (on the worker)."""
        if self.done:
            return
        part = self.positions[self.read : self.read + SCAN_STEP]
        for message in source.messages_between(session_id, part[0], part[len(part) - 1]):
            self.series.add(message)
        self.read += len(part)

    def shown(self) -> tuple[Session, SessionTotals | None, list[UsagePoint], "SessionFigures"]:
        figures = SessionFigures(self.own, self.tree, tuple(self.series.models))
        return self.session, self.totals, list(self.series.points), figures


class OverviewBuilder:
    """Each top-level session with its sub-agents, priced and added into buckets, one page at
    a time (`add`, on the worker): a page is one background job, so opening a session while
    a 20,000-session history is added up waits for one page (~0.1 s), not for the whole."""

    def __init__(self, source: Source) -> None:
        self._source = source
        self._agents = _agents(source)
        self._buckets: dict[tuple[date | None, str, str, str], UsageBucket] = {}
        self._top: list[tuple[float, int, Session, Cost]] = []
        self._seen = 0
        self._unpriced = 0

    def add(self, sessions: Sequence[Session]) -> None:
        trees = trees_totals(self._source, [s for s in sessions if s.has_children])
        for session in sessions:
            self._seen += 1
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
                self._unpriced += 1
            self._bucket(session, total, cost)
            if cost.amount is not None and cost.amount > 0:
                entry = (cost.amount, -self._seen, session, cost)  # ties: the newer first
                if len(self._top) < TOP_SESSIONS:
                    heapq.heappush(self._top, entry)
                else:
                    heapq.heappushpop(self._top, entry)

    def _bucket(self, session: Session, tokens: int, cost: Cost) -> None:
        when = session.updated_at or session.created_at
        key = (
            when.date() if when is not None else None,
            self._agents.get(session.history, self._agents.get(None, "")),
            session.model or NO_MODEL,
            session.working_dir or NO_PROJECT,
        )
        old = self._buckets.get(key)
        recorded = None if cost.estimated else cost.amount
        estimated = cost.amount if cost.estimated else None
        self._buckets[key] = UsageBucket(
            day=key[0],
            agent=key[1],
            model=key[2],
            project=key[3],
            tokens=count((old.tokens if old else 0) + tokens) or 0,
            recorded_cost=added(old.recorded_cost, recorded) if old else recorded,
            estimated_cost=added(old.estimated_cost, estimated) if old else estimated,
            sessions=(old.sessions if old else 0) + 1,
        )

    def result(self) -> UsageOverview:
        top = sorted(self._top, key=lambda e: (e[0], e[1]), reverse=True)
        return UsageOverview(
            list(self._buckets.values()), [(s, c) for *_, s, c in top], self._seen, self._unpriced
        )


class UsageLoader(QObject):
    session_loaded = Signal(object, object, object, object)
    """Session (with message count), SessionTotals or None, list of UsagePoint, and its
    `SessionFigures`."""
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
        self._overview_run = 0
        """Bumped by each `load_overview`: an older run's pages stop."""

    def load_session(self, session_id: str) -> None:
        """The session's figures, then its replies' usage (what the chart of its context
        growth shows, for the logs that record it per reply) read `SCAN_STEP` messages per
        background job: a 1.85-million-message log held the worker for minutes, and the
        transcript could not page meanwhile. What is read so far is shown at once, all of it
        when the last step is done."""
        self._wanted = session_id
        source = self._source

        def work() -> _Scan:
            session = source.get_session(session_id)  # counted: the header shows it too
            try:
                totals = session_totals(source, session)
            except GanderError:
                totals = None
            recorded = list(
                source.usage_series(session_id) if isinstance(source, UsageHistory) else []
            )
            own = session_cost(session)
            tree = None if totals is None else session_cost(session, totals.tokens, totals.cost)
            # Without a recorded series, the logs' own per-reply usage (Claude Code, Codex,
            # Gemini, pi).
            positions = () if recorded else source.positions(session_id)
            scan = _Scan(session, totals, own, tree, positions, _Series(recorded))
            scan.step(source, session_id)
            return scan

        self._tasks.run(
            work,
            lambda scan: self._scanned(session_id, scan),
            lambda error: self.failed.emit(sentence(error)),
            wanted=lambda: self._wanted == session_id,
            background=True,
        )

    def _scanned(self, session_id: str, scan: "_Scan") -> None:
        """A step read: its figures shown (the first step's, and the last's), the next step
        queued behind whatever the user waits for."""
        if session_id != self._wanted:
            return
        if scan.first or scan.done:
            self.session_loaded.emit(*scan.shown())
        scan.first = False
        if scan.done:
            return
        source = self._source

        def step() -> _Scan:
            scan.step(source, session_id)
            return scan

        self._tasks.run(
            step,
            lambda scanned: self._scanned(session_id, scanned),
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
        """Every open history added up, a page of sessions per background job."""
        self._overview_run += 1
        run = self._overview_run
        source = self._source
        builder: list[OverviewBuilder] = []  # made on the worker: `info()` may read

        def step(cursor: SessionCursor | None) -> None:
            def work() -> tuple[SessionCursor | None, UsageOverview | None]:
                if not builder:
                    builder.append(OverviewBuilder(source))
                page = source.list_sessions(EVERY_SESSION, after=cursor, limit=OVERVIEW_PAGE)
                if not page.advances_from(cursor):
                    raise GanderError(
                        "The session list stopped advancing; please report this history."
                    )
                builder[0].add(page.sessions)
                done = page.next_cursor is None
                return page.next_cursor, builder[0].result() if done else None

            def next_step(result: tuple[SessionCursor | None, UsageOverview | None]) -> None:
                following, overview = result
                if overview is not None:
                    self.overview_loaded.emit(overview)
                elif run == self._overview_run:
                    step(following)

            self._tasks.run(
                work,
                next_step,
                lambda error: self.failed.emit(sentence(error)),
                wanted=lambda: run == self._overview_run,
                background=True,
            )

        step(None)
