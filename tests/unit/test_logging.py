"""Gander's log (`files/logs.py`): the file is written, rotates, is undone after the run, and
the CLI writes to it, never to stdout."""

import io
import logging
import sys
import threading
from pathlib import Path

import pytest

from desktop_app import __version__, cli
from desktop_app.files import logs


def test_the_log_file_is_written_and_rotates(tmp_path: Path) -> None:
    log = logging.getLogger("desktop_app.tests.rotation")
    with logs.logging_to_file(tmp_path, max_bytes=2_000, backups=2) as path:
        assert path == tmp_path / logs.LOG_NAME
        assert logs.active_log_file() == path
        for number in range(100):
            log.info("line %d of a long run %s", number, "x" * 40)
    assert logs.active_log_file() is None  # undone: a later test logs nowhere
    assert "line 99 of a long run" in path.read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "gander.log",
        "gander.log.1",
        "gander.log.2",
    ]
    assert all(p.stat().st_size <= 2_000 for p in tmp_path.iterdir())


def test_the_level_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(logs.LEVEL_ENV, "warning")
    log = logging.getLogger("desktop_app.tests.level")
    with logs.logging_to_file(tmp_path) as path:
        log.info("not wanted")
        log.warning("wanted")
    assert path is not None
    text = path.read_text(encoding="utf-8")
    assert "wanted" in text
    assert "not wanted" not in text
    assert logs.log_level({logs.LEVEL_ENV: "DEBUG"}) == logging.DEBUG
    assert logs.log_level({logs.LEVEL_ENV: "nonsense"}) == logging.INFO


def test_a_folder_that_cannot_be_made_means_no_log_not_no_gander(tmp_path: Path) -> None:
    """And errors still reach stderr, as their message alone, with no note about the log."""
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    stderr = io.StringIO()
    with logs.logging_to_file(blocker / "logs") as path:
        previous, sys.stderr = sys.stderr, stderr
        try:
            logging.getLogger("desktop_app.tests").error("nowhere to go")
        finally:
            sys.stderr = previous
    assert path is None
    assert stderr.getvalue() == "nowhere to go\n"


def test_the_cli_logs_to_the_file_and_prints_only_its_output(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["--db", "/no/such/history.db", "list"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1  # the one sentence
    text = (logs.log_dir() / logs.LOG_NAME).read_text(encoding="utf-8")
    assert "desktop_app.cli" in text
    assert f"gander {__version__}" in text
    assert ": list" in text


def test_a_cli_bug_is_logged_and_left_to_python_to_print(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its traceback once on stderr (Python's, as it propagates), not a second time by the log."""

    def broken(*_: object) -> int:
        raise RuntimeError("a bug in a command")

    monkeypatch.setitem(cli.COMMANDS, "list", broken)
    with pytest.raises(RuntimeError, match="a bug in a command"):
        cli.main(["--demo", "list"])
    assert capsys.readouterr().err == ""
    text = (logs.log_dir() / logs.LOG_NAME).read_text(encoding="utf-8")
    assert "gander list stopped on an unexpected error" in text
    assert "RuntimeError: a bug in a command" in text


def test_an_uncaught_exception_is_logged_then_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[object] = []
    reports: list[str] = []
    monkeypatch.setattr(sys, "excepthook", lambda *info: seen.append(info[1]))
    monkeypatch.setattr(threading, "excepthook", lambda args: seen.append(args.exc_value))
    with logs.logging_to_file(tmp_path) as path, logs.crash_hooks(reports.append, tmp_path):
        try:
            raise ValueError("main thread bug")
        except ValueError:
            sys.excepthook(*sys.exc_info())
        worker = threading.Thread(target=_fail, name="worker-under-test")
        worker.start()
        worker.join()
    assert [str(error) for error in seen] == ["main thread bug", "worker bug"]
    assert "ValueError: main thread bug" in reports[0]
    assert reports[1].startswith("In thread worker-under-test:")
    assert path is not None
    text = path.read_text(encoding="utf-8")
    assert "Uncaught exception" in text
    assert "ValueError: main thread bug" in text
    assert "RuntimeError: worker bug" in text


def test_the_hooks_are_put_back(tmp_path: Path) -> None:
    before = (sys.excepthook, threading.excepthook)
    with logs.crash_hooks(None, tmp_path):
        assert sys.excepthook is not before[0]
    assert (sys.excepthook, threading.excepthook) == before


def _fail() -> None:
    raise RuntimeError("worker bug")
