"""The left pane while searching: the search field, its results in place of the list, the
index's progress, and the query's words highlighted in a hit's transcript. The keyboard goes
from the field into the results and back; Esc brings the list back on the open session."""

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QStackedWidget, QWidget

from desktop_app.domain.search import SearchResults
from desktop_app.rendering.highlight import SearchTerms
from desktop_app.search.query import QueryError, parse_query
from desktop_app.ui.models.transcript import TranscriptModel
from desktop_app.ui.search_controller import SearchController
from desktop_app.ui.widgets.filter_bar import FilterBar
from desktop_app.ui.widgets.find_bar import FindBar
from desktop_app.ui.widgets.search_box import SearchBox
from desktop_app.ui.widgets.search_results import SearchResultsView
from desktop_app.ui.widgets.session_list import SessionListView
from desktop_app.ui.widgets.status_bar import StatusBar

RESULTS_MS = 10_000
"""How long the status bar says how many sessions matched, and how fast."""


def parse_query_terms(text: str) -> list[tuple[str, bool]]:
    """The words a query looks for, to highlight them; a malformed query highlights nothing."""
    try:
        return parse_query(text).terms
    except QueryError:
        return []


class SearchPane(QObject):
    def __init__(
        self,
        search: SearchController,
        *,
        field: SearchBox,
        results: SearchResultsView,
        pane: QStackedWidget,
        session_list: SessionListView,
        filter_bar: FilterBar,
        find_bar: FindBar,
        transcript: TranscriptModel,
        status: StatusBar,
        open_hit: Callable[[object], None],
        parent: QWidget,
    ) -> None:
        """`pane` holds the list and the results; `open_hit` opens a hit's session at it."""
        super().__init__(parent)
        self._search = search
        self._field = field
        self._results = results
        self._pane = pane
        self._list = session_list
        self._filter_bar = filter_bar
        self._transcript = transcript
        self._status = status
        self._open_hit = open_hit
        self._marked = False
        """The transcript highlights a search's words (not the find bar's text)."""
        field.query_changed.connect(search.search)
        field.active_changed.connect(self._active)
        field.returnPressed.connect(results.setFocus)
        field.down_pressed.connect(self._down_from_search)
        field.escaped.connect(self._leave)
        results.up_from_top.connect(field.setFocus)
        results.escaped.connect(self._leave)
        search.results.connect(self._show_results)
        search.failed.connect(status.say)
        search.progress.connect(status.index_meter.progress)
        search.ready.connect(status.index_meter.finished)
        search.ready.connect(self._index_ready)
        results.hit_activated.connect(self.open_hit)
        results.more_wanted.connect(lambda offset: search.search(field.text(), offset=offset))
        find_bar.find_requested.connect(lambda _: setattr(self, "_marked", False))

    def open_hit(self, hit: object) -> None:
        """Open a search hit's session at the message, the query's words highlighted as the
        index matched them."""
        self._transcript.set_needle(SearchTerms(tuple(parse_query_terms(self._field.text()))))
        self._marked = True
        self._open_hit(hit)

    def _show_results(self, results: SearchResults | None) -> None:
        self._results.show_results(results)
        if results is not None:
            self._status.showMessage(
                f"{self._results.summary} · {results.elapsed_ms:.0f} ms", RESULTS_MS
            )

    def _index_ready(self) -> None:
        if self._field.text().strip():
            self._search.search(self._field.text())

    def _active(self, active: bool) -> None:
        """The results while there is a query; the list, and no search highlight, without.
        The list's filters do not apply to results: while they are shown the filters are off
        (no Tab stop that does nothing), and Tab goes from the search field to the results."""
        self._pane.setCurrentWidget(self._results if active else self._list)
        self._filter_bar.setEnabled(not active)
        if not active and self._marked:
            self._marked = False
            self._transcript.set_needle("")

    def _down_from_search(self) -> None:
        """Down in the search field: into the results, or the list while there is no query."""
        if self._pane.currentWidget() is self._results:
            self._results.enter_from_above()
        else:
            self._list.setFocus()

    def _leave(self) -> None:
        """Esc: the search is cleared and the list is back, on the open session."""
        self._field.clear()
        self._list.setFocus()
        current = self._list.currentIndex()
        if current.isValid():
            self._list.scrollTo(current)
