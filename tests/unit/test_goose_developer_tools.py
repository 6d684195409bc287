"""goose's in-process developer extension: its unprefixed tools as actions (#19 items 1, 3, 11).

Later goose runs the developer extension inside the agent (block/goose,
`crates/goose/src/agents/platform_extensions/developer/`); its tools are registered without
the `developer__` prefix (`unprefixed_tools: true`, `platform_extensions/mod.rs`), so a
session stores `shell`, `write`, `edit`, `tree` (and, in some versions, `read`). No goose
session file with these tools is public (docs/formats/goose-files.md says where one was looked
for), so the rows below are shaped as goose stores a message's content (`toolRequest` and
`toolResponse` blocks, MCP `CallToolResult`s), with the arguments and the result texts copied
from goose's own tests and code:

- `developer/mod.rs` at bc55f6861a721fb224230ba86085ee97183533ce,
  `developer_client_uses_working_dir_for_file_tools` and `…_for_shell_tool`: `write`
  `{"path": "notes.txt", "content": "first line"}`, `edit` `{"path": "notes.txt", "before":
  "first", "after": "updated"}`, `shell` `{"command": "pwd"}`;
- `developer/shell.rs` at 2f4773c13daec5d783f3bcf5c94f750ae3762f2f,
  `shell_returns_error_for_non_zero_exit` (`echo fail && exit 7`, an error result whose text
  ends "Command exited with code 7") and `ShellParams.timeout_secs`;
- `developer/edit.rs` at 1b12e60a1cb3a2d79113b44461750ffc7080f5d2: the results' texts
  ("Created {path} ({n} lines)", "Edited {path} ({old} lines -> {new} lines)") and
  `test_file_read_partial` (`line` 2, `limit` 1, 1-based);
- `developer/tree.rs` at a7f8ca48efaee00f7bf9bb7f09329402df174e01, `tree_lists_files_and_
  directories` (`depth` 2) and `render_into`'s lines (`name/  [lines]`, two spaces a level);
- `crates/goose-mcp/src/developer/read.rs` at cc96ae08520438b40b1b86d95b85c40db4a376c5,
  `read_text_with_offset_and_limit` (`offset` 1 — 0-based, "offset=0 starts at line 1" —
  `limit` 2).

Rendered in the window's blocks, the HTML export and the Markdown export, as
tests/unit/test_tool_cards.py renders every action."""

import json
import re
from datetime import UTC, datetime
from html import unescape
from pathlib import Path
from typing import Any

import pytest

from desktop_app.demo.generator import ensure_demo_database
from desktop_app.domain.actions import (
    FileEdit,
    FileRead,
    FileSearch,
    FileWrite,
    ShellCommand,
    TextReplacement,
)
from desktop_app.domain.message import Message, Role
from desktop_app.domain.parts import Part, TextPart, ToolCallPart, ToolResultPart
from desktop_app.domain.reading import iter_messages, iter_sessions
from desktop_app.domain.source import ArchivedFilter, SessionQuery
from desktop_app.rendering.html_export import HtmlWriter
from desktop_app.rendering.markdown_export import MarkdownWriter
from desktop_app.rendering.transcript_blocks import MessageRenderer
from desktop_app.sources.common.goose_json import tools
from desktop_app.sources.common.goose_json.content import parse_content
from desktop_app.sources.goose import GooseSource


def _request(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "toolRequest",
        "id": call_id,
        "toolCall": {"status": "success", "value": {"name": name, "arguments": arguments}},
    }


def _response(call_id: str, text: str, *, error: bool = False) -> dict[str, Any]:
    content = [{"type": "text", "text": text, "annotations": {"priority": 0.0}}]
    value = {"content": content, "isError": error}
    return {
        "type": "toolResponse",
        "id": call_id,
        "toolResult": {"status": "success", "value": value},
    }


TREE = "src/  [2]\n  lib.rs  [1]\n  main.rs  [1]\ntests/  [2]\n  test.rs  [2]\n"

CALLS: dict[str, tuple[dict[str, Any], dict[str, Any], Any, str]] = {
    # the stored request, its response, the action, the card's title
    "write": (
        _request("w1", "write", {"path": "notes.txt", "content": "first line"}),
        _response("w1", "Created notes.txt (1 lines)"),
        FileWrite(path="notes.txt", content="first line"),
        "Write notes.txt (1 line)",
    ),
    "edit": (
        _request("e1", "edit", {"path": "notes.txt", "before": "first", "after": "updated"}),
        _response("e1", "Edited notes.txt (1 lines -> 1 lines)"),
        FileEdit(path="notes.txt", replacements=(TextReplacement(old="first", new="updated"),)),
        "Edit notes.txt (+1 −1)",
    ),
    "shell": (
        _request("s1", "shell", {"command": "pwd"}),
        _response("s1", "/tmp/.tmpX/workspace"),
        ShellCommand(command="pwd"),
        "Ran pwd",
    ),
    "shell that failed": (
        _request("s2", "shell", {"command": "echo fail && exit 7", "timeout_secs": 300}),
        _response("s2", "fail\n\nCommand exited with code 7", error=True),
        ShellCommand(command="echo fail && exit 7", timeout_ms=300_000),
        "Ran echo fail && exit 7",
    ),
    "tree": (
        _request("t1", "tree", {"path": "/tmp/.tmpX", "depth": 2}),
        _response("t1", TREE),
        FileSearch(scope="/tmp/.tmpX", by_name=True),
        "Found files in /tmp/.tmpX",
    ),
    "read from a line": (
        _request("r1", "read", {"path": "/tmp/.tmpX/read.txt", "line": 2, "limit": 1}),
        _response("r1", "line2\n"),
        FileRead(path="/tmp/.tmpX/read.txt", first_line=2, line_count=1),
        "Read /tmp/.tmpX/read.txt · lines 2–2",
    ),
    "read from an offset": (
        _request("r2", "read", {"path": "/tmp/.tmpX/test.txt", "offset": 1, "limit": 2}),
        _response("r2", "b\nc\n\n[1 more lines in file. Offsets are 0-indexed; use offset=3]"),
        FileRead(path="/tmp/.tmpX/test.txt", first_line=2, line_count=2),
        "Read /tmp/.tmpX/test.txt · lines 2–3",
    ),
}


def _parts(*blocks: dict[str, Any]) -> tuple[Part, ...]:
    return parse_content(json.dumps(list(blocks)))


def _message(parts: tuple[Part, ...], role: Role) -> Message:
    return Message(
        session_id="20260301_1",
        row_id=1,
        message_id=None,
        role=role,
        role_raw=role.value,
        created_at=None,
        created_raw=1,
        parts=parts,
    )


def _visible(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", html))


@pytest.mark.parametrize("name", list(CALLS))
def test_each_developer_tool_is_read_as_its_action(name: str) -> None:
    request, _, expected, _ = CALLS[name]
    (call,) = _parts(request)
    assert isinstance(call, ToolCallPart)
    assert call.action == expected
    assert call.raw == request  # the call as stored stays on the part
    assert (call.extension, call.tool) == (None, request["toolCall"]["value"]["name"])


@pytest.mark.parametrize("name", list(CALLS))
def test_each_developer_tool_renders_in_the_window_and_both_exports(name: str) -> None:
    request, response, _, title = CALLS[name]
    call_message = _message(_parts(request), Role.ASSISTANT)
    result_message = _message(_parts(response), Role.USER)
    (result,) = result_message.parts
    assert isinstance(result, ToolResultPart)
    (said_part,) = result.content
    assert isinstance(said_part, TextPart)
    said = said_part.text
    (block,) = MessageRenderer().render(call_message).blocks
    assert block.title == title
    result_block = MessageRenderer().render(result_message, {request["id"]: title}).blocks[0]
    assert said.splitlines()[0] in _visible(result_block.html)
    html = "".join(HtmlWriter().messages((call_message, result_message)))
    markdown = "".join(MarkdownWriter().messages((call_message, result_message)))
    assert said.splitlines()[0] in _visible(html)
    assert said.splitlines()[0] in markdown
    arguments = request["toolCall"]["value"]["arguments"]
    shown = arguments.get("command") or arguments.get("after") or arguments.get("path")
    assert shown in _visible(block.html)
    assert shown in _visible(html)
    assert shown in markdown


def test_an_edit_shows_the_replacement_as_a_diff() -> None:
    request = CALLS["edit"][0]
    (block,) = MessageRenderer().render(_message(_parts(request), Role.ASSISTANT)).blocks
    assert 'class="del"' in block.html
    assert 'class="add"' in block.html
    markdown = MarkdownWriter().part(_parts(request)[0])
    assert "```diff" in markdown
    assert "-first" in markdown
    assert "+updated" in markdown


def test_a_call_with_an_argument_goose_does_not_declare_stays_the_tool() -> None:
    """goose parses each tool's arguments into its own struct (`parse_args`); one it does not
    take, or a missing required text, is not the tool as goose knows it: no action, every
    argument shown."""
    assert tools.action("shell", {"command": "ls", "cwd": "/tmp"}) is None
    assert tools.action("edit", {"path": "a", "old_str": "x", "new_str": "y"}) is None
    assert tools.action("edit", {"path": "a", "before": "x"}) is None
    assert tools.action("write", {"path": "a"}) is None
    assert tools.action("tree", {"path": "a", "pattern": "*.rs"}) is None
    assert tools.action("read", {"path": "a", "view_range": [1, 2]}) is None
    assert tools.action("shell", "pwd") is None


def test_other_current_goose_tools_stay_the_tools_they_are() -> None:
    """The summon extension's `load` (a recipe's text, or a background task's result), the
    extension manager's, chat recall's and the analyze extension's tools fit none of the
    actions: they are shown as themselves, `server · tool` and every argument."""
    for name, arguments in (
        ("load", {"source": "deploy"}),
        ("extensionmanager__manage_extensions", {"action": "enable", "extension_name": "x"}),
        ("chatrecall__chatrecall", {"query": "retry"}),
        ("analyze", {"path": "src"}),
    ):
        (call,) = _parts(_request("x1", name, arguments))
        assert isinstance(call, ToolCallPart)
        assert call.action is None, name


def test_the_demo_has_a_session_with_every_developer_tool(tmp_path: Path) -> None:
    """The built-in demo shows these cards too: one session calls each tool, each an action."""
    source = GooseSource(ensure_demo_database(tmp_path, datetime(2026, 11, 30, 12, tzinfo=UTC)))
    try:
        (session,) = [
            s
            for s in iter_sessions(source, SessionQuery(archived=ArchivedFilter.INCLUDE), None)
            if s.name == "Retry limit from the environment"
        ]
        calls = [
            part
            for message in iter_messages(source, session.id)
            for part in message.parts
            if isinstance(part, ToolCallPart)
        ]
    finally:
        source.close()
    assert {call.name for call in calls} == {"tree", "read", "edit", "write", "shell"}
    assert all(call.action is not None for call in calls)
