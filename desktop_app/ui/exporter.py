"""File ▸ Export: the open session written whole as Markdown, HTML or JSON, in the worker (a
session may be large), atomically, never onto a history or Gander's own files, and with secrets
removed when asked.

The exporters (HTML's styles and images among them) are imported when an export is asked for,
not with the window: its start-up is what a user waits for."""

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from desktop_app.domain.errors import sentence
from desktop_app.domain.source import Source
from desktop_app.files.output import Protected, atomic_text_file
from desktop_app.ui.tasks import TaskRunner

if TYPE_CHECKING:
    from desktop_app.rendering.exporting import ExportFormat


def format_of(path: Path, chosen_filter: str) -> "ExportFormat":
    """The format a save dialog asked for: by the file's suffix, else by the chosen filter."""
    from desktop_app.rendering.exporting import SUFFIXES  # noqa: PLC0415 - see the docstring

    for fmt, suffix in SUFFIXES.items():
        if path.suffix.lower() == suffix:
            return fmt
    if "HTML" in chosen_filter:
        return "html"
    if "JSON" in chosen_filter:
        return "json"
    return "md"


class SessionExporter(QObject):
    finished = Signal(str)
    """The file written."""
    failed = Signal(str)

    def __init__(self, source: Source, tasks: TaskRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._source = source
        self._tasks = tasks
        self.protected = Protected()

    def export(
        self, session_id: str, target: Path, fmt: "ExportFormat", *, hidden: bool, redact: bool
    ) -> None:
        # Here, on the GUI thread, rather than first in the worker while the window runs.
        from desktop_app.rendering.exporting import export_session  # noqa: PLC0415

        source, protected = self._source, self.protected

        def work() -> str:
            session = source.get_session(session_id)
            with atomic_text_file(target, protected) as output:
                export_session(source, session, fmt, output.write, hidden=hidden, redact=redact)
            return str(target)

        self._tasks.run(work, self.finished.emit, lambda error: self.failed.emit(sentence(error)))
