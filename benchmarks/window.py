"""Window benchmark: list first rows, transcript first paint at 5k and 50k, peak RSS, the GUI
thread's longest stalls, and huge content.

    python -m benchmarks.window [--data DIR] [--huge-only]

Builds (once) a history of 20,000 sessions plus sessions of 5,000 and 50,000 messages, then, in
one offscreen process, times: the session list's first page arriving in the model; and for each
long session, the time from `open_session` until the rows on screen are rendered and a frame is
painted. A 10 ms timer measures the GUI thread's longest stall (the largest gap between its
ticks, less 10 ms) during start-up, the search index's build, live updates (another process
appends a message every 100 ms for 5 s, as goose does), opening the 50,000-message session and
paging up through it.

Then, each in a fresh process so that peak RSS is its own: the window on one 20 MB message of
prose, on one 20 MB line with nowhere to wrap, on one 19 MB tool argument, and on the prose with
five more 20 MB messages in other sessions (all six in the index's first build) — drawn, indexed,
scrolled through and shown more of twice (#13 item 4). Prints the figures and the budgets.
"""

import argparse
import json
import os
import random
import resource
import shutil
import sqlite3
import subprocess
import sys
import time
from argparse import Namespace
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QEventLoop, QSettings, Qt, QTimer
from PySide6.QtTest import QTest

from benchmarks.history import WORDS, build
from desktop_app.app import _application, build_window
from desktop_app.search.index import index_path
from desktop_app.sources.goose.writer import GooseWriter
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner


def pump_until(condition: Callable[[], bool], timeout_s: float = 60.0) -> float:
    """Run the real event loop (which sleeps natively, leaving the GIL to the worker) until
    `condition` holds; a busy processEvents() loop would steal the worker's time."""
    started = time.perf_counter()
    loop = QEventLoop()
    timer = QTimer(interval=2)

    def check() -> None:
        if condition() or time.perf_counter() - started > timeout_s:
            loop.quit()

    timer.timeout.connect(check)
    timer.start()
    if not condition():
        loop.exec()
    timer.stop()
    if not condition():
        raise TimeoutError("benchmark step did not finish")
    return time.perf_counter() - started


def peak_rss_mb() -> float:
    """This process's peak RSS. Not `ru_maxrss`, which a child started by `subprocess` inherits
    from its parent's peak at the fork; `VmHWM` belongs to the process's own memory."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def pump_for(seconds: float) -> None:
    """Let the event loop run for `seconds` (layouts, paints, the stall meter's ticks)."""
    end = time.perf_counter() + seconds
    pump_until(lambda: time.perf_counter() >= end)


class StallMeter:
    """The GUI thread's longest stall: a precise 10 ms timer's largest gap between ticks, less
    the 10 ms it waits on purpose. Ticks come only while the event loop runs, as for a user."""

    def __init__(self) -> None:
        self._timer = QTimer(interval=10)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.timeout.connect(self._tick)
        self._last = 0.0
        self.worst = 0.0

    def _tick(self) -> None:
        now = time.perf_counter()
        self.worst = max(self.worst, now - self._last - 0.010)
        self._last = now

    def start(self) -> None:
        self.worst = 0.0
        self._last = time.perf_counter()
        self._timer.start()

    def stop(self) -> float:
        """The longest stall since `start`, in milliseconds."""
        self._timer.stop()
        return max(0.0, self.worst) * 1000


APPENDER = """
import sqlite3, sys, time, json
conn = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)
text = json.dumps([{"type": "text", "text": "a new line from the agent"}])
meta = json.dumps({"userVisible": True, "agentVisible": True})
for n in range(50):
    conn.execute("BEGIN IMMEDIATE")
    conn.execute(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json)"
        " VALUES (?, 'assistant', ?, ?, ?)", (sys.argv[2], text, 1_900_000_000 + n, meta))
    conn.execute("UPDATE sessions SET updated_at = datetime('now') WHERE id = ?", (sys.argv[2],))
    conn.execute("COMMIT")
    time.sleep(0.1)
"""
"""goose appending to the open session: a message every 100 ms for 5 s, from another process."""


def first_paint(window: MainWindow, session_id: str) -> float:
    started = time.perf_counter()
    window.transcript.open_session(session_id)
    pump_until(lambda: window.transcript.rowCount() > 0)
    pump_until(lambda: window.transcript.rendered_count > 0 and not window.transcript.pending)
    window.transcript_view.grabFramebuffer()
    return time.perf_counter() - started


COLD_START = """
import sys, time
from argparse import Namespace
from pathlib import Path
from PySide6.QtCore import QSettings
from desktop_app.app import _application, build_window
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from benchmarks.window import pump_until
_application()
settings = Settings(QSettings(sys.argv[2], QSettings.Format.IniFormat))
tasks = TaskRunner()
session = sys.argv[4] or None
arguments = Namespace(db=Path(sys.argv[1]), demo=False, session=session)
window = build_window(arguments, Path(sys.argv[3]), settings, tasks)
window.show()
shown = window.transcript
pump_until(
    lambda: window.sessions.rowCount() > 0
    and shown.rendered_count > 0
    and not shown.pending
    and (session is None or shown.session_id == session)
)
window.transcript_view.grabFramebuffer()
print(time.time())
tasks.shutdown()
"""
"""Prints the wall-clock time at which the list and the transcript were drawn."""


def cold_start(db: Path, data: Path, session: str = "") -> float:
    """Process start → the list and the transcript (the newest, or `session`) drawn, in a fresh
    interpreter: from just before the process is started to the frame, on one clock. With the
    modules' bytecode cached, as an installed Gander runs (`benchmarks.cli`'s docstring says
    why), which the first start writes."""
    settings = data / "cold-settings.ini"
    settings.unlink(missing_ok=True)
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    env |= {"QT_QPA_PLATFORM": "offscreen", "PYTHONPYCACHEPREFIX": str(data / "bytecode")}
    launched = time.time()
    result = subprocess.run(
        [sys.executable, "-c", COLD_START, str(db), str(settings), str(data), session],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=Path(__file__).parents[1],
    )
    return float(result.stdout.strip().splitlines()[-1]) - launched


def opening_times(db: Path, data: Path) -> dict[int, tuple[float, float]]:
    """Process start → a long session drawn, and → a session of only its last 40 messages (the
    same rows on screen), medians of 5: what grows with length, end to end (#13 item 3)."""
    times = {}
    for count in (5_000, 50_000):
        long = sorted(cold_start(db, data, f"long_{count}") for _ in range(5))[2]
        tail = sorted(cold_start(db, data, f"tail_{count}") for _ in range(5))[2]
        times[count] = (long, tail)
    return times


def opening_cost(db: Path, data: Path) -> None:
    for count, (long, tail) in opening_times(db, data).items():
        print(
            f"process start → {count:,}-message session drawn: {long:.2f} s, its last 40 alone: "
            f"{tail:.2f} s   = {long / tail:.2f}×   budget ≤ 1.1×"
        )


HUGE = {
    "20 MB of prose": "prose",
    "a 20 MB line with nowhere to wrap": "line",
    "a 19 MB tool argument": "argument",
    "20 MB of prose, five more such messages in other sessions": "six",
}


def build_huge(path: Path, kind: str) -> Path:
    """A history of one session: a question, one huge message of `kind`, an answer. `six`: the
    session of `prose`, and five more sessions of one 20 MB message each, all in the index's
    first build."""
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    db = GooseWriter(partial)
    db.add_session("huge", name=f"Huge: {kind}")
    db.add_message("huge", content="Show me everything.", created=1_767_323_000)
    rng = random.Random(7)
    words = [rng.choice(WORDS) for _ in range(4_000)]
    prose = "\n\n".join(" ".join(words[i % 3_000 : i % 3_000 + 80]) for i in range(45_000))
    if kind in ("prose", "six"):
        db.add_message("huge", "assistant", content=prose[:20_000_000], created=1_767_323_001)
        for other in range(5 if kind == "six" else 0):
            db.add_session(f"huge-{other}", name=f"Huge too: {other}")
            db.add_message(f"huge-{other}", "assistant", content=prose[:20_000_000], created=1)
    elif kind == "line":
        line = prose.replace(" ", "_").replace("\n", "_")[:20_000_000]
        db.add_message("huge", "assistant", content=line, created=1_767_323_001)
    else:
        arguments = {"path": "/tmp/notes.md", "file_text": prose[:19_000_000]}
        value = {"name": "developer__text_editor", "arguments": arguments}
        request = [
            {"type": "toolRequest", "id": "t1", "toolCall": {"status": "success", "value": value}}
        ]
        db.add_message("huge", "assistant", content=request, created=1_767_323_001)
    db.add_message("huge", content="Thanks.", created=1_767_323_002)
    db.close()
    partial.rename(path)
    return path


def huge_child(db: Path, data: Path) -> None:
    """In its own process: the window on the huge session drawn, its search index built, the
    transcript scrolled through, then Show more clicked twice; prints one JSON line with the
    longest stall and the peak RSS after each step."""
    _application()
    settings = Settings(QSettings(str(data / "huge-settings.ini"), QSettings.Format.IniFormat))
    tasks = TaskRunner()
    meter = StallMeter()
    figures: dict[str, object] = {}

    def step(name: str) -> None:
        figures[name] = {"stall_ms": meter.stop(), "rss_mb": peak_rss_mb()}
        meter.start()

    window = build_window(Namespace(db=db, demo=False, session="huge"), data, settings, tasks)
    window.resize(1280, 800)
    window.show()
    meter.start()
    transcript = window.transcript
    figures["drawn_s"] = pump_until(
        lambda: (
            transcript.session_id == "huge"
            and transcript.rendered_count == transcript.rowCount() > 0
            and not transcript.pending
        ),
        timeout_s=120,
    )
    window.transcript_view.grabFramebuffer()
    step("drawn")
    pump_until(lambda: window.search.updating, timeout_s=10)
    pump_until(lambda: not window.search.updating, timeout_s=300)
    step("indexed")
    view = window.transcript_view
    for row in (*range(transcript.rowCount()), 0):
        view.show_row(row)
        pump_for(0.2)
        view.grabFramebuffer()
    step("scrolled")
    changes: list[int] = []
    transcript.dataChanged.connect(lambda *_: changes.append(1))
    for click in range(1, 3):
        view.actions_for_qml.linkActivated(1, 0, "gander-more:0")
        pump_until(lambda: len(changes) >= click, timeout_s=60)  # noqa: B023 - waited on here
        view.show_row(1)
        pump_for(0.2)
        view.grabFramebuffer()
    step("shown more twice")
    window.close()
    tasks.shutdown()
    print(json.dumps(figures))


def huge_figures(data: Path) -> dict[str, dict[str, Any]]:
    """Each huge-content run's figures (see `huge_child`), by its label."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    runs = {}
    for label, kind in HUGE.items():
        db = build_huge(data / f"huge-{kind}.db", kind)
        folder = data / f"huge-{kind}-data"
        shutil.rmtree(folder, ignore_errors=True)  # the index is built afresh each time
        done = subprocess.run(
            [sys.executable, "-m", "benchmarks.window", "--huge-child", str(db), str(folder)],
            capture_output=True,
            text=True,
            check=True,
            env=env,
            cwd=Path(__file__).parents[1],
        )
        runs[label] = json.loads(done.stdout.strip().splitlines()[-1])
    return runs


def huge(data: Path) -> None:
    for label, figures in huge_figures(data).items():
        print(f"window on {label}: drawn in {figures.pop('drawn_s'):.2f} s")
        for name, step in figures.items():
            print(
                f"    {name + ':':<18} longest stall {step['stall_ms']:5.0f} ms (≤ 50 ms), "
                f"peak RSS {step['rss_mb']:4.0f} MB (≤ 450 MB)"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=Path(__file__).parent / "data")
    parser.add_argument("--huge-only", action="store_true", help="only the huge-content runs")
    parser.add_argument("--huge-child", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.huge_child:
        huge_child(*args.huge_child)
        return
    if args.huge_only:
        huge(args.data)
        return
    large_history(args.data)
    huge(args.data)


def long_session_stalls(window: MainWindow, meter: "StallMeter") -> dict[str, float]:
    """The longest stalls opening the 50,000-message session, and then pressing Page Up 60
    times, 50 ms apart, from its end (a minute's reading back up it, a screen at a time); the
    session is at its end again after."""
    meter.start()
    first_paint(window, "long_50000")
    opening = meter.stop()
    meter.start()
    window.transcript_view.setFocus()
    for _ in range(60):
        QTest.keyClick(window.transcript_view, Qt.Key.Key_PageUp)
        pump_for(0.05)
    paging = meter.stop()
    first_paint(window, "long_50000")
    return {
        "opening the 50,000-message session": opening,
        "paging up the 50,000-message session (60 screens)": paging,
    }


def large_history(data: Path) -> None:
    """The 20,000-session history: list, first paints, stalls, peak RSS, cold start."""
    started = time.perf_counter()
    db = build(data / "window-history.db")
    print(f"history ready in {time.perf_counter() - started:.1f} s: {db}")

    app = _application()
    del app
    settings = Settings(QSettings(str(data / "bench-settings.ini"), QSettings.Format.IniFormat))
    # The index is built afresh, so its stall figure is a first build's.
    for stale in index_path(data, str(db)).parent.glob(index_path(data, str(db)).name + "*"):
        stale.unlink()
    tasks = TaskRunner()
    meter = StallMeter()
    stalls: dict[str, float] = {}
    opened = time.perf_counter()
    window = build_window(Namespace(db=db, demo=False, session=None), data, settings, tasks)
    window.resize(1280, 800)
    window.show()
    meter.start()
    pump_until(lambda: window.sessions.rowCount() > 0)
    list_ms = (time.perf_counter() - opened) * 1000
    pump_until(lambda: window.transcript.rendered_count > 0 and not window.transcript.pending)
    stalls["start-up (list and newest transcript drawn)"] = meter.stop()

    # The search index starts its (first) build 1.5 s after the window opens; transcript opens
    # are measured once it is current, as on every start after the first.
    meter.start()
    pump_until(lambda: window.search.updating, timeout_s=10)
    indexing = pump_until(lambda: not window.search.updating, timeout_s=300)
    stalls["search index build"] = meter.stop()
    print(f"search index brought up to date in the background in {indexing:.1f} s")
    paints = {}
    for count in (5_000, 50_000):
        runs = [first_paint(window, f"long_{count}") * 1000 for _ in range(3)]
        paints[count] = sorted(runs)[1]
    stalls.update(long_session_stalls(window, meter))

    meter.start()
    before = window.transcript.rowCount()
    appender = subprocess.Popen([sys.executable, "-c", APPENDER, str(db), "long_50000"])
    pump_until(lambda: appender.poll() is not None, timeout_s=60)
    pump_until(lambda: window.transcript.rowCount() >= before + 50, timeout_s=10)
    stalls["live updates (50 appended in 5 s)"] = meter.stop()
    rss_mb = peak_rss_mb()
    window.close()
    tasks.shutdown()
    with sqlite3.connect(db) as conn:  # the history stays as `build` made it
        conn.execute("DELETE FROM messages WHERE created_timestamp >= 1900000000")

    print(f"session list, first rows (20,002 sessions): {list_ms:7.1f} ms   budget ≤ 300 ms")
    for count, ms in paints.items():
        print(f"transcript first paint, {count:>6,} messages: {ms:7.1f} ms   budget ≤ 250 ms")
    print(f"ratio 50k/5k: {paints[50_000] / paints[5_000]:.2f}   budget ≤ 1.5")
    print(f"peak RSS: {rss_mb:.0f} MB   budget ≤ 350 MB")
    for phase, ms in stalls.items():
        print(f"longest GUI stall, {phase}: {ms:6.1f} ms   budget ≤ 50 ms")
    starts = sorted([cold_start(db, data) for _ in range(4)][1:])  # the first writes the bytecode
    print(f"cold start to a usable window: {starts[1]:.2f} s   budget ≤ 1.2 s (#21)")
    opening_cost(db, data)


if __name__ == "__main__":
    main()
