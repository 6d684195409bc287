"""everruns without a database (#11 item 5): the local mode's `events.jsonl` (complete envelopes,
many sessions, appended to) with its `local.db` catalog, and exports of the events API (a JSON
array, `{"data": [...]}`, JSONL), with bare UUIDs (older) or `session_…`/`event_…` ids (newer).
Envelopes as `crates/core/src/events.rs`'s `Event` serialises them."""

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from desktop_app.cli import main
from desktop_app.domain.parts import ReasoningPart, TextPart, ToolResultPart
from desktop_app.domain.reading import iter_messages, iter_sessions
from desktop_app.domain.source import SessionQuery
from desktop_app.sources.everruns.local import EverrunsEvents
from desktop_app.sources.registry import open_history

OLD = "0195a1b2-c3d4-7000-8000-00000000aaaa"
NEW = "session_0195a1b2c3d47000800000000000bbbb"
SIGNATURE = "EqQBCkgIARAB" + "z" * 100


def _envelope(
    session: str, sequence: int | None, kind: str, data: dict[str, Any]
) -> dict[str, Any]:
    envelope: dict[str, Any] = {
        "id": f"event_{sequence}",
        "type": kind,
        "ts": f"2026-03-01T10:00:{sequence or 0:02d}.000Z",
        "session_id": session,
        "context": {"turn_id": "turn_1"},
        "data": data,
    }
    if sequence is not None:
        envelope["sequence"] = sequence
    return envelope


def _said(role: str, text: str, **extra: Any) -> dict[str, Any]:
    return {
        "message": {"id": "m", "role": role, "content": [{"type": "text", "text": text}], **extra}
    }


def _conversation(session: str, numbered: bool = True) -> list[dict[str, Any]]:
    def n(value: int) -> int | None:
        return value if numbered else None

    return [
        _envelope(session, n(1), "input.message", _said("user", f"Hello from {session[:12]}")),
        _envelope(session, n(2), "output.message.delta", {"turn_id": "turn_1", "delta": "Hi"}),
        _envelope(
            session,
            n(3),
            "output.message.completed",
            {
                "message": {
                    "id": "m2",
                    "role": "agent",
                    "content": [
                        {
                            "type": "reasoning",
                            "provider": "anthropic",
                            "text": {"kind": "plain", "text": "Greet back."},
                            "signature": SIGNATURE,
                        },
                        {"type": "text", "text": "Hi there."},
                    ],
                },
                "usage": {"input_tokens": 100, "output_tokens": 7},
            },
        ),
        _envelope(
            session,
            n(4),
            "tool.completed",
            {
                "tool_call_id": "c1",
                "tool_name": "lookup",
                "status": "success",
                "result": [{"type": "text", "text": "found"}],
            },
        ),
    ]


def _local_profile(folder: Path) -> Path:
    folder.mkdir()
    lines = _conversation(OLD) + _conversation(NEW)
    (folder / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in lines))
    catalog = sqlite3.connect(folder / "local.db")
    catalog.execute("CREATE TABLE framework_sessions (session_id TEXT PRIMARY KEY, title TEXT)")
    catalog.execute("INSERT INTO framework_sessions VALUES (?, 'Titled in local.db')", (NEW,))
    catalog.commit()
    catalog.close()
    return folder


def test_a_local_profile_opens_with_its_titles(tmp_path: Path) -> None:
    source = open_history(_local_profile(tmp_path / "everruns-data"))
    assert isinstance(source, EverrunsEvents)
    names = {s.id: s.name for s in iter_sessions(source, SessionQuery())}
    assert names == {OLD: f"Hello from {OLD[:12]}", NEW: "Titled in local.db"}
    user, agent, tool = iter_messages(source, NEW)
    assert isinstance(user.parts[0], TextPart)
    assert isinstance(agent.parts[0], ReasoningPart)
    assert SIGNATURE not in json.dumps(agent.parts[0].raw)
    assert isinstance(tool.parts[0], ToolResultPart)
    assert source.get_session(NEW).accumulated_usage.input_tokens == 100


@pytest.mark.parametrize("shape", ["array", "data", "jsonl-unnumbered"])
def test_an_events_export_opens(tmp_path: Path, shape: str) -> None:
    events = _conversation(NEW, numbered=shape != "jsonl-unnumbered")
    if shape == "array":
        path = tmp_path / "events.json"
        path.write_text(json.dumps(events))
    elif shape == "data":
        path = tmp_path / "events.json"
        path.write_text(json.dumps({"data": events, "has_more": False}))
    else:
        path = tmp_path / "export.jsonl"
        path.write_text("".join(json.dumps(e) + "\n" for e in events))
    source = open_history(path)
    assert isinstance(source, EverrunsEvents)
    texts = [p.text for m in iter_messages(source, NEW) for p in m.parts if isinstance(p, TextPart)]
    assert texts == [f"Hello from {NEW[:12]}", "Hi there."]


def test_appended_events_are_read_and_a_half_written_line_waits(tmp_path: Path) -> None:
    folder = _local_profile(tmp_path / "profile")
    source = EverrunsEvents(folder)
    token = source.change_token()
    log = folder / "events.jsonl"
    more = _envelope(OLD, 5, "input.message", _said("user", "and one more thing"))
    line = json.dumps(more) + "\n"
    with log.open("a") as handle:
        handle.write(line[:20])
    assert source.changed_since(token) == frozenset()
    assert len(source.positions(OLD)) == 3
    token = source.change_token()
    with log.open("a") as handle:
        handle.write(line[20:] + "not json at all\n")
    assert source.changed_since(token) == frozenset({OLD})
    assert len(source.positions(OLD)) == 4


def _in_place(log: Path, data: bytes) -> None:
    with log.open("r+b") as handle:  # the same file (inode), written over from its start
        handle.write(data)
        handle.truncate()


def _truncated_and_written(log: Path, data: bytes) -> None:
    log.write_bytes(b"")
    with log.open("ab") as handle:
        handle.write(data)


@pytest.mark.parametrize("rewrite", [_in_place, _truncated_and_written])
def test_a_rewritten_log_is_read_afresh(tmp_path: Path, rewrite: Any) -> None:
    """#18 item 12: a log rewritten with its first message changed (as long as before) and a
    line more is read from its start, as a fresh opening reads it, not on from the offset; the
    change feed says it cannot tell what changed."""
    folder = _local_profile(tmp_path / "profile")
    source = EverrunsEvents(folder)
    log = folder / "events.jsonl"
    assert "Hello from" in repr([m.parts for m in iter_messages(source, OLD)])
    token = source.change_token()
    more = json.dumps(_envelope(OLD, 5, "input.message", _said("user", "one more"))) + "\n"
    rewrite(log, log.read_bytes().replace(b"Hello from", b"Howdy from") + more.encode())
    assert source.changed_since(token) is None
    read = list(iter_messages(source, OLD))
    assert read == list(iter_messages(EverrunsEvents(folder), OLD))
    assert "Hello from" not in repr([m.parts for m in read])
    assert "Howdy from" in repr([m.parts for m in read])


def test_the_cli_reads_a_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _local_profile(tmp_path / "profile")
    assert main(["list", "--db", str(folder), "--json"]) == 0
    assert {row["name"] for row in json.loads(capsys.readouterr().out)} == {
        f"Hello from {OLD[:12]}",
        "Titled in local.db",
    }
    assert main(["show", NEW, "--db", f"everruns={folder / 'events.jsonl'}"]) == 0
    shown = capsys.readouterr().out
    assert "Hi there." in shown
    assert SIGNATURE not in shown
