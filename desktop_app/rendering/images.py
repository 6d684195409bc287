"""Which stored images may be decoded or embedded at all.

A history's image is untrusted bytes with a label. Only raster formats that cannot reference
anything else are ever decoded, and only when the declared MIME type and the file's own magic
bytes agree: an SVG (which can loop forever, read local files or block on a FIFO) labelled
`image/png` is refused, and so is a PNG labelled `image/svg+xml`. The same rule decides what the
window decodes and what the HTML export embeds.
"""

from dataclasses import dataclass

MAX_ENCODED_BYTES = 32_000_000
"""Larger images are not decoded; their size is shown instead."""
MAX_PIXELS = 64_000_000
MAX_SIDE = 32_768

_MAGIC: dict[str, tuple[bytes, ...]] = {
    "png": (b"\x89PNG\r\n\x1a\n",),
    "jpeg": (b"\xff\xd8\xff",),
    "gif": (b"GIF87a", b"GIF89a"),
    "bmp": (b"BM",),
    "webp": (b"RIFF",),
}
MIME_FORMATS = {
    "image/png": "png",
    "image/jpeg": "jpeg",
    "image/jpg": "jpeg",
    "image/pjpeg": "jpeg",
    "image/gif": "gif",
    "image/webp": "webp",
    "image/bmp": "bmp",
    "image/x-ms-bmp": "bmp",
}


@dataclass(frozen=True, slots=True)
class RasterCheck:
    format: str | None
    """Qt's format name (`png`, `jpeg`, …) when the image may be decoded."""
    reason: str
    """Why not, in a few words, when it may not."""


def check_raster(mime_type: str | None, data: bytes | None) -> RasterCheck:
    """Whether `data`, declared as `mime_type`, is a raster image Gander may decode."""
    if not data:
        return RasterCheck(None, "no image data")
    if len(data) > MAX_ENCODED_BYTES:
        return RasterCheck(None, "too large to show")
    declared = (mime_type or "").split(";", 1)[0].strip().lower()
    kind = MIME_FORMATS.get(declared)
    if kind is None:
        return RasterCheck(None, f"{declared or 'untyped'} images are not shown")
    if not data.startswith(_MAGIC[kind]) or (kind == "webp" and data[8:12] != b"WEBP"):
        return RasterCheck(None, f"not a {kind.upper()} file, though labelled {declared}")
    return RasterCheck(kind, "")
