"""One background worker for all database and rendering work, results back on the GUI thread.

Anki's `taskman` pattern: a single worker thread serialises SQLite access (one connection at a
time, no lock contention with ourselves); each job's outcome is emitted through a Qt signal, which
Qt queues to the GUI thread where the callback runs. Callbacks never run on the worker.

Results are handed over one a turn of the event loop: a list page, the usage panel's figures
and a page of rendered rows finished together were delivered in one batch of posted events, each
callback 5–20 ms, with no paint, input or timer between them (live updates stalled the window
55–75 ms).

Jobs have two priorities. What the user is waiting to see (list pages, transcript rows, writes)
runs first; figures around it (usage panel, project list, the live check) run when nothing of the
first kind is queued, so they never delay a transcript opening.

A job's failure is logged before it is delivered (with its traceback, unless it is one of
Gander's own sentences), so a bug a callback turns into a short message still leaves a trace.
"""

import itertools
import logging
import queue
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from desktop_app.domain.errors import GanderError, log_unexpected
from desktop_app.sources.files.background import quick_switches

Callback = Callable[[Any], None]
Failure = Callable[[BaseException], None]
_SKIPPED = object()
_STOP = 99
FOREGROUND = 0
BACKGROUND = 1
_log = logging.getLogger(__name__)
SHUTDOWN_WAIT_S = 5.0
"""How long quitting waits for the job in hand (a write finishing) before it leaves the worker
behind: the thread is a daemon, and a job stuck on a network or a device never holds the
application open."""


Outcome = tuple[Any, Any, BaseException | None]
"""A job's callback, its result (or `_SKIPPED`) and its error."""


class TaskRunner(QObject):
    _ready = Signal()
    """Outcomes are waiting (said once, when the first of them arrives)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._queue: queue.PriorityQueue[tuple[int, int, Callable[[], None] | None]] = (
            queue.PriorityQueue()
        )
        self._order = itertools.count()
        self._pending = 0
        self._closed = False
        self._outcomes: deque[Outcome] = deque()
        self._outcomes_lock = threading.Lock()
        self._ready.connect(self._deliver_next)
        self._thread = threading.Thread(target=self._work, name="gander-worker", daemon=True)
        self._thread.start()

    @property
    def busy(self) -> bool:
        return self._pending > 0

    def _work(self) -> None:
        while True:
            _, _, job = self._queue.get()
            if job is None:
                return
            with quick_switches():
                job()

    def run(
        self,
        work: Callable[[], Any],
        on_success: Callback,
        on_failure: Failure | None = None,
        *,
        wanted: Callable[[], bool] | None = None,
        background: bool = False,
    ) -> None:
        """Queue `work`. `wanted` is asked on the worker just before the work starts: a job for a
        session the user has already left is skipped instead of delaying the one they opened.
        After `shutdown()` (the application is quitting) new work is dropped."""
        if self._closed:
            return
        self._pending += 1

        def job() -> None:
            if wanted is not None and not wanted():
                self._hand_over((None, _SKIPPED, None))
                return
            try:
                result = work()
            except GanderError as error:  # a sentence for the user: no traceback needed
                _log.info("%s refused: %s", _name_of(work), error)
                self._hand_over((on_failure, None, error))
                return
            except Exception as error:
                log_unexpected(error, f"{_name_of(work)} failed")
                self._hand_over((on_failure, None, error))
                return
            self._hand_over((on_success, result, None))

        priority = BACKGROUND if background else FOREGROUND
        self._queue.put((priority, next(self._order), job))

    def _hand_over(self, outcome: Outcome) -> None:
        """On the worker: the outcome waits for the window's thread, which is woken once."""
        with self._outcomes_lock:
            self._outcomes.append(outcome)
            first = len(self._outcomes) == 1
        if first:
            self._ready.emit()

    def _deliver_next(self) -> None:
        """One outcome's callback (skipped jobs cost no turn), the next in a later turn; none
        once the application is quitting (their windows may be gone)."""
        while True:
            with self._outcomes_lock:
                if self._closed:
                    self._outcomes.clear()
                if not self._outcomes:
                    return
                callback, result, error = self._outcomes.popleft()
                more = bool(self._outcomes)
            self._pending -= 1
            if result is not _SKIPPED:
                break
        if more:
            QTimer.singleShot(0, self, self._deliver_next)
        if error is None:
            callback(result)
        elif callback is not None:
            callback(error)
        else:
            raise error

    def shutdown(self) -> None:
        """Finish the job in hand (waiting at most `SHUTDOWN_WAIT_S`), drop the rest, stop
        the thread."""
        self._closed = True
        while True:
            try:
                self._queue.get_nowait()
            except queue.Empty:
                break
        self._queue.put((_STOP, next(self._order), None))
        self._thread.join(timeout=SHUTDOWN_WAIT_S)


def _name_of(work: Callable[[], Any]) -> str:
    """A job's name for the log: its function's qualified name (through `functools.partial`)."""
    target = getattr(work, "func", work)
    return str(getattr(target, "__qualname__", None) or repr(target))
