"""The Help menu's boxes (keyboard shortcuts, search syntax, About with every open history)
and its Open log folder."""

from collections.abc import Callable

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from desktop_app.domain.source import Source
from desktop_app.ui.crash import open_log_folder
from desktop_app.ui.help import about_html, search_html, shortcuts_html
from desktop_app.ui.history_names import open_readers

TITLES = {"shortcuts": "Keyboard shortcuts", "search": "Search syntax", "about": "About Gander"}


class HelpBox(QObject):
    def __init__(self, source: Source, say: Callable[[str], None], window: QWidget) -> None:
        """`say` puts a sentence in the status bar (why the log folder did not open)."""
        super().__init__(window)
        self._source = source
        self._say = say
        self._window = window
        self.box: QMessageBox | None = None
        """The last box shown."""

    def show(self, which: str) -> None:
        """Not modal for the application: goose's updates keep arriving while it is open."""
        match which:
            case "shortcuts":
                html = shortcuts_html()
            case "search":
                html = search_html()
            case _:
                html = about_html([r.info() for r in open_readers(self._source)])
        box = QMessageBox(QMessageBox.Icon.NoIcon, TITLES[which], html, parent=self._window)
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.box = box
        box.open()

    def open_log_folder(self) -> None:
        if problem := open_log_folder():
            self._say(problem)
