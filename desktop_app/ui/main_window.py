"""The main window: lays out the session list and the transcript, and wires their signals.

It owns no data, runs no queries and knows no format: models and the task runner do the work,
`SessionOpener` opens sessions, `ui/actions.py`'s table makes the menus and the toolbar, and
what a feature needs of a reader is a capability the reader has or not.
"""

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_app.domain.source import SeveralHistories, Source
from desktop_app.ui import window_geometry
from desktop_app.ui.actions import MenuBuilder
from desktop_app.ui.agent_menu import AgentMenu
from desktop_app.ui.export_dialog import ExportDialog
from desktop_app.ui.exporter import SessionExporter
from desktop_app.ui.help_box import HelpBox
from desktop_app.ui.history_dialogs import HistoryDialogs
from desktop_app.ui.history_names import histories_title
from desktop_app.ui.history_navigation import HistoryNavigation
from desktop_app.ui.links import LinkOpener
from desktop_app.ui.live import LiveWatcher
from desktop_app.ui.models.session_tree import SessionTreeModel
from desktop_app.ui.models.transcript import TranscriptModel
from desktop_app.ui.prompt_navigator import PromptNavigator
from desktop_app.ui.reading_options import ReadingOptions
from desktop_app.ui.search_controller import SearchController
from desktop_app.ui.search_pane import SearchPane
from desktop_app.ui.session_actions import SessionActions
from desktop_app.ui.session_editing import SessionEditor
from desktop_app.ui.session_locator import SessionLocator
from desktop_app.ui.session_opener import SessionOpener
from desktop_app.ui.session_writes import SessionWrites
from desktop_app.ui.settings import Settings
from desktop_app.ui.theme import Theme
from desktop_app.ui.theme_switch import ThemeSwitch
from desktop_app.ui.transcript_find import TranscriptFinder
from desktop_app.ui.transcript_navigation import TranscriptNavigator
from desktop_app.ui.transcript_shaping import ShapingActions
from desktop_app.ui.usage_loader import UsageLoader
from desktop_app.ui.widgets.back_bar import BackBar
from desktop_app.ui.widgets.filter_bar import FilterBar
from desktop_app.ui.widgets.find_bar import FindBar
from desktop_app.ui.widgets.search_box import SearchBox
from desktop_app.ui.widgets.search_results import SearchResultsView
from desktop_app.ui.widgets.session_header import SessionHeader
from desktop_app.ui.widgets.session_list import SessionListView
from desktop_app.ui.widgets.status_bar import StatusBar
from desktop_app.ui.widgets.transcript_view import TranscriptView
from desktop_app.ui.widgets.usage_panel import UsagePanel

TRANSCRIPT_MIN_WIDTH = 320
"""The transcript pane's least width, for reading (at 800×600 too)."""
EMPTY_LIST_TEXT = (
    "No sessions to show. Change the filters above (or tick Empty), or open another history "
    "with File ▸ Open history."
)


class MainWindow(QMainWindow):
    initial_session_missing = Signal(str)
    """`--session ID` named a session the history does not have (the sentence to show)."""

    def __init__(
        self,
        source: Source,
        *,
        sessions: SessionTreeModel,
        transcript: TranscriptModel,
        editor: SessionEditor,
        usage: UsageLoader,
        live: LiveWatcher,
        finder: TranscriptFinder,
        navigator: TranscriptNavigator,
        search: SearchController,
        exporter: SessionExporter,
        settings: Settings,
        theme: Theme,
        theme_choice: str = "system",
        note: str | None = None,
        open_database: Callable[[str], None] | None = None,
        add_history: Callable[[str], None] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._source = source
        self._settings = settings
        self.sessions = sessions
        self.transcript = transcript
        self.search = search
        self.exporter = exporter
        self.editor = editor
        self.finder = finder
        self.usage = usage
        self.live = live
        self.locations: list[str] = []
        """The histories shown (set by whoever built the window)."""
        self.setWindowTitle(f"Gander — {histories_title(source)}")
        sessions.can_rename = editor.can_rename
        self._build_panes(theme, navigator)
        self.session_actions = SessionActions(self.session_list, editor, self)
        self.status = StatusBar(source, note, editor.access, self.session_actions.undo, self)
        self.setStatusBar(self.status)
        self.history = HistoryNavigation(
            transcript, self.transcript_view, self.back_bar, self.status.say, self
        )
        self.history.watch(self, self.transcript_view, self.session_list.viewport())
        self.themes = ThemeSwitch(settings, theme, theme_choice, self.transcript_view, self)
        self._build_menus(open_database, add_history)
        self.locator = SessionLocator(
            source,
            sessions.tasks,
            sessions=sessions,
            filter_bar=self.filter_bar,
            view=self.session_list,
            open_session=lambda: self.transcript.session_id,
            parent=self,
        )
        self._wire()
        self._figures_loaded = False
        sessions.populated.connect(self._load_figures)
        sessions.failed.connect(self._load_figures)
        self.status.reading.ended.connect(self.usage.load_overview)  # figured on the whole list
        self.status.reading.ended.connect(self.usage.load_facets)
        window_geometry.restore(self, settings, self.splitter, self.usage_dock)

    def _build_panes(self, theme: Theme, navigator: TranscriptNavigator) -> None:
        """Left: the session list, or search results while there is a query. Centre: the find
        bar over the transcript. Right: the token-usage dock."""
        self.session_list = SessionListView(self)
        self.session_list.setModel(self.sessions)
        self.search_field = SearchBox(self)
        self.search_results = SearchResultsView(self)
        self.left_pane = QStackedWidget(self)
        self.left_pane.addWidget(self.session_list)
        self.left_pane.addWidget(self.search_results)
        self.transcript_view = TranscriptView(self.transcript, navigator, theme, self)
        self.find_bar = FindBar(self)
        self.find_bar.hide()
        transcript_pane = QWidget(self)
        pane_layout = QVBoxLayout(transcript_pane)
        pane_layout.setContentsMargins(0, 0, 0, 0)
        pane_layout.setSpacing(0)
        self.header = SessionHeader(self)
        self.header.look_up_parents(self.sessions.tasks, self._source)
        pane_layout.addWidget(self.header)
        self.back_bar = BackBar(self)
        pane_layout.addWidget(self.back_bar)
        pane_layout.addWidget(self.find_bar)
        pane_layout.addWidget(self.transcript_view, 1)
        # A reading width of its own: the header no longer holds the pane (its buttons fold),
        # and a window shrunk from the first layout took it all from the transcript.
        transcript_pane.setMinimumWidth(TRANSCRIPT_MIN_WIDTH)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(self.left_pane)
        self.splitter.addWidget(transcript_pane)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setSizes([340, 900])
        self.setCentralWidget(self.splitter)

        self.usage_panel = UsagePanel(self)
        self.usage_dock = QDockWidget("Token usage", self)
        self.usage_dock.setObjectName("usage-dock")
        self.usage_dock.setWidget(self.usage_panel)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.usage_dock)

    def _build_menus(
        self,
        open_database: Callable[[str], None] | None,
        add_history: Callable[[str], None] | None,
    ) -> None:
        """What the table of actions names (`ui/actions.py`), then the menus and toolbar from
        it; the filters have a row of their own (a narrow window hid them behind "»")."""
        settings = self._settings
        self.histories = HistoryDialogs(
            settings, self.status, open_database=open_database, add_history=add_history, window=self
        )
        self.agent_menu = AgentMenu(
            settings, lambda: self.locations, add_history, self.status.say, self
        )
        self.exports = ExportDialog(self.transcript, self.exporter, self.status.say, self)
        self.options = ReadingOptions(
            settings, self.transcript, self.transcript_view.actions_for_qml
        )
        self.shaping = ShapingActions(self.transcript, settings, self)
        self.prompts = PromptNavigator(
            self.transcript, self.transcript_view.navigator, self._source, self
        )
        self.help = HelpBox(self._source, self.status.say, self)
        toolbar = self.addToolBar("Sessions")
        toolbar.setObjectName("sessions-toolbar")
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        toolbar.addWidget(self.search_field)
        checked = {"redact_copies": settings.redact_copies, "show_hidden": settings.show_hidden}
        checked[f"theme_{self.themes.choice}"] = True
        menus = MenuBuilder(self, self.histories.can, checked)
        self.actions_by_id = menus.build(toolbar)
        self.file_menu = menus.menus["&File"]
        self.show_hidden_action = self.actions_by_id["show_hidden"]
        self.addToolBarBreak()
        filters = self.addToolBar("Filters")
        filters.setObjectName("filters-toolbar")
        self.filter_bar = FilterBar(self)
        if isinstance(self._source, SeveralHistories):
            self.filter_bar.set_histories(self._source.labels())
        filters.addWidget(self.filter_bar)

    def _wire(self) -> None:
        sessions, transcript, usage = self.sessions, self.transcript, self.usage
        status = self.status
        transcript.settled.connect(lambda session: usage.load_session(session.id))
        usage.session_loaded.connect(self.usage_panel.show_session)
        usage.overview_loaded.connect(self.usage_panel.show_overview)
        usage.failed.connect(status.say)
        self.usage_panel.session_activated.connect(self.open_session)
        self.writes = SessionWrites(
            self.editor,
            sessions=sessions,
            session_list=self.session_list,
            transcript=transcript,
            header=self.header,
            usage=usage,
            status=status,
            update_actions=self.session_actions.update_enabled,
            window=self,
        )
        self.opener = SessionOpener(
            self._source,
            self._settings,
            sessions=sessions,
            transcript=transcript,
            session_list=self.session_list,
            header=self.header,
            usage=usage,
            show_hidden=self.show_hidden_action,
            show_row=self.transcript_view.show_row,
            parent=self,
        )
        self.opener.initial_session_missing.connect(self.initial_session_missing)
        self.opener.said.connect(status.showMessage)
        self.opener.shown.connect(status.show_session)
        self.opener.opened.connect(self.locator.locate)
        self.links = LinkOpener(
            self._source,
            self.transcript_view,
            self.header,
            self.history,
            open_session=self.open_session,
            say=status.say,
            window=self,
        )
        self.exporter.finished.connect(lambda path: status.say(f"Exported to {path}."))
        self.exporter.failed.connect(self.writes.refused)
        actions = self.transcript_view.actions_for_qml
        actions.saved.connect(lambda path: status.say(f"Saved to {path}."))
        actions.save_failed.connect(self.writes.refused)
        sessions.dataChanged.connect(self.session_actions.update_enabled)
        sessions.populated.connect(self._populated)
        self.locator.counted.connect(status.show_count)
        self.locator.widened.connect(status.say)
        transcript.modelReset.connect(self.locator.opening)
        sessions.failed.connect(status.say)
        self.live.changed.connect(self.search.update)
        self.live.changed.connect(self.opener.source_changed)
        self.find_bar.find_requested.connect(self.finder.find)
        self.searching = SearchPane(
            self.search,
            field=self.search_field,
            results=self.search_results,
            pane=self.left_pane,
            session_list=self.session_list,
            filter_bar=self.filter_bar,
            find_bar=self.find_bar,
            transcript=transcript,
            status=status,
            open_hit=self.opener.open_hit,
            parent=self,
        )
        QWidget.setTabOrder(self.search_field, self.search_results)
        self.find_bar.next_requested.connect(self.finder.next)
        self.find_bar.previous_requested.connect(self.finder.previous)
        self.find_bar.closed.connect(self.finder.clear)
        self.finder.status.connect(self.find_bar.status.setText)
        self.finder.show_row.connect(self.transcript_view.show_row)
        self.filter_bar.query_changed.connect(self.sessions.reload)
        self.usage.facets_loaded.connect(self.filter_bar.set_facets)

    def open_initial(self, session_id: str | None) -> None:
        """`--session`, else the last session viewed, else the newest (`SessionOpener`)."""
        self.opener.open_initial(session_id)

    def open_session(self, session_id: str) -> None:
        self.opener.open_session(session_id)

    def open_hit(self, hit: object) -> None:
        """A search hit's session at its message, the query's words highlighted."""
        self.searching.open_hit(hit)

    def choose_theme(self, choice: str) -> None:
        """View ▸ Theme: light, dark, or following the system — applied at once, remembered."""
        self.actions_by_id[f"theme_{choice}"].setChecked(True)
        self.themes.choose(choice)

    def apply_theme(self, theme: Theme) -> None:
        self.themes.apply(theme)

    @property
    def link_prompt(self) -> QMessageBox | None:
        """The last "Open link" question asked."""
        return self.links.prompt

    def offer_history(self, label: str, status: str, location: str) -> None:
        """A history worth adding (goose's legacy sessions beside its database): offered in the
        File menu and the status bar, never opened unasked."""
        self.histories.offer(label, status, location, self.file_menu)

    def _populated(self, count: int) -> None:
        self.session_list.placeholder = (
            "" if count else self.status.reading.sentence() or EMPTY_LIST_TEXT
        )
        self.session_list.viewport().update()

    def _load_figures(self, *_: object) -> None:
        """The usage overview and the filter's choices, once the first rows are listed: they
        read the whole history, and must not delay the list on the one worker."""
        if self._figures_loaded:
            return
        self._figures_loaded = True
        self.usage.load_overview()
        self.usage.load_facets()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.live.stop()
        self.search.close()
        self._source.close()
        window_geometry.save(self, self._settings, self.splitter)
        self._settings.sync()
        super().closeEvent(event)
