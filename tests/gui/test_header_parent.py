"""The header's "Sub-agent of …" names the parent by its title, the id in its tooltip (#19): the
parent is read on the worker (a goose database, a Claude Code folder), never on the GUI thread,
and a title read for a session left since is never shown on another."""

import re
import threading
from argparse import Namespace
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from desktop_app.app import build_window
from desktop_app.domain.session import Session
from desktop_app.sources.goose import GooseSource
from desktop_app.ui.settings import Settings
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.widgets.session_header import TITLE_CHARS, SessionHeader
from tests.fixtures.goose_db import GooseDb

WRITTEN = Path(__file__).resolve().parents[1] / "fixtures" / "agents" / "claude_code" / "written"
CLAUDE_PARENT = "9900a45f-f488-45fe-911f-5c40ddaabd3c"
CLAUDE_TITLE = "MAIN-PROMPT: how many webhook handlers does app/handlers.py define?"
CLAUDE_SUB_AGENT = "agent-a2007cb"


def _shown(header: SessionHeader) -> str:
    """The link's text as drawn (inside the anchor)."""
    found = re.search(r'">([^<]*)</a>', header.parent_link.text())
    assert found is not None
    return found.group(1)


class _Gated:
    """A source whose `get_session` waits for the test to let it go (bounded), and counts."""

    def __init__(self, source: GooseSource) -> None:
        self._source = source
        self.gate = threading.Event()
        self.asked: list[str] = []

    def get_session(self, session_id: str, *, with_message_count: bool = True) -> Session:
        self.asked.append(session_id)
        self.gate.wait(10)
        return self._source.get_session(session_id, with_message_count=with_message_count)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._source, name)


@pytest.fixture
def family(make_db: Callable[..., GooseDb]) -> Iterator[GooseSource]:
    db = make_db()
    db.add_session("p1", name="Audit   the\nservices")
    db.add_session("p2", name="Release notes")
    db.add_session("unnamed", name="")
    db.add_session("long", name="word " * 5000)
    kids = (("k1", "p1"), ("k2", "p2"), ("k3", "unnamed"), ("k4", "gone"), ("k5", "long"))
    for kid, parent in kids:
        db.add_session(kid, name=f"Child {kid}", session_type="sub_agent", parent_session_id=parent)
    source = GooseSource(db.path)
    yield source
    source.close()


def _header(qtbot: QtBot, tasks: TaskRunner, source: object) -> SessionHeader:
    header = SessionHeader()
    header.look_up_parents(tasks, source)  # type: ignore[arg-type]
    qtbot.addWidget(header)
    header.resize(900, 120)
    header.show()
    return header


def test_the_parent_is_named_by_its_title_with_its_id_in_the_tooltip(
    family: GooseSource, tasks: TaskRunner, qtbot: QtBot
) -> None:
    header = _header(qtbot, tasks, family)
    header.show_session(family.get_session("k1"))
    assert _shown(header) == "p1", "the id until the title is read"
    qtbot.waitUntil(lambda: _shown(header) == "Audit the services", timeout=5000)
    assert 'href="p1"' in header.parent_link.text(), "the link still opens the parent by id"
    assert header.parent_link.toolTip() == (
        "Sub-agent of “Audit the services” (p1): click to open it"
    )
    header.parent_link.resize(header.parent_link.width() // 8, header.parent_link.height())
    assert _shown(header).endswith("…"), "a long title is cut at its end"
    assert "Audit the services".startswith(_shown(header).rstrip("…"))


def test_a_paragraph_long_title_is_cut_as_the_headers_own_title_is(
    family: GooseSource, tasks: TaskRunner, qtbot: QtBot
) -> None:
    header = _header(qtbot, tasks, family)
    header.show_session(family.get_session("k5"))
    qtbot.waitUntil(lambda: header.parent_link.parent_title is not None, timeout=5000)
    title = header.parent_link.parent_title or ""
    assert len(title) == TITLE_CHARS
    assert title.endswith("…")
    assert len(header.parent_link.toolTip()) < 2 * TITLE_CHARS


@pytest.mark.parametrize("kid", ["k3", "k4"], ids=["untitled parent", "parent not in history"])
def test_a_parent_without_a_title_stays_named_by_its_id(
    kid: str, family: GooseSource, tasks: TaskRunner, qtbot: QtBot
) -> None:
    header = _header(qtbot, tasks, family)
    session = family.get_session(kid)
    header.show_session(session)
    qtbot.waitUntil(lambda: header._parent_read is not None, timeout=5000)
    assert header.parent_link.parent_title is None
    assert _shown(header) == session.parent_session_id
    assert header.parent_link.toolTip() == (
        f"Sub-agent of {session.parent_session_id}: click to open it"
    )


def test_showing_the_session_again_reads_its_parent_once_and_keeps_its_title(
    family: GooseSource, tasks: TaskRunner, qtbot: QtBot
) -> None:
    gated = _Gated(family)
    gated.gate.set()
    header = _header(qtbot, tasks, gated)
    kid = family.get_session("k1")
    header.show_session(kid)
    qtbot.waitUntil(lambda: _shown(header) == "Audit the services", timeout=5000)
    header.show_session(kid, 3)  # its figures arrived
    assert _shown(header) == "Audit the services", "no flicker back to the id"
    assert gated.asked == ["p1"]


def test_a_title_read_for_a_session_left_since_is_not_shown_on_the_next(
    family: GooseSource, tasks: TaskRunner, qtbot: QtBot
) -> None:
    gated = _Gated(family)
    header = _header(qtbot, tasks, gated)
    header.show_session(family.get_session("k1"))
    qtbot.waitUntil(lambda: gated.asked == ["p1"], timeout=5000)  # on the worker, held
    header.show_session(family.get_session("k2"))
    gated.gate.set()
    qtbot.waitUntil(lambda: _shown(header) == "Release notes", timeout=5000)
    assert "Audit" not in header.parent_link.text() + header.parent_link.toolTip()


def test_the_window_names_a_claude_code_sub_agents_parent(
    tmp_path: Path, tasks: TaskRunner, qtbot: QtBot
) -> None:
    """On the session Claude Code 2.1.47 wrote and its sub-agent's file."""
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    folder = WRITTEN / "2.1.47"
    args = Namespace(db=[f"claude-code={folder}"], demo=False, session=CLAUDE_SUB_AGENT)
    window = build_window(args, tmp_path / "data", settings, tasks)
    qtbot.addWidget(window)
    window.show()
    header = window.header
    qtbot.waitUntil(lambda: header.native_id == CLAUDE_SUB_AGENT, timeout=10_000)
    qtbot.waitUntil(lambda: CLAUDE_TITLE in header.parent_link.toolTip(), timeout=5000)
    assert CLAUDE_PARENT in header.parent_link.toolTip()
    assert len(_shown(header)) > 12
    assert CLAUDE_TITLE.startswith(_shown(header).rstrip("…"))
    window.close()
