"""The main window lays out and wires, no more (#21 item 4): what grows it — opening sessions,
menus, dialogs, the status bar — belongs in a module of its own (docs/architecture.md, *The
window*). A simple line count keeps it so."""

from pathlib import Path

import desktop_app.ui

MAIN_WINDOW = Path(desktop_app.ui.__file__).with_name("main_window.py")
MOST_LINES = 350


def test_the_main_window_stays_small() -> None:
    lines = len(MAIN_WINDOW.read_text(encoding="utf-8").splitlines())
    assert lines <= MOST_LINES, f"main_window.py has {lines} lines"
