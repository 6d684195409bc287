"""Composition root: builds the source, task runner, models, settings and window, then runs.

Everything is constructed here and injected; nothing is a module global (qt-codebases anti-pattern
3). `--screenshot` renders the loaded window to a PNG and exits, for the README and for tests.
"""

import argparse
import functools
import gc
import logging
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import (
    QCoreApplication,
    QEventLoop,
    QMessageLogContext,
    QModelIndex,
    QSettings,
    QSize,
    Qt,
    QTimer,
    QtMsgType,
    qInstallMessageHandler,
)
from PySide6.QtGui import QIcon
from PySide6.QtQuick import QQuickWindow, QSGRendererInterface
from PySide6.QtWidgets import QApplication, QMessageBox

from desktop_app import __version__
from desktop_app.domain.combined import session_reference
from desktop_app.domain.errors import GanderError, UnknownSession
from desktop_app.domain.source import Cataloguing, SessionQuery, Source
from desktop_app.files.logs import active_log_file, crash_hooks
from desktop_app.files.output import Protected
from desktop_app.files.places import settings_file
from desktop_app.opening import (
    DEFAULT_BUSY_TIMEOUT_S,
    OpenedHistories,
    default_locations,
    history_paths,
    legacy_offer,
    open_histories,
    reopener,
)
from desktop_app.rendering.transcript_blocks import MessageRenderer
from desktop_app.sources.registry import absolute, available, is_server, split_kind
from desktop_app.ui.crash import CrashReporter
from desktop_app.ui.exporter import SessionExporter
from desktop_app.ui.live import LiveWatcher
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.models.session_tree import SessionTreeModel
from desktop_app.ui.models.transcript import TranscriptModel
from desktop_app.ui.resources import resource_path
from desktop_app.ui.search_controller import SearchController
from desktop_app.ui.session_editing import SessionEditor
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.theme import palette_for, resolve_theme
from desktop_app.ui.transcript_find import TranscriptFinder
from desktop_app.ui.transcript_navigation import TranscriptNavigator
from desktop_app.ui.usage_loader import UsageLoader

SCREENSHOT_TIMEOUT_S = 20.0
INDEX_START_DELAY_MS = 1500
"""The search index is brought up to date once the window has shown what the user asked for:
a first build of a large history takes seconds of both cores."""
SCREENSHOT_SIZE = QSize(1280, 800)
"""Screenshots ignore the saved window size so they are comparable run to run."""


def _application() -> QApplication:
    QQuickWindow.setGraphicsApi(QSGRendererInterface.GraphicsApi.Software)
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    app = QApplication(sys.argv[:1])
    app.setApplicationName("Gander")
    app.setOrganizationName("gander")
    app.setApplicationVersion(__version__)
    app.setDesktopFileName("io.github.gander.Gander")
    app.setWindowIcon(QIcon(str(resource_path("icons", "gander.svg"))))
    return app


def history_locations(args: argparse.Namespace) -> list[str]:
    """Every `--db` (one path, or those given before and after a subcommand)."""
    found: list[str] = []
    for given in (getattr(args, "db", None), getattr(args, "db_after", None)):
        if isinstance(given, Path | str):
            found.append(str(given))
        elif given:
            found.extend(str(p) for p in given)
    return found


def _open_for_window(
    args: argparse.Namespace, data_dir: Path, settings: Settings
) -> tuple[OpenedHistories, list[str]]:
    """The histories named on the command line; with none (and no `--demo`), the set the
    window last showed, when every one of them is still there, else goose's database and the
    coding agents' logs found here (less those turned off). Also where they are, to remember
    and to add to (a server's URL whole, secrets included: it is kept in memory only)."""
    locations = history_locations(args)
    if not locations and not args.demo:
        off = set(settings.disabled_agents)
        remembered = [p for p in settings.open_histories if split_kind(p)[0] not in off]
        if remembered and all(available(p) for p in remembered):
            locations = remembered
        else:
            locations = default_locations(off)
    opened = open_histories(
        locations,
        demo=args.demo,
        data_dir=data_dir,
        busy_timeout_s=getattr(args, "wait", DEFAULT_BUSY_TIMEOUT_S),
    )
    shown = [absolute(p) for p in locations] or [r.info().location for r in opened.readers]
    if not opened.is_demo:
        settings.open_histories = shown
        for location in reversed(shown):
            settings.remember_file(location)
    # The window keeps a server's URL as given, secrets included, in memory only: File ▸ Add
    # history opens every history again, and a URL without its password would fail then.
    kept = [str(p) if is_server(p) else absolute(p) for p in locations]
    return opened, kept or shown


def build_window(
    args: argparse.Namespace,
    data_dir: Path,
    settings: Settings,
    tasks: TaskRunner,
    *,
    open_database: Callable[[str], None] | None = None,
    add_history: Callable[["MainWindow", str], None] | None = None,
    strict_session: bool = True,
) -> MainWindow:
    """The window over the histories `args` name (or the remembered set, or the default), on
    the session `args.session` names. That session is looked up as the CLI looks one up
    (`ID`, `KIND:ID`, `TAG:ID`), before any window exists: with `strict_session`, one that
    matches nothing (or more than one) is the sentence of an `UnknownSession`, and no window
    opens; without it (the session a window showed, when a history is added) it is let go."""
    opened, locations = _open_for_window(args, data_dir, settings)
    try:
        session = _initial_session(opened.source, args.session, strict=strict_session)
    except GanderError:
        opened.source.close()
        raise
    window = assemble_window(
        opened,
        argparse.Namespace(**{**vars(args), "session": session}),
        data_dir,
        settings,
        tasks,
        open_database=open_database,
        add_history=add_history,
    )
    window.locations = locations
    return window


def _initial_session(source: Source, asked: str | None, *, strict: bool) -> str | None:
    """The id `source` knows for the session the user named, by `session_reference`; the
    session must be there (a single history takes any id as it is)."""
    if asked is None:
        return None
    try:
        found = session_reference(source, asked)
        source.get_session(found, with_message_count=False)
    except UnknownSession:
        if strict:
            raise
        return None
    return found


def assemble_window(
    opened: OpenedHistories,
    args: argparse.Namespace,
    data_dir: Path,
    settings: Settings,
    tasks: TaskRunner,
    *,
    open_database: Callable[[str], None] | None = None,
    add_history: Callable[["MainWindow", str], None] | None = None,
) -> MainWindow:
    """Models, loaders and the window over histories already open: whatever their kinds."""
    choice = getattr(args, "theme", None) or settings.theme
    theme = resolve_theme(choice)
    sessions = SessionTreeModel(opened.source, tasks, SessionQuery(with_empty=False))
    transcript = TranscriptModel(opened.source, tasks, MessageRenderer(dark=theme.dark))
    editor = SessionEditor(opened.source, tasks)
    live = LiveWatcher(opened.source, tasks)
    for reader in opened.readers:  # the list shows what is read while the rest is read
        if isinstance(reader, Cataloguing):
            reader.catalogue_in_background()
    # The worker reads the change token and the list's first page while the window is built
    # (SQLite runs without the interpreter lock): the rows arrive with the first frame.
    live.start()
    sessions.reload()
    window = MainWindow(
        opened.source,
        sessions=sessions,
        transcript=transcript,
        editor=editor,
        usage=UsageLoader(opened.source, tasks),
        live=live,
        finder=TranscriptFinder(opened.source, tasks, transcript),
        navigator=TranscriptNavigator(transcript, opened.source, tasks),
        exporter=SessionExporter(opened.source, tasks),
        search=SearchController(
            opened.source, tasks, data_dir, functools.partial(reopener, data_dir)
        ),
        settings=settings,
        theme=theme,
        theme_choice=choice,
        note=opened.note,
        open_database=open_database,
        add_history=(lambda path: add_history(window, path)) if add_history else None,
    )
    window.locations = [r.info().location for r in opened.readers]
    # While files are read behind the list, it is refreshed as each count of them comes (every
    # half second), not at the next second's poll.
    window.status.reading.changed.connect(lambda _sentence: live.poll())
    protected = Protected(files=(settings.path,), folders=(data_dir,))
    for location in history_paths(opened.source):
        protected = protected.with_history(location)
    window.transcript_view.actions_for_qml.protected = protected
    window.exporter.protected = protected
    window.apply_theme(theme)
    _freeze_start_up()
    window.open_initial(args.session)
    QTimer.singleShot(INDEX_START_DELAY_MS, lambda: _start_indexing(window))
    if not opened.is_demo:
        readers = opened.readers
        tasks.run(
            lambda: legacy_offer(readers),
            lambda found: _offer_legacy(window, *found) if found else None,
            lambda _error: None,
            background=True,
        )
    return window


@functools.cache
def _freeze_start_up() -> None:
    """Once per process, when the first window is built: everything alive then (modules,
    classes, the window's widgets and wrappers, some 50,000 objects) lives as long as the
    process, so the cyclic collector stops walking it. A full collection runs in whichever
    thread allocates and holds the interpreter lock throughout; over those objects it took
    20–60 ms, a stall of the window each time a worker thread allocated enough to trigger one
    (measured during the first build of a large index, issue #13)."""
    gc.freeze()


def _start_indexing(window: MainWindow) -> None:
    """The index's first update, once the window has drawn: what start-up made since
    `_freeze_start_up` (the list's sessions, the first transcript, the usage figures,
    SQLAlchemy's tables — over 100,000 objects on 20,000 sessions) is frozen first. The build
    allocates as it goes, and every full collection it triggers on its thread walked those
    objects holding the interpreter lock: 30–45 ms stalls of the window about once a second
    through a first build (#19; 16–21 ms after this freeze). Once per process, so the
    cycles it keeps from collection stay a start-up's few."""
    _freeze_settled()
    window.search.update()


@functools.cache
def _freeze_settled() -> None:
    gc.freeze()


def _offer_legacy(window: MainWindow, location: str, folder: Path, count: int) -> None:
    window.offer_history(
        f"Add goose's {count} older sessions (legacy files in {folder})",
        f"{count} older goose sessions in {folder} are not in this database; File ▸ Add goose's "
        "older sessions shows them.",
        location,
    )


def wait_until_idle(window: MainWindow, tasks: TaskRunner, timeout_s: float) -> None:
    """Process events until the list and the visible transcript rows have arrived."""
    deadline = time.monotonic() + timeout_s
    quiet_since: float | None = None
    while time.monotonic() < deadline:
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        loaded = window.sessions.rowCount(QModelIndex()) > 0 and not tasks.busy
        if loaded and not window.transcript.pending:
            quiet_since = quiet_since or time.monotonic()
            if time.monotonic() - quiet_since > 0.3:
                return
        else:
            quiet_since = None
        time.sleep(0.01)


class Windows:
    """Every open window; File ▸ Open adds one for another database (like a browser window)."""

    def __init__(self, data_dir: Path, settings: Settings, tasks: TaskRunner) -> None:
        self._data_dir = data_dir
        self._settings = settings
        self._tasks = tasks
        self.open_windows: list[MainWindow] = []
        self.last_error: str | None = None

    def open(self, args: argparse.Namespace, *, strict_session: bool = True) -> MainWindow:
        window = build_window(
            args,
            self._data_dir,
            self._settings,
            self._tasks,
            open_database=self.open_path,
            add_history=self.add_to,
            strict_session=strict_session,
        )
        self.open_windows.append(window)
        window.destroyed.connect(lambda *_: self._forget(window))
        return window

    def _forget(self, window: MainWindow) -> None:
        if window in self.open_windows:
            self.open_windows.remove(window)

    def open_path(self, path: Path | str) -> None:
        """File ▸ Open: the history in a window of its own."""
        self._open_shown([str(path)], session=None, geometry_of=None)

    def add_to(self, window: MainWindow, path: Path | str) -> None:
        """File ▸ Add history: the window shows its histories and this one, together. The
        window is built again over the larger set, in the same place and on the same session;
        a history already shown or one that cannot be opened leaves it as it was."""
        if any(_same(path, shown) for shown in window.locations):
            self._say_refused(f"{split_kind(path)[1]} is already open in this window.", window)
            return
        replaced = self._open_shown(
            [*window.locations, str(path)],
            session=window.transcript.session_id,
            geometry_of=window,
        )
        if replaced:
            window.close()
            self._forget(window)
            window.deleteLater()

    def _open_shown(
        self, locations: list[str], *, session: str | None, geometry_of: MainWindow | None
    ) -> bool:
        args = argparse.Namespace(db=locations, demo=False, session=session, theme=None)
        try:
            window = self.open(args, strict_session=False)
        except GanderError as error:
            self._say_refused(str(error), geometry_of)
            return False
        if geometry_of is not None:
            window.setGeometry(geometry_of.geometry())
        window.show()
        return True

    def _say_refused(self, message: str, parent: MainWindow | None) -> None:
        self.last_error = message
        parent = parent or (self.open_windows[-1] if self.open_windows else None)
        box = QMessageBox(QMessageBox.Icon.Warning, "Gander", message, parent=parent)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()


def _same(one: Path | str, other: Path | str) -> bool:
    """The same history: the same kind (if named) of the same file or folder."""
    if is_server(one) or is_server(other):
        return absolute(one) == absolute(other)
    (kind, path), (other_kind, other_path) = split_kind(one), split_kind(other)
    if kind != other_kind:
        return False
    try:
        return path.resolve() == other_path.resolve() or path.samefile(other_path)
    except OSError:
        return False


def _say(message: str) -> None:
    print(f"gander: {message}", file=sys.stderr)


_OFFSCREEN_NOISE = "This plugin does not support propagateSizeHints()"
_qt_log = logging.getLogger(f"{__name__}.qt")
_QT_LEVELS = {
    QtMsgType.QtDebugMsg: logging.DEBUG,
    QtMsgType.QtInfoMsg: logging.INFO,
    QtMsgType.QtWarningMsg: logging.WARNING,
    QtMsgType.QtCriticalMsg: logging.ERROR,
    QtMsgType.QtFatalMsg: logging.CRITICAL,
}


def _qt_messages(kind: QtMsgType, context: QMessageLogContext, message: str) -> None:
    """Qt's own messages to the log and stderr, less the offscreen plugin's note that it cannot
    pass size hints to a window manager it does not have (it says so once per window). Warnings
    and worse reach stderr through the log (`files/logs.py`), the rest are printed here."""
    del context
    if message != _OFFSCREEN_NOISE:
        level = _QT_LEVELS.get(kind, logging.WARNING)
        _qt_log.log(level, "%s", message)
        if level < logging.WARNING:
            print(message, file=sys.stderr)


def run_window(args: argparse.Namespace, data_dir: Path) -> int:
    if args.screenshot and not os.environ.get("QT_QPA_PLATFORM"):
        # A screenshot needs no screen: render offscreen rather than fail without a display.
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    qInstallMessageHandler(_qt_messages)
    app = _application()
    app.setStyle("Fusion")
    app.setPalette(palette_for(resolve_theme(args.theme or "system")))
    store = QSettings(str(settings_file()), QSettings.Format.IniFormat)
    settings = Settings(store)
    tasks = TaskRunner()
    # A screenshot has nobody to read a dialog: its crashes are logged and printed only.
    reporter = None if args.screenshot else CrashReporter(active_log_file())
    with crash_hooks(reporter.report if reporter else None):
        return _run_windows(args, Windows(data_dir, settings, tasks), tasks, app)


def _run_windows(
    args: argparse.Namespace, windows: Windows, tasks: TaskRunner, app: QApplication
) -> int:
    """The first window, then the event loop until the last window closes."""
    try:
        window = windows.open(args)
    except GanderError as error:
        _say(str(error))
        if not args.screenshot:
            QMessageBox.critical(None, "Gander", str(error))
        tasks.shutdown()
        return 1
    window.initial_session_missing.connect(_say)
    if args.screenshot:
        window.resize(SCREENSHOT_SIZE)
    window.show()
    if args.screenshot:
        wait_until_idle(window, tasks, SCREENSHOT_TIMEOUT_S)
        ok = window.grab().save(str(args.screenshot))
        window.close()
        tasks.shutdown()
        if not ok:
            print(f"gander: could not write {args.screenshot}", file=sys.stderr)
            return 1
        return 0
    code = app.exec()
    tasks.shutdown()
    return code
