"""The README's screenshots, retaken from the real window: Xvfb at 1280×800 with openbox, the
window maximised as a person's would be, the picture taken off the X server (`import -window
root`), so what is shown is what a person sees — the window manager's title bar included.

    python -m benchmarks.screenshots [--only NAME ...] [--out docs/images] [--display 60]

Needs `Xvfb`, `openbox` and ImageMagick's `import` (Debian packages xvfb, openbox,
imagemagick); `optipng` makes the files smaller when installed; the everruns shot needs
PostgreSQL's programs (Debian's postgresql: a throw-away server, as the tests start it). Each
shot runs in a process of its own (a fresh application in the shot's theme, settings in a
temporary folder: a first run, tool calls not grouped) and waits until the list, the
transcript and the usage chart have all arrived before it is taken. The demo's session ids
follow today's date, so sessions are named by their titles.
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
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEventLoop, QSettings

from benchmarks.ui_drive import display
from desktop_app.app import _application, build_window, wait_until_idle
from desktop_app.domain.session import Session
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.roles import MessageRole, SessionRole
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.theme import palette_for, resolve_theme

ROOT = Path(__file__).resolve().parents[1]
AGENTS = ROOT / "tests/fixtures/agents"
GENUINE = ROOT / "tests/fixtures/genuine"
WEBHOOK = "Fix flaky webhook retry test"
"""The demo's newest session: a goose coding session with a table, code and tool calls."""
TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Shot:
    """One picture: the histories opened, the session shown by its title, the first message
    scrolled to (a substring of its text), whether only the usage panel is kept (its chart
    over all time) and whether an everruns server is started for it."""

    histories: tuple[str, ...] = ()
    demo: bool = False
    title: str | None = None
    theme: str = "light"
    scroll_to: str | None = None
    panel: bool = False
    everruns: bool = False
    all_time: bool = False


CLAUDE_TOOLS = str(AGENTS / "claude_code/tools/2.1.110")
CLAUDE_TITLE = "TOOLS-PROMPT: tidy app/handlers.py and tell me what you changed"
CODEX, CODEX_TITLE = (str(AGENTS / "codex/tools"),), "Plan the notes app"
GEMINI, GEMINI_TITLE = (str(AGENTS / "gemini_cli/tools"),), "Tidy notes/store.py and run it"
EVERY_AGENT = tuple(
    str(AGENTS / folder)
    for folder in (
        "claude_code/project",
        "codex/cli",
        "gemini_cli/tmp",
        "pi/sessions",
        "pi/pi-mono",
    )
)
"""The coding agents' genuine logs: a session with two models and sub-agents, and the others'."""
SHOTS: dict[str, Shot] = {
    "gander-main-window": Shot(demo=True, title=WEBHOOK),
    "gander-dark": Shot(demo=True, title=WEBHOOK, theme="dark"),
    "gander-several-histories": Shot(
        demo=True,
        histories=(str(GENUINE / "toolnexus"), str(GENUINE / "glean")),
        title="What is in this photo? Then the chart.",
    ),
    "claude-code-tools-light": Shot(
        histories=(CLAUDE_TOOLS,), title=CLAUDE_TITLE, scroll_to=CLAUDE_TITLE
    ),
    "claude-code-tools-dark": Shot(
        histories=(CLAUDE_TOOLS,), title=CLAUDE_TITLE, theme="dark", scroll_to="sys.exit(3)"
    ),
    "codex-tools-light": Shot(histories=CODEX, title=CODEX_TITLE, scroll_to=CODEX_TITLE),
    "codex-tools-dark": Shot(
        histories=CODEX, title=CODEX_TITLE, theme="dark", scroll_to="Three steps to a tested"
    ),
    "gemini-tools-light": Shot(histories=GEMINI, title=GEMINI_TITLE, scroll_to=GEMINI_TITLE),
    "goose-tools-dark": Shot(
        demo=True, title=WEBHOOK, theme="dark", scroll_to="Makes sense, apply it"
    ),
    "everruns-window": Shot(
        everruns=True, title="Weather in Kyiv", scroll_to="What is in this photo"
    ),
    "usage-panel-light": Shot(
        histories=EVERY_AGENT,
        title="Flaky webhook",
        panel=True,
        all_time=True,
    ),
    "usage-panel-dark": Shot(
        histories=EVERY_AGENT,
        title="Flaky webhook",
        panel=True,
        theme="dark",
        all_time=True,
    ),
}


def pump(condition: Callable[[], bool], timeout_s: float = TIMEOUT_S) -> bool:
    """Run the event loop until `condition` holds or the time is up; whether it held."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
        if condition():
            return True
        time.sleep(0.01)
    return False


@contextmanager
def everruns_server() -> Iterator[str]:
    """A throw-away PostgreSQL server with everruns' tables, one conversation (the reference's
    example: a photo, a tool call, a tool that timed out, reasoning, a model change and a
    compaction) and five one-message sessions; its URL."""
    from tests.fixtures.postgres import PostgresServer
    from tests.unit.test_everruns import _turn, _user

    server = PostgresServer()
    try:
        database = server.everruns_database("shot")
        for number in range(5):
            ticket = database.add_session(f"Support ticket {number}")
            database.add_events(ticket, [("input.message", _user("My order has not arrived"))])
        _turn(database, database.add_session("Weather in Kyiv"))
        yield database.url
    finally:
        server.close()


def _session_id(window: MainWindow, title: str) -> str | None:
    """The id of the listed session whose title starts with `title` (sub-agents included)."""
    model = window.sessions
    pending = [model.index(row, 0) for row in range(model.rowCount())]
    while pending:
        index = pending.pop(0)
        session = index.data(SessionRole.SESSION)
        if isinstance(session, Session) and (session.name or "").startswith(title):
            return session.id
        pending.extend(model.index(row, 0, index) for row in range(model.rowCount(index)))
    return None


def _row_with(window: MainWindow, text: str) -> int | None:
    """The first transcript row whose Markdown holds `text`, once every row is rendered."""
    model = window.transcript
    for row in range(model.rowCount()):
        index = model.index(row)
        index.data(MessageRole.BLOCKS)
        pump(lambda: bool(index.data(MessageRole.LOADED)), 10)  # noqa: B023  # called at once
        markdown = window.transcript_view.actions_for_qml.markdown(row)
        if markdown is not None and text in markdown:
            return row
    return None


def _arrange(window: MainWindow, tasks: TaskRunner, shot: Shot) -> str | None:
    """The shot's session open, its chart drawn, its message at the top; why not, or None."""
    wait_until_idle(window, tasks, TIMEOUT_S)
    if shot.title is not None:
        found = _session_id(window, shot.title)
        if found is None:
            return f"no session titled {shot.title!r}"
        window.session_list.setCurrentIndex(window.sessions.find_session(found))
        wait_until_idle(window, tasks, TIMEOUT_S)
    panel = window.usage_panel
    if not pump(lambda: panel.days is not None or not panel.chart_slot.isVisible()):
        return "the usage chart never came"
    if shot.all_time:
        panel.range_box.setCurrentIndex(panel.range_box.count() - 1)
    if shot.scroll_to is not None:
        row = _row_with(window, shot.scroll_to)
        if row is None:
            return f"no message holds {shot.scroll_to!r}"
        root = window.transcript_view.rootObject()
        root.showRowAtTop(row)  # type: ignore[attr-defined]  # Transcript.qml's function
    wait_until_idle(window, tasks, TIMEOUT_S)
    pump(lambda: False, 1.5)  # the last frames: the chart's first paint, a scroll's end
    return None


def _save(window: MainWindow, shot: Shot, target: Path) -> bool:
    """The screen as the X server has it; or the usage panel's whole content, as tall as it is
    (it scrolls in the window)."""
    if not shot.panel:
        command = ["import", "-window", "root", str(target)]
        return subprocess.run(command, timeout=60, check=False).returncode == 0
    content = window.usage_panel.widget()
    assert content is not None
    content.resize(content.width(), content.sizeHint().height())
    pump(lambda: False, 0.5)
    return content.grab().save(str(target))


def take(name: str, out: Path, folder: Path) -> str | None:
    """One shot, in this process (on the display in `DISPLAY`); why it failed, or None."""
    os.environ["QT_QPA_PLATFORM"] = "xcb"
    shot = SHOTS[name]
    app = _application()
    app.setStyle("Fusion")
    app.setPalette(palette_for(resolve_theme(shot.theme)))
    settings = Settings(QSettings(str(folder / "gander.ini"), QSettings.Format.IniFormat))
    settings.group_tools = False  # each tool call a card of its own, as the README says
    tasks = TaskRunner()
    try:
        with ExitStack() as stack:
            histories = list(shot.histories)
            if shot.everruns:
                histories.append(stack.enter_context(everruns_server()))
            args = Namespace(db=histories, demo=shot.demo, session=None, theme=shot.theme)
            window = build_window(args, folder / "data", settings, tasks)
            window.showMaximized()
            try:
                failure = _arrange(window, tasks, shot)
                target = out / f"{name}.png"
                if failure is None and not _save(window, shot, target):
                    failure = f"could not write {target}"
            finally:
                window.close()
    finally:
        tasks.shutdown()
    return failure


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=sorted(SHOTS), metavar="NAME")
    parser.add_argument("--out", type=Path, default=ROOT / "docs/images")
    parser.add_argument("--display", type=int, default=60, help="the X display's number")
    parser.add_argument("--take", choices=sorted(SHOTS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.take:
        # One folder name run to run: the demo's path is in the window's title.
        folder = Path(tempfile.gettempdir()) / "gander-shot"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        try:
            failure = take(args.take, args.out, folder)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        if failure:
            print(f"{args.take}: {failure}", file=sys.stderr)
        return 1 if failure else 0
    failed = 0
    with display(args.display, size=(1280, 800)) as name:
        for shot in args.only or sorted(SHOTS):
            env = {**os.environ, "DISPLAY": name}
            command = [sys.executable, "-m", "benchmarks.screenshots", "--take", shot]
            command += ["--out", str(args.out)]
            done = subprocess.run(command, env=env, cwd=ROOT, timeout=300, check=False)
            if done.returncode:
                failed += 1
                continue
            if shutil.which("optipng"):
                png = str(args.out / f"{shot}.png")
                subprocess.run(["optipng", "-quiet", "-o2", png], timeout=300, check=False)
            print(f"{shot}: {args.out / shot}.png")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
