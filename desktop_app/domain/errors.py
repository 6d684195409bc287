"""Expected failures, each carrying the one sentence a user is shown.

The CLI prints `str(error)` and exits non-zero; the window shows it in a dialog. Anything that is
not a `GanderError` is a bug and may surface as a traceback.
"""

import contextlib
import logging

_log = logging.getLogger(__name__)
_LOGGED = "_gander_logged"


class GanderError(Exception):
    """An expected condition with a message written for the user."""


class SourceError(GanderError):
    """The history could not be opened or read."""


class SourceNotFound(SourceError):
    pass


class NotAHistory(SourceError):
    """The path exists but is not something Gander can read (directory, non-SQLite, foreign DB)."""


class SourceUnreadable(SourceError):
    """The file is damaged, unreadable by permissions, or vanished while open."""


class SourceBusy(SourceError):
    """Another program held a lock for longer than we are willing to wait."""


class UnknownSession(GanderError):
    pass


class WriteRefused(GanderError):
    """A rename/archive that Gander will not attempt, or that the database would not take."""


class OutputError(GanderError):
    """An export that cannot or must not be written where the user asked."""


def sentence(error: BaseException) -> str:
    """What the window says of a failure: a `GanderError`'s own sentence. Anything else is a
    bug, whose text is Python's (`'NoneType' object is not subscriptable`), not a sentence for
    the user: it is logged with its traceback (the log and standard error), and the user is
    told so."""
    if isinstance(error, GanderError):
        return str(error)
    log_unexpected(error, "Unexpected error")
    return (
        f"Gander met an error it did not expect ({type(error).__name__}); "
        "its details are written to standard error."
    )


def log_unexpected(error: BaseException, what: str) -> None:
    """Logs a bug with its traceback, once: the worker that met it logs it before delivering it
    (`ui/tasks.py`), and the failure callback that turns it into a sentence does not log it a
    second time."""
    if getattr(error, _LOGGED, False):
        return
    with contextlib.suppress(AttributeError, TypeError):  # no __dict__: logged each time
        setattr(error, _LOGGED, True)
    _log.error("%s", what, exc_info=error)
