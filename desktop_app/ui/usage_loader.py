"""Loads what the usage panel shows, in the worker, and hands it over by signal.

Per-call series, days and the costliest sessions come from a reader with `UsageHistory`; for
any other the panel shows the session's own figures and says the overview is not recorded.
"""

from datetime import UTC, date, datetime, timedelta

from PySide6.QtCore import QObject, Signal

from desktop_app.domain.errors import GanderError, sentence
from desktop_app.domain.reading import list_facets, session_totals
from desktop_app.domain.source import Source, UsageHistory
from desktop_app.domain.usage import overview_range
from desktop_app.ui.tasks import TaskRunner

OVERVIEW_DAYS = 30
TOP_SESSIONS = 10


class UsageLoader(QObject):
    session_loaded = Signal(object, object, object)
    """Session (with message count), SessionTotals or None, list of UsagePoint."""
    overview_loaded = Signal(object, object, object)
    """list of DayUsage, list of Session, the (first, last) day the days cover (None: the
    history keeps no usage per day)."""
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

        def work() -> tuple[object, object, object]:
            session = source.get_session(session_id)  # counted: the header shows it too
            try:
                totals = session_totals(source, session)
            except GanderError:
                totals = None
            history = source.usage_series(session_id) if isinstance(source, UsageHistory) else []
            return session, totals, history

        self._tasks.run(
            work,
            lambda result: self._deliver(session_id, result),
            lambda error: self.failed.emit(sentence(error)),
            wanted=lambda: self._wanted == session_id,
            background=True,
        )

    def _deliver(self, session_id: str, result: tuple[object, object, object]) -> None:
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
        today = datetime.now(UTC).date()
        since = today - timedelta(days=OVERVIEW_DAYS - 1)
        source = self._source
        if not isinstance(source, UsageHistory):
            self.overview_loaded.emit([], [], None)  # kept by no reader: not a quiet month
            return

        def work() -> tuple[object, object, object]:
            days, first, last = overview_range(
                source.usage_by_day(since),
                lambda: source.usage_by_day(date(1970, 1, 1)),
                today,
                OVERVIEW_DAYS,
            )
            return days, source.top_sessions_by_cost(TOP_SESSIONS), (first, last)

        self._tasks.run(
            work,
            lambda result: self.overview_loaded.emit(*result),
            lambda error: self.failed.emit(sentence(error)),
            background=True,
        )
