"""View ▸ Theme: light, dark, or following the system — applied at once to the application's
palette, the widgets styled by sheets and the transcript, and remembered."""

from PySide6.QtCore import QObject
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QWidget

from desktop_app.ui.settings import Settings
from desktop_app.ui.theme import Theme, palette_for, resolve_theme
from desktop_app.ui.widgets.transcript_view import TranscriptView


class ThemeSwitch(QObject):
    def __init__(
        self,
        settings: Settings,
        theme: Theme,
        choice: str,
        view: TranscriptView,
        window: QWidget,
    ) -> None:
        """`choice` is "system", "light" or "dark"; `theme` what it resolved to; `view` the
        transcript, whose model renders for a light or a dark background."""
        super().__init__(window)
        self._settings = settings
        self.theme = theme
        self.choice = choice
        self._transcript = view.model
        self._view = view
        self._window = window
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._system_scheme_changed)

    def choose(self, choice: str) -> None:
        self.choice = choice
        self._settings.theme = choice
        self.apply(resolve_theme(choice))

    def apply(self, theme: Theme) -> None:
        self.theme = theme
        application = QApplication.instance()
        if isinstance(application, QApplication):
            application.setPalette(palette_for(theme))
        # A widget with a style sheet keeps the palette it was polished with (the header's
        # title stayed dark on dark until a restart): polished again, it takes the new one.
        for widget in (self._window, *self._window.findChildren(QWidget)):
            if widget.styleSheet():
                widget.style().unpolish(widget)
                widget.style().polish(widget)
        self._transcript.set_dark(theme.dark)
        self._view.set_theme(theme)

    def _system_scheme_changed(self, *_: object) -> None:
        if self.choice == "system":
            self.apply(resolve_theme("system"))
