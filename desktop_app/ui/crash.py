"""The crash dialog: what a person sees when Gander meets a bug. One sentence saying where the
log is, and buttons to copy the details (to paste in a bug report) or open the log's folder; the
traceback itself is in the copied text and the log, never the only thing shown.

`files.logs.crash_hooks` calls `CrashReporter.report` from whichever thread failed; the signal
brings it to the GUI thread. One dialog at a time: a bug that repeats (in a paint, a timer)
is logged each time but asks once, so the window is never buried under dialogs."""

import platform
import sys
from pathlib import Path

from PySide6.QtCore import QObject, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app import __version__
from desktop_app.files.logs import log_dir


def crash_sentence(log_file: Path | None) -> str:
    if log_file is None:
        return (
            "Gander met an unexpected error and may not work as it should from now on; "
            "its log could not be written, so copy the details to report it."
        )
    return (
        "Gander met an unexpected error and may not work as it should from now on; "
        f"the details are in its log, {log_file}."
    )


def crash_details(details: str, log_file: Path | None) -> str:
    """What "Copy details" puts on the clipboard: enough for a bug report on its own."""
    where = str(log_file) if log_file is not None else "(no log)"
    return (
        f"Gander {__version__}, Python {sys.version.split()[0]}, {platform.platform()}\n"
        f"Log: {where}\n\n{details}"
    )


def open_log_folder(folder: Path | None = None) -> str | None:
    """Help ▸ Open log folder: the log's folder in the desktop's file manager, made first if
    nothing was logged yet (so the click always opens something). Returns the sentence to show
    when it cannot be made or opened."""
    folder = log_dir() if folder is None else folder
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        return f"The log folder {folder} cannot be made ({error.strerror or error})."
    if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))):
        return f"No file manager opened the log folder, {folder}."
    return None


class CrashDialog(QDialog):
    def __init__(self, details: str, log_file: Path | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Gander")
        self.details = crash_details(details, log_file)
        self._log_file = log_file
        text = QLabel(crash_sentence(log_file))
        text.setWordWrap(True)
        text.setMinimumWidth(420)
        self.note = QLabel("")
        """Says when no file manager opened the log's folder."""
        self.note.setWordWrap(True)
        self.note.hide()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.copy_button = QPushButton("&Copy details")
        self.copy_button.clicked.connect(self.copy_details)
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        if log_file is not None:
            folder = QPushButton("Open log &folder")
            folder.clicked.connect(self._open_folder)
            buttons.addButton(folder, QDialogButtonBox.ButtonRole.ActionRole)
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addWidget(self.note)
        layout.addWidget(buttons)

    def copy_details(self) -> None:
        """Copies and says so on the button; the dialog stays open for the folder button."""
        QGuiApplication.clipboard().setText(self.details)
        self.copy_button.setText("Copied")

    def _open_folder(self) -> None:
        problem = open_log_folder(self._log_file.parent) if self._log_file is not None else None
        if problem:
            self.note.setText(problem)
            self.note.show()


class CrashReporter(QObject):
    """Lives on the GUI thread; `report` may be called from any thread."""

    _crashed = Signal(str)

    def __init__(self, log_file: Path | None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._log_file = log_file
        self._showing = False
        self._crashed.connect(self._show)

    def report(self, details: str) -> None:
        self._crashed.emit(details)

    def _show(self, details: str) -> None:
        if self._showing:
            return
        self._showing = True
        try:
            CrashDialog(details, self._log_file, QApplication.activeWindow()).exec()
        finally:
            self._showing = False
