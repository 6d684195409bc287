"""The session list model: grouping by date, paging with fetchMore, sub-agents as children."""

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from PySide6.QtCore import QModelIndex
from pytestqt.qtbot import QtBot

from desktop_app.domain.session import Session
from desktop_app.domain.source import SessionQuery
from desktop_app.sources.goose import GooseSource
from desktop_app.ui.models.session_tree import PAGE_SIZE, SessionTreeModel
from desktop_app.ui.roles import SessionRole
from desktop_app.ui.tasks import TaskRunner
from tests.fixtures.goose_db import GooseDb

NOW = datetime(2026, 11, 30, 15, 0, tzinfo=UTC)


def _stamp(when: datetime) -> str:
    return when.strftime("%Y-%m-%d %H:%M:%S")


def groups(model: SessionTreeModel) -> dict[str, list[str]]:
    """Heading → the session ids listed under it, read off the top-level rows."""
    result: dict[str, list[str]] = {}
    heading = None
    for row in range(model.rowCount()):
        index = model.index(row, 0)
        if index.data(SessionRole.IS_GROUP):
            heading = index.data()
            assert heading not in result, "a heading appears once"
            result[heading] = []
            assert model.rowCount(index) == 0
        else:
            assert heading is not None, "sessions come after a heading"
            result[heading].append(index.data(SessionRole.SESSION).id)
    return result


def test_grouping_paging_children_and_modeltester(
    make_db: Callable[..., GooseDb], tasks: TaskRunner, qtbot: QtBot, qtmodeltester: object
) -> None:
    db = make_db()
    local_now = NOW.astimezone()
    db.add_session("today", name="t", updated_at=_stamp(NOW - timedelta(hours=1)))
    db.add_session("yesterday", name="y", updated_at=_stamp(NOW - timedelta(days=1)))
    db.add_session("week", name="w", updated_at=_stamp(NOW - timedelta(days=4)))
    db.add_session("parent", name="p", updated_at=_stamp(NOW - timedelta(days=4, hours=1)))
    db.add_session(
        "kid",
        name="k",
        session_type="sub_agent",
        parent_session_id="parent",
        updated_at=_stamp(NOW - timedelta(days=4, hours=2)),
    )
    for i in range(PAGE_SIZE + 30):
        db.add_session(f"old{i:04d}", name=f"o{i}", updated_at=_stamp(NOW - timedelta(days=60 + i)))
    source = GooseSource(db.path)
    model = SessionTreeModel(source, tasks, SessionQuery(), clock=lambda: local_now)
    try:
        with qtbot.waitSignal(model.populated, timeout=5000):
            model.reload()
        assert model.session_count == PAGE_SIZE
        assert not model.canFetchMore(QModelIndex()), "nothing near the end was displayed yet"
        first = groups(model)
        assert list(first)[:3] == ["Today", "Yesterday", "Previous 7 days"]
        assert first["Today"] == ["today"]
        assert first["Previous 7 days"] == ["week", "parent"]
        assert list(first)[3] == (NOW - timedelta(days=60)).astimezone().strftime("%B %Y")
        assert model.canFetchMore(QModelIndex()), "groups() displayed the last rows"
        with qtbot.waitSignal(model.populated, timeout=5000):
            model.fetchMore(QModelIndex())
        assert model.session_count == PAGE_SIZE + 34
        assert not model.canFetchMore(QModelIndex())
        all_ids = [sid for ids in groups(model).values() for sid in ids]
        assert len(all_ids) == len(set(all_ids)) == PAGE_SIZE + 34

        parent = model.find_session("parent")
        assert model.hasChildren(parent)
        assert model.canFetchMore(parent)
        with qtbot.waitSignal(model.rowsInserted, timeout=5000):
            model.fetchMore(parent)
        kid = model.index(0, 0, parent)
        session = kid.data(SessionRole.SESSION)
        assert isinstance(session, Session)
        assert session.id == "kid"
        assert model.parent(kid) == parent
        assert "msgs" in model.find_session("today").data(SessionRole.SUBTITLE)
        qtmodeltester.check(model)  # type: ignore[attr-defined]
    finally:
        source.close()


def test_demo_list_model_passes_modeltester(
    demo_source: GooseSource, tasks: TaskRunner, qtbot: QtBot, qtmodeltester: object
) -> None:
    model = SessionTreeModel(demo_source, tasks, SessionQuery())
    with qtbot.waitSignal(model.populated, timeout=5000):
        model.reload()
    assert model.rowCount() >= 3
    qtmodeltester.check(model)  # type: ignore[attr-defined]
