"""File ▸ Export session: the open session saved where the user chooses, as shown (agent-only
messages when they are shown), whole or without secrets; the exporter writes it in the
worker and says what it wrote."""

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog, QWidget

from desktop_app.ui.exporter import SessionExporter, format_of
from desktop_app.ui.models.transcript import TranscriptModel

EXPORT_FILTERS = "Markdown (*.md);;HTML page (*.html);;JSON with every part (*.json)"
NAME_CHARS = 80
"""A suggested file name is the session's id, other characters than these replaced, cut."""


class ExportDialog(QObject):
    def __init__(
        self,
        transcript: TranscriptModel,
        exporter: SessionExporter,
        say: Callable[[str], None],
        window: QWidget,
    ) -> None:
        """`say` puts a sentence in the status bar."""
        super().__init__(window)
        self._transcript = transcript
        self._exporter = exporter
        self._say = say
        self._window = window

    def ask(self, *, redact: bool = False) -> None:
        """Ask where, then export the open session there."""
        session_id = self._transcript.session_id
        if session_id is None:
            self._say("Open a session to export it.")
            return
        name = "".join(c if c.isalnum() or c in "-_." else "_" for c in session_id)[:NAME_CHARS]
        path, chosen = QFileDialog.getSaveFileName(
            self._window, "Export session", f"{name}.md", EXPORT_FILTERS
        )
        if not path:
            return
        target = Path(path)
        self._exporter.export(
            session_id,
            target,
            format_of(target, chosen),
            hidden=self._transcript.show_hidden,
            redact=redact,
        )

    def ask_without_secrets(self) -> None:
        self.ask(redact=True)
