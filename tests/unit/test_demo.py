"""The demo history is a real v17 goose database showing every kind of content."""

import base64
import sqlite3
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from desktop_app.demo.generator import ensure_demo_database
from desktop_app.domain.parts import ImagePart, ToolResultPart, UnsupportedPart
from desktop_app.domain.reading import iter_messages, iter_sessions
from desktop_app.domain.source import ArchivedFilter, SessionQuery
from desktop_app.sources.goose import GooseSource

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def test_demo_is_rich_and_readable(tmp_path: Path) -> None:
    path = ensure_demo_database(tmp_path, NOW)
    raw = sqlite3.connect(path)
    assert raw.execute("SELECT MAX(version) FROM schema_version").fetchone() == (17,)
    assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert raw.execute("SELECT COUNT(*) FROM usage_ledger").fetchone()[0] > 100
    raw.close()
    source = GooseSource(path)
    try:
        everything = list(
            iter_sessions(
                source, SessionQuery(session_types=None, archived=ArchivedFilter.INCLUDE), None
            )
        )
        assert len(everything) >= 40
        types = Counter(s.session_type for s in everything)
        assert {"user", "scheduled", "acp", "sub_agent"} <= types.keys()
        assert sum(s.archived for s in everything) >= 3
        assert sum(s.user_set_name for s in everything) >= 5
        assert all(s.sort_at and s.sort_at <= NOW for s in everything)
        days = {s.sort_at.date() for s in everything if s.sort_at}
        assert (max(days) - min(days)).days >= 28
        assert all(s.cost is not None for s in everything if s.message_count)
        parents = [s for s in everything if s.has_children]
        assert parents
        assert any(s.parent_session_id == parents[0].id for s in everything)
        assert max(s.message_count or 0 for s in everything) >= 500

        kinds: Counter[str] = Counter()
        unsupported = []
        images = []
        for session in everything:
            for message in iter_messages(source, session.id):
                for part in message.parts:
                    kinds[part.kind] += 1
                    if isinstance(part, UnsupportedPart):
                        unsupported.append(part.reason)
                    if isinstance(part, ImagePart):
                        images.append(part)
                    if isinstance(part, ToolResultPart):
                        kinds.update(item.kind for item in part.content)
                        images.extend(i for i in part.content if isinstance(i, ImagePart))
        for kind in (
            "text",
            "image",
            "file",
            "tool_call",
            "tool_result",
            "action_required",
            "reasoning",
            "redacted_reasoning",
            "notification",
            "error",
            "resource",
            "resource_link",
            "audio",
            "unsupported",
        ):
            assert kinds[kind] > 0, kind
        assert len(unsupported) == 2
        assert len(images) >= 3
        for image in images:
            assert base64.b64decode(image.data_b64 or "").startswith(b"\x89PNG\r\n\x1a\n")
    finally:
        source.close()


def test_demo_is_reused_and_rebuilt_when_its_format_changes(tmp_path: Path) -> None:
    path = ensure_demo_database(tmp_path, NOW)
    first = path.stat().st_mtime_ns
    assert ensure_demo_database(tmp_path, NOW).stat().st_mtime_ns == first
    (tmp_path / "demo-format").write_text("0")
    rebuilt = ensure_demo_database(tmp_path, NOW)
    assert (tmp_path / "demo-format").read_text() != "0"
    assert sqlite3.connect(rebuilt).execute("SELECT COUNT(*) FROM sessions").fetchone()[0] >= 40
