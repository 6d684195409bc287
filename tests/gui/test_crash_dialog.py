"""Crashes and the log in the window (#21 item 5): an uncaught exception shows one sentence
with "Copy details", a worker's failure is logged before it is delivered, and Help ▸ Open log
folder opens the folder."""

import logging
import sys
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QMenu, QPushButton
from pytestqt.qtbot import QtBot

from desktop_app.domain.errors import UnknownSession, sentence
from desktop_app.files import logs
from desktop_app.ui import crash
from desktop_app.ui.crash import CrashDialog, CrashReporter
from desktop_app.ui.tasks import TaskRunner
from tests.gui.test_window import demo_window


@pytest.fixture
def shown(monkeypatch: pytest.MonkeyPatch) -> list[CrashDialog]:
    """The dialogs `exec` was called on (none is really shown: the test would wait on it)."""
    dialogs: list[CrashDialog] = []

    def record(dialog: CrashDialog) -> int:
        dialogs.append(dialog)
        return 0

    monkeypatch.setattr(CrashDialog, "exec", record)
    # The hook Gander chains to: pytest-qt's would fail the test for the exception it is about.
    monkeypatch.setattr(sys, "excepthook", lambda *_: None)
    monkeypatch.setattr(threading, "excepthook", lambda _args: None)
    return dialogs


def test_an_uncaught_exception_shows_the_dialog_with_the_log(
    tmp_path: Path, qapp: object, shown: list[CrashDialog]
) -> None:
    del qapp
    log_file = tmp_path / logs.LOG_NAME
    reporter = CrashReporter(log_file)
    with logs.crash_hooks(reporter.report, tmp_path):
        try:
            raise KeyError("a bug")
        except KeyError:
            sys.excepthook(*sys.exc_info())
    [dialog] = shown
    sentence = crash.crash_sentence(log_file)
    assert str(log_file) in sentence
    assert "\n" not in sentence
    assert "Traceback" not in sentence
    dialog.copy_details()
    copied = QGuiApplication.clipboard().text()
    assert "KeyError: 'a bug'" in copied
    assert str(log_file) in copied
    assert dialog.copy_button.text() == "Copied"


def test_a_thread_s_crash_reaches_the_gui_thread_once_at_a_time(
    tmp_path: Path, qtbot: QtBot, shown: list[CrashDialog]
) -> None:
    reporter = CrashReporter(None)
    with logs.crash_hooks(reporter.report, tmp_path):
        worker = threading.Thread(target=_fail, name="failing")
        worker.start()
        worker.join()
        qtbot.waitUntil(lambda: len(shown) == 1, timeout=5000)
    assert shown[0].details.count("RuntimeError: thread bug") == 1
    assert "In thread failing" in shown[0].details
    assert "could not be written" in crash.crash_sentence(None)


def test_a_worker_s_exception_is_logged_before_it_is_delivered(
    tasks: TaskRunner, qtbot: QtBot, caplog: pytest.LogCaptureFixture
) -> None:
    delivered: list[BaseException] = []
    logged_first: list[bool] = []

    def failed(error: BaseException) -> None:
        logged_first.append(any(r.exc_info for r in caplog.records))
        delivered.append(error)
        sentence(error)  # what the window's callbacks say: it does not log the bug again

    with caplog.at_level(logging.INFO, logger="desktop_app.ui.tasks"):
        tasks.run(_divide, lambda _: None, failed)
        tasks.run(_refuse, lambda _: None, failed)
        qtbot.waitUntil(lambda: len(delivered) == 2, timeout=5000)
    assert logged_first == [True, True]
    bug, refusal = caplog.records  # one record each
    assert bug.levelno == logging.ERROR
    assert bug.exc_info is not None
    assert "_divide failed" in bug.getMessage()
    assert refusal.levelno == logging.INFO
    assert refusal.exc_info is None
    assert "no such session" in refusal.getMessage()


def test_help_open_log_folder_opens_it(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[QUrl] = []

    def open_url(url: QUrl) -> bool:
        opened.append(url)
        return True

    monkeypatch.setattr(QDesktopServices, "openUrl", open_url)
    window, _settings = demo_window(tmp_path, tasks, qtbot)
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    assert isinstance(help_menu, QMenu)
    action = next(a for a in help_menu.actions() if a.text() == "Open &log folder")
    assert opened == []  # only after the click
    action.trigger()
    assert [url.toLocalFile() for url in opened] == [str(logs.log_dir())]
    assert logs.log_dir().is_dir()
    window.close()


def test_the_dialog_says_when_no_file_manager_opened_the_folder(
    tmp_path: Path, qapp: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    del qapp
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda _url: False)
    dialog = CrashDialog("Traceback…", tmp_path / logs.LOG_NAME)
    folder = next(b for b in dialog.findChildren(QPushButton) if "folder" in b.text())
    folder.click()
    assert dialog.note.text() == f"No file manager opened the log folder, {tmp_path}."
    assert not dialog.note.isHidden()


def _fail() -> None:
    raise RuntimeError("thread bug")


def _divide() -> float:
    return 1 / 0


def _refuse() -> None:
    raise UnknownSession("no such session here")
