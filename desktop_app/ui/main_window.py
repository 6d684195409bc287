"""The main window: lays out the session list and the transcript, and wires their signals.

It owns no data and runs no queries; models and the task runner do the work.
"""

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QItemSelection, QModelIndex, QSize, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QCloseEvent,
    QDesktopServices,
    QGuiApplication,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.domain.combined import CombinedHistory, origin_of
from desktop_app.domain.search import SearchHit, SearchResults
from desktop_app.domain.session import Session
from desktop_app.domain.source import Resumable, SessionFiles, Source
from desktop_app.rendering.highlight import SearchTerms
from desktop_app.rendering.links import safe_link
from desktop_app.rendering.transcript_blocks import SESSION_SCHEME
from desktop_app.search.query import QueryError, parse_query
from desktop_app.sources.readers import dialog_filters
from desktop_app.ui.agent_menu import AgentMenu
from desktop_app.ui.crash import open_log_folder
from desktop_app.ui.exporter import SessionExporter, format_of
from desktop_app.ui.help import about_html, search_html, shortcuts_html
from desktop_app.ui.history_names import histories_tip, histories_title
from desktop_app.ui.history_navigation import HistoryNavigation
from desktop_app.ui.live import LiveWatcher
from desktop_app.ui.models.session_tree import SessionTreeModel
from desktop_app.ui.models.transcript import TranscriptModel
from desktop_app.ui.prompt_navigator import PromptNavigator
from desktop_app.ui.roles import SessionRole
from desktop_app.ui.search_controller import SearchController
from desktop_app.ui.session_actions import SessionActions
from desktop_app.ui.session_editing import SessionEditor
from desktop_app.ui.session_locator import SessionLocator
from desktop_app.ui.settings import Settings
from desktop_app.ui.theme import Theme, palette_for, resolve_theme
from desktop_app.ui.transcript_find import TranscriptFinder
from desktop_app.ui.transcript_navigation import TranscriptNavigator
from desktop_app.ui.transcript_shaping import ShapingActions
from desktop_app.ui.usage_loader import UsageLoader
from desktop_app.ui.widgets.back_bar import BackBar
from desktop_app.ui.widgets.elided_label import ElidedLabel
from desktop_app.ui.widgets.filter_bar import FilterBar
from desktop_app.ui.widgets.find_bar import FindBar
from desktop_app.ui.widgets.search_box import IndexMeter, SearchBox
from desktop_app.ui.widgets.search_results import SearchResultsView
from desktop_app.ui.widgets.session_header import SessionHeader, message_figures
from desktop_app.ui.widgets.session_list import SessionListView
from desktop_app.ui.widgets.transcript_view import TranscriptView
from desktop_app.ui.widgets.usage_panel import UsagePanel

UNDO_SHOWN_MS = 15_000
"""How long the status bar says what a rename or an archive did, beside its Undo button."""
USAGE_WIDTH = 340
USAGE_MIN_WIDTH = 230
"""The usage panel's first width (a user's own is restored): a quarter of the window, within
these bounds."""
FIRST_SIZE = QSize(1280, 800)
"""A window's size the first time, before the user gives it one (saved), on a large screen."""
FRAME_ROOM = QSize(16, 48)
"""Room for a window manager's frame (title bar, borders) around the first window on a small
screen: the frame's size is not known before the window is shown."""
TRANSCRIPT_MIN_WIDTH = 320
"""The transcript pane's least width, for reading (at 800×600 too)."""
EXPORT_FILTERS = "Markdown (*.md);;HTML page (*.html);;JSON with every part (*.json)"
EMPTY_LIST_TEXT = (
    "No sessions to show. Change the filters above (or tick Empty), or open another history "
    "with File ▸ Open history."
)
STATUS_NAME_CHARS = 60
"""A session's name in the status bar is cut to this many characters (whole in its tooltip)."""
HISTORY_FILES = dialog_filters()


def parse_query_terms(text: str) -> list[tuple[str, bool]]:
    """The words a query looks for, to highlight them; a malformed query highlights nothing."""
    try:
        return parse_query(text).terms
    except QueryError:
        return []


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
        self._initial_pending = False
        self._initial_asked: str | None = None
        self._open_database = open_database
        self.theme = theme
        self._theme_choice = theme_choice
        self._add_history = add_history
        self.locations: list[str] = []
        """The histories shown (set by whoever built the window)."""
        self._scroll_before_reset = 0
        self.last_message: str | None = None
        self.link_prompt: QMessageBox | None = None
        self.setWindowTitle(f"Gander — {histories_title(source)}")

        self.search = search
        self.exporter = exporter
        self.editor = editor
        self.finder = finder
        self.usage = usage
        self.live = live
        self._pending_hit: SearchHit | None = None
        self._search_marked = False
        """The transcript highlights a search's words (not the find bar's text)."""
        sessions.can_rename = editor.can_rename
        self._build_panes(theme, navigator)
        self.history = HistoryNavigation(
            transcript, self.transcript_view, self.back_bar, self._show_status, self
        )
        self.history.watch(self, self.transcript_view, self.session_list.viewport())
        self.session_actions = SessionActions(self.session_list, editor, self)
        self._build_status(note or histories_title(source), histories_tip(source))
        self._build_menus()
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
        self._restore()

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

    def _build_status(self, text: str, tip: str) -> None:
        """Labels that end in an ellipsis rather than widen the window: the histories (each
        path whole in the tooltip) and the open session."""
        self._index_meter = IndexMeter(self)
        self._source_label = ElidedLabel(text, self, tip=tip)
        self._session_label = ElidedLabel("", self)
        self._session_label.setMaximumWidth(420)
        self._count_label = QLabel("Loading sessions…")
        access = self.editor.access
        self._write_label = QLabel("" if access.can_rename or access.can_archive else "read-only")
        if access.reason:
            self._write_label.setToolTip(access.reason)
        self._undo_button = QToolButton(self)
        self._undo_button.setDefaultAction(self.session_actions.undo)
        self._undo_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self._undo_button.hide()
        self._undo_hide = QTimer(self)
        self._undo_hide.setSingleShot(True)
        self._undo_hide.setInterval(UNDO_SHOWN_MS)
        self._undo_hide.timeout.connect(self._undo_button.hide)
        status = self.statusBar()
        status.addPermanentWidget(self._undo_button)
        status.addWidget(self._source_label, 1)
        status.addPermanentWidget(self._index_meter)
        status.addPermanentWidget(self._session_label)
        status.addPermanentWidget(self._count_label)
        status.addPermanentWidget(self._write_label)

    def _wire_editing(self) -> None:
        """Renames and archives: asked for inline or from the header, refused or applied."""
        editor = self.editor
        self.sessions.rename_requested.connect(self._rename_requested)
        self.header.rename_requested.connect(self._rename_open_session)
        editor.changed.connect(self.sessions.refresh_sessions)
        editor.changed.connect(self._sessions_edited)
        editor.changed.connect(self.session_actions.update_enabled)
        editor.refused.connect(self._write_refused)
        editor.applied.connect(self._write_applied)

    def _wire(self) -> None:
        sessions, transcript, usage = self.sessions, self.transcript, self.usage
        transcript.settled.connect(lambda session: usage.load_session(session.id))
        usage.session_loaded.connect(self.usage_panel.show_session)
        usage.overview_loaded.connect(self.usage_panel.show_overview)
        usage.failed.connect(self._show_status)
        self.usage_panel.session_activated.connect(self.open_session)
        self._wire_editing()
        usage.session_loaded.connect(self._session_figures)
        self.header.open_requested.connect(self._open_parent)
        self.exporter.finished.connect(lambda path: self._show_status(f"Exported to {path}."))
        self.exporter.failed.connect(self._write_refused)
        actions = self.transcript_view.actions_for_qml
        actions.saved.connect(lambda path: self._show_status(f"Saved to {path}."))
        actions.save_failed.connect(self._write_refused)
        sessions.dataChanged.connect(self.session_actions.update_enabled)
        sessions.rowsInserted.connect(self._rows_inserted)
        sessions.populated.connect(self._populated)
        self.locator.counted.connect(self._count_label.setText)
        self.locator.widened.connect(self._show_status)
        transcript.modelReset.connect(self.locator.opening)
        sessions.failed.connect(self._show_status)
        transcript.failed.connect(self._transcript_failed)
        transcript.opened.connect(self._transcript_opened)
        self.session_list.selectionModel().selectionChanged.connect(self._selection_changed)
        self.transcript_view.actions_for_qml.link_clicked.connect(self._open_link)
        self.live.changed.connect(self._source_changed)
        self._wire_search()
        QWidget.setTabOrder(self.search_field, self.search_results)
        self.find_bar.find_requested.connect(self.finder.find)
        self.find_bar.find_requested.connect(lambda _: setattr(self, "_search_marked", False))
        self.find_bar.next_requested.connect(self.finder.next)
        self.find_bar.previous_requested.connect(self.finder.previous)
        self.find_bar.closed.connect(self.finder.clear)
        self.finder.status.connect(self.find_bar.status.setText)
        self.finder.show_row.connect(self.transcript_view.show_row)
        self.filter_bar.query_changed.connect(self.sessions.reload)
        self.usage.facets_loaded.connect(self.filter_bar.set_facets)
        sessions.modelAboutToBeReset.connect(self._remember_scroll)
        sessions.modelReset.connect(self._restore_scroll)

    def _wire_search(self) -> None:
        """The search field, its results and the index: the keyboard goes from the field into
        the results and back, and the end of the results asks for the next page."""
        self.search_field.query_changed.connect(self.search.search)
        self.search_field.active_changed.connect(self._search_active)
        self.search_field.returnPressed.connect(self.search_results.setFocus)
        self.search_field.down_pressed.connect(self._down_from_search)
        self.search_field.escaped.connect(self._leave_search)
        self.search_results.up_from_top.connect(self.search_field.setFocus)
        self.search_results.escaped.connect(self._leave_search)
        self.search.results.connect(self._search_results)
        self.search.failed.connect(self._show_status)
        self.search.progress.connect(self._index_meter.progress)
        self.search.ready.connect(self._index_meter.finished)
        self.search.ready.connect(self._index_ready)
        self.search_results.hit_activated.connect(self.open_hit)
        self.search_results.more_wanted.connect(
            lambda offset: self.search.search(self.search_field.text(), offset=offset)
        )

    def _build_menus(self) -> None:
        self._build_file_menu()
        edit_menu = self.menuBar().addMenu("&Edit")
        for action in (self.session_actions.undo, self.session_actions.redo):
            edit_menu.addAction(action)
        edit_menu.addSeparator()
        for action in (
            self.session_actions.rename,
            self.session_actions.archive,
            self.session_actions.unarchive,
        ):
            edit_menu.addAction(action)
        edit_menu.addAction(self.session_actions.copy_id)
        edit_menu.addSeparator()
        for text, keys, slot in (
            ("&Find in transcript…", QKeySequence.StandardKey.Find, self.find_bar.open_bar),
            ("Find &next", QKeySequence.StandardKey.FindNext, self.finder.next),
            ("Find &previous", QKeySequence.StandardKey.FindPrevious, self.finder.previous),
        ):
            action = QAction(text, self)
            action.setShortcut(keys)
            action.triggered.connect(slot)
            edit_menu.addAction(action)
        edit_menu.addSeparator()
        self.redact_copies_action = QAction("Remove secrets from &copies", self)
        self.redact_copies_action.setCheckable(True)
        self.redact_copies_action.setToolTip(
            "Copied messages and code have API keys, tokens, private keys and passwords "
            "replaced by [REDACTED:…], as `gander show --redact` does"
        )
        self.redact_copies_action.setChecked(self._settings.redact_copies)
        self.transcript_view.actions_for_qml.redact_copies = self._settings.redact_copies
        self.redact_copies_action.toggled.connect(self._toggle_redact_copies)
        edit_menu.addAction(self.redact_copies_action)
        edit_menu.addSeparator()
        focus_search = QAction("&Search all sessions", self)
        focus_search.setShortcut(QKeySequence("Ctrl+K"))
        focus_search.triggered.connect(self.search_field.focus_and_select)
        edit_menu.addAction(focus_search)
        self._build_toolbar()
        self._build_view_menu()
        self._build_help_menu()

    def _build_file_menu(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self.file_menu = file_menu
        if self._open_database is not None:
            opening = self._open_database
            for text, keys, pick in (
                ("&Open history file…", QKeySequence.StandardKey.Open, self._choose_file),
                ("Open history &folder…", None, self._choose_folder),
            ):
                action = QAction(text, self)
                if keys is not None:
                    action.setShortcut(keys)
                action.triggered.connect(lambda _=False, p=pick, o=opening: p(o))
                file_menu.addAction(action)
            self.recent_menu = file_menu.addMenu("Open &recent")
            self.recent_menu.aboutToShow.connect(self._fill_recent)
            file_menu.addSeparator()
        if self._add_history is not None:
            adding = self._add_history
            for text, pick in (
                ("&Add history file…", self._choose_file),
                ("Add history f&older…", self._choose_folder),
            ):
                action = QAction(text, self)
                action.setToolTip("Show another history in this window, beside those open")
                action.triggered.connect(lambda _=False, p=pick, a=adding: p(a))
                file_menu.addAction(action)
        self.agent_menu = AgentMenu(
            self._settings,
            lambda: self.locations,
            self._add_history,
            self._show_status,
            self,
        )
        file_menu.addMenu(self.agent_menu)
        file_menu.addSeparator()
        export_action = QAction("&Export session…", self)
        export_action.setShortcut(QKeySequence("Ctrl+Shift+S"))
        export_action.triggered.connect(lambda: self._export(redact=False))
        file_menu.addAction(export_action)
        redacted_action = QAction("Export session without &secrets…", self)
        redacted_action.triggered.connect(lambda: self._export(redact=True))
        file_menu.addAction(redacted_action)
        file_menu.addSeparator()
        quit_action = QAction("&Quit", self)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        file_menu.addAction(quit_action)

    def _build_toolbar(self) -> None:
        toolbar = self.addToolBar("Sessions")
        toolbar.setObjectName("sessions-toolbar")
        # Icons only: the Undo action's text names what it undoes and would grow the bar.
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        toolbar.addWidget(self.search_field)
        toolbar.addAction(self.session_actions.archive)
        toolbar.addAction(self.session_actions.unarchive)
        toolbar.addAction(self.session_actions.undo)
        # The filters have a row of their own: beside the search field, a narrow window hid
        # them behind the toolbar's "»".
        self.addToolBarBreak()
        filters = self.addToolBar("Filters")
        filters.setObjectName("filters-toolbar")
        self.filter_bar = FilterBar(self)
        if isinstance(self._source, CombinedHistory):
            self.filter_bar.set_histories(self._source.labels())
        filters.addWidget(self.filter_bar)

    def _build_view_menu(self) -> None:
        view_menu = self.menuBar().addMenu("&View")
        theme_menu = view_menu.addMenu("&Theme")
        group = QActionGroup(self)
        self.theme_actions: dict[str, QAction] = {}
        for choice, label in (("system", "&System"), ("light", "&Light"), ("dark", "&Dark")):
            action = QAction(label, self, checkable=True)
            action.setChecked(choice == self._theme_choice)
            action.triggered.connect(lambda _=False, c=choice: self.choose_theme(c))
            group.addAction(action)
            theme_menu.addAction(action)
            self.theme_actions[choice] = action
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._system_scheme_changed)
        view_menu.addSeparator()
        self.show_hidden_action = QAction("Show &agent-only messages", self)
        self.show_hidden_action.setCheckable(True)
        self.show_hidden_action.setShortcut(QKeySequence("Ctrl+Shift+H"))
        self.show_hidden_action.setChecked(self._settings.show_hidden)
        self.transcript.set_show_hidden(self._settings.show_hidden)
        self.show_hidden_action.toggled.connect(self._toggle_hidden)
        view_menu.addAction(self.show_hidden_action)
        self.shaping = ShapingActions(self.transcript, self._settings, self)
        view_menu.addActions(self.shaping.actions())
        view_menu.addSeparator()
        view_menu.addActions([self.history.back_action, self.history.forward_action])
        view_menu.addSeparator()
        view_menu.addActions(self.transcript_view.keyboard_actions())
        self.prompts = PromptNavigator(
            self.transcript, self.transcript_view.navigator, self._source, self
        )
        view_menu.addAction(self.prompts.action)
        view_menu.addSeparator()
        for label, shortcut, widget in (
            ("Focus session &list", "Ctrl+1", self.session_list),
            ("Focus &transcript", "Ctrl+2", self.transcript_view),
            ("Focus token &usage", "Ctrl+3", self.usage_panel),
        ):
            focus_action = QAction(label, self)
            focus_action.setShortcut(QKeySequence(shortcut))
            focus_action.triggered.connect(lambda _=False, w=widget: w.setFocus())
            view_menu.addAction(focus_action)
        usage_toggle = self.usage_dock.toggleViewAction()
        usage_toggle.setShortcut(QKeySequence("Ctrl+Shift+U"))
        view_menu.addAction(usage_toggle)

    def _export(self, *, redact: bool) -> None:
        """Save the open session; as shown (agent-only messages when they are shown)."""
        session_id = self.transcript.session_id
        if session_id is None:
            self._show_status("Open a session to export it.")
            return
        name = "".join(c if c.isalnum() or c in "-_." else "_" for c in session_id)[:80]
        path, chosen = QFileDialog.getSaveFileName(
            self, "Export session", f"{name}.md", EXPORT_FILTERS
        )
        if not path:
            return
        target = Path(path)
        self.exporter.export(
            session_id,
            target,
            format_of(target, chosen),
            hidden=self.transcript.show_hidden,
            redact=redact,
        )

    def _build_help_menu(self) -> None:
        help_menu = self.menuBar().addMenu("&Help")
        readers = (
            [r for _, r in self._source.readers()]
            if isinstance(self._source, CombinedHistory)
            else [self._source]
        )
        for text, html in (
            ("&Keyboard shortcuts", shortcuts_html),
            ("&Search syntax", search_html),
            ("&About Gander", lambda: about_html([r.info() for r in readers])),
        ):
            action = QAction(text, self)
            action.triggered.connect(lambda _=False, t=text, h=html: self._show_help(t, h()))
            help_menu.addAction(action)
        help_menu.addAction("Open &log folder").triggered.connect(self._open_log_folder)

    def _open_log_folder(self) -> None:
        if problem := open_log_folder():
            self._show_status(problem)

    def choose_theme(self, choice: str) -> None:
        """View ▸ Theme: light, dark, or following the system — applied at once, remembered."""
        self._theme_choice = choice
        self._settings.theme = choice
        self.theme_actions[choice].setChecked(True)
        self.apply_theme(resolve_theme(choice))

    def _system_scheme_changed(self, *_: object) -> None:
        if self._theme_choice == "system":
            self.apply_theme(resolve_theme("system"))

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        application = QApplication.instance()
        if isinstance(application, QApplication):
            application.setPalette(palette_for(theme))
        # A widget with a style sheet keeps the palette it was polished with (the header's
        # title stayed dark on dark until a restart): polished again, it takes the new one.
        for widget in (self, *self.findChildren(QWidget)):
            if widget.styleSheet():
                widget.style().unpolish(widget)
                widget.style().polish(widget)
        self.transcript.set_dark(theme.dark)
        self.transcript_view.set_theme(theme)

    def _show_help(self, title: str, html: str) -> None:
        """Not modal for the application: goose's updates keep arriving while it is open."""
        box = QMessageBox(QMessageBox.Icon.NoIcon, title.replace("&", ""), html, parent=self)
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.help_box = box
        box.open()

    def _choose_file(self, then: Callable[[str], None]) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Choose a history file", "", HISTORY_FILES)
        if path:
            then(path)

    def _choose_folder(self, then: Callable[[str], None]) -> None:
        path = QFileDialog.getExistingDirectory(self, "Choose a history folder")
        if path:
            then(path)

    def offer_history(self, label: str, status: str, location: str) -> None:
        """A history worth adding (goose's legacy sessions beside its database): offered in the
        File menu and the status bar, never opened unasked."""
        if self._add_history is None:
            return
        adding = self._add_history
        self.legacy_action = QAction(label, self)
        self.legacy_action.triggered.connect(lambda: adding(location))
        self.file_menu.insertAction(self.file_menu.actions()[0], self.legacy_action)
        self.statusBar().showMessage(status, 30_000)

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for path in self._settings.recent_files:
            action = self.recent_menu.addAction(path)
            action.triggered.connect(
                lambda _=False, p=path: self._open_database(p) if self._open_database else None
            )
        self.recent_menu.setEnabled(bool(self._settings.recent_files))

    def _load_figures(self, *_: object) -> None:
        """The usage overview and the filter's choices, once the first rows are listed: they
        read the whole history, and must not delay the list on the one worker."""
        if self._figures_loaded:
            return
        self._figures_loaded = True
        self.usage.load_overview()
        self.usage.load_facets()

    def _restore(self) -> None:
        if self._settings.window_geometry is not None:
            self.restoreGeometry(self._settings.window_geometry)
        else:
            self._first_size()
        if self._settings.splitter_state is not None:
            self.splitter.restoreState(self._settings.splitter_state)
        if self._settings.window_state is not None:
            self.restoreState(self._settings.window_state)
        if self._settings.window_state is None or self._settings.splitter_state is None:
            QTimer.singleShot(0, self, self._first_layout)

    def _first_size(self) -> None:
        """A window shown the first time is 1280×800, or the screen's free area less room for
        a frame where that is smaller. A window manager shrinking a 1280-pixel window
        afterwards left the panes laid out for 1280 (the usage panel 300 px of an 800-pixel
        screen, the transcript clipped on the right); one as large as the free area put its
        status bar under the screen's edge, the title bar above it."""
        free = self.screen().availableGeometry().size()
        self.resize(FIRST_SIZE.boundedTo(free - FRAME_ROOM))

    def _first_layout(self) -> None:
        """Pane widths for a window shown the first time, in proportion to it (a user's own
        are restored instead): the usage panel a quarter, within bounds — at 800 px its own
        width was almost half — and the list a third of what is left."""
        if self._settings.window_state is None:
            width = min(max(self.width() * 24 // 100, USAGE_MIN_WIDTH), USAGE_WIDTH)
            self.resizeDocks([self.usage_dock], [width], Qt.Orientation.Horizontal)
        if self._settings.splitter_state is None:
            central = self.splitter.width()
            left = min(max(central * 32 // 100, 200), 360)
            self.splitter.setSizes([left, max(central - left, 200)])

    def open_initial(self, session_id: str | None) -> None:
        """Open `session_id`, else the last session viewed, else the newest one once listed.
        `session_id` was looked up before the window was built (`app.build_window`); one gone
        by the time it opens is said (status bar and signal) before the newest session is
        opened instead; a remembered one that is gone is silently skipped."""
        self._initial_asked = session_id
        wanted = session_id or self._settings.last_session_id
        if wanted:
            self._initial_pending = True
            self.transcript.open_session(wanted)

    def _search_results(self, results: SearchResults | None) -> None:
        self.search_results.show_results(results)
        if results is not None:
            self.statusBar().showMessage(
                f"{self.search_results.summary} · {results.elapsed_ms:.0f} ms", 10_000
            )

    def _index_ready(self) -> None:
        if self.search_field.text().strip():
            self.search.search(self.search_field.text())

    def _search_active(self, active: bool) -> None:
        """The results while there is a query; the list, and no search highlight, without.
        The list's filters do not apply to results: while they are shown the filters are off
        (no Tab stop that does nothing), and Tab goes from the search field to the results."""
        self.left_pane.setCurrentWidget(self.search_results if active else self.session_list)
        self.filter_bar.setEnabled(not active)
        if not active and self._search_marked:
            self._search_marked = False
            self.transcript.set_needle("")

    def _down_from_search(self) -> None:
        """Down in the search field: into the results, or the list while there is no query."""
        if self.left_pane.currentWidget() is self.search_results:
            self.search_results.enter_from_above()
        else:
            self.session_list.setFocus()

    def _leave_search(self) -> None:
        """Esc: the search is cleared and the list is back, on the open session."""
        self.search_field.clear()
        self.session_list.setFocus()
        current = self.session_list.currentIndex()
        if current.isValid():
            self.session_list.scrollTo(current)

    def open_hit(self, hit: object) -> None:
        """Open a search hit's session at the message, the query's words highlighted as the
        index matched them."""
        self.transcript.set_needle(SearchTerms(tuple(parse_query_terms(self.search_field.text()))))
        self._search_marked = True
        if isinstance(hit, str):
            self.open_session(hit)
            return
        if not isinstance(hit, SearchHit):
            return
        self._pending_hit = hit
        if hit.session_id == self.transcript.session_id:
            self._show_pending_hit()
        else:
            self.transcript.open_session(hit.session_id, around=hit.cursor)

    def _show_pending_hit(self) -> None:
        hit, self._pending_hit = self._pending_hit, None
        if hit is None or hit.session_id != self.transcript.session_id:
            return
        row = self.transcript.row_of(hit.cursor) if hit.cursor is not None else -1
        if row < 0:
            return
        if hit.agent_only and not self.show_hidden_action.isChecked():
            self.show_hidden_action.setChecked(True)
            self.statusBar().showMessage(
                "Showing agent-only messages: the hit is in one (View ▸ Show agent-only messages).",
                10_000,
            )
        self.transcript_view.show_row(row)

    def _source_changed(self) -> None:
        self.search.update()
        self.sessions.refresh_all()
        self.transcript.refresh()
        if self.transcript.session_id is not None:
            self.usage.load_session(self.transcript.session_id)

    def _remember_scroll(self) -> None:
        self._scroll_before_reset = self.session_list.verticalScrollBar().value()

    def _restore_scroll(self) -> None:
        self._sync_selection()
        self.session_list.verticalScrollBar().setValue(self._scroll_before_reset)

    def open_session(self, session_id: str) -> None:
        if session_id != self.transcript.session_id:
            self.transcript.open_session(session_id)

    def _rows_inserted(self, parent: QModelIndex, _first: int, _last: int) -> None:
        if not parent.isValid():
            self._sync_selection()

    def _sync_selection(self) -> None:
        """Select the open session in the list, or open the newest when nothing is open."""
        if self._initial_pending:
            return
        current = self.transcript.session_id
        if current is None:
            newest = self.sessions.first_session()
            if newest.isValid():
                self.session_list.setCurrentIndex(newest)
            return
        index = self.sessions.find_session(current)
        # Selected is enough: the keyboard may be elsewhere (End following the pages moves it
        # to each page's last row, and moving it back at each page cost 0.4 s a page).
        if index.isValid() and not self.session_list.selectionModel().isSelected(index):
            self.session_list.setCurrentIndex(index)

    def _populated(self, count: int) -> None:
        self.session_list.placeholder = "" if count else EMPTY_LIST_TEXT
        self.session_list.viewport().update()

    def _selection_changed(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        indexes = selected.indexes()
        if not indexes:
            return
        session = indexes[0].data(SessionRole.SESSION)
        if isinstance(session, Session) and session.id != self.transcript.session_id:
            self._initial_pending = False
            self.transcript.open_session(session.id)

    def _transcript_opened(self, session: Session, count: int) -> None:
        self._initial_pending = False
        if self._pending_hit is not None:
            self._show_pending_hit()
        self._settings.last_session_id = session.id
        self._show_session_name(self._with_listed_count(session), count)
        self._sync_selection()
        self.locator.locate(session.id)

    def _with_listed_count(self, session: Session) -> Session:
        """A transcript opens without counting its messages (a goose session's count reads
        every message's metadata); the list row has counted them, and the header shows that
        same figure until the usage loader's own count arrives."""
        if session.message_count is not None:
            return session
        listed = self.sessions.find_session(session.id).data(SessionRole.SESSION)
        if isinstance(listed, Session) and listed.message_count is not None:
            return replace(session, message_count=listed.message_count)
        return session

    def _show_header(self, session: Session, count: int | None = None) -> None:
        _info, native, _tag = origin_of(self._source, session.id)
        source = self._source
        self.header.show_session(
            session,
            self.transcript.rowCount() if count is None else count,
            native_id=native,
            resume=source.resume(session) if isinstance(source, Resumable) else None,
            file=source.session_file(session.id) if isinstance(source, SessionFiles) else None,
        )

    def _rename_open_session(self) -> None:
        """The header's title was clicked: rename the session in the list, in place."""
        session = self.header.session
        if session is None or not self.editor.can_rename(session):
            if session is not None:
                self._show_status(self.editor.access_for(session).reason or "")
            return
        index = self.sessions.find_session(session.id)
        if index.isValid():
            self.session_list.setCurrentIndex(index)
            self.session_list.edit(index)

    def _open_parent(self, native_parent: str) -> None:
        session = self.header.session
        if session is not None and session.parent_session_id:
            self.history.follow_link(session.parent_session_id)
            self.open_session(session.parent_session_id)
        del native_parent

    def _show_session_name(self, session: Session, count: int | None = None) -> None:
        """The open session in the status bar, a long name shortened (whole in the tooltip)."""
        if count is None:
            count = self.transcript.rowCount()
        name = " ".join((session.name or session.id).split())
        short = name if len(name) <= STATUS_NAME_CHARS else name[: STATUS_NAME_CHARS - 1] + "…"
        # An isolate keeps a right-to-left name from reordering the text after it.
        self._session_label.set_full_text(
            f"\u2068{short}\u2069 · {message_figures(session.message_count, count)}", tip=name
        )
        self._show_header(session, count)

    def _sessions_edited(self, session_ids: list[str]) -> None:
        """A rename or archive of the open session shows everywhere: the usage panel reloads
        it, and the status bar follows when it arrives."""
        current = self.transcript.session_id
        if current is not None and current in session_ids:
            self.usage.load_session(current)
        self.usage.load_overview()  # its top sessions by cost show names too

    def _session_figures(self, session: Session, *_: object) -> None:
        if session.id == self.transcript.session_id:
            self._show_session_name(session)

    def _transcript_failed(self, message: str) -> None:
        if self._initial_pending:
            self._initial_pending = False
            if self._initial_asked is not None:
                self._show_status(message)
                self.initial_session_missing.emit(message)
            self.transcript.open_session(None)
            self._sync_selection()
            return
        self._show_status(message)

    def _toggle_redact_copies(self, checked: bool) -> None:
        self._settings.redact_copies = checked
        self.transcript_view.actions_for_qml.redact_copies = checked

    def _toggle_hidden(self, checked: bool) -> None:
        self._settings.show_hidden = checked
        self.transcript.set_show_hidden(checked)

    def _open_link(self, row: int, link: str) -> None:
        """Show the full target first; only an explicit Yes hands it to the system browser.
        Only http, https and mailto links are ever offered (the renderer makes no others); a
        link to another session of the same history (a sub-agent's) opens it here, and Back
        returns to the card at `row`."""
        scheme, _, native = link.partition(":")
        if scheme == SESSION_SCHEME and native and self.transcript.session_id is not None:
            _info, _native, tag = origin_of(self._source, self.transcript.session_id)
            target = f"{tag}:{native}" if tag else native
            self.history.follow_link(target, row)
            self.open_session(target)
            return
        if safe_link(link) is None:
            self._show_status(f"Gander does not open links like this one: {link[:200]}")
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Open link",
            f"Open this link in your browser?\n\n{link}",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self,
        )
        box.setDefaultButton(QMessageBox.StandardButton.No)
        box.finished.connect(lambda result: self._link_answered(link, result))
        if self.link_prompt is not None:
            self.link_prompt.deleteLater()
        self.link_prompt = box
        box.open()

    @staticmethod
    def _link_answered(link: str, result: int) -> None:
        if result == QMessageBox.StandardButton.Yes:
            QDesktopServices.openUrl(QUrl(link))

    def _rename_requested(self, session_id: str, name: str) -> None:
        index = self.sessions.find_session(session_id)
        session = index.data(SessionRole.SESSION) if index.isValid() else None
        if isinstance(session, Session):
            self.editor.rename(session, name)

    def _write_applied(self, sentence: str) -> None:
        """ "Renamed “a” to “b”." in the status bar, with an Undo button beside it while it
        shows."""
        self.statusBar().showMessage(sentence, UNDO_SHOWN_MS)
        self._undo_button.show()
        self._undo_hide.start()

    def _write_refused(self, message: str) -> None:
        """Window-modal but not blocking: the event loop (and goose's updates) keep running."""
        box = QMessageBox(QMessageBox.Icon.Warning, "Nothing was changed", message, parent=self)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        self.last_message = message

    def _show_status(self, message: str) -> None:
        """A sentence in the status bar for 15 s: what failed, or what an export or a save
        wrote."""
        self.statusBar().showMessage(message, 15_000)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.live.stop()
        self.search.close()
        self._source.close()
        self._settings.window_geometry = self.saveGeometry()
        self._settings.splitter_state = self.splitter.saveState()
        self._settings.window_state = self.saveState()
        self._settings.sync()
        super().closeEvent(event)
