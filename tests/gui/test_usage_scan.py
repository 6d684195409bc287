"""A long log's per-reply usage (the context growth chart) is read a step at a time behind
what the user waits for (`UsageLoader.load_session`): the worker is never held for the whole
log — a 1.85-million-message log held it for minutes, and its transcript could not page — and
the chart's points stay bounded however long the session is. On a genuine Claude Code log
copied over (tests/fixtures/agents/claude_code/written)."""

from dataclasses import replace
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop_app.domain.message import Message, Role
from desktop_app.domain.reading import iter_messages
from desktop_app.domain.source import SessionQuery
from desktop_app.domain.usage import MessageUsage, TokenUsage, UsagePoint
from desktop_app.sources.claude_code import format as claude_code
from desktop_app.sources.files.history import FileHistory
from desktop_app.ui import usage_loader
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.usage_loader import UsageLoader
from tests.unit.test_message_pages import claude_log, message

SESSION = "7f3c2a10-0000-4000-8000-00000000aaaa"


@pytest.fixture
def source(tmp_path: Path) -> FileHistory:
    (tmp_path / f"{SESSION}.jsonl").write_bytes(claude_log(20))
    history = FileHistory(tmp_path, [claude_code.FORMAT], tmp_path / "data")
    history.list_sessions(SessionQuery())
    return history


def replies(source: FileHistory) -> list[int | None]:
    return [
        m.usage.tokens.input_tokens
        for m in iter_messages(source, SESSION)
        if m.usage is not None and not m.synthetic
    ]


def test_the_replies_usage_is_read_in_steps_behind_what_the_user_waits_for(
    source: FileHistory, tasks: TaskRunner, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(usage_loader, "SCAN_STEP", 7)
    loader = UsageLoader(source, tasks)
    shown: list[list[int | None]] = []
    order: list[str] = []

    def loaded(session: object, totals: object, series: list[UsagePoint], figures: object) -> None:
        shown.append([point.input_tokens for point in series])
        order.append("usage")
        if len(shown) == 1:  # the user opens a page of the transcript meanwhile
            tasks.run(lambda: None, lambda _: order.append("transcript"))

    loader.session_loaded.connect(loaded)
    loader.load_session(SESSION)
    qtbot.waitUntil(lambda: len(shown) == 2, timeout=10_000)
    assert order == ["usage", "transcript", "usage"]  # between two steps, not after them all
    assert len(shown[0]) < len(shown[1])  # the first step's, then all
    assert shown[1] == replies(source)


@pytest.mark.parametrize("replies", [1, 7, 8, 9, 100, 1_000])
def test_the_chart_is_given_a_bounded_thinned_series(
    replies: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At most `SERIES_POINTS`: every stride-th reply from the first, the stride doubled each
    time the points fill up, so the last is within a stride of the end."""
    monkeypatch.setattr(usage_loader, "SERIES_POINTS", 8)
    series = usage_loader._Series([])
    for number in range(replies):
        series.add(reply(number))
    got = [point.input_tokens for point in series.points]
    stride = 1 if len(got) < 2 else (got[1] or 0) - (got[0] or 0)
    assert len(got) < 8
    assert got == list(range(0, replies, stride))
    assert stride & (stride - 1) == 0  # a power of two


def reply(number: int) -> Message:
    usage = MessageUsage(tokens=TokenUsage(input_tokens=number))
    return replace(message(number), role=Role.ASSISTANT, role_raw="assistant", usage=usage)


@pytest.mark.parametrize("recorded", [0, 1, 8, 9, 100, 1_001])
def test_a_recorded_series_is_thinned_alike(recorded: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A recorded series (everruns' server gives one point a reply, however many) is given to
    the window's thread at every live update: at most `SERIES_POINTS`, every stride-th from
    the first."""
    monkeypatch.setattr(usage_loader, "SERIES_POINTS", 8)
    points = [
        UsagePoint(at=None, input_tokens=n, output_tokens=0, cost=None) for n in range(recorded)
    ]
    series = usage_loader._Series(points)
    got = [point.input_tokens for point in series.points]
    assert len(got) <= 8
    assert got[:1] == [0][:recorded]
    stride = 1 if len(got) < 2 else (got[1] or 0) - (got[0] or 0)
    assert got == list(range(0, recorded, stride))
