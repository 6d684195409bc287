"""File ▸ Open and Add: a history chosen in a dialog (its filters from the table of readers),
the recently opened ones, and a history worth adding offered, never opened unasked."""

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMenu, QWidget

from desktop_app.sources.readers import dialog_filters
from desktop_app.ui.settings import Settings
from desktop_app.ui.widgets.status_bar import StatusBar

HISTORY_FILES = dialog_filters()
OFFER_MS = 30_000
"""How long the status bar says a history worth adding was found."""


class HistoryDialogs(QObject):
    def __init__(
        self,
        settings: Settings,
        status: StatusBar,
        *,
        open_database: Callable[[str], None] | None,
        add_history: Callable[[str], None] | None,
        window: QWidget,
    ) -> None:
        """`open_database` opens a history in a window of its own, `add_history` beside those
        shown (None: the window offers neither)."""
        super().__init__(window)
        self._settings = settings
        self._status = status
        self._open = open_database
        self._add = add_history
        self._window = window
        self.offered: QAction | None = None
        """The File menu's offer of a history worth adding, once made."""

    def can(self, what: str) -> bool:
        """Whether the window can "open" another history, or "add" one beside those shown."""
        return {"open": self._open, "add": self._add}[what] is not None

    def open_file(self) -> None:
        if self._open is not None:
            self._choose_file(self._open)

    def open_folder(self) -> None:
        if self._open is not None:
            self._choose_folder(self._open)

    def add_file(self) -> None:
        if self._add is not None:
            self._choose_file(self._add)

    def add_folder(self) -> None:
        if self._add is not None:
            self._choose_folder(self._add)

    def fill_recent(self, menu: QMenu) -> None:
        menu.clear()
        opening = self._open
        for path in self._settings.recent_files:
            action = menu.addAction(path)
            action.triggered.connect(lambda _=False, p=path: opening(p) if opening else None)
        menu.setEnabled(bool(self._settings.recent_files))

    def offer(self, label: str, sentence: str, location: str, menu: QMenu) -> None:
        """Offer `location` first in `menu` under `label`, and say `sentence` in the status
        bar; nothing when the window cannot add a history."""
        if self._add is None:
            return
        adding = self._add
        self.offered = QAction(label, self._window)
        self.offered.triggered.connect(lambda: adding(location))
        menu.insertAction(menu.actions()[0], self.offered)
        self._status.showMessage(sentence, OFFER_MS)

    def _choose_file(self, then: Callable[[str], None]) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self._window, "Choose a history file", "", HISTORY_FILES
        )
        if path:
            then(path)

    def _choose_folder(self, then: Callable[[str], None]) -> None:
        path = QFileDialog.getExistingDirectory(self._window, "Choose a history folder")
        if path:
            then(path)
