"""An image from a transcript at full size, with Save.

It opens at once with "Decoding…"; the pixels arrive from the worker (`show_decoded`). Save
writes the stored bytes as they are, through the same guarded, atomic writer as exports.
"""

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QMessageBox,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from desktop_app.domain.errors import OutputError
from desktop_app.files.output import Protected, write_bytes

EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}


class ImageViewer(QDialog):
    def __init__(
        self,
        data: bytes,
        mime_type: str | None,
        protected: Protected,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._data = data
        self._protected = protected
        self._mime = mime_type or "application/octet-stream"
        self.setWindowTitle(f"Image — {self._mime}")
        self.label = QLabel("Decoding…")
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        scroll = QScrollArea()
        scroll.setWidget(self.label)
        scroll.setWidgetResizable(True)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Close
        )
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(scroll, 1)
        layout.addWidget(buttons)
        self.resize(480, 320)

    def show_decoded(self, result: tuple[QImage | None, str]) -> None:
        image, reason = result
        if image is None:
            self.label.setText(f"This image is not shown: {reason}.")
            return
        self.setWindowTitle(f"Image — {self._mime}, {image.width()}×{image.height()}")
        self.label.setPixmap(QPixmap.fromImage(image))
        self.resize(min(1200, image.width() + 60), min(900, image.height() + 100))

    def save(self) -> None:
        suffix = EXTENSIONS.get(self._mime, "bin")
        target, _ = QFileDialog.getSaveFileName(self, "Save image", f"image.{suffix}")
        if not target:
            return
        try:
            write_bytes(Path(target), self._data, self._protected)
        except OutputError as error:
            QMessageBox.warning(self, "Not saved", str(error))
