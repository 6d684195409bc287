"""Where the window and its panes are: as the user left them (saved), else a first size and
pane widths in proportion to the screen and the window."""

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QMainWindow, QSplitter

from desktop_app.ui.settings import Settings

USAGE_WIDTH = 340
USAGE_MIN_WIDTH = 230
"""The usage panel's first width (a user's own is restored): a quarter of the window, within
these bounds."""
FIRST_SIZE = QSize(1280, 800)
"""A window's size the first time, before the user gives it one (saved), on a large screen."""
FRAME_ROOM = QSize(16, 48)
"""Room for a window manager's frame (title bar, borders) around the first window on a small
screen: the frame's size is not known before the window is shown."""


def restore(
    window: QMainWindow, settings: Settings, splitter: QSplitter, dock: QDockWidget
) -> None:
    """The saved geometry, splitter and docks; what was never saved is laid out once the
    window has its size."""
    if settings.window_geometry is not None:
        window.restoreGeometry(settings.window_geometry)
    else:
        _first_size(window)
    if settings.splitter_state is not None:
        splitter.restoreState(settings.splitter_state)
    if settings.window_state is not None:
        window.restoreState(settings.window_state)
    if settings.window_state is None or settings.splitter_state is None:
        QTimer.singleShot(0, window, lambda: _first_layout(window, settings, splitter, dock))


def save(window: QMainWindow, settings: Settings, splitter: QSplitter) -> None:
    settings.window_geometry = window.saveGeometry()
    settings.splitter_state = splitter.saveState()
    settings.window_state = window.saveState()


def _first_size(window: QMainWindow) -> None:
    """A window shown the first time is 1280×800, or the screen's free area less room for
    a frame where that is smaller. A window manager shrinking a 1280-pixel window
    afterwards left the panes laid out for 1280 (the usage panel 300 px of an 800-pixel
    screen, the transcript clipped on the right); one as large as the free area put its
    status bar under the screen's edge, the title bar above it."""
    free = window.screen().availableGeometry().size()
    window.resize(FIRST_SIZE.boundedTo(free - FRAME_ROOM))


def _first_layout(
    window: QMainWindow, settings: Settings, splitter: QSplitter, dock: QDockWidget
) -> None:
    """Pane widths for a window shown the first time, in proportion to it (a user's own
    are restored instead): the usage panel a quarter, within bounds — at 800 px its own
    width was almost half — and the list a third of what is left."""
    if settings.window_state is None:
        width = min(max(window.width() * 24 // 100, USAGE_MIN_WIDTH), USAGE_WIDTH)
        window.resizeDocks([dock], [width], Qt.Orientation.Horizontal)
        # Now, not at the next layout request: the transcript then has its width before its
        # messages come (a resize of its Qt Quick view after renders them again at once).
        if (layout := window.layout()) is not None:
            layout.activate()
    if settings.splitter_state is None:
        central = splitter.width()
        left = min(max(central * 32 // 100, 200), 360)
        splitter.setSizes([left, max(central - left, 200)])
