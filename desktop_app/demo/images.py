"""Real PNG images for the demo history, drawn in pure Python (no Qt below the ui layer)."""

import math
import struct
import zlib
from collections.abc import Callable

Pixel = tuple[int, int, int]


def encode_png(width: int, height: int, pixel: Callable[[int, int], Pixel]) -> bytes:
    rows = bytearray()
    for y in range(height):
        rows.append(0)
        for x in range(width):
            rows.extend(pixel(x, y))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(bytes(rows), 9))
        + chunk(b"IEND", b"")
    )


def bar_chart(values: list[float], width: int = 320, height: int = 180) -> bytes:
    """A latency chart like the ones users paste into a session."""
    top = max(values) or 1.0
    bar = width // max(1, len(values))

    def pixel(x: int, y: int) -> Pixel:
        index = min(len(values) - 1, x // bar)
        level = height - int(values[index] / top * (height - 20))
        if y == height - 1 or x == 0:
            return (60, 60, 60)
        if y >= level and x % bar > 3:
            return (66, 133, 244) if values[index] < top * 0.8 else (219, 68, 55)
        return (250, 250, 250) if y % 30 else (225, 225, 225)

    return encode_png(width, height, pixel)


def screenshot(width: int = 400, height: int = 250) -> bytes:
    """A mock application window: title bar, sidebar, and a content panel with text lines."""

    def pixel(x: int, y: int) -> Pixel:
        if y < 24:
            return (45, 45, 48) if not (10 < x < 60 and 8 < y < 16) else (255, 95, 86)
        if x < 90:
            return (236, 239, 241) if (y // 22) % 2 else (225, 229, 232)
        if 110 < x < width - 20 and (y - 40) % 18 < 6 and y > 40:
            return (120, 144, 156)
        return (255, 255, 255)

    return encode_png(width, height, pixel)


def gradient_photo(width: int = 256, height: int = 192) -> bytes:
    """A sunset-like picture with a sun, standing in for a photo the user attached."""
    cx, cy, radius = width * 0.7, height * 0.55, height * 0.18

    def pixel(x: int, y: int) -> Pixel:
        if math.hypot(x - cx, y - cy) < radius:
            return (255, 214, 102)
        if y > height * 0.72:
            shade = int(40 + 30 * math.sin(x / 9.0))
            return (20, shade, 70)
        t = y / height
        return (int(255 * (1 - t * 0.3)), int(120 + 80 * t), int(90 + 120 * t))

    return encode_png(width, height, pixel)
