"""One background worker for all database and rendering work, results back on the GUI thread.

Anki's `taskman` pattern: a single-thread executor serialises SQLite access (one connection at a
time, no lock contention with ourselves); each job's outcome is emitted through a Qt signal, which
Qt queues to the GUI thread where the callback runs. Callbacks never run on the worker.
"""

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from PySide6.QtCore import QObject, Signal

Callback = Callable[[Any], None]
_SKIPPED = object()
Failure = Callable[[BaseException], None]


class TaskRunner(QObject):
    _finished = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gander-worker")
        self._pending = 0
        self._closed = False
        self._finished.connect(self._deliver)

    @property
    def busy(self) -> bool:
        return self._pending > 0

    def run(
        self,
        work: Callable[[], Any],
        on_success: Callback,
        on_failure: Failure | None = None,
        *,
        wanted: Callable[[], bool] | None = None,
    ) -> None:
        """Queue `work`. `wanted` is asked on the worker just before the work starts: a job for a
        session the user has already left is skipped instead of delaying the one they opened.
        After `shutdown()` (the application is quitting) new work is dropped."""
        if self._closed:
            return
        self._pending += 1

        def job() -> None:
            if wanted is not None and not wanted():
                self._finished.emit((None, _SKIPPED, None))
                return
            try:
                result = work()
            except Exception as error:
                self._finished.emit((on_failure, None, error))
                return
            self._finished.emit((on_success, result, None))

        self._pool.submit(job)

    def _deliver(self, payload: tuple[Any, Any, BaseException | None]) -> None:
        self._pending -= 1
        callback, result, error = payload
        if result is _SKIPPED:
            return
        if error is None:
            callback(result)
        elif callback is not None:
            callback(error)
        else:
            raise error

    def shutdown(self) -> None:
        self._closed = True
        self._pool.shutdown(wait=True, cancel_futures=True)
