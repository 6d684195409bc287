"""An image from a transcript at full size, with Save."""

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

EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}


class ImageViewer(QDialog):
    def __init__(self, data: bytes, mime_type: str | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._data = data
        self._mime = mime_type or "application/octet-stream"
        image = QImage.fromData(data)
        self.setWindowTitle(f"Image — {self._mime}, {image.width()}×{image.height()}")
        label = QLabel()
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        if image.isNull():
            label.setText("This image could not be decoded.")
        else:
            label.setPixmap(QPixmap.fromImage(image))
        scroll = QScrollArea()
        scroll.setWidget(label)
        scroll.setWidgetResizable(True)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Close
        )
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(scroll, 1)
        layout.addWidget(buttons)
        self.resize(min(1200, image.width() + 60), min(900, image.height() + 100))

    def save(self) -> None:
        suffix = EXTENSIONS.get(self._mime, "bin")
        target, _ = QFileDialog.getSaveFileName(self, "Save image", f"image.{suffix}")
        if not target:
            return
        try:
            Path(target).write_bytes(self._data)
        except OSError as error:
            QMessageBox.warning(
                self, "Not saved", f"{target} could not be written: {error.strerror}."
            )
