"""Expected failures, each carrying the one sentence a user is shown.

The CLI prints `str(error)` and exits non-zero; the window shows it in a dialog. Anything that is
not a `GanderError` is a bug and may surface as a traceback.
"""


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
