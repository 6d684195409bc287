"""`gander --session ID` with several histories open looks the session up as the CLI does:
`ID` when one history has it, `KIND:ID` or `TAG:ID` to say which, and a sentence naming the
candidates when it is ambiguous (a kind names each history of that kind: `goose:ID` is
ambiguous when two goose histories hold ID) (issue #17, item 19). The lookup happens before
any window is built, so a refused id never flashes a window."""

from argparse import Namespace
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from desktop_app.app import Windows, build_window
from desktop_app.domain.errors import UnknownSession
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from tests.fixtures.goose_db import GooseDb
from tests.fixtures.processes import run_gander


def _two_gooses(tmp_path: Path) -> tuple[Path, Path]:
    """Two goose databases that both hold `shared`; only the second holds `second-only`."""
    paths = []
    for name, own in (("one.db", "first-only"), ("two.db", "second-only")):
        db = GooseDb(tmp_path / name)
        for session_id in ("shared", own):
            db.add_session(session_id, name=f"{session_id} in {name}")
            db.add_message(session_id, "user", [{"type": "text", "text": "hi"}], created=1767323001)
        db.close()
        paths.append(tmp_path / name)
    return paths[0], paths[1]


def _args(paths: tuple[Path, Path], session: str) -> Namespace:
    return Namespace(db=list(paths), demo=False, session=session, screenshot=None, theme=None)


@pytest.mark.parametrize(
    ("asked", "opened"),
    [
        ("second-only", "goose-2:second-only"),
        ("goose-2:shared", "goose-2:shared"),
        ("goose:second-only", "goose-2:second-only"),
    ],
)
def test_the_session_option_takes_what_the_cli_takes(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot, asked: str, opened: str
) -> None:
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    window = build_window(_args(_two_gooses(tmp_path), asked), tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.transcript.session_id == opened, timeout=10_000)
    window.close()


@pytest.mark.parametrize(
    ("asked", "sentence"),
    [
        (
            "shared",
            "Session id 'shared' is in more than one open history; say which: goose:shared, "
            "goose-2:shared.",
        ),
        (
            "goose:shared",
            "Session id 'goose:shared' is in more than one open history; say which: "
            "goose:shared, goose-2:shared.",
        ),
        ("nowhere", "There is no session with id 'nowhere' in the open histories."),
    ],
)
def test_an_ambiguous_or_unknown_session_is_refused_with_the_cli_sentence(
    tmp_path: Path, tasks: TaskRunner, asked: str, sentence: str
) -> None:
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    with pytest.raises(UnknownSession) as refused:
        build_window(_args(_two_gooses(tmp_path), asked), tmp_path / "data", settings, tasks)
    assert str(refused.value) == sentence


def test_gander_exits_non_zero_with_the_sentence(tmp_path: Path) -> None:
    one, two = _two_gooses(tmp_path)
    shot = tmp_path / "shot.png"
    common = ("--db", str(one), "--db", str(two), "--screenshot", str(shot))
    result = run_gander(*common, "--session", "shared")
    assert result.returncode == 1
    assert result.stderr == (
        "gander: Session id 'shared' is in more than one open history; say which: "
        "goose:shared, goose-2:shared.\n"
    )
    assert not shot.exists()
    assert run_gander(*common, "--session", "goose-2:shared").returncode == 0
    assert shot.exists()


def test_adding_a_history_keeps_the_open_session_under_its_new_name(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """The window is built again over the larger set on the session it showed: `first-only`
    of one history becomes `goose:first-only` of two (it used to be looked up as it was, not
    found, and the newest session opened instead)."""
    one, two = _two_gooses(tmp_path)
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    windows = Windows(tmp_path / "data", settings, tasks)
    args = Namespace(db=[one], demo=False, session="first-only", screenshot=None, theme=None)
    first = windows.open(args)
    qtbot.addWidget(first)
    first.show()
    qtbot.waitUntil(lambda: first.transcript.session_id == "first-only", timeout=10_000)
    windows.add_to(first, two)
    assert windows.last_error is None
    (both,) = windows.open_windows
    qtbot.addWidget(both)
    qtbot.waitUntil(lambda: both.transcript.session_id == "goose:first-only", timeout=10_000)
    both.close()
