"""A history's images are decoded only when they are the raster format their label says, within
size limits, and never on the GUI thread (issue #8, point 2)."""

import base64
import os
import struct
import threading
import time
import zlib
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QBuffer, QByteArray, QIODevice
from PySide6.QtGui import QColor, QImage
from pytestqt.qtbot import QtBot

from desktop_app.rendering.html_export import HtmlWriter
from desktop_app.rendering.images import check_raster
from desktop_app.ui import images as image_module
from desktop_app.ui.images import decode_image
from desktop_app.ui.tasks import TaskRunner
from tests.gui.test_window import _listed, demo_window
from tests.unit.test_hostile import message

NESTED_USE_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
    '<defs><g id="a0"><rect width="1" height="1"/></g>'
    + "".join(
        f'<g id="a{i}">' + "".join(f'<use xlink:href="#a{i - 1}"/>' for _ in range(10)) + "</g>"
        for i in range(1, 12)
    )
    + '</defs><use xlink:href="#a11"/></svg>'
)


def encoded(image: QImage, kind: str) -> bytes:
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    # The stubs want bytes for the format; PySide6 6.11 accepts only str at run time.
    assert image.save(buffer, kind)  # type: ignore[call-overload]
    buffer.close()
    return bytes(data.data())


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def picture(width: int = 40, height: int = 30) -> QImage:
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor("#3366aa"))
    return image


def png_header(width: int, height: int) -> bytes:
    """A PNG whose header claims `width`×`height`, with one tiny pixel row of data."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + body))
        return struct.pack(">I", len(body)) + kind + body + crc

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 16))
        + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize(
    ("kind", "mime"),
    [("PNG", "image/png"), ("JPG", "image/jpeg"), ("BMP", "image/bmp"), ("WEBP", "image/webp")],
)
def test_raster_images_decode_and_scale(qapp: object, kind: str, mime: str) -> None:
    del qapp
    data = encoded(picture(400, 300), kind)
    image, reason = decode_image(mime, b64(data))
    assert (reason, image is not None) == ("", True)
    assert image is not None
    assert (image.width(), image.height()) == (400, 300)
    small, _ = decode_image(mime, b64(data), max_height=60)
    assert small is not None
    assert small.height() == 60


GIF_1X1 = base64.b64decode("R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==")


def test_gif_decodes(qapp: object) -> None:
    del qapp
    image, reason = decode_image("image/gif", b64(GIF_1X1))
    assert image is not None, reason
    assert (image.width(), image.height()) == (1, 1)


@pytest.mark.parametrize(
    ("mime", "data", "reason"),
    [
        ("image/png", NESTED_USE_SVG.encode(), "not a PNG file, though labelled image/png"),
        ("image/svg+xml", NESTED_USE_SVG.encode(), "image/svg+xml images are not shown"),
        ("image/png", b"GIF89a" + b"\x00" * 40, "not a PNG file, though labelled image/png"),
        ("text/html", b"<html>", "text/html images are not shown"),
        (None, b"\x89PNG\r\n\x1a\n", "untyped images are not shown"),
        ("image/png", png_header(100_000, 100_000), "100000×100000 is too large to show"),
        ("image/png", png_header(20_000, 20_000), "20000×20000 is too large to show"),
        ("image/png", b"\x89PNG\r\n\x1a\n" + os.urandom(200), "not a readable PNG file"),
    ],
    ids=[
        "svg labelled png",
        "svg",
        "gif labelled png",
        "html",
        "no type",
        "huge claimed size",
        "400 megapixels",
        "garbage after magic",
    ],
)
def test_anything_else_is_refused_with_a_reason(
    qapp: object, mime: str | None, data: bytes, reason: str
) -> None:
    del qapp
    started = time.perf_counter()
    image, said = decode_image(mime, b64(data))
    assert image is None
    assert said == reason
    assert time.perf_counter() - started < 2


def test_svg_that_reads_a_fifo_is_never_opened(qapp: object, tmp_path: Path) -> None:
    """Decoding it as SVG would block forever on the FIFO (pytest-timeout would fail this)."""
    del qapp
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    svg = f'<svg xmlns="http://www.w3.org/2000/svg"><image href="file://{fifo}"/></svg>'
    for mime in ("image/png", "image/svg+xml", "image/jpeg"):
        image, _ = decode_image(mime, b64(svg.encode()))
        assert image is None


def test_html_export_embeds_only_what_the_window_would_decode(qapp: object) -> None:
    del qapp
    from desktop_app.domain.parts import ImagePart

    png = encoded(picture(), "PNG")
    page = HtmlWriter().message(
        message(
            ImagePart(mime_type="image/png", data_b64=b64(png)),
            ImagePart(mime_type="image/png", data_b64=b64(NESTED_USE_SVG.encode())),
            ImagePart(mime_type="image/svg+xml", data_b64=b64(NESTED_USE_SVG.encode())),
        )
    )
    assert page.count("<img ") == 1
    assert "data:image/png;base64," in page
    assert "not embedded: not a PNG file, though labelled image/png" in page
    assert check_raster("image/png", png).format == "png"


def test_transcript_and_viewer_images_are_decoded_off_the_gui_thread(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, tasks: TaskRunner
) -> None:
    threads: list[str] = []
    real = image_module.decode_image

    def recording(*args: Any, **kwargs: Any) -> tuple[QImage | None, str]:
        threads.append(threading.current_thread().name)
        return real(*args, **kwargs)

    monkeypatch.setattr("desktop_app.ui.widgets.transcript_view.decode_image", recording)
    window, _settings = demo_window(tmp_path, tasks, qtbot)
    qtbot.waitUntil(lambda: window.transcript.rendered_count > 0, timeout=10_000)
    latency = next(s for s in _listed(window) if s.name.startswith("Latency spike"))
    window.open_session(latency.id)
    qtbot.waitUntil(lambda: window.transcript.rowCount() == 8, timeout=5000)
    window.transcript_view.show_row(0)
    qtbot.waitUntil(lambda: bool(threads), timeout=10_000)
    window.transcript_view.actions_for_qml.openImage(0, 0)
    qtbot.waitUntil(lambda: len(threads) >= 2, timeout=10_000)
    assert threading.main_thread().name not in threads
    window.close()
