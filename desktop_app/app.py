"""Composition root: builds the source, task runner, models, settings and window, then runs.

Everything is constructed here and injected; nothing is a module global (qt-codebases anti-pattern
3). `--screenshot` renders the loaded window to a PNG and exits, for the README and for tests.
"""

import argparse
import functools
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
from desktop_app.domain.errors import GanderError
from desktop_app.domain.source import SessionQuery
from desktop_app.files.output import Protected
from desktop_app.files.places import settings_file
from desktop_app.rendering.transcript_blocks import MessageRenderer
from desktop_app.sources.goose import GooseSource
from desktop_app.sources.goose.connection import DEFAULT_BUSY_TIMEOUT_S
from desktop_app.sources.goose.opening import open_goose
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


def build_window(
    args: argparse.Namespace,
    data_dir: Path,
    settings: Settings,
    tasks: TaskRunner,
    open_database: Callable[[Path], None] | None = None,
) -> MainWindow:
    opened = open_goose(
        args.db,
        demo=args.demo,
        data_dir=data_dir,
        busy_timeout_s=getattr(args, "wait", DEFAULT_BUSY_TIMEOUT_S),
    )
    if not opened.is_demo:
        settings.remember_file(str(opened.source.info().location))
    theme = resolve_theme(getattr(args, "theme", "system"))
    sessions = SessionTreeModel(opened.source, tasks, SessionQuery())
    transcript = TranscriptModel(opened.source, tasks, MessageRenderer(dark=theme.dark))
    editor = SessionEditor(opened.source, tasks)
    window = MainWindow(
        opened.source,
        sessions=sessions,
        transcript=transcript,
        editor=editor,
        usage=UsageLoader(opened.source, tasks),
        live=LiveWatcher(opened.source, tasks),
        finder=TranscriptFinder(opened.source, tasks, transcript),
        search=SearchController(
            opened.source,
            tasks,
            data_dir,
            functools.partial(GooseSource, Path(opened.source.info().location)),
        ),
        settings=settings,
        theme=theme,
        note=opened.note,
        open_database=open_database,
    )
    window.transcript_view.actions_for_qml.protected = Protected(
        files=(settings.path,), folders=(data_dir,)
    ).with_history(Path(opened.source.info().location))
    window.open_initial(args.session)
    sessions.reload()
    window.live.start()
    QTimer.singleShot(INDEX_START_DELAY_MS, window.search.update)
    return window


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

    def open(self, args: argparse.Namespace) -> MainWindow:
        window = build_window(args, self._data_dir, self._settings, self._tasks, self.open_path)
        self.open_windows.append(window)
        window.destroyed.connect(lambda *_: self._forget(window))
        return window

    def _forget(self, window: MainWindow) -> None:
        if window in self.open_windows:
            self.open_windows.remove(window)

    def open_path(self, path: Path) -> None:
        args = argparse.Namespace(db=path, demo=False, session=None, theme="system")
        try:
            window = self.open(args)
        except GanderError as error:
            self.last_error = str(error)
            parent = self.open_windows[-1] if self.open_windows else None
            box = QMessageBox(QMessageBox.Icon.Warning, "Gander", str(error), parent=parent)
            box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            box.open()
            return
        window.show()


def _say(message: str) -> None:
    print(f"gander: {message}", file=sys.stderr)


_OFFSCREEN_NOISE = "This plugin does not support propagateSizeHints()"


def _qt_messages(kind: QtMsgType, context: QMessageLogContext, message: str) -> None:
    """Qt's own messages to stderr, less the offscreen plugin's note that it cannot pass size
    hints to a window manager it does not have (it says so once per window)."""
    del kind, context
    if message != _OFFSCREEN_NOISE:
        print(message, file=sys.stderr)


def run_window(args: argparse.Namespace, data_dir: Path) -> int:
    if args.screenshot and not os.environ.get("QT_QPA_PLATFORM"):
        # A screenshot needs no screen: render offscreen rather than fail without a display.
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    qInstallMessageHandler(_qt_messages)
    app = _application()
    app.setStyle("Fusion")
    app.setPalette(palette_for(resolve_theme(args.theme)))
    store = QSettings(str(settings_file()), QSettings.Format.IniFormat)
    settings = Settings(store)
    tasks = TaskRunner()
    windows = Windows(data_dir, settings, tasks)
    try:
        window = windows.open(args)
    except GanderError as error:
        if args.screenshot:
            _say(str(error))
        else:
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
