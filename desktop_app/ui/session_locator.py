"""Keeps the session list in step with the open session, and counts what the list shows.

Whatever opened a session — `--session ID`, a search hit, the usage panel, a sub-agent's parent
link — the list selects it and scrolls to it: the filters are widened if they hide it (archived,
another type or project; the status bar says which), pages are fetched until it is listed, and
a sub-agent's parents are opened down to it. A filter the user changes while the session is
opening or being looked up wins: the session is not located, never undoing the user's choice.
The status bar's count is the filter's true total (the reader's count, in the background), not
the rows fetched so far.
"""

from collections.abc import Callable

from PySide6.QtCore import QModelIndex, QObject, QTimer, Signal
from PySide6.QtWidgets import QAbstractItemView

from desktop_app.domain.reading import count_sessions, lineage
from desktop_app.domain.session import Session
from desktop_app.domain.source import Source
from desktop_app.ui.models.session_tree import SessionTreeModel
from desktop_app.ui.roles import SessionRole
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.widgets.filter_bar import FilterBar
from desktop_app.ui.widgets.session_list import SessionListView


class SessionLocator(QObject):
    counted = Signal(str)
    """The status bar's count: "1,234 sessions" (or "200+ sessions" while counting)."""
    widened = Signal(str)
    """A sentence saying which filters were changed to list the open session."""

    def __init__(
        self,
        source: Source,
        tasks: TaskRunner,
        *,
        sessions: SessionTreeModel,
        filter_bar: FilterBar,
        view: SessionListView,
        open_session: Callable[[], str | None],
        parent: QObject | None = None,
    ) -> None:
        """`open_session` tells which session the transcript shows (or is opening) now: a
        reveal that arrives after the user moved on selects nothing."""
        super().__init__(parent)
        self._source = source
        self._tasks = tasks
        self._sessions = sessions
        self._filter_bar = filter_bar
        self._view = view
        self._open_session = open_session
        self._wanted: str | None = None
        self._widening = False
        self._filter_changes = 0
        """Filter changes the user made; `opening` notes the figure when a session starts
        to open."""
        self._changes_at_open = 0
        self._total: int | None = None
        self._counting = 1
        """Bumped whenever the list is read afresh; a count asked before is stale."""
        self._counted = 0
        sessions.revealed.connect(self._revealed)
        sessions.populated.connect(self._populated)
        sessions.modelReset.connect(self._count_again)
        sessions.rowsRemoved.connect(self._removed)
        filter_bar.query_changed.connect(self._filters_changed)

    def opening(self) -> None:
        """A session starts to open (the transcript was reset)."""
        self._changes_at_open = self._filter_changes

    def locate(self, session_id: str) -> None:
        """Select and show `session_id` in the list, however far down or filtered out, unless
        the user changed a filter since it started to open."""
        if self._filter_changes != self._changes_at_open:
            return
        current = self._view.currentIndex().data(SessionRole.SESSION)
        if isinstance(current, Session) and current.id == session_id:
            return
        self._wanted = session_id
        source = self._source
        self._tasks.run(
            lambda: lineage(source, source.get_session(session_id)),
            self._chain_arrived,
            lambda _error: None,  # a session gone meanwhile: the transcript says so
            wanted=lambda: self._wanted == session_id,
        )

    def _chain_arrived(self, chain: list[Session]) -> None:
        if not chain or chain[-1].id != self._wanted:
            return
        self._widening = True
        try:
            changed = self._filter_bar.widen_for(chain)
        finally:
            self._widening = False
        if changed:
            self.widened.emit(
                f"The list's {' and '.join(changed)} filter"
                f"{'s were' if len(changed) > 1 else ' was'} changed to show "
                f"“{chain[-1].name or chain[-1].id}”."
            )
        self._sessions.reveal([session.id for session in chain])

    def _filters_changed(self) -> None:
        if not self._widening:
            self._filter_changes += 1
            self._wanted = None

    def _revealed(self, index: QModelIndex) -> None:
        """The session (or, when it is not among its parent's sub-agents, the nearest parent)
        is listed: open its parents, and select it if the transcript still shows it."""
        parent = index.parent()
        while parent.isValid():
            self._view.expand(parent)
            parent = parent.parent()
        session = index.data(SessionRole.SESSION)
        if not isinstance(session, Session) or session.id != self._wanted:
            return
        self._wanted = None
        if session.id == self._open_session():
            self._view.setCurrentIndex(index)
            self._view.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)

    def _count_again(self) -> None:
        """The list was read afresh (another filter, goose wrote): count once it has rows."""
        self._total = None
        self._counting += 1

    def _removed(self, parent: QModelIndex, _first: int, _last: int) -> None:
        if not parent.isValid():  # counted after the model has finished its removal
            self._count_again()
            QTimer.singleShot(0, lambda: self._populated(self._sessions.session_count))

    def _populated(self, count: int) -> None:
        """Exact once the list is complete; else "N+" until the reader has counted."""
        if self._sessions.complete:
            self.counted.emit(_sessions(count))
            return
        if self._total is not None:
            self.counted.emit(_sessions(self._total))
            return
        self.counted.emit(f"{count:,}+ sessions")
        if self._counting == self._counted:
            return
        asked = self._counted = self._counting
        query, source = self._sessions.query(), self._source
        self._tasks.run(
            lambda: count_sessions(source, query),
            lambda total: self._count_arrived(asked, total),
            lambda _error: None,
            background=True,
        )

    def _count_arrived(self, asked: int, total: int) -> None:
        if asked == self._counting and not self._sessions.complete:
            self._total = total
            self.counted.emit(_sessions(total))


def _sessions(count: int) -> str:
    return f"{count:,} session{'' if count == 1 else 's'}"
