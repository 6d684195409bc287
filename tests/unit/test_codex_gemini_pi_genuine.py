"""Codex, Gemini CLI and pi readers on files the agents' own code wrote (#17 items 6–8).

The Codex rollouts were written by Codex CLI 0.29.0, 0.77.0 and 0.171.0 themselves, run
against a local stub of the Responses API; the Gemini CLI recording by gemini-cli-core's
`ChatRecordingService`; one pi session by pi's `SessionManager`, another is pi-mono's own test
fixture, trimmed. Origins and licences: tests/fixtures/agents/README.md."""

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from desktop_app.domain.message import Message, Role
from desktop_app.domain.parts import (
    UNRECORDED,
    ImagePart,
    NotificationPart,
    ReasoningPart,
    RedactedReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UnsupportedPart,
)
from desktop_app.domain.reading import iter_messages, iter_sessions
from desktop_app.domain.session import Session
from desktop_app.domain.source import SessionQuery, Source
from desktop_app.rendering.transcript_blocks import Block, MessageRenderer
from desktop_app.sources.codex import format as codex
from desktop_app.sources.files.values import json_lines
from desktop_app.sources.registry import open_history

AGENTS = Path(__file__).resolve().parents[1] / "fixtures" / "agents"
ROLLOUTS = AGENTS / "codex" / "cli"
DAY = ROLLOUTS / "2026" / "12" / "01"
V29 = DAY / "rollout-2026-12-01T09-05-35-163cbbc1-b32a-4c9f-bb31-42a237779e9e.jsonl"
V77 = DAY / "rollout-2026-12-01T09-05-37-01a230da-37ba-73b2-b6ea-3ce96d36fe7d.jsonl"
V171 = DAY / "rollout-2026-12-01T09-05-43-01a230da-5127-72e0-a205-4a9bdb40d144.jsonl"
ABORTED = DAY / "rollout-2026-12-01T09-07-06-01a230db-93f5-7103-ad41-204cda2b0934.jsonl"
TYPED = DAY / "rollout-2026-12-01T09-14-04-01a230e1-f4f0-7f93-9f10-a03bc3b993b6.jsonl"
DRAWN = DAY / "rollout-2026-12-01T09-22-06-01a230e9-4f6e-7191-abf5-8dfa8421cc3e.jsonl"
PROMPT = "Build the project and note it in NOTES.md"
EVERY = SessionQuery(session_types=None)


def _read(path: Path) -> tuple[Session, list[Message]]:
    parsed = codex.parse(path, path.read_bytes())
    return parsed.session, list(parsed.messages)


def _parts(messages: list[Message]) -> list[Any]:
    return [part for message in messages for part in message.parts]


def _items(path: Path) -> list[dict[str, Any]]:
    """The rollout's response items, envelope or not."""
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return [line.get("payload", line) for line in lines if line.get("type") != "session_meta"]


def _blocks(message: Message, names: dict[str, str] | None = None) -> list[Block]:
    return list(MessageRenderer().render(message, names).blocks)


def _sessions(source: Source) -> dict[str, Session]:
    return {s.id: s for s in iter_sessions(source, EVERY)}


# Codex, item 6


def test_a_pre_envelope_rollout_names_its_folder_from_its_environment_context() -> None:
    session, messages = _read(V29)
    assert session.working_dir == "/tmp/codex-demo/notes-app"
    assert session.name == "List the files here"
    prompt = next(m for m in messages if m.role is Role.USER and m.visibility.user)
    assert prompt.parts[0] == TextPart(text="List the files here")


def test_a_ghost_snapshot_is_a_one_line_notice() -> None:
    _, messages = _read(V77)
    (notice,) = [p for p in _parts(messages) if isinstance(p, NotificationPart)]
    assert notice.text == "working tree snapshot · commit 074f857"
    assert notice.raw["ghost_commit"]["id"].startswith("074f8577e9d5")
    assert not [p for p in _parts(messages) if isinstance(p, UnsupportedPart)]
    (block,) = _blocks(next(m for m in messages if notice in m.parts))
    assert block.kind == "notice"


@pytest.mark.parametrize(
    "path", [V29, V77, V171, ABORTED], ids=["0.29", "0.77", "0.171", "0.171-interrupted"]
)
def test_encrypted_only_reasoning_is_a_line_of_the_next_item_not_a_card(path: Path) -> None:
    _, messages = _read(path)
    encrypted_only = [
        item
        for item in _items(path)
        if item.get("type") == "reasoning" and not item.get("summary") and not item.get("content")
    ]
    redacted = [p for p in _parts(messages) if isinstance(p, RedactedReasoningPart)]
    assert encrypted_only
    assert len(redacted) == len(encrypted_only)  # each one kept, none dropped
    for message in messages:
        if any(isinstance(p, RedactedReasoningPart) for p in message.parts):
            assert not all(isinstance(p, RedactedReasoningPart) for p in message.parts)
    assert "MUST_NOT_RENDER" not in json.dumps([p.raw for p in redacted])


def test_an_empty_write_stdin_poll_is_shown_as_the_output_of_the_command_it_polls() -> None:
    _, messages = _read(V77)
    calls = [p for p in _parts(messages) if isinstance(p, ToolCallPart)]
    assert [c.name for c in calls] == ["exec_command", "apply_patch"]
    command = calls[0]
    results = [p for p in _parts(messages) if isinstance(p, ToolResultPart)]
    _started, finished = (r for r in results if r.call_id == command.call_id)
    assert finished.content[0] == TextPart(text="built\r\n")
    poll, output = finished.raw
    assert poll["name"] == "write_stdin"
    assert json.loads(poll["arguments"])["chars"] == ""
    assert output["call_id"] == poll["call_id"]
    names = {command.call_id or "": "exec_command"}
    message = next(m for m in messages if finished in m.parts)
    # what follows the mark (exit code, time) is the outcome's, which the rendering words
    assert _blocks(message, names)[1].title.startswith("Result · exec_command · ✓")


def test_typing_into_a_command_is_a_call_and_the_poll_after_it_is_the_commands() -> None:
    _, messages = _read(TYPED)
    calls = {p.call_id: p for p in _parts(messages) if isinstance(p, ToolCallPart)}
    assert [c.name for c in calls.values()] == ["exec_command", "write_stdin"]
    typed = calls["call_type_2"]
    assert typed.arguments["chars"] == "hello\n"
    results = [p for p in _parts(messages) if isinstance(p, ToolResultPart)]
    assert [r.call_id for r in results] == ["call_exec_1", "call_type_2", "call_exec_1"]
    assert results[-1].content[0] == TextPart(text="got hello\r\n")


def test_a_growing_rollout_shows_a_poll_and_reasoning_it_holds_and_drops_nothing() -> None:
    """Read line by line as a running Codex writes it: at every line, every encrypted
    reasoning item read so far is shown, and a poll whose output has not come is a call."""
    data = V77.read_bytes()
    lines = list(json_lines(data))
    poll_row = next(line.row for line in lines if b'"write_stdin"' in line.raw)
    log = codex.FORMAT.open_log(V77) if codex.FORMAT.open_log else None
    assert log is not None
    for line in lines:
        log.feed(line)
        messages = log.result(V77).messages
        assert messages == sorted(messages, key=lambda m: m.row_id)
        read = data.splitlines()[: line.row + 1]
        encrypted = sum(1 for raw in read if b'"summary":[],"content":null' in raw)
        assert sum(isinstance(p, RedactedReasoningPart) for p in _parts(messages)) == encrypted
        polls = [p for p in _parts(messages) if isinstance(p, ToolCallPart)]
        if line.row == poll_row:
            assert polls[-1].name == "write_stdin"
    assert "write_stdin" not in [p.name for p in polls]


def test_the_exec_header_is_sent_to_the_model_only_and_never_the_preview() -> None:
    _, messages = _read(V77)
    finished = next(
        m for m in messages for p in m.parts if isinstance(p, ToolResultPart) and len(p.raw) == 2
    )
    shown, header = (b for b in _blocks(finished) if b.kind == "tool_result")
    assert shown.preview == "built"
    assert header.title == "Sent to the model only"
    assert header.preview.startswith("Chunk ID: ")
    result = next(p for p in finished.parts if isinstance(p, ToolResultPart))
    assert not result.is_error
    assert result.duration_ms == 1693


def test_a_reasoning_summary_s_preview_reads_without_its_marks() -> None:
    """0.29's summary is "**Listing the files**": the collapsed card showed the asterisks."""
    _, messages = _read(V29)
    (message,) = [m for m in messages if any(isinstance(p, ReasoningPart) for p in m.parts)]
    (part,) = [p for p in message.parts if isinstance(p, ReasoningPart)]
    assert part.text == "**Listing the files**"
    (block,) = [b for b in _blocks(message) if b.kind == "reasoning"]
    assert block.preview == "Listing the files"


def test_an_output_codex_kept_no_outcome_of_claims_none() -> None:
    """Codex saves an output as its text alone (`success` is dropped): 0.171 answered the stub's
    `apply_patch` with "unsupported custom tool call: apply_patch", which showed "✓ ok"; and a
    command still running has no outcome yet. Only an exit code says how a call ended."""
    _, messages = _read(V171)
    results = [(p, m) for m in messages for p in m.parts if isinstance(p, ToolResultPart)]
    running, finished, (patched, message) = results[0][0], results[1][0], results[2]
    assert patched.content == (TextPart(text="unsupported custom tool call: apply_patch"),)
    assert not patched.is_error
    assert _blocks(message, {"call_patch_3": "apply_patch"})[0].title == "Result · apply_patch"
    assert "Process running" in json.dumps(running.raw)
    assert running.status == UNRECORDED
    assert "exited with code 0" in json.dumps(finished.raw)
    assert finished.status is None


def test_a_command_the_user_interrupted_is_not_shown_as_successful() -> None:
    _, messages = _read(ABORTED)
    (result,) = [p for p in _parts(messages) if isinstance(p, ToolResultPart)]
    assert result.is_error
    assert result.status == "aborted"
    block = _blocks(next(m for m in messages if result in m.parts))[0]
    assert block.title == "Result · ✗ aborted · 3.8 s"  # the wall time Codex wrote
    assert block.preview == "aborted by user"


def test_the_servers_encrypted_compaction_is_a_notice_and_never_shown(tmp_path: Path) -> None:
    """Codex's `ResponseItem::Compaction` (alias `compaction_summary`) and a `compacted` line
    whose `replacement_history` holds it, in the shape codex-rs/protocol's models.rs gives them
    (re-created lines: the stub could not make Codex compact on a server), after the genuine
    0.171 rollout: the encrypted summary is withheld everywhere, the compaction is a notice."""
    secret = "gAAAAB-server-compaction-MUST_NOT_RENDER"
    lines = [
        {
            "timestamp": "2026-12-01T09:06:00.000Z",
            "type": "response_item",
            "payload": {"type": "compaction", "id": "cmp_1", "encrypted_content": secret},
        },
        {
            "timestamp": "2026-12-01T09:06:00.001Z",
            "type": "compacted",
            "payload": {
                "message": "",
                "replacement_history": [
                    {"type": "compaction_summary", "encrypted_content": secret},
                    {"type": "reasoning", "summary": [], "encrypted_content": secret},
                ],
            },
        },
    ]
    path = tmp_path / V171.name
    path.write_text(V171.read_text() + "".join(json.dumps(line) + "\n" for line in lines))
    _, messages = _read(path)
    server, compacted = messages[-2:]
    assert [type(p) for p in (*server.parts, *compacted.parts)] == [NotificationPart] * 2
    assert secret not in json.dumps([p.raw for p in _parts(messages)], default=str)
    assert secret not in "".join(b.html for m in messages for b in _blocks(m))


def test_a_generated_image_is_shown_as_the_image() -> None:
    _, messages = _read(DRAWN)
    assert not [p for p in _parts(messages) if isinstance(p, UnsupportedPart)]
    (call,) = [p for p in _parts(messages) if isinstance(p, ToolCallPart)]
    assert call.arguments == {"revised_prompt": "A 4x4 red square"}
    assert "result" not in call.raw
    (result,) = [p for p in _parts(messages) if isinstance(p, ToolResultPart)]
    (image,) = result.content
    assert isinstance(image, ImagePart)
    assert image.mime_type == "image/png"
    assert image.data_b64 is not None
    assert image.data_b64.startswith("iVBOR")
    rendered = MessageRenderer().render(next(m for m in messages if result in m.parts))
    assert [b.kind for b in rendered.blocks][-1] == "image"
    assert rendered.images == (image,)


# Codex, item 7


HARNESS = (
    "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>",
    "<user_instructions>\n\nRun tests with make test.\n\n</user_instructions>",
    "# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nRun tests.\n</INSTRUCTIONS>",
    "<permissions instructions>\nApprovals are never asked for.\n</permissions instructions>",
    "<user_shell_command>\n<command>ls</command>\n</user_shell_command>",
    "<turn_aborted>\nThe user interrupted the previous turn on purpose.\n</turn_aborted>",
)


@pytest.mark.parametrize("text", HARNESS, ids=lambda t: t.split()[0] + t.split()[1][:5])
def test_harness_text_is_never_the_prompt_or_the_title(text: str, tmp_path: Path) -> None:
    """The genuine 0.77 rollout with Codex's own user-message envelope carrying each of the six
    kinds of text Codex writes itself, first before the prompt and then instead of it."""
    lines = V77.read_text().splitlines()
    prompt = next(i for i, line in enumerate(lines) if PROMPT in line and "input_text" in line)
    envelope = json.loads(lines[prompt])
    envelope["payload"]["content"][0]["text"] = text
    before = tmp_path / "before" / V77.name
    instead = tmp_path / "instead" / V77.name
    for path, replaced in ((before, lines[:prompt]), (instead, lines[:prompt])):
        path.parent.mkdir()
        rest = lines[prompt:] if path is before else lines[prompt + 1 :]
        path.write_text("\n".join([*replaced, json.dumps(envelope), *rest]) + "\n")
    session, messages = _read(before)
    assert session.name == PROMPT
    harness = next(m for m in messages if m.parts and m.parts[0].raw.get("text") == text)
    assert not harness.visibility.user
    session, _ = _read(instead)
    assert text.split(maxsplit=1)[0] not in session.name
    assert session.name == instead.stem


@pytest.mark.parametrize("path", [V77, V171], ids=["0.77", "0.171"])
def test_the_context_figure_is_the_last_turn_and_the_total_the_running_total(
    path: Path,
) -> None:
    """`last_token_usage` (what the last request held) is the context; `total_token_usage`
    (added up over the session) is the total — never the other way round."""
    source = open_history(ROLLOUTS)
    session = _sessions(source)[path.stem[-36:]]
    assert session.usage.total_tokens == 2100 + 44
    assert session.usage.input_tokens == 2100
    assert session.accumulated_usage.total_tokens == 6770
    assert session.accumulated_usage.input_tokens == 6600


def test_apply_patch_input_stays_a_string_and_is_shown_as_a_diff() -> None:
    _, messages = _read(V77)
    (patch,) = [
        p for p in _parts(messages) if isinstance(p, ToolCallPart) and p.tool == "apply_patch"
    ]
    assert (
        patch.arguments == "*** Begin Patch\n*** Add File: NOTES.md\n+Built once.\n*** End Patch\n"
    )
    block = _blocks(next(m for m in messages if patch in m.parts))[-1]
    assert block.title == "Edit NOTES.md (+1 −0)"  # the patch read as a file edit
    assert "<code>NOTES.md</code>" in block.html
    assert ">Built once.<" in block.html  # an added line of a diff, not a quoted JSON string
    assert block.code_blocks == (patch.arguments,)  # copied as the agent wrote it


def test_reasoning_with_both_summary_and_content_shows_the_content() -> None:
    _, messages = _read(V77)
    (reasoning,) = [p for p in _parts(messages) if isinstance(p, ReasoningPart)]
    assert reasoning.text == "The build printed its line; now add NOTES.md with one line."
    assert not reasoning.is_summary
    assert reasoning.raw["summary"][0]["text"] == "**Writing the notes file**"


# Gemini CLI and pi, item 8


def test_gemini_cancelled_and_errored_tool_calls_are_not_successful(tmp_path: Path) -> None:
    shutil.copytree(AGENTS / "gemini_cli" / "library", tmp_path / "tmp")
    source = open_history(tmp_path / "tmp")
    session = _sessions(source)["c4d5e6f7-0000-4000-8000-00000000abcd"]
    assert session.name == "Run parser tests"
    messages = list(iter_messages(source, session.id))
    results = {p.call_id: p for m in messages for p in m.parts if isinstance(p, ToolResultPart)}
    assert not results["read_file-1"].is_error
    assert results["run_shell_command-2"].is_error
    assert results["run_shell_command-2"].status == "cancelled"
    assert results["run_shell_command-3"].is_error
    titles = [b.title for m in messages if m.role is Role.TOOL for b in _blocks(m)]
    # the error's exit code is read as the command's outcome; its stored text says only that
    # ("Command exited with code: 1"), so it is not shown again (the raw JSON keeps it)
    assert titles == [
        "Result · read_file · ✓ ok",
        "Result · run_shell_command · ✗ cancelled",
        "Result · run_shell_command · ✗ exit 1",
    ]
    (said,) = results["run_shell_command-3"].content
    assert isinstance(said, TextPart)
    assert said.text == "Command exited with code: 1"


def test_a_gemini_rewind_is_a_notice_after_the_messages_it_took_back() -> None:
    """`/rewind` appends `{"$rewindTo": id}`: Gemini CLI then shows the conversation without
    the messages from that one on; Gander keeps them, in file order, and says so there."""
    source = open_history(AGENTS / "gemini_cli" / "library")
    messages = list(iter_messages(source, "e1f2a3b4-0000-4000-8000-00000000beef"))
    assert [m.role_raw for m in messages] == [
        "user", "gemini", "user", "gemini", "$rewindTo", "user", "gemini",
    ]  # fmt: skip
    (notice,) = messages[4].parts
    assert isinstance(notice, NotificationPart)
    assert notice.text.startswith("Rewound to before “Also rename the tests”")
    assert notice.raw["$rewindTo"] == messages[2].message_id


def test_gemini_shows_what_was_typed_and_keeps_hook_context_for_the_model() -> None:
    """`displayContent` is what Gemini CLI shows of a message (the typed request); the
    `content` the model got (an @-file's text, `<hook_context>`) is for the model only, and a
    message that is only `<hook_context>` is context, never the prompt or the title."""
    source = open_history(AGENTS / "gemini_cli" / "library")
    session = _sessions(source)["a9b8c7d6-0000-4000-8000-00000000cafe"]
    assert session.name == "Summarize @README.md"
    hook, typed, _reply = iter_messages(source, session.id)
    assert not hook.visibility.user
    assert hook.visibility.agent
    shown, sent = typed.parts
    assert shown == TextPart(text="Summarize @README.md")
    assert isinstance(sent, TextPart)
    assert sent.annotations is not None
    assert not sent.annotations.shown_to("user")
    assert "A small notes app." in sent.text
    assert [b.title for b in _blocks(typed)] == ["", "For the model only"]


PI_LINT = "01a230df-24d7-73fb-8a4e-5cc022758e7e"
PI_BASH = "01a230e5-950a-7267-a168-9a62aeb5fdda"
PI_MONO = "d703a1a9-1b7b-4fb1-b512-c9738b1fe617"


@pytest.mark.parametrize(("folder", "session_id"), [("pi-mono", PI_MONO), ("library", PI_LINT)])
def test_pi_results_marked_is_error_are_errors(folder: str, session_id: str) -> None:
    source = open_history(AGENTS / "pi" / folder)
    results = [
        (p, m)
        for m in iter_messages(source, session_id)
        for p in m.parts
        if isinstance(p, ToolResultPart)
    ]
    failed = [(p, m) for p, m in results if p.raw.get("isError") is True]
    assert failed
    assert all(p.is_error for p, _ in failed)
    assert not any(p.is_error for p, _ in results if p.raw.get("isError") is False)
    assert all("✗" in _blocks(m)[0].title for _, m in failed)


def test_pi_custom_messages_follow_their_display_flag() -> None:
    source = open_history(AGENTS / "pi" / "library")
    custom = [m for m in iter_messages(source, PI_LINT) if m.role_raw == "custom"]
    shown, hidden = custom
    assert shown.visibility.user
    assert shown.visibility.agent
    assert not hidden.visibility.user
    assert hidden.visibility.agent
    assert "--fix" in shown.parts[0].raw
    assert not shown.is_prompt


def test_pi_tokens_no_reply_recorded_are_unknown_not_zero() -> None:
    """pi's first sessions (pi-mono's fixture) wrote no `totalTokens`: the total is unknown."""
    source = open_history(AGENTS / "pi" / "pi-mono")
    (session,) = iter_sessions(source, EVERY)
    assert session.accumulated_usage.total_tokens is None
    assert session.accumulated_usage.input_tokens


@pytest.mark.parametrize(("folder", "session_id"), [("pi-mono", PI_MONO), ("library", PI_BASH)])
def test_pi_thinking_signatures_are_withheld(folder: str, session_id: str) -> None:
    """`thinkingSignature` is the provider's signature, or the encrypted payload of thinking
    it redacted: kept out of every part's source; redacted thinking is a redacted marker."""
    path = next((AGENTS / "pi" / folder).glob(f"*/*{session_id}.jsonl"))
    signatures = [
        block["thinkingSignature"]
        for line in path.read_text().splitlines()
        for block in (json.loads(line).get("message") or {}).get("content") or []
        if isinstance(block, dict) and block.get("thinkingSignature")
    ]
    assert signatures
    source = open_history(AGENTS / "pi" / folder)
    parts = _parts(list(iter_messages(source, session_id)))
    shown = json.dumps([p.raw for p in parts])
    assert not [s for s in signatures if s in shown]
    assert "[withheld by Gander: " in shown
    thoughts = [p for p in parts if isinstance(p, ReasoningPart | RedactedReasoningPart)]
    assert [type(p) for p in thoughts if p.raw.get("redacted")] == (
        [RedactedReasoningPart] if folder == "library" else []
    )


def test_pi_a_shell_command_kept_out_of_context_is_shown_but_not_sent() -> None:
    """`!!cmd` (`excludeFromContext`) is shown in pi and never sent to the model; `!cmd` is."""
    source = open_history(AGENTS / "pi" / "library")
    kept_out, sent = [m for m in iter_messages(source, PI_BASH) if m.role_raw == "bashExecution"]
    assert kept_out.visibility.user
    assert not kept_out.visibility.agent
    assert sent.visibility.user
    assert sent.visibility.agent
