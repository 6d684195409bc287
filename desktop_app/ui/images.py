"""Decoding a history's images for the window: safely, in bounded memory, off the GUI thread.

`check_raster` decides whether the bytes may be decoded at all. The decoder is a `QImageReader`
told the one format to use, with format detection from content switched off (so no other plugin,
SVG's included, ever sees the bytes), whose header is read for the size before any pixel is
decoded. `QImageReader.read` releases Python's lock while Qt decodes, so a slow image on the
image thread never stalls the GUI thread (`QImage.fromData` holds it: measured 390 ms against
2 ms for a 36-megapixel PNG).
"""

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QSize, Qt
from PySide6.QtGui import QColor, QImage, QImageReader, QPainter

from desktop_app.rendering.formatting import base64_size, decode_base64
from desktop_app.rendering.images import MAX_ENCODED_BYTES, MAX_PIXELS, MAX_SIDE, check_raster

ALLOCATION_LIMIT_MB = 512


def decode_image(
    mime_type: str | None, data_b64: str | None, max_height: int = 0
) -> tuple[QImage | None, str]:
    """The image (scaled down to `max_height` when given) or `None` with the reason."""
    if base64_size(data_b64) > MAX_ENCODED_BYTES:
        return None, "too large to show"
    data = decode_base64(data_b64)
    check = check_raster(mime_type, data)
    if check.format is None or data is None:
        return None, check.reason
    buffer = QBuffer()
    buffer.setData(QByteArray(data))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer, check.format.encode())
    reader.setAutoDetectImageFormat(False)
    reader.setDecideFormatFromContent(False)
    reader.setAllocationLimit(ALLOCATION_LIMIT_MB)
    size = reader.size()
    if not size.isValid():
        return None, f"not a readable {check.format.upper()} file"
    width, height = size.width(), size.height()
    if width > MAX_SIDE or height > MAX_SIDE or width * height > MAX_PIXELS:
        return None, f"{width}×{height} is too large to show"
    if 0 < max_height < height:
        reader.setScaledSize(QSize(max(1, width * max_height // height), max_height))
    image = reader.read()
    buffer.close()
    if image.isNull():
        return None, f"not a readable {check.format.upper()} file"
    return image, ""


def placeholder(reason: str, width: int = 260, height: int = 48) -> QImage:
    """A grey box that says why the image is not shown."""
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor("#d0d7de"))
    painter = QPainter(image)
    painter.setPen(QColor("#1f2328"))
    painter.drawText(
        image.rect().adjusted(6, 2, -6, -2),
        int(Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap),
        f"Image not shown: {reason}",
    )
    painter.end()
    return image
