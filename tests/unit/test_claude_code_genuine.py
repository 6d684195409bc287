"""Claude Code's reader on logs Claude Code itself wrote (#17): versions 1.0.128, 2.0.46, 2.1.47
and 2.1.110 run against a stub Messages API (tests/fixtures/agents/claude_code/written, made by
its `make_logs.py`), and the genuine logs of claude-code-log's test data."""

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from desktop_app.cli import main
from desktop_app.domain.message import Message, Role
from desktop_app.domain.parts import (
    NotificationPart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from desktop_app.domain.reading import iter_messages, iter_sessions
from desktop_app.domain.session import Session
from desktop_app.domain.source import SessionQuery, Source
from desktop_app.rendering.notices import notification_label
from desktop_app.sources.registry import open_history

AGENTS = Path(__file__).resolve().parents[1] / "fixtures" / "agents" / "claude_code"
WRITTEN = AGENTS / "written"
V1 = WRITTEN / "1.0.128" / "-tmp-ccrun-v10128-payments-api"
V20 = WRITTEN / "2.0.46" / "-tmp-ccrun-v2046-payments-api"
V21 = WRITTEN / "2.1.47" / "-tmp-ccrun-g147-payments-api"
V21_TITLES = WRITTEN / "2.1.110" / "-tmp-ccrun-v21110-payments-api"
STREAMED = "9900a45f-f488-45fe-911f-5c40ddaabd3c"
"""2.1.47 with streaming tool execution: a tool ran, and its result and `progress` lines were
written, before the last content block of the reply that called it."""
RENAMED = "c4c08cc3-3b92-4bb2-b90e-d411eb4c3764"
"""2.1.110: an `ai-title`, then two `/rename`s (`custom-title`), the second another name."""
COMMAND = "6c07e911-ed5c-4f53-bc86-ec188b3c7653"
"""2.1.110: a session begun with a custom slash command, whose expansion is an `isMeta` line."""
COMPACTED = "6a74d8d7-f3d6-4aa8-b090-76b2e97fea9e"
"""2.1.110: a prompt, its answer, then `/compact`."""
EVERY = SessionQuery(session_types=None)
OWN = {"input": 5_203 + 5_501 + 5_621, "output": 212 + 97 + 13}
"""The three replies of the stub's main conversation, as every version stored them: input with
cache read and written (3 + 5,200, 1 + 300 + 5,200, 1 + 120 + 5,500), output the final count."""


def _sessions(source: Source) -> dict[str, Session]:
    return {s.id: s for s in iter_sessions(source, EVERY)}


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _session_file(folder: Path) -> Path:
    return next(p for p in folder.glob("*.jsonl") if not p.name.startswith("agent-"))


def _texts(message: Message) -> str:
    return " ".join(p.text for p in message.parts if isinstance(p, TextPart))


# ---- 1. one API response is one message, wherever its lines are ----------------------------


def test_a_reply_written_around_its_tool_results_is_one_message() -> None:
    lines = _lines(V21 / f"{STREAMED}.jsonl")
    first_reply = lines[2]["message"]["id"]
    types = [line["type"] for line in lines]
    at = [i for i, line in enumerate(lines) if line.get("message", {}).get("id") == first_reply]
    # The file as Claude Code wrote it: a progress line and the Bash result inside the reply.
    assert types[at[0] : at[-1] + 1] == [
        "assistant",
        "assistant",
        "assistant",
        "progress",
        "user",
        "assistant",
    ]
    messages = list(iter_messages(open_history(V21), STREAMED))
    replies = [m for m in messages if m.role is Role.ASSISTANT]
    assert len(replies) == 3  # three API responses, not five pieces
    reply = replies[0]
    assert [type(p) for p in reply.parts] == [ReasoningPart, TextPart, ToolCallPart, ToolCallPart]
    # Its usage is its last line's: the earlier lines say output_tokens 1.
    assert [lines[i]["message"]["usage"]["output_tokens"] for i in at] == [1, 1, 1, 212]
    assert reply.usage is not None
    assert reply.usage.tokens.output_tokens == 212
    assert reply.usage.tokens.input_tokens == 5_203
    # The second reply has a queue-operation line between its two lines.
    assert [type(p) for p in replies[1].parts] == [TextPart, ToolCallPart]
    assert replies[1].usage is not None
    assert replies[1].usage.tokens.output_tokens == 97
    # The reply stands where it began: before the results of the calls it made.
    assert messages.index(reply) < messages.index(next(m for m in messages if m.role is Role.TOOL))


def test_a_grouped_reply_keeps_every_line_raw_but_the_signature() -> None:
    lines = _lines(V21 / f"{STREAMED}.jsonl")
    first_reply = lines[2]["message"]["id"]
    mine = [line for line in lines if line.get("message", {}).get("id") == first_reply]
    reply = next(m for m in iter_messages(open_history(V21), STREAMED) if m.role is Role.ASSISTANT)
    raw = reply.metadata_raw
    assert isinstance(raw, dict)
    kept = raw["lines"]
    assert [k["uuid"] for k in kept] == [line["uuid"] for line in mine]
    assert [k["message"]["usage"] for k in kept] == [line["message"]["usage"] for line in mine]
    assert {k["requestId"] for k in kept} == {mine[0]["requestId"]}
    # The content blocks are the parts' raw; a thinking signature is in neither.
    assert [p.raw for p in reply.parts][1:] == [line["message"]["content"][0] for line in mine][1:]
    signature = mine[0]["message"]["content"][0]["signature"]
    assert signature not in json.dumps([raw, [p.raw for p in reply.parts]])


@pytest.mark.parametrize("folder", [V1, V20, V21], ids=["1.0.128", "2.0.46", "2.1.47"])
def test_each_reply_counts_its_tokens_once(folder: Path) -> None:
    session = _sessions(open_history(folder))[_session_file(folder).stem]
    assert session.accumulated_usage.output_tokens == OWN["output"]
    assert session.accumulated_usage.input_tokens == OWN["input"]
    assert session.usage.output_tokens == 13  # the last reply's


# ---- 2. a session's own totals are its own ---------------------------------------------------


def test_a_sub_agent_written_into_its_session_file_is_not_the_session() -> None:
    """Claude Code 1.x wrote the Task sub-agent's lines (`isSidechain: true`) into the session's
    own file: the session stays a session, and the sub-agent's 18 + 14 tokens are not its own."""
    source = open_history(V1)
    session_id = _session_file(V1).stem
    session = _sessions(source)[session_id]
    assert session.session_type == "user"
    assert [s.id for s in iter_sessions(source, SessionQuery())] == [session_id]
    assert session.model == "claude-sonnet-4-20250514"
    assert session.name.startswith("MAIN-PROMPT")
    messages = list(iter_messages(source, session_id))
    theirs = [m for m in messages if m.author is not None]
    assert len(theirs) == 4  # the sub-agent's prompt, two replies and a result: shown, marked
    assert {(m.author.kind, m.author.name) for m in theirs if m.author} == {
        ("sub-agent", "sidechain")
    }
    assert _texts(theirs[0]).startswith("SUBAGENT-TASK")
    assert session.message_count == sum(
        1 for m in messages if m.visibility.user and m.author is None
    )


def test_progress_lines_and_sub_agent_files_are_not_the_session_s_tokens() -> None:
    """2.1.47 repeats the sub-agent's messages, with their usage, in `agent_progress` lines of
    the session's file, and writes them in `<session>/subagents/agent-*.jsonl`."""
    lines = _lines(V21 / f"{STREAMED}.jsonl")
    nested = [
        line["data"]["message"]["message"]["usage"]
        for line in lines
        if line["type"] == "progress" and "usage" in str(line["data"].get("message"))
    ]
    assert nested  # the sub-agent's usage is in the session's file
    sessions = _sessions(open_history(V21))
    child = sessions["agent-a2007cb"]
    assert child.parent_session_id == STREAMED
    assert child.accumulated_usage.output_tokens == 1 + 1
    assert sessions[STREAMED].accumulated_usage.output_tokens == OWN["output"]


def test_list_json_gives_a_session_its_own_tokens(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "project"
    shutil.copytree(V1, copy)
    assert main(["list", "--db", str(copy), "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["session_type"] == "user"
    assert row["accumulated_usage"]["output_tokens"] == OWN["output"]
    assert row["accumulated_usage"]["input_tokens"] == OWN["input"]
    assert row["usage"]["output_tokens"] == 13  # its last reply's


# ---- 3. titles, meta lines and 2.0.x sub-agents ---------------------------------------------


def test_the_newest_rename_names_the_session_over_its_ai_title() -> None:
    lines = _lines(V21_TITLES / f"{RENAMED}.jsonl")
    assert lines[0] == {
        "type": "ai-title",
        "aiTitle": "Retry handler return value",
        "sessionId": RENAMED,
    }
    renames = [line["customTitle"] for line in lines if line["type"] == "custom-title"]
    assert renames[0] == "Retry handler question"
    assert renames[-1] == "Retry handler returns its event"
    assert _sessions(open_history(V21_TITLES))[RENAMED].name == "Retry handler returns its event"


def _before_rename(tmp_path: Path, extra: list[dict[str, Any]]) -> Session:
    """The 2.1.110 log as it was before its first `/rename` (the lines Claude Code had written
    by then), with `extra` lines after them."""
    lines = _lines(V21_TITLES / f"{RENAMED}.jsonl")
    cut = next(i for i, line in enumerate(lines) if line["type"] == "custom-title")
    folder = tmp_path / "project"
    folder.mkdir()
    text = "".join(json.dumps(line) + "\n" for line in [*lines[:cut], *extra])
    (folder / f"{RENAMED}.jsonl").write_text(text, encoding="utf-8")
    return _sessions(open_history(folder))[RENAMED]


def test_an_ai_title_names_the_session_over_its_first_prompt(tmp_path: Path) -> None:
    session = _before_rename(tmp_path, [])
    assert session.name == "Retry handler return value"


def test_an_ai_title_names_the_session_over_a_summary_of_it(tmp_path: Path) -> None:
    """No genuine log has both: a `summary` line (as representative_messages.jsonl has one)
    whose leaf is this log's reply is added to the 2.1.110 log."""
    lines = _lines(V21_TITLES / f"{RENAMED}.jsonl")
    leaf = next(line["uuid"] for line in lines if line["type"] == "assistant")
    summary = {"type": "summary", "summary": "What retry returns", "leafUuid": leaf}
    assert _before_rename(tmp_path, [summary]).name == "Retry handler return value"


def test_a_summary_names_the_session_only_when_its_leaf_is_in_the_file() -> None:
    sessions = _sessions(open_history(AGENTS / "project"))
    # representative_messages.jsonl (claude-code-log): its summary's leafUuid is one of its lines.
    assert sessions["representative_messages"].name.startswith(
        "User learned about Python decorators"
    )
    # sample_session.jsonl (claude-code-transcripts): its summary's leaf is in another session.
    assert sessions["sample_session"].name == "Create a hello world function"


def test_a_meta_line_is_never_a_prompt_a_title_or_counted() -> None:
    lines = _lines(V21_TITLES / f"{COMMAND}.jsonl")
    meta = next(line for line in lines if line.get("isMeta") is True)
    expansion = meta["message"]["content"][0]["text"]
    assert expansion.startswith("QUICK-PROMPT")  # the custom command's text, sent as the prompt
    source = open_history(V21_TITLES)
    session = _sessions(source)[COMMAND]
    assert "QUICK-PROMPT" not in session.name
    messages = list(iter_messages(source, COMMAND))
    (hidden,) = [m for m in messages if _texts(m) == expansion]
    assert not hidden.visibility.user
    assert not any(m.is_prompt and m.visibility.user for m in messages)
    assert session.message_count == 2  # the command's notice and the reply


def test_a_2_0_sub_agent_beside_its_session_nests_under_the_session_it_names() -> None:
    source = open_history(V20)
    session_id = _session_file(V20).stem
    sessions = _sessions(source)
    agents = sorted(p.stem for p in V20.glob("agent-*.jsonl"))
    assert len(agents) == 3  # the Task sub-agent and two warm-up agents Claude Code started
    for agent in agents:
        assert _lines(V20 / f"{agent}.jsonl")[0]["sessionId"] == session_id
        assert sessions[agent].parent_session_id == session_id
        assert sessions[agent].session_type == "sub_agent"
    assert sessions[session_id].has_children
    assert [s.id for s in iter_sessions(source, SessionQuery())] == [session_id]
    children = source.list_sessions(
        SessionQuery(session_types=None, parent_session_id=session_id)
    ).sessions
    assert sorted(s.id for s in children) == agents
    result = next(
        p
        for m in iter_messages(source, session_id)
        for p in m.parts
        if isinstance(p, ToolResultPart) and p.opens_session
    )
    assert result.opens_session == "agent-6880a13f"


def _notices(messages: list[Message]) -> list[NotificationPart]:
    return [p for m in messages for p in m.parts if isinstance(p, NotificationPart)]


def test_a_compaction_and_its_command_are_notices_with_their_lines_raw() -> None:
    lines = _lines(V21_TITLES / f"{COMPACTED}.jsonl")
    source = open_history(V21_TITLES)
    messages = list(iter_messages(source, COMPACTED))
    notices = _notices(messages)
    assert [n.notification_type for n in notices] == [
        "contextCompacted",
        "compactionSummary",
        "slashCommand",
        "commandOutput",
    ]
    summary = next(line for line in lines if line.get("isCompactSummary") is True)
    assert notices[1].raw == summary["message"]["content"]
    # Claude Code draws the output's terminal styles (dim); they are not shown as characters.
    echo = next(line for line in lines if "<local-command-stdout>" in str(line.get("message")))
    assert "\x1b[2m" in echo["message"]["content"]
    assert notices[3].text == "Compacted (ctrl+o to see full summary)"
    assert notices[3].raw == echo["message"]["content"]
    assert [m.is_prompt and m.visibility.user for m in messages].count(True) == 1
    assert _sessions(source)[COMPACTED].message_count == 6


def test_a_meta_line_after_a_compaction_is_not_its_summary(tmp_path: Path) -> None:
    """No genuine log has one there: the `isMeta` line of the custom-command session is put
    between the 2.1.110 compaction's boundary and its summary."""
    lines = _lines(V21_TITLES / f"{COMPACTED}.jsonl")
    meta = next(line for line in _lines(V21_TITLES / f"{COMMAND}.jsonl") if line.get("isMeta"))
    at = next(i for i, line in enumerate(lines) if line.get("subtype") == "compact_boundary")
    folder = tmp_path / "project"
    folder.mkdir()
    text = "".join(json.dumps(line) + "\n" for line in [*lines[: at + 1], meta, *lines[at + 1 :]])
    (folder / f"{COMPACTED}.jsonl").write_text(text, encoding="utf-8")
    source = open_history(folder)
    messages = list(iter_messages(source, COMPACTED))
    (hidden,) = [m for m in messages if "QUICK-PROMPT: read" in _texts(m)]
    assert not hidden.visibility.user
    summaries = [n for n in _notices(messages) if n.notification_type == "compactionSummary"]
    assert len(summaries) == 1
    assert summaries[0].text.startswith("This session is being continued")
    assert _sessions(source)[COMPACTED].message_count == 6


def test_a_command_s_echo_in_a_system_line_is_a_notice_as_claude_code_shows_it() -> None:
    """2.1.110 writes the echo of `/rename` as `system` `local_command` lines."""
    lines = _lines(V21_TITLES / f"{RENAMED}.jsonl")
    echoes = [line["content"] for line in lines if line.get("subtype") == "local_command"]
    assert len(echoes) == 4
    messages = list(iter_messages(open_history(V21_TITLES), RENAMED))
    notices = [n for n in _notices(messages) if n.raw in echoes]
    assert [n.text for n in notices] == [
        "/rename Retry handler question",
        "Session renamed to: Retry handler question",
        "/rename Retry handler returns its event",
        "Session renamed to: Retry handler returns its event",
    ]
    # Claude Code draws the output under its command: not a second "Slash command".
    assert [n.notification_type for n in notices] == ["slashCommand", "commandOutput"] * 2
    assert notification_label("commandOutput") == "Command output"
    shown = [m for m in messages if any(p in notices for p in m.parts)]
    assert all(m.visibility.user for m in shown)


def test_a_reply_whose_last_line_comes_in_a_later_read_of_the_log_joins_it(tmp_path: Path) -> None:
    """The 2.1.47 log read while Claude Code was writing it: first up to the Bash result, then
    the rest (the reply's last block among it), read on from where the first read ended."""
    text = (V21 / f"{STREAMED}.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    cut = next(i for i, line in enumerate(text) if '"tool_result"' in line) + 1
    folder = tmp_path / "project"
    folder.mkdir()
    log = folder / f"{STREAMED}.jsonl"
    log.write_text("".join(text[:cut]), encoding="utf-8")
    source = open_history(folder)
    before = next(m for m in iter_messages(source, STREAMED) if m.role is Role.ASSISTANT)
    assert [type(p) for p in before.parts] == [ReasoningPart, TextPart, ToolCallPart]
    with log.open("a", encoding="utf-8") as grown:
        grown.write("".join(text[cut:]))
    after = next(m for m in iter_messages(source, STREAMED) if m.role is Role.ASSISTANT)
    assert [type(p) for p in after.parts] == [ReasoningPart, TextPart, ToolCallPart, ToolCallPart]
    assert after.usage is not None
    assert after.usage.tokens.output_tokens == 212
    assert len(before.parts) == 3  # what was read first is not changed under its reader
    assert _sessions(source)[STREAMED].accumulated_usage.output_tokens == OWN["output"]


def test_the_reply_made_up_on_resuming_is_for_the_model_only() -> None:
    """2.1.110 resumed on `/rename` writes a `<synthetic>` "No response requested." reply, which
    Claude Code's view draws as nothing."""
    lines = _lines(V21_TITLES / f"{RENAMED}.jsonl")
    made_up = [
        line
        for line in lines
        if line["type"] == "assistant" and line["message"]["model"] == "<synthetic>"
    ]
    assert [line["message"]["content"][0]["text"] for line in made_up] == ["No response requested."]
    source = open_history(V21_TITLES)
    (reply,) = [m for m in iter_messages(source, RENAMED) if m.synthetic]
    assert not reply.visibility.user
    assert reply.visibility.agent
    shown = [m for m in iter_messages(source, RENAMED) if m.visibility.user]
    assert _sessions(source)[RENAMED].message_count == len(shown) == 8


def test_the_reply_made_up_on_resuming_is_not_the_context_now() -> None:
    """Its usage is all 0 (no API call was made): the context now is the real reply before it."""
    source = open_history(V21_TITLES)
    (reply,) = [m for m in iter_messages(source, RENAMED) if m.synthetic]
    assert reply.usage is not None
    assert reply.usage.tokens.input_tokens == 0
    assert _sessions(source)[RENAMED].usage.input_tokens == 4 + 900 + 3_000


def test_a_listed_session_keeps_the_cache_tokens_its_replies_record(tmp_path: Path) -> None:
    """The folder's catalog kept only input, output and total: the usage panel's cache rows
    said "–" for every Claude Code session, though each reply records its cache reads."""
    for opened in range(2):  # parsed, then from the catalog the first opening wrote
        source = open_history(V21, cache_dir=tmp_path / "cache")
        listed = _sessions(source)[STREAMED]
        assert listed.usage.cache_read_tokens == 5_500  # the last reply's
        assert listed.accumulated_usage.cache_read_tokens == 5_200 + 5_500
        assert listed.accumulated_usage.cache_write_tokens == 5_200 + 300 + 120
        assert listed.usage == source.get_session(STREAMED).usage, opened
