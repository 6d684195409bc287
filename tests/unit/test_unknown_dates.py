"""A session with no recorded time is undated, never filed by its file's time (#20 item 9): a
legacy Codex rollout copied today was listed under Today · just now."""

import json
import os
import shutil
import time
from datetime import UTC, datetime
from pathlib import Path

from desktop_app.domain.source import ArchivedFilter, SessionQuery
from desktop_app.sources.registry import open_history
from desktop_app.ui.models.session_groups import UNKNOWN_DATE, group_label

AGENTS = Path(__file__).resolve().parents[1] / "fixtures/agents"
LEGACY = AGENTS / "codex/sessions/rollout-44444444-4444-4444-8444-444444444444.jsonl"
"""A pre-envelope Codex rollout (daaain/claude-code-log's test data): its only time is the
header's."""
DATED = AGENTS / "codex/sessions/2026"


def _listed(folder: Path, cache: Path) -> list[tuple[str, datetime | None]]:
    source = open_history(f"codex={folder}", cache_dir=cache)
    try:
        query = SessionQuery(session_types=None, archived=ArchivedFilter.INCLUDE)
        return [(s.id, s.sort_at) for s in source.list_sessions(query, limit=100).sessions]
    finally:
        source.close()


def _copy_now(source: Path, target: Path, *, keep_time: bool) -> None:
    """Copied today, as a person copying their logs to a new machine would."""
    lines = source.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    if not keep_time:
        header.pop("timestamp")
    target.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    now = time.time()
    os.utime(target, (now, now))


def test_a_rollout_with_only_a_header_time_is_filed_by_it(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    _copy_now(LEGACY, folder / LEGACY.name, keep_time=True)
    ((_, when),) = _listed(folder, tmp_path / "cache")
    assert when == datetime(2026, 1, 4, 5, 6, 7, tzinfo=UTC)


def test_a_rollout_with_no_time_is_undated_and_listed_last(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    shutil.copytree(DATED, folder / "2026")
    _copy_now(LEGACY, folder / LEGACY.name, keep_time=False)
    listed = _listed(folder, tmp_path / "cache")
    assert len(listed) >= 2
    assert listed[-1] == ("44444444-4444-4444-8444-444444444444", None)
    assert all(when is not None for _, when in listed[:-1])
    assert group_label(None, datetime.now(UTC).date()) == UNKNOWN_DATE == "Unknown date"


def test_a_gemini_chat_with_no_time_is_undated(tmp_path: Path) -> None:
    chats = tmp_path / "tmp/3f8a1c/chats"
    chats.mkdir(parents=True)
    original = next((AGENTS / "gemini_cli/tmp/3f8a1c/chats").glob("session-*.json"))
    chat = json.loads(original.read_text(encoding="utf-8"))
    for key in ("startTime", "lastUpdated"):
        chat.pop(key)
    (chats / original.name).write_text(json.dumps(chat), encoding="utf-8")
    source = open_history(f"gemini-cli={tmp_path / 'tmp'}", cache_dir=tmp_path / "cache")
    try:
        (session,) = source.list_sessions(SessionQuery(), limit=10).sessions
    finally:
        source.close()
    assert session.updated_at is None
