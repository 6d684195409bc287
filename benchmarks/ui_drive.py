"""The real window, driven as a person drives it: Xvfb with a window manager, xdotool's mouse
and keys, the assertions read off the widgets (#20 item 16).

    python -m benchmarks.ui_drive [--data DIR] [--keep-screens DIR]

Needs `Xvfb`, `openbox` and `xdotool` (Debian packages xvfb, openbox, xdotool). Starts a
display of its own, runs Gander in this process on it (the xcb platform, not offscreen), and
sends the events through the X server, so what is tested is what a hand does: a click lands
where the window manager put the window, a key goes to the widget that has the focus. Checks,
at 1280×800 and 800×600:

- opening a session with a 190-character title (a genuine Claude Code summary) leaves the
  panes as they were, the list at 200 px or more;
- End in a list of 20,000 sessions reaches the last one by the keyboard alone;
- a search hit in a session's first message opens that session scrolled to it;
- Esc in the search field restores the list and its selection.

Prints each check with its figure (how long End took to reach row 20,000) and exits 1 if one
fails. Offscreen tests cannot see these: the list collapsed to 60 px and End stopped at every
page while every one of them passed.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from argparse import Namespace
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEventLoop, QPoint, QSettings
from PySide6.QtWidgets import QWidget

from benchmarks.history import build
from desktop_app.app import _application, build_window
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.roles import SessionRole
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner

ROOT = Path(__file__).resolve().parents[1]
CLAUDE_PROJECT = ROOT / "tests/fixtures/agents/claude_code/project"
LONG_TITLED = "edge_cases"
CLAUDE_TOOLS = ROOT / "tests/fixtures/agents/claude_code/tools/2.1.110"
SIZES = ((1280, 800), (800, 600))


@contextmanager
def display(number: int, size: tuple[int, int] = (1400, 900)) -> Iterator[str]:
    """An X display of our own with a window manager on it, gone afterwards."""
    name = f":{number}"
    server = subprocess.Popen(
        ["Xvfb", name, "-screen", "0", f"{size[0]}x{size[1]}x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    manager = None
    try:
        deadline = time.monotonic() + 10
        while not Path(f"/tmp/.X11-unix/X{number}").exists():
            if time.monotonic() > deadline:
                raise SystemExit(f"Xvfb did not start on {name}.")
            time.sleep(0.05)
        manager = subprocess.Popen(
            ["openbox"],
            env={**os.environ, "DISPLAY": name},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(0.5)
        yield name
    finally:
        for process in (manager, server):
            if process is not None:
                process.terminate()
                process.wait(timeout=10)


def xdo(*words: str) -> None:
    subprocess.run(["xdotool", *words], check=True, timeout=30)


class Drive:
    """Runs Gander's event loop between xdotool's events, and records the checks."""

    def __init__(self) -> None:
        self.failures: list[str] = []

    def pump(self, condition: Callable[[], bool], timeout_s: float = 30.0) -> float:

        started = time.perf_counter()
        while not condition() and time.perf_counter() - started < timeout_s:
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
            time.sleep(0.01)
        return time.perf_counter() - started

    def settle(self, seconds: float = 0.4) -> None:
        self.pump(lambda: False, seconds)

    def check(self, what: str, ok: bool, figure: str = "") -> None:
        print(f"{'ok  ' if ok else 'FAIL'} {what}{' · ' + figure if figure else ''}")
        if not ok:
            self.failures.append(what)

    def window(
        self, data: Path, args: Namespace, size: tuple[int, int]
    ) -> tuple[MainWindow, TaskRunner]:

        folder = Path(tempfile.mkdtemp(dir=data))
        settings = Settings(QSettings(str(folder / "s.ini"), QSettings.Format.IniFormat))
        tasks = TaskRunner()
        window = build_window(args, folder / "data", settings, tasks)
        window.resize(*size)
        window.show()
        self.pump(lambda: window.isVisible() and window.sessions.rowCount() > 0, 30)
        self.settle(1.0)
        window.raise_()
        window.activateWindow()
        return window, tasks

    def click(self, widget: QWidget, x: int, y: int) -> None:

        point = widget.mapToGlobal(QPoint(x, y))
        xdo("mousemove", "--sync", str(point.x()), str(point.y()))
        xdo("click", "1")
        self.settle()


def _showing(window: MainWindow, session_id: str) -> bool:
    return window.transcript.session_id == session_id


def long_title(drive: Drive, data: Path) -> None:
    for size in SIZES:
        args = Namespace(db=[str(CLAUDE_PROJECT)], demo=False, session=None, screenshot=None)
        window, tasks = drive.window(data, args, size)
        try:
            before = window.splitter.sizes()
            index = window.sessions.find_session(LONG_TITLED)
            rect = window.session_list.visualRect(index)
            drive.click(window.session_list.viewport(), rect.center().x(), rect.center().y())
            drive.pump(partial(_showing, window, LONG_TITLED), 10)
            drive.settle(1.0)
            after = window.splitter.sizes()
            drive.check(
                f"{size[0]}×{size[1]}: a 190-character title keeps the panes",
                after == before and after[0] >= 200,
                f"list {before[0]} → {after[0]} px, transcript {before[1]} → {after[1]} px",
            )
        finally:
            window.close()
            tasks.shutdown()


def end_of_a_long_list(drive: Drive, data: Path) -> None:

    history = build(data / "ui-drive-20k.db", sessions=20_000, per_session=1, long_sessions=())
    args = Namespace(db=[str(history)], demo=False, session=None, screenshot=None)
    window, tasks = drive.window(data, args, SIZES[0])
    try:
        first = window.sessions.first_session()
        rect = window.session_list.visualRect(first)
        drive.click(window.session_list.viewport(), rect.center().x(), rect.center().y())
        started = time.perf_counter()
        xdo("key", "End")

        def at_the_end() -> bool:
            current = window.session_list.currentIndex().data(SessionRole.SESSION)
            return (
                window.sessions.complete
                and current is not None
                and (window.sessions.session_count == 20_000)
                and window.session_list.currentIndex().row() >= window.sessions.rowCount() - 2
            )

        drive.pump(at_the_end, 120)
        took = time.perf_counter() - started
        drive.check(
            "End reaches the last of 20,000 sessions by the keyboard",
            at_the_end(),
            f"{window.sessions.session_count:,} listed in {took:.1f} s",
        )
    finally:
        window.close()
        tasks.shutdown()


def search_hit_and_escape(drive: Drive, data: Path) -> None:

    args = Namespace(
        db=[str(CLAUDE_PROJECT), f"claude-code={CLAUDE_TOOLS}"],
        demo=False,
        session=None,
        screenshot=None,
    )
    window, tasks = drive.window(data, args, SIZES[0])
    try:
        selected = window.session_list.currentIndex().data(SessionRole.SESSION)
        xdo("key", "ctrl+k")
        drive.settle()
        xdo("type", "--delay", "20", "TOOLS-PROMPT")
        drive.pump(
            lambda: window.search_results.isVisible() and bool(window.search_results.summary), 60
        )
        drive.settle(1.0)
        xdo("key", "Down")
        xdo("key", "Return")
        drive.pump(lambda: window.transcript.session_id is not None, 10)
        drive.settle(2.0)
        view = window.transcript_view
        top, bottom = view.top_row(), view.bottom_row()
        drive.check(
            "a hit in a session's first message opens scrolled to it",
            top == 0,
            f"rows {top}–{bottom} on screen",
        )
        xdo("key", "ctrl+k")
        xdo("key", "Escape")
        drive.settle(1.0)
        now = window.session_list.currentIndex().data(SessionRole.SESSION)
        drive.check(
            "Esc in the search field restores the list and its selection",
            window.left_pane.currentWidget() is window.session_list
            and not window.search_field.text()
            and (selected is None or (now is not None and now.id == selected.id)),
            f"search field {window.search_field.text()!r}",
        )
    finally:
        window.close()
        tasks.shutdown()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / "benchmarks/data")
    parser.add_argument("--display", type=int, default=87)
    options = parser.parse_args()
    for program in ("Xvfb", "openbox", "xdotool"):
        if shutil.which(program) is None:
            print(f"ui_drive needs {program} (apt-get install xvfb openbox xdotool).")
            return 2
    options.data.mkdir(parents=True, exist_ok=True)
    home = Path(tempfile.mkdtemp(dir=options.data))
    os.environ.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_DATA_HOME=str(home / "data"),
        GOOSE_PATH_ROOT=str(home / "no-goose"),
        QT_QPA_PLATFORM="xcb",
    )
    with display(options.display) as name:
        os.environ["DISPLAY"] = name

        application = _application()
        drive = Drive()
        long_title(drive, options.data)
        end_of_a_long_list(drive, options.data)
        search_hit_and_escape(drive, options.data)
        del application
    shutil.rmtree(home, ignore_errors=True)
    failed = len(drive.failures)
    print(f"{failed} of the checks failed." if failed else "All checks passed.")
    return 1 if drive.failures else 0


if __name__ == "__main__":
    sys.exit(main())
