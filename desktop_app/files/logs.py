"""Gander's log: a rotating file in its data directory, written by the window and the CLI alike
(never to stdout, which is the CLI's output), so a bug a person meets leaves a trace they can
send. Each module logs to `logging.getLogger(__name__)` (one logger per area, under
`desktop_app`); the level comes from `GANDER_LOG_LEVEL` (INFO by default).

Uncaught exceptions (the interpreter's and threads') are logged with their traceback, then
passed to the hooks that were there before (Python's prints it to stderr) and to a `report`
callback (the window's crash dialog). Hard crashes (a segfault in Qt) are written by
`faulthandler` to a file beside the log. Everything is undone when the `with` ends, so a test
that runs `main()` leaves the process as it found it."""

import contextlib
import faulthandler
import logging
import logging.handlers
import os
import sys
import threading
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import TextIO

from desktop_app.files.places import data_dir

LEVEL_ENV = "GANDER_LOG_LEVEL"
LOG_NAME = "gander.log"
FAULTS_NAME = "faults.log"
MAX_BYTES = 1_000_000
"""A log file is rotated at 1 MB, three older ones kept: a few weeks of ordinary use, a bounded
amount of disk whatever happens."""
BACKUPS = 3
ROOT = "desktop_app"
_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(threadName)s] %(message)s"
_PRINTED_BY_PYTHON = "gander_printed_by_python"
UNCAUGHT = {_PRINTED_BY_PYTHON: True}
"""`extra=` of the record of an exception left uncaught: Python prints it to stderr itself (its
excepthook), so the log's stderr handler does not print it too."""

_log = logging.getLogger(__name__)

Report = Callable[[str], None]
"""Called with a crash's details (the traceback as text) after they are logged."""


def log_dir() -> Path:
    return data_dir() / "logs"


def log_level(environ: dict[str, str] | os._Environ[str] = os.environ) -> int:
    """`GANDER_LOG_LEVEL` as a name (`DEBUG`, `warning`) or a number; anything else is INFO."""
    given = environ.get(LEVEL_ENV, "").strip()
    if given.isdigit():
        return int(given)
    level = logging.getLevelNamesMapping().get(given.upper())
    return logging.INFO if level is None else level


@contextlib.contextmanager
def logging_to_file(
    folder: Path | None = None, *, max_bytes: int = MAX_BYTES, backups: int = BACKUPS
) -> Iterator[Path | None]:
    """Gander's loggers write to `folder/gander.log` (the data directory's `logs` by default)
    while the `with` lasts; yields the file, or None when the folder cannot be made (a
    read-only home): Gander then runs without a log rather than not at all, and says nothing
    of it. Warnings and errors also go to stderr, as Python's last-resort handler printed them
    before there was a log (never to stdout)."""
    folder = log_dir() if folder is None else folder
    root = logging.getLogger(ROOT)
    handler: logging.Handler
    path: Path | None = folder / LOG_NAME
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handler = logging.handlers.RotatingFileHandler(
            folder / LOG_NAME, maxBytes=max_bytes, backupCount=backups, encoding="utf-8"
        )
    except OSError:
        handler, path = logging.NullHandler(), None
    handler.setFormatter(logging.Formatter(_FORMAT))
    handler.setLevel(log_level())
    # What Python's last-resort handler printed before there was a log: warnings and errors on
    # stderr, as their message alone (a damaged catalog is said in one line, a bug's traceback
    # is there for whoever runs Gander from a terminal).
    console = _Stderr()
    console.setLevel(logging.WARNING)
    console.addFilter(lambda record: not getattr(record, _PRINTED_BY_PYTHON, False))
    previous_level = root.level
    root.setLevel(min(log_level(), logging.WARNING))
    root.addHandler(handler)
    root.addHandler(console)
    try:
        yield path
    finally:
        root.removeHandler(console)
        root.removeHandler(handler)
        root.setLevel(previous_level)
        handler.close()


class _Stderr(logging.Handler):
    """Writes to `sys.stderr` as it is when a record comes (a redirect may have replaced it
    since), as Python's last-resort handler does."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
        except Exception:  # logging's own rule: a handler never raises into the caller
            self.handleError(record)


def active_log_file() -> Path | None:
    """The file `logging_to_file` writes to now, if any: where the crash dialog says to look."""
    for handler in logging.getLogger(ROOT).handlers:
        if isinstance(handler, logging.handlers.RotatingFileHandler):
            return Path(handler.baseFilename)
    return None


@contextlib.contextmanager
def crash_hooks(report: Report | None = None, folder: Path | None = None) -> Iterator[None]:
    """While the `with` lasts, an uncaught exception (`sys.excepthook`, `threading.excepthook`)
    is logged, handed to the hook that was there before, then to `report`; `faulthandler`
    writes hard crashes to `folder/faults.log`, unless it is already on (`-X faulthandler`,
    pytest), when it is left writing where it was told to."""
    folder = log_dir() if folder is None else folder
    previous_hook, previous_thread_hook = sys.excepthook, threading.excepthook

    def hook(kind: type[BaseException], error: BaseException, trace: TracebackType | None) -> None:
        _log.critical("Uncaught exception", exc_info=(kind, error, trace), extra=UNCAUGHT)
        previous_hook(kind, error, trace)
        if report is not None and not issubclass(kind, KeyboardInterrupt):
            report("".join(traceback.format_exception(kind, error, trace)))

    def thread_hook(args: threading.ExceptHookArgs) -> None:
        name = args.thread.name if args.thread is not None else "?"
        info = (args.exc_type, args.exc_value, args.exc_traceback)
        _log.critical(
            "Uncaught exception in thread %s",
            name,
            exc_info=info,  # type: ignore[arg-type]
            extra=UNCAUGHT,
        )
        previous_thread_hook(args)
        if report is not None and args.exc_value is not None:
            details = traceback.format_exception(args.exc_type, args.exc_value, args.exc_traceback)
            report(f"In thread {name}:\n" + "".join(details))

    faults = _faults_file(folder) if not faulthandler.is_enabled() else None
    sys.excepthook, threading.excepthook = hook, thread_hook
    try:
        yield
    finally:
        sys.excepthook, threading.excepthook = previous_hook, previous_thread_hook
        if faults is not None:
            faulthandler.disable()
            faults.close()


def _faults_file(folder: Path) -> TextIO | None:
    """`faulthandler` on, writing to `folder/faults.log` (kept open: a crashing process can
    open nothing); None when that file cannot be opened."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        file = (folder / FAULTS_NAME).open("a", encoding="utf-8")
    except OSError:
        return None
    faulthandler.enable(file=file)
    return file
