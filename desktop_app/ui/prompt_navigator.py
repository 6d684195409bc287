"""View ▸ Prompts…: the open session's prompts in a list to filter and jump from."""

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget

from desktop_app.domain.message import MessageCursor
from desktop_app.domain.source import Source
from desktop_app.ui.models.prompt_outline import PromptOutlineModel
from desktop_app.ui.models.transcript import TranscriptModel
from desktop_app.ui.transcript_navigation import TranscriptNavigator
from desktop_app.ui.widgets.prompt_outline import PromptOutlineDialog


class PromptNavigator(QObject):
    def __init__(
        self,
        transcript: TranscriptModel,
        navigator: TranscriptNavigator,
        source: Source,
        window: QWidget,
    ) -> None:
        super().__init__(window)
        self._transcript = transcript
        self._navigator = navigator
        self.model = PromptOutlineModel(source, transcript.tasks, self)
        self.dialog = PromptOutlineDialog(self.model, window)
        self.dialog.chosen.connect(self._go)
        self.action = QAction("&Prompts…", window)
        self.action.setShortcut(QKeySequence("Ctrl+Shift+P"))
        self.action.triggered.connect(self.open)
        self._loaded: tuple[object, ...] | None = None

    def open(self) -> None:
        """The prompts are read again only when the session, its length or the agent-only
        setting changed since they last were."""
        transcript = self._transcript
        key = (transcript.session_id, len(transcript.cursors), transcript.show_hidden)
        if key != self._loaded:
            self._loaded = key
            self.model.load(transcript.session_id, transcript.cursors, transcript.show_hidden)
        self.dialog.open_outline()

    def _go(self, cursor: MessageCursor) -> None:
        """A prompt of the session the list was read for (positions of another session may
        be the same numbers)."""
        if self._loaded is not None and self._loaded[0] == self._transcript.session_id:
            self._navigator.show_row(self._transcript.row_of(cursor))
