"""Two remembered choices of how sessions are read: View ▸ Show agent-only messages (the
transcript lists them) and Edit ▸ Remove secrets from copies (what the transcript copies)."""

from desktop_app.ui.models.transcript import TranscriptModel
from desktop_app.ui.settings import Settings
from desktop_app.ui.widgets.transcript_view import TranscriptActions


class ReadingOptions:
    def __init__(
        self, settings: Settings, transcript: TranscriptModel, copies: TranscriptActions
    ) -> None:
        """The remembered choices are applied at once, before any session opens."""
        self._settings = settings
        self._transcript = transcript
        self._copies = copies
        copies.redact_copies = settings.redact_copies
        transcript.set_show_hidden(settings.show_hidden)

    def show_hidden(self, checked: bool) -> None:
        self._settings.show_hidden = checked
        self._transcript.set_show_hidden(checked)

    def redact_copies(self, checked: bool) -> None:
        self._settings.redact_copies = checked
        self._copies.redact_copies = checked
