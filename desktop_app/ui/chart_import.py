"""The day chart's module (and pyqtgraph with it) imported once, off the GUI thread.

pyqtgraph's import takes 0.35–0.55 s here: it copies every name of QtCore, QtGui and QtWidgets,
which makes PySide6 create each class it would otherwise create on first use. Imported with the
window it was a third of the cold start; imported on the GUI thread later it would freeze the
window as long. A thread imports it instead, asked for by the usage panel when the open
session's figures arrive (the window asks for them once the transcript is drawn), and the panel
builds its chart when it is done.

The classes of QtCore, QtGui and QtWidgets are made first, on the GUI thread, a few
milliseconds per turn of its event loop (`_warm`): PySide6 makes a class when it is first asked
for, and pyqtgraph asks for every one; made in the thread while the GUI thread used Qt, that
crashed the window now and then. While the thread then runs, the interpreter switches threads
every half a millisecond instead of five, so the GUI thread waits at most about that long for
the interpreter lock between two of the import's steps, and the cyclic collector is paused
(`sources.files.background`: a full collection of the objects the import makes held the lock
46–98 ms); what the import made is frozen after it, as start-up's objects are
(`app._freeze_start_up`): it lives as long as the process.
"""

import importlib
import logging
import sys
import threading
import time
from collections.abc import Callable, Iterator
from types import ModuleType

from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtCore import QObject, QTimer, Signal

from desktop_app.sources.files.background import collector_paused, quick_switches

MODULE = "desktop_app.ui.widgets.day_chart"
WARM_SLICE_S = 0.004
"""How long one turn of the GUI thread's event loop makes Qt classes for pyqtgraph."""
_SHARED = (QtCore, QtGui, QtWidgets)
"""The Qt modules the window uses and pyqtgraph copies whole."""

log = logging.getLogger(__name__)


class _Relay(QObject):
    """Lives on the GUI thread: a signal emitted by the importing thread is queued to it, and
    a panel closed before the import ends is disconnected by Qt, never called."""

    done = Signal()


class ChartImport:
    """One import for the whole process; every caller is told on the GUI thread."""

    def __init__(self) -> None:
        self._relay: _Relay | None = None
        self._started = False
        self.module: ModuleType | None = None
        """The day chart's module once imported."""
        self.failure = ""
        """Why it could not be imported, in one sentence."""
        self._finished = threading.Event()

    def when_ready(self, ready: Callable[[], None]) -> None:
        """`ready()` now when the import has ended, else once it has (starting it if
        needed). Called on the GUI thread; `ready` is a slot of a QObject on that thread."""
        if self._finished.is_set():
            ready()
            return
        if self._relay is None:
            self._relay = _Relay()
        self._relay.done.connect(ready)
        if self._started:
            return
        self._started = True
        if MODULE in sys.modules:  # imported whole by someone else already (a test)
            self._import()
            self._relay.done.emit()
            return
        names = ((module, name) for module in _SHARED for name in dir(module))
        self._warm(names)

    def _warm(self, names: Iterator[tuple[ModuleType, str]]) -> None:
        """Every class of QtCore, QtGui and QtWidgets made here, on the GUI thread, a few
        milliseconds per turn of its event loop, before the thread imports pyqtgraph (which
        asks for each of them): PySide6 makes a class the first time it is asked for, and
        made in the thread while the GUI thread used Qt it crashed the window (SIGSEGV in 2
        of 46 runs). Ends: `names` is finite (the modules' names, listed once)."""
        until = time.perf_counter() + WARM_SLICE_S
        for module, name in names:
            getattr(module, name)
            if time.perf_counter() > until:
                QTimer.singleShot(0, lambda: self._warm(names))
                return
        # Not a daemon: the interpreter waits for it before it tears down (a daemon thread
        # stopped in the middle of PySide6 creating classes crashed a window closed at once,
        # as `--screenshot` closes it).
        threading.Thread(target=self._run, name="gander-chart-import").start()

    def _run(self) -> None:
        try:
            with quick_switches(), collector_paused():  # what it made frozen after
                self._import()
        finally:
            assert self._relay is not None
            self._relay.done.emit()

    def _import(self) -> None:
        try:
            self.module = importlib.import_module(MODULE)
        except Exception as error:  # a broken or missing pyqtgraph: the panel says so
            log.warning("the usage chart could not be loaded", exc_info=True)
            self.failure = f"The chart cannot be drawn: pyqtgraph did not load ({error})."
        self._finished.set()


CHARTS = ChartImport()
"""The process's one import of the chart module."""
