"""Claude Code, Codex, Gemini CLI and pi beside goose (#12), on the logs in
tests/fixtures/agents (their origins and licences in its README)."""

import json
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from desktop_app.cli import main
from desktop_app.domain.message import Message, Role
from desktop_app.domain.parts import (
    ErrorPart,
    ImagePart,
    NotificationPart,
    ReasoningPart,
    RedactedReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UnsupportedPart,
)
from desktop_app.domain.reading import EVERY_SESSION, iter_messages, iter_sessions
from desktop_app.domain.session import Session
from desktop_app.domain.source import SessionQuery, Source
from desktop_app.rendering.transcript_blocks import MessageRenderer
from desktop_app.search.parallel import messages_of
from desktop_app.sources.files.history import FileFormat, ParsedSession
from desktop_app.sources.registry import open_history
from tests.fixtures.goose_db import GooseDb

AGENTS = Path(__file__).resolve().parents[1] / "fixtures" / "agents"
CLAUDE = AGENTS / "claude_code" / "project"
MAIN = "7f3c2a10-0000-4000-8000-000000000001"
EVERY = SessionQuery(session_types=None)


def _sessions(source: Source) -> dict[str, Session]:
    return {s.id: s for s in iter_sessions(source, EVERY)}


def _kinds(message: Message) -> list[str]:
    return [type(p).__name__ for p in message.parts]


def test_claude_code_reads_as_its_own_transcript_view() -> None:
    source = open_history(CLAUDE)
    assert source.info().kind == "claude-code"
    sessions = _sessions(source)
    main_session = sessions[MAIN]
    # The newest ai-title names it; a summary whose leaf is in another session never does.
    assert main_session.name == "Flaky webhook retry test"
    assert sessions["sample_session"].name == "Create a hello world function"
    assert main_session.working_dir == "/home/dana/src/payments-api"
    assert main_session.model == "claude-opus-4-1-20250805"
    # Every message shown to the user (14 of 15), tool calls and results included, as Claude
    # Code's resume list counts its transcript's messages (issue #17, item 21).
    assert main_session.message_count == 14
    # The reply written over three lines counts its usage once (17,012 + 17,005 + 9,008 in).
    assert main_session.accumulated_usage.input_tokens == 17_012 + 17_005 + 9_008
    assert main_session.accumulated_usage.output_tokens == 310 + 60 + 25
    messages = list(iter_messages(source, MAIN))
    caveat, prompt, reply, result, *_ = messages
    assert not caveat.visibility.user  # the local-command caveat: context, not a prompt
    assert prompt.role is Role.USER
    assert _kinds(reply) == ["ReasoningPart", "TextPart", "ToolCallPart"]  # one reply, 3 lines
    assert "EqQBCkgIARAB" not in json.dumps([p.raw for p in reply.parts])
    assert result.role is Role.TOOL
    bash = result.parts[0]
    assert isinstance(bash, ToolResultPart)
    assert bash.is_error
    assert any(isinstance(p, ImagePart) for p in bash.content)
    notices = [p for m in messages for p in m.parts if isinstance(p, NotificationPart)]
    assert [n.notification_type for n in notices] == [
        "interrupted",
        "contextCompacted",
        "compactionSummary",
        "slashCommand",
        "commandOutput",
    ]
    assert "160,000 tokens" in notices[1].text
    assert notices[3].text == "/cost"
    assert any(isinstance(p, RedactedReasoningPart) for p in messages[-3].parts)
    broken = [m for m in messages if m.role is Role.UNKNOWN]
    assert len(broken) == 2  # "not an object" and the cut-off line, each shown, nothing hidden
    assert all(isinstance(m.parts[0], UnsupportedPart) for m in broken)


def test_claude_code_sub_agents_nest_under_their_session() -> None:
    source = open_history(CLAUDE)
    sessions = _sessions(source)
    assert sessions[MAIN].has_children
    child = sessions["agent-ci0001"]
    assert child.parent_session_id == MAIN
    assert child.session_type == "sub_agent"
    listed = [s.id for s in iter_sessions(source, SessionQuery())]
    assert "agent-ci0001" not in listed  # not a chat of its own in the list
    children = source.list_sessions(
        SessionQuery(session_types=None, parent_session_id=MAIN)
    ).sessions
    assert [s.id for s in children] == ["agent-ci0001"]


def test_claude_code_edge_cases_from_claude_code_log() -> None:
    source = open_history(CLAUDE)
    messages = list(iter_messages(source, "edge_cases"))
    said = [
        " ".join(p.text for p in m.parts if isinstance(p, TextPart))
        for m in messages
        if m.role is Role.USER and m.visibility.user
    ]
    assert not any(s.startswith("Caveat:") for s in said)
    assert not any("<command-name>" in s or "<local-command-stdout>" in s for s in said)
    commands = [
        p.text
        for m in messages
        for p in m.parts
        if isinstance(p, NotificationPart) and p.notification_type == "slashCommand"
    ]
    assert commands[0].startswith("/test-command")
    assert any(m.role is Role.UNKNOWN for m in messages)  # the line without content, shown


def test_codex_rollouts() -> None:
    source = open_history(AGENTS / "codex" / "sessions")
    assert source.info().kind == "codex"
    sessions = _sessions(source)
    current = sessions["11111111-1111-4111-8111-111111111111"]
    assert current.working_dir == "/workspace/synthetic-project"
    assert current.model == "synthetic-model"
    assert current.message_count == 9  # every message shown to the user (issue #17, item 21)
    assert sessions["44444444-4444-4444-8444-444444444444"].name == (
        "Open the synthetic legacy session."
    )
    messages = list(iter_messages(source, current.id))
    reasoning = messages[1].parts[0]
    assert isinstance(reasoning, ReasoningPart)
    assert reasoning.is_summary
    assert "MUST_NOT_RENDER" not in json.dumps(reasoning.raw)
    patch = next(
        p
        for m in messages
        for p in m.parts
        if isinstance(p, ToolCallPart) and p.name == "apply_patch"
    )
    html = MessageRenderer().render(next(m for m in messages if patch in m.parts)).blocks[0].html
    assert "<code>gamma.txt</code>" in html  # the patch read as an edit of the file
    assert ">synthetic<" in html  # its added line, in a diff, not JSON-quoted
    assert sum(1 for m in messages if m.role is Role.USER) == 1  # the event_msg echo not twice


def test_codex_tokens_are_the_last_running_total_and_harness_text_is_context(
    tmp_path: Path,
) -> None:
    """Re-created lines in the shape ccusage's and cakit's notes describe: `token_count`
    events carry running totals; Codex writes the environment as a user message."""
    folder = tmp_path / "sessions" / "2026" / "02" / "01"
    folder.mkdir(parents=True)
    session = "019a0000-0000-7000-8000-000000000abc"

    def count(given: int, produced: int) -> dict[str, object]:
        usage = {
            "input_tokens": given,
            "cached_input_tokens": given // 2,
            "output_tokens": produced,
            "reasoning_output_tokens": 5,
            "total_tokens": given + produced,
        }
        return {
            "timestamp": "2026-02-01T10:00:09Z",
            "type": "event_msg",
            "payload": {
                "type": "token_count",
                "info": {"total_token_usage": usage, "last_token_usage": usage},
            },
        }

    lines = [
        {
            "timestamp": "2026-02-01T10:00:00Z",
            "type": "session_meta",
            "payload": {"id": session, "cwd": "/w", "cli_version": "0.58.0"},
        },
        {
            "timestamp": "2026-02-01T10:00:01Z",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [
                    {
                        "type": "input_text",
                        "text": "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>",
                    }
                ],
            },
        },
        {
            "timestamp": "2026-02-01T10:00:02Z",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "Add a test"}],
            },
        },
        count(1000, 100),
        count(3000, 250),
    ]
    (folder / f"rollout-2026-02-01T10-00-00-{session}.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines)
    )
    source = open_history(tmp_path / "sessions")
    (only,) = iter_sessions(source, EVERY)
    assert only.name == "Add a test"
    assert only.accumulated_usage.total_tokens == 3250  # not 1100 + 3250
    first, second = iter_messages(source, session)
    assert not first.visibility.user
    assert second.visibility.user


def test_gemini_cli_recordings_and_not_its_prompt_log() -> None:
    source = open_history(AGENTS / "gemini_cli" / "tmp")
    assert source.info().kind == "gemini-cli"
    sessions = _sessions(source)
    assert set(sessions) == {
        "6f1d2a44-9c1b-4e57-a7d0-3b1f0c2e9a10",
        "0a9b8c7d-1111-4222-8333-444455556666",
    }
    document = sessions["6f1d2a44-9c1b-4e57-a7d0-3b1f0c2e9a10"]
    assert document.model == "gemini-2.5-flash"
    assert document.accumulated_usage.input_tokens == 5120 + 6000
    messages = list(iter_messages(source, document.id))
    reply, results = messages[1], messages[2]
    assert _kinds(reply) == ["ReasoningPart", "TextPart", "ToolCallPart", "ToolCallPart"]
    ok, failed = results.parts
    assert isinstance(ok, ToolResultPart)
    assert isinstance(failed, ToolResultPart)
    assert not ok.is_error
    assert failed.is_error
    assert isinstance(messages[-1].parts[0], ErrorPart)
    lines = sessions["0a9b8c7d-1111-4222-8333-444455556666"]
    assert lines.name == "README typo fix"  # from a `$set`
    replies = [m for m in iter_messages(source, lines.id) if m.role is Role.ASSISTANT]
    assert len(replies) == 1  # the message written twice: the last copy
    assert any(isinstance(p, ToolCallPart) for p in replies[0].parts)


def test_pi_sessions() -> None:
    source = open_history(AGENTS / "pi" / "sessions")
    assert source.info().kind == "pi"
    (session,) = iter_sessions(source, EVERY)
    assert session.name == "Failing tests triage"
    assert session.working_dir == "/home/dana/src/payments-api"
    assert session.model == "gpt-5"
    assert session.cost == pytest.approx(0.00444 + 0.00275)
    messages = list(iter_messages(source, session.id))
    assert [m.role for m in messages] == [
        Role.USER,
        Role.ASSISTANT,
        Role.TOOL,
        Role.SYSTEM,
        Role.ASSISTANT,
        Role.SYSTEM,
    ]
    assert "Compacted at 50,000 tokens." in str(messages[-1].parts[0])


@pytest.mark.parametrize(
    "case",
    [
        ("claude_code/project", "claude-code", "webhook"),
        ("codex/sessions", "codex", "synthetic"),
        ("gemini_cli/tmp", "gemini-cli", "importer"),
        ("pi/sessions", "pi", "failing"),
    ],
)
def test_the_cli_beside_goose(
    case: tuple[str, str, str],
    make_db: Callable[..., GooseDb],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder, kind, query = case
    copy = tmp_path / "agent"
    shutil.copytree(AGENTS / folder, copy)
    goose = make_db()
    goose.add_session("g1", name="A goose chat")
    goose.add_message("g1", content="hello goose")
    both = ["--db", str(copy), "--db", str(goose.path)]
    assert main(["list", *both, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["history"]["kind"] for r in rows} == {kind, "goose"}
    assert main(["search", query, *both, "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert hits
    first = next(r for r in rows if r["history"]["kind"] == kind)
    assert main(["show", f"{kind}:{first['id']}", *both]) == 0
    assert capsys.readouterr().out.strip()


@pytest.mark.parametrize(
    "folder", ["claude_code/project", "codex/sessions", "gemini_cli/tmp", "pi/sessions"]
)
def test_every_message_is_filed_under_its_own_session(folder: str) -> None:
    """Read one by one or in bulk, each message says the session it is in — a line of a
    Gemini CLI log that did not parse said none, and the search index left it out."""
    source = open_history(AGENTS / folder)
    ids = [session.id for session in iter_sessions(source, EVERY_SESSION)]
    assert ids
    for session_id in ids:
        assert {m.session_id for m in iter_messages(source, session_id)} <= {session_id}
    assert {m.session_id for m in messages_of(source, ids)} == set(ids)
    source.close()


def test_a_growing_log_is_read_on_from_where_it_was_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A running agent appends to its log: the new lines are read (a reply continued over
    new lines stays one reply, counted once), a half-written line waits, and the file is never
    parsed again from its start."""
    from desktop_app.sources.files import history

    folder = tmp_path / "project"
    shutil.copytree(CLAUDE, folder)
    log = folder / f"{MAIN}.jsonl"
    source = open_history(folder)
    before = len(source.positions(MAIN))
    parse_calls: list[Path] = []
    original = history.parse_file

    def counting(path: Path, formats: Sequence[FileFormat]) -> ParsedSession:
        parse_calls.append(path)
        return original(path, formats)

    monkeypatch.setattr(history, "parse_file", counting)
    reply: dict[str, Any] = {
        "type": "assistant",
        "uuid": "g1",
        "sessionId": MAIN,
        "timestamp": "2026-02-03T09:02:00.000Z",
        "message": {
            "id": "msg_grow",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "Still working"}],
            "usage": {"input_tokens": 10, "output_tokens": 5},
        },
    }
    more = dict(
        reply,
        uuid="g2",
        message=dict(reply["message"], content=[{"type": "text", "text": "— done."}]),
    )
    line = json.dumps(more) + "\n"
    with log.open("a") as handle:
        handle.write(json.dumps(reply) + "\n" + line[:30])
    grown = list(iter_messages(source, MAIN))
    assert len(grown) == before + 1
    with log.open("a") as handle:
        handle.write(line[30:])
    final = list(iter_messages(source, MAIN))
    assert len(final) == before + 1  # the continuation joined the same reply
    texts = [p.text for p in final[-1].parts if isinstance(p, TextPart)]
    assert texts == ["Still working", "— done."]
    assert [p for p in parse_calls if p.name == log.name] == []
    session = source.get_session(MAIN)
    assert session.accumulated_usage.output_tokens == 310 + 60 + 25 + 5  # counted once
