"""Each reader maps its agent's tools to actions and reads what they did (#19 items 1, 2, 11).

On files the agents' own code wrote (origins in tests/fixtures/agents/README.md): Claude Code
1.0.128 and 2.1.110 sessions that call each of its tools, Codex 0.29/0.77 rollouts, a Gemini
CLI recording whose calls gemini-cli-core's own tools ran, pi sessions (one whose calls pi's own
tools ran), a goose session. Where no such file holds a tool or a shape (goose's editor
commands, pi's older `edit` shapes, Codex's `local_shell_call`), the arguments are the ones the
agent's source declares, named in each reader's `tools.py`."""

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.domain.actions import (
    EditOutcome,
    FileContent,
    FileEdit,
    FileRead,
    FileSearch,
    FileWrite,
    QuestionAnswers,
    QuestionItem,
    SearchMatches,
    ShellCommand,
    ShellOutcome,
    SubAgentTask,
    TodoList,
    UserQuestion,
    WebAccess,
    WebResults,
)
from desktop_app.domain.parts import Part, TextPart, ToolCallPart, ToolResultPart
from desktop_app.sources.claude_code import format as claude_format
from desktop_app.sources.claude_code import tools as claude_tools
from desktop_app.sources.codex import format as codex_format
from desktop_app.sources.codex import tools as codex_tools
from desktop_app.sources.common import texts
from desktop_app.sources.common.goose_json import tools as goose_tools
from desktop_app.sources.gemini_cli import format as gemini_format
from desktop_app.sources.gemini_cli import tools as gemini_tools
from desktop_app.sources.goose_legacy import format as goose_legacy_format
from desktop_app.sources.pi import format as pi_format
from desktop_app.sources.pi import tools as pi_tools

FIXTURES = Path(__file__).parents[1] / "fixtures"
AGENTS = FIXTURES / "agents"
CLAUDE = AGENTS / "claude_code" / "tools"
CLAUDE_1 = (
    CLAUDE / "1.0.128/-tmp-ccrun-tools10128-payments-api/0b4d9716-33c3-4e70-8078-1bb546fc0abc.jsonl"
)
CLAUDE_2 = (
    CLAUDE / "2.1.110/-tmp-ccrun-tools21110-payments-api/536541d2-9ea2-466e-8880-fe934c05bb3a.jsonl"
)
CLAUDE_TASK = (
    AGENTS
    / "claude_code/written/2.0.46/-tmp-ccrun-v2046-payments-api"
    / "b4f8f234-0051-4bce-a38f-47bfb5a56212.jsonl"
)
CODEX_DAY = AGENTS / "codex" / "cli" / "2026" / "12" / "01"
CODEX_29 = CODEX_DAY / "rollout-2026-12-01T09-05-35-163cbbc1-b32a-4c9f-bb31-42a237779e9e.jsonl"
CODEX_77 = CODEX_DAY / "rollout-2026-12-01T09-05-37-01a230da-37ba-73b2-b6ea-3ce96d36fe7d.jsonl"
CODEX_ABORTED = CODEX_DAY / "rollout-2026-12-01T09-07-06-01a230db-93f5-7103-ad41-204cda2b0934.jsonl"
CODEX_TOOLS = (
    AGENTS
    / "codex/tools/2026/12/01"
    / "rollout-2026-12-01T11-42-11-01a23169-9218-7721-b525-38fc4c9e844b.jsonl"
)
GEMINI = next((AGENTS / "gemini_cli" / "tools").rglob("session-*.jsonl"))
GEMINI_WEB = next((AGENTS / "gemini_cli" / "web").rglob("session-*.jsonl"))
GEMINI_ASK = next((AGENTS / "gemini_cli" / "ask_user").rglob("session-*.jsonl"))
CLAUDE_WEB_1 = next((AGENTS / "claude_code" / "web" / "1.0.128").rglob("*.jsonl"))
CLAUDE_WEB_2 = next((AGENTS / "claude_code" / "web" / "2.1.110").rglob("*.jsonl"))
PI_LIBRARY = AGENTS / "pi" / "library" / "--home-dev-src-notes-app--"
PI_TOOLS = next(p for p in PI_LIBRARY.glob("*.jsonl") if "toolResult" in p.read_text())
PI_TYPED = next(p for p in PI_LIBRARY.glob("*.jsonl") if "bashExecution" in p.read_text())
PI_MONO = next((AGENTS / "pi" / "pi-mono").rglob("*.jsonl"))
PI_RAN = next((AGENTS / "pi" / "tools").rglob("*.jsonl"))
GOOSE_LEGACY = FIXTURES / "genuine" / "goose_legacy" / "20250530_100000.jsonl"

READERS: dict[str, Callable[[Path, bytes], Any]] = {
    "claude": claude_format.parse,
    "codex": codex_format.parse,
    "gemini": gemini_format.parse,
    "pi": pi_format.parse,
    "goose": goose_legacy_format.parse,
}


def _parts(reader: str, path: Path) -> list[Part]:
    parsed = READERS[reader](path, path.read_bytes())
    return [part for message in parsed.messages for part in message.parts]


def _call(reader: str, path: Path, tool: str, nth: int = 0) -> ToolCallPart:
    calls = [p for p in _parts(reader, path) if isinstance(p, ToolCallPart) and p.name == tool]
    return calls[nth]


def _result(reader: str, path: Path, tool: str, nth: int = 0) -> ToolResultPart:
    """The last result of the `nth` call of `tool` (a running command's poll comes last)."""
    call = _call(reader, path, tool, nth)
    results = [
        p
        for p in _parts(reader, path)
        if isinstance(p, ToolResultPart) and p.call_id == call.call_id
    ]
    return results[-1]


def _said(result: ToolResultPart) -> str:
    return "\n".join(p.text for p in result.content if isinstance(p, TextPart))


MAPPED: list[tuple[str, Path, str, int, type, dict[str, Any]]] = [
    (
        "claude",
        CLAUDE_2,
        "Write",
        0,
        FileWrite,
        {"content": "def backoff(attempt):\n    return 2 ** attempt\n"},
    ),
    (
        "claude",
        CLAUDE_2,
        "Edit",
        0,
        FileEdit,
        {"path": "/tmp/ccrun-tools21110/payments-api/app/handlers.py"},
    ),
    ("claude", CLAUDE_2, "Read", 1, FileRead, {"first_line": 4, "line_count": 2}),
    ("claude", CLAUDE_2, "Grep", 0, FileSearch, {"pattern": "def ", "by_name": False}),
    ("claude", CLAUDE_2, "Glob", 0, FileSearch, {"pattern": "**/*.py", "by_name": True}),
    ("claude", CLAUDE_2, "Bash", 0, ShellCommand, {"description": "Run the checks"}),
    ("claude", CLAUDE_2, "AskUserQuestion", 0, UserQuestion, {}),
    ("claude", CLAUDE_1, "MultiEdit", 0, FileEdit, {}),
    ("claude", CLAUDE_WEB_1, "WebSearch", 0, WebAccess, {"query": "httpx retry transport backoff"}),
    ("claude", CLAUDE_WEB_2, "WebSearch", 0, WebAccess, {"query": "httpx retry transport backoff"}),
    (
        "claude",
        CLAUDE_WEB_2,
        "WebFetch",
        1,
        WebAccess,
        {"url": "https://127.0.0.1:9/gone.html", "prompt": "What does this page say?"},
    ),
    ("claude", CLAUDE_1, "TodoWrite", 0, TodoList, {}),
    (
        "claude",
        CLAUDE_TASK,
        "Task",
        0,
        SubAgentTask,
        {"agent_type": "general-purpose", "description": "Count the handlers"},
    ),
    ("codex", CODEX_29, "shell", 0, ShellCommand, {"command": "ls"}),
    ("codex", CODEX_77, "exec_command", 0, ShellCommand, {"command": "sleep 2; echo built"}),
    (
        "codex",
        CODEX_77,
        "apply_patch",
        0,
        FileEdit,
        {
            "path": "NOTES.md",
            "patch": "*** Begin Patch\n*** Add File: NOTES.md\n+Built once.\n*** End Patch\n",
        },
    ),
    (
        "codex",
        CODEX_TOOLS,
        "update_plan",
        0,
        TodoList,
        {"explanation": "Three steps to a tested notes app."},
    ),
    ("codex", CODEX_TOOLS, "web_search", 0, WebAccess, {"query": "make test exit code 3"}),
    ("gemini", GEMINI, "write_todos", 0, TodoList, {}),
    ("gemini", GEMINI_WEB, "google_web_search", 0, WebAccess, {"query": "httpx retry transport"}),
    (
        "gemini",
        GEMINI_WEB,
        "web_fetch",
        0,
        WebAccess,
        {"url": "https://www.python-httpx.org/advanced/transports/"},
    ),
    (
        "gemini",
        GEMINI,
        "read_file",
        0,
        FileRead,
        {"path": "notes/store.py", "first_line": 4, "line_count": 3},
    ),
    ("gemini", GEMINI, "replace", 0, FileEdit, {"path": "/tmp/gemproj/notes-app/notes/store.py"}),
    ("gemini", GEMINI, "write_file", 0, FileWrite, {"path": "/tmp/gemproj/notes-app/notes/cli.py"}),
    ("gemini", GEMINI, "glob", 0, FileSearch, {"pattern": "**/*.py", "by_name": True}),
    (
        "gemini",
        GEMINI,
        "grep_search",
        0,
        FileSearch,
        {"pattern": "def ", "scope": "notes", "by_name": False},
    ),
    ("gemini", GEMINI, "list_directory", 0, FileSearch, {"scope": "notes", "by_name": True}),
    (
        "gemini",
        GEMINI,
        "run_shell_command",
        0,
        ShellCommand,
        {"description": "Run a failing check"},
    ),
    ("pi", PI_TOOLS, "bash", 0, ShellCommand, {"command": "npm run lint"}),
    (
        "pi",
        PI_TYPED,
        "bash (typed by the user)",
        0,
        ShellCommand,
        {"command": "git status --short"},
    ),
    ("pi", PI_MONO, "read", 0, FileRead, {"first_line": 720, "line_count": 50}),
    ("pi", PI_RAN, "read", 0, FileRead, {"path": "src/store.ts", "first_line": 5, "line_count": 2}),
    ("pi", PI_RAN, "write", 0, FileWrite, {"path": "src/cli.ts"}),
    ("pi", PI_RAN, "grep", 0, FileSearch, {"pattern": "export", "scope": "src", "by_name": False}),
    ("pi", PI_RAN, "find", 0, FileSearch, {"pattern": "*.ts", "by_name": True}),
    ("pi", PI_RAN, "ls", 0, FileSearch, {"scope": "src", "by_name": True}),
    (
        "goose",
        GOOSE_LEGACY,
        "developer__shell",
        0,
        ShellCommand,
        {"command": "rg -n round src/ledger.py"},
    ),
]


@pytest.mark.parametrize("case", MAPPED, ids=[f"{c[0]}-{c[2]}-{c[3]}" for c in MAPPED])
def test_each_tool_of_each_agent_maps_to_its_action(
    case: tuple[str, Path, str, int, type, dict[str, Any]],
) -> None:
    reader, path, tool, nth, kind, fields = case
    action = _call(reader, path, tool, nth).action
    assert isinstance(action, kind)
    assert {name: getattr(action, name) for name in fields} == fields


def test_the_details_of_claude_code_calls_are_the_arguments_it_recorded() -> None:
    edit = _call("claude", CLAUDE_2, "Edit").action
    assert isinstance(edit, FileEdit)
    ((old, new, every),) = [(r.old, r.new, r.replace_all) for r in edit.replacements]
    assert (old, new, every) == ("    return event\n", "    return dict(event)\n", False)
    multi = _call("claude", CLAUDE_1, "MultiEdit").action
    assert isinstance(multi, FileEdit)
    assert [r.new for r in multi.replacements] == [
        "def ping() -> str:",
        "def retry(event: dict) -> dict:",
    ]
    todos = _call("claude", CLAUDE_1, "TodoWrite").action
    assert isinstance(todos, TodoList)
    assert [(t.text, t.status) for t in todos.items] == [
        ("Add retry module", "in_progress"),
        ("Run the checks", "pending"),
    ]
    question = _call("claude", CLAUDE_2, "AskUserQuestion").action
    assert isinstance(question, UserQuestion)
    ((asked,),) = [question.questions]
    assert (asked.question, asked.header, asked.options, asked.multiple) == (
        "Should retry copy the event?",
        "Retry",
        ("Copy it", "Keep it"),
        False,
    )


def test_a_tool_that_does_not_fit_an_action_stays_the_tool_as_it_is() -> None:
    """A notebook cell replaced (its old source is not in the call), Codex's `write_stdin`
    typing into a command, an MCP tool: no action is claimed (`action_of` shows the tool)."""
    assert _call("claude", CLAUDE_2, "NotebookEdit").action is None
    typed = CODEX_DAY / "rollout-2026-12-01T09-14-04-01a230e1-f4f0-7f93-9f10-a03bc3b993b6.jsonl"
    assert _call("codex", typed, "write_stdin").action is None
    mcp = next((AGENTS / "codex" / "sessions" / "2026").rglob("rollout-*.jsonl"))
    assert _call("codex", mcp, "mcp__synthetic__lookup").action is None


def test_a_call_with_an_argument_its_tool_does_not_take_is_not_mapped() -> None:
    """An action shows what it knows of a tool; a call with an argument the tool's source does
    not declare (an `env` given to goose's shell) stays the tool as it is, every argument
    shown, rather than a card that leaves one out."""
    assert goose_tools.action("developer__shell", {"command": "ls", "env": {"K": "v"}}) is None
    assert claude_tools.action("Bash", {"command": "ls", "sudo": True}) is None
    assert codex_tools.action("update_plan", {"plan": [], "owner": "me"}) is None
    assert gemini_tools.action("web_fetch", {"prompt": "x", "url": "https://a.example"}) is None
    assert pi_tools.action("write", {"path": "a", "content": "", "mode": 420}) is None
    assert goose_tools.action("developer__shell", {"command": "ls"}) == ShellCommand(command="ls")


def test_a_codex_search_of_several_queries_names_them_all() -> None:
    """Later codex-rs `WebSearchAction::Search` carries `queries` beside `query` (either may be
    absent); Codex titles such a search with the queries joined by ", "."""
    several = {"type": "search", "queries": ["httpx retries", "httpx transport"]}
    assert codex_tools.action("web_search", several) == WebAccess(
        query="httpx retries, httpx transport"
    )
    both = {"type": "search", "query": "httpx", "queries": ["httpx retries"]}
    assert codex_tools.action("web_search", both) == WebAccess(query="httpx")
    assert codex_tools.action("web_search", {"type": "search", "queries": [1]}) == WebAccess()


def test_codex_argv_commands_read_as_the_command_line_they_run() -> None:
    """`shell`'s argv and `local_shell_call`'s `LocalShellExecAction` (codex-rs `models.rs`):
    the script of `bash -lc`, else the words as the model gave them."""
    assert codex_tools.action("shell", {"command": ["bash", "-lc", "ls | wc -l"]}) == (
        ShellCommand(command="ls | wc -l")
    )
    exec_action = {"type": "exec", "command": ["ls", "-la"], "working_directory": "/w"}
    assert codex_tools.action("local_shell", {**exec_action, "timeout_ms": 900}) == ShellCommand(
        command="ls -la", workdir="/w", timeout_ms=900
    )
    assert codex_tools.action("shell", {"command": "ls"}) is None  # not an argv


def test_gemini_todo_statuses_beyond_the_three_are_kept_as_written() -> None:
    todos = _call("gemini", GEMINI, "write_todos").action
    assert isinstance(todos, TodoList)
    assert [(t.status, t.status_raw) for t in todos.items] == [
        ("in_progress", None),
        ("pending", None),
        ("unknown", "cancelled"),
    ]


GOOSE_DECLARED: list[tuple[str, dict[str, Any], Any]] = [
    (
        "developer__text_editor",
        {"command": "view", "path": "/r/a.py", "view_range": [3, 7]},
        FileRead(path="/r/a.py", first_line=3, line_count=5),
    ),
    (
        "developer__text_editor",
        {"command": "view", "path": "/r/a.py", "view_range": [3, -1]},
        FileRead(path="/r/a.py", first_line=3),
    ),
    (
        "developer__text_editor",
        {"command": "write", "path": "/r/b.py", "file_text": "x = 1\n"},
        FileWrite(path="/r/b.py", content="x = 1\n"),
    ),
    ("developer__text_editor", {"command": "undo_edit", "path": "/r/b.py"}, None),
    ("developer__write_file", {"path": "/r/c.py", "file_text": ""}, FileWrite(path="/r/c.py")),
    ("developer__read_file", {"path": "/r/c.py"}, FileRead(path="/r/c.py")),
    (
        "subagent",
        {"instructions": "Count the tests", "source": "qa"},
        SubAgentTask(prompt="Count the tests", agent_type="qa"),
    ),
]


def test_goose_todo_list_is_read_under_both_names_goose_gave_it() -> None:
    """goose's todo extension named its tool `write` (`todo__write`, as goose-cli's
    `output.rs` draws it), then `todo_write` (`platform_extensions/todo.rs`): `todo__todo_write`,
    as goose 1.x sessions record it (its markdown export in blackgirlbytes/genuary2026,
    `genuary-skills/days/day06/transcript.md`, whose list this is, shortened)."""
    content = "# Genuary 2026 - Day 6\n\n- [x] Day 6: Find and interpret the prompt\n"
    content += "- [ ] Day 6: Pitch artistic vision (wait for approval)\n"
    for name in ("todo__write", "todo__todo_write"):
        todo = goose_tools.action(name, {"content": content})
        assert isinstance(todo, TodoList), name
        assert [(t.text, t.status) for t in todo.items] == [
            ("Day 6: Find and interpret the prompt", "completed"),
            ("Day 6: Pitch artistic vision (wait for approval)", "pending"),
        ]
        assert todo.explanation == "# Genuary 2026 - Day 6"


@pytest.mark.parametrize(("tool", "arguments", "expected"), GOOSE_DECLARED)
def test_goose_tools_map_by_the_arguments_goose_declares(
    tool: str, arguments: dict[str, Any], expected: Any
) -> None:
    assert goose_tools.action(tool, arguments) == expected


def test_goose_edits_and_todo_list() -> None:
    replaced = goose_tools.action(
        "developer__text_editor",
        {"command": "str_replace", "path": "/r/a.py", "old_str": "a", "new_str": "b"},
    )
    assert isinstance(replaced, FileEdit)
    assert [(r.old, r.new) for r in replaced.replacements] == [("a", "b")]
    inserted = goose_tools.action(
        "developer__text_editor",
        {"command": "insert", "path": "/r/a.py", "insert_line": 4, "new_str": "# note\n"},
    )
    assert isinstance(inserted, FileEdit)
    assert inserted.insert_line == 4
    assert [(r.old, r.new) for r in inserted.replacements] == [("", "# note\n")]
    diff = "--- a/r/a.py\n+++ b/r/a.py\n@@ -1 +1 @@\n-a\n+b\n"
    patched = goose_tools.action("developer__edit_file", {"diff": diff})
    assert patched == FileEdit(path="r/a.py", patch=diff)
    todo = goose_tools.action(
        "todo__write", {"content": "Release\n- [x] tag it\n- [ ] announce it\n"}
    )
    assert isinstance(todo, TodoList)
    assert [(t.text, t.status) for t in todo.items] == [
        ("tag it", "completed"),
        ("announce it", "pending"),
    ]
    assert todo.explanation == "Release"


def test_pi_edits_in_both_shapes_pi_takes() -> None:
    """`edits` as a list, as the JSON text some models send, and the older single pair."""
    pair = {"oldText": "a", "newText": "b"}
    for arguments in (
        {"path": "x.ts", "edits": [pair]},
        {"path": "x.ts", "edits": '[{"oldText": "a", "newText": "b"}]'},
        {"path": "x.ts", **pair},
    ):
        edit = pi_tools.action("edit", arguments)
        assert isinstance(edit, FileEdit)
        assert [(r.old, r.new) for r in edit.replacements] == [("a", "b")]
    assert pi_tools.action("write", {"path": "y.ts", "content": "z"}) == FileWrite(
        path="y.ts", content="z"
    )
    assert pi_tools.action("bash", {"command": "ls", "timeout": 1.5}) == ShellCommand(
        command="ls", timeout_ms=1500
    )


# --- outcomes, read from the genuine results --------------------------------------------------


def test_claude_code_outcomes_are_read_from_tool_use_result() -> None:
    edit = _result("claude", CLAUDE_2, "Edit").outcome
    assert isinstance(edit, EditOutcome)
    ((hunk,),) = [edit.hunks]
    assert (hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines) == (3, 4, 3, 4)
    assert "-    return event" in hunk.lines
    assert "+    return dict(event)" in hunk.lines
    written = _result("claude", CLAUDE_2, "Write").outcome
    assert isinstance(written, EditOutcome)
    assert written.created
    read = _result("claude", CLAUDE_2, "Read", 1).outcome
    assert read == FileContent(
        path="/tmp/ccrun-tools21110/payments-api/app/handlers.py",
        text="\ndef retry(event):",
        first_line=4,
        total_lines=7,
    )
    assert _result("claude", CLAUDE_2, "Grep").outcome == SearchMatches(
        paths=("app/handlers.py", "app/retry.py"), total=2
    )
    assert _result("claude", CLAUDE_2, "Glob").outcome == SearchMatches(
        paths=("app/retry.py", "app/handlers.py"), total=2, truncated=False
    )
    assert _result("claude", CLAUDE_2, "Bash", 1).outcome == ShellOutcome(
        stdout="handlers.py\nretry.py"
    )
    assert _result("claude", CLAUDE_2, "AskUserQuestion").outcome == QuestionAnswers(
        answers=(("Should retry copy the event?", "Copy it"),),
        questions=(
            QuestionItem(
                question="Should retry copy the event?",
                header="Retry",
                options=("Copy it", "Keep it"),
            ),
        ),
    )


def test_a_failed_claude_code_command_keeps_its_exit_code() -> None:
    """2.x writes a failed command's result as `Exit code 3` then its output, and its
    `toolUseResult` as a string; 1.x writes the output alone: no exit code is made up."""
    assert _result("claude", CLAUDE_2, "Bash").outcome == ShellOutcome(
        stdout="checking", exit_code=3
    )
    assert _result("claude", CLAUDE_1, "Bash").outcome is None


@pytest.mark.parametrize("path", [CLAUDE_1, CLAUDE_2], ids=["1.0.128 arrows", "2.1.110 tabs"])
def test_claude_code_read_text_without_its_line_numbers_is_the_file_it_recorded(
    path: Path,
) -> None:
    """The Read result's text, numbered `     1→` (1.x) or `1\t` (2.1), read without
    `toolUseResult`: its lines without the numbers are the file content Claude Code recorded,
    and the first number is the first line."""
    for nth in (0, 1):
        result = _result("claude", path, "Read", nth)
        recorded = result.outcome
        assert isinstance(recorded, FileContent)
        assert claude_tools.outcome("Read", None, _said(result), False) == FileContent(
            text=recorded.text, first_line=recorded.first_line
        )


def test_codex_outcomes_are_the_exit_code_and_time_it_wrote() -> None:
    assert _result("codex", CODEX_29, "shell").outcome == ShellOutcome(
        stdout="AGENTS.md\nMakefile\n", exit_code=0, duration_ms=400
    )
    polled = _result("codex", CODEX_77, "exec_command").outcome  # the poll's output
    assert polled == ShellOutcome(stdout="built\r\n", exit_code=0, duration_ms=1693)
    assert _result("codex", CODEX_TOOLS, "exec_command").outcome == ShellOutcome(
        stdout="checking\r\n", exit_code=3, duration_ms=203
    )
    aborted = _result("codex", CODEX_ABORTED, "exec_command").outcome
    assert aborted == ShellOutcome(stdout="aborted by user", duration_ms=3800)
    assert _result("codex", CODEX_TOOLS, "update_plan").outcome is None
    freeform = "Exit code: 1\nWall time: 0.5 seconds\nOutput:\nnope\n"
    assert codex_tools.outcome("shell", freeform) == ShellOutcome(
        stdout="nope\n", exit_code=1, duration_ms=500
    )


def test_gemini_outcomes_are_read_from_its_tools_results() -> None:
    assert _result("gemini", GEMINI, "run_shell_command", 0).outcome == ShellOutcome(
        stdout="1", exit_code=2
    )
    assert _result("gemini", GEMINI, "run_shell_command", 1).outcome == ShellOutcome(
        stdout="cli.py\nstore.py"
    )
    replaced = _result("gemini", GEMINI, "replace").outcome
    assert isinstance(replaced, EditOutcome)
    assert not replaced.created
    assert [line for h in replaced.hunks for line in h.lines if line[:1] in "+-"] == [
        "-def save(note):",
        "+def save(note: str) -> str:",
    ]
    written = _result("gemini", GEMINI, "write_file").outcome
    assert isinstance(written, EditOutcome)
    assert written.created
    assert written.hunks[0].lines == ("+from notes.store import save", "+", '+print(save("hi"))')
    assert _result("gemini", GEMINI, "glob").outcome == SearchMatches(
        paths=("/tmp/gemproj/notes-app/notes/cli.py", "/tmp/gemproj/notes-app/notes/store.py"),
        total=2,
    )
    assert _result("gemini", GEMINI, "grep_search").outcome == SearchMatches(paths=("store.py",))
    assert _result("gemini", GEMINI, "list_directory").outcome == SearchMatches(
        paths=("cli.py", "store.py")
    )
    cancelled = AGENTS / "gemini_cli" / "library"
    recording = next(p for p in cancelled.rglob("*.jsonl") if "cancelled" in p.read_text())
    assert _result("gemini", recording, "run_shell_command", 1).outcome == ShellOutcome(exit_code=1)


def test_gemini_ask_user_answers_are_read_from_what_the_tool_sent_the_model() -> None:
    """gemini-cli-core's own `ask_user` (0.61.0): the answers, keyed by the question's index,
    are the questions' answers (a multi-select's labels joined with ", "); a dismissed dialog
    records none, and its text stays the result."""
    answered = _result("gemini", GEMINI_ASK, "ask_user", 0).outcome
    assert isinstance(answered, QuestionAnswers)
    assert answered.answers == (
        ("Which database should the notes use?", "SQLite"),
        ("Which features do you need?", "Tags, Search"),
        ("What should the database file be called?", "notes.sqlite3"),
    )
    assert [q.options for q in answered.questions] == [
        ("SQLite", "PostgreSQL"),
        ("Tags", "Search", "Sync"),
        (),
    ]
    assert [q.multiple for q in answered.questions] == [False, True, False]
    confirm = _call("gemini", GEMINI_ASK, "ask_user", 1).action
    assert isinstance(confirm, UserQuestion)
    assert confirm.questions[0].options == ("Yes", "No"), "a yesno question, as the CLI offers it"
    dismissed = _result("gemini", GEMINI_ASK, "ask_user", 1)
    assert dismissed.outcome is None
    assert _said(dismissed) == "User dismissed ask_user dialog without answering."


def test_gemini_ask_user_options_are_the_ones_its_dialog_offers() -> None:
    """`options` and `multiSelect` apply to a `choice` (the default) only (`types.ts`)."""
    given = [{"label": "A", "description": ""}, {"label": "B", "description": ""}]
    asked = [
        {"question": "Pick?", "options": given, "multiSelect": True},
        {"question": "Name?", "type": "text", "options": given, "multiSelect": True},
        {"question": "Go?", "type": "yesno", "options": given, "multiSelect": True},
    ]
    action = gemini_tools.action("ask_user", {"questions": asked})
    assert isinstance(action, UserQuestion)
    assert [(q.options, q.multiple) for q in action.questions] == [
        (("A", "B"), True),
        ((), False),
        (("Yes", "No"), False),
    ]


def test_gemini_ask_user_answers_beyond_its_questions_keep_their_index() -> None:
    asked = {"questions": [{"question": "Which?", "header": "Pick"}]}
    sent = '{"answers": {"0": "A", "7": "B", "x": "C", "1": 3}}'
    assert gemini_tools.outcome("ask_user", sent, None, asked) == QuestionAnswers(
        answers=(("Which?", "A"), ("Q7", "B"), ("Qx", "C")),
        questions=(QuestionItem(question="Which?", header="Pick"),),
    )
    assert gemini_tools.outcome("ask_user", "[1]", None, asked) is None
    assert gemini_tools.outcome("ask_user", "not json", None, None) is None


HITS = (
    ("Transports - HTTPX", "https://www.python-httpx.org/advanced/transports/"),
    ("Retries · encode/httpx · Discussion", "https://github.com/encode/httpx/discussions/2847"),
)
"""The two hits the stub API's web search found (tests/fixtures/agents/README.md)."""


@pytest.mark.parametrize("path", [CLAUDE_WEB_1, CLAUDE_WEB_2], ids=["1.0.128", "2.1.110"])
def test_claude_code_web_search_and_fetch_are_read_from_tool_use_result(path: Path) -> None:
    """`WebSearch`'s `results` (the search's hits as {title, url}, the model's words as
    strings) and `WebFetch`'s code, size and answer, as Claude Code recorded them; a fetch
    that failed (nothing listens on port 9) records only its error: no outcome."""
    searched = _result("claude", path, "WebSearch").outcome
    assert isinstance(searched, WebResults)
    assert searched.links == HITS
    assert searched.summary == (
        "I'll search for how httpx retries.\n\n"
        "HTTPX retries connection failures through its transport."
    )
    assert searched.duration_ms is not None
    fetched = _result("claude", path, "WebFetch", 0)
    assert isinstance(fetched.outcome, WebResults)
    port = _call("claude", path, "WebFetch", 0).arguments["url"].split(":")[2].split("/")[0]
    assert (fetched.outcome.url, fetched.outcome.status, fetched.outcome.status_text) == (
        f"https://127.0.0.1:{port}/notes.html",
        200,
        "OK",
    )
    assert fetched.outcome.size == 168
    assert fetched.outcome.summary == _said(fetched)  # the answer, as the model got it
    failed = _result("claude", path, "WebFetch", 1)
    assert failed.is_error
    assert failed.outcome is None
    assert _said(failed) == "connect ECONNREFUSED 127.0.0.1:9"


def test_gemini_web_search_and_fetch_list_their_sources() -> None:
    """`google_web_search` and `web_fetch` end their text with `Sources:` and a `[n] title
    (uri)` line a source; a fetch web_fetch refused (its host did not resolve) lists none."""
    searched = _result("gemini", GEMINI_WEB, "google_web_search").outcome
    assert searched == WebResults(
        links=HITS,
        summary="HTTPX retries failed connections through its transport.[1] "
        "Retries are off by default.[1][2]",
    )
    fetched = _result("gemini", GEMINI_WEB, "web_fetch", 0).outcome
    assert fetched == WebResults(
        links=(("python-httpx.org", "https://www.python-httpx.org/advanced/transports/"),),
        summary="The page says HTTPTransport takes a retries count for connection errors.[1]",
    )
    refused = _result("gemini", GEMINI_WEB, "web_fetch", 1)
    assert refused.is_error
    assert refused.outcome is None
    assert gemini_tools.outcome("google_web_search", "Sources:\n[1] a (b)", None) is None
    listed = "x\n\nSources:\n[1] Untitled (No URI)\n[2] not a source"
    assert gemini_tools.outcome("web_fetch", listed, None) is None


def test_pi_commands_end_as_pi_recorded() -> None:
    """pi fails a command that exits other than 0 (`Command exited with code N` after its
    output), so one it did not fail exited 0; a command the user typed records its code."""
    assert _result("pi", PI_TOOLS, "bash").outcome == ShellOutcome(
        stdout="src/a.ts: 2 problems", exit_code=1
    )
    assert _result("pi", PI_RAN, "bash", 0).outcome == ShellOutcome(
        stdout="checking\n", exit_code=4
    )
    assert _result("pi", PI_RAN, "bash", 1).outcome == ShellOutcome(
        stdout="cli.ts\nstore.ts\n", exit_code=0
    )
    edit = _call("pi", PI_RAN, "edit").action
    assert isinstance(edit, FileEdit)
    assert [(r.old, r.new) for r in edit.replacements] == [
        ("save(note)", "save(note: string)"),
        ("load(key)", "load(key: string)"),
    ]
    mono = [_result("pi", PI_MONO, "bash", n).outcome for n in (0, 1)]
    assert mono == [ShellOutcome(exit_code=0), ShellOutcome(exit_code=1)]
    typed = [_result("pi", PI_TYPED, "bash (typed by the user)", n).outcome for n in (0, 1)]
    assert typed == [
        ShellOutcome(stdout=" M src/a.ts\n", exit_code=0),
        ShellOutcome(stdout="1 failing\n", exit_code=1),
    ]


# --- any arguments, any size: never an error --------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=12,
)
KEYS = sorted(
    {
        *("command", "cmd", "description", "file_path", "absolute_path", "path", "dir_path"),
        *("old_string", "new_string", "replace_all", "allow_multiple", "edits", "content"),
        *("offset", "limit", "start_line", "end_line", "timeout", "timeout_ms", "pattern"),
        *("glob", "include", "include_pattern", "todos", "plan", "explanation", "questions"),
        *("url", "query", "prompt", "subagent_type", "notebook_path", "new_source", "edit_mode"),
        *("input", "workdir", "working_directory", "file_text", "old_str", "new_str"),
        *("insert_line", "view_range", "instructions", "source", "oldText", "newText"),
        *("run_in_background", "is_background", "diff", "multiSelect", "options", "step"),
    }
)
ARGUMENTS = JSON | st.dictionaries(st.sampled_from(KEYS), JSON, max_size=8)
NAMES = {
    "claude": [
        "Edit",
        "MultiEdit",
        "Write",
        "Read",
        "Bash",
        "Grep",
        "Glob",
        "LS",
        "Task",
        "Agent",
        "TodoWrite",
        "WebFetch",
        "WebSearch",
        "AskUserQuestion",
        "NotebookEdit",
    ],
    "codex": [
        "shell",
        "container.exec",
        "local_shell",
        "shell_command",
        "exec_command",
        "apply_patch",
        "update_plan",
        "web_search",
    ],
    "gemini": [
        "replace",
        "write_file",
        "read_file",
        "run_shell_command",
        "glob",
        "grep_search",
        "search_file_content",
        "list_directory",
        "google_web_search",
        "web_fetch",
        "write_todos",
        "ask_user",
    ],
    "pi": ["bash", "read", "edit", "write", "grep", "find", "ls"],
    "goose": [
        "developer__shell",
        "developer__text_editor",
        "developer__read_file",
        "developer__write_file",
        "developer__edit_file",
        "todo__write",
        "todo__todo_write",
        "subagent",
        "delegate",
        "shell",
        "write",
        "edit",
        "tree",
        "read",
    ],
}
ACTIONS = {
    "claude": claude_tools.action,
    "codex": codex_tools.action,
    "gemini": gemini_tools.action,
    "pi": pi_tools.action,
    "goose": goose_tools.action,
}
EDITOR_COMMANDS = st.sampled_from(["view", "write", "create", "str_replace", "insert", "undo_edit"])


@pytest.mark.parametrize("agent", sorted(NAMES))
@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_any_arguments_of_any_known_tool_never_raise(agent: str, data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(NAMES[agent]))
    arguments = data.draw(ARGUMENTS)
    if isinstance(arguments, dict) and data.draw(st.booleans()):
        arguments["command"] = data.draw(EDITOR_COMMANDS)
    ACTIONS[agent](name, arguments)


TEXT = st.text(max_size=200) | st.sampled_from(
    [
        "Exit code 3\nchecking",
        "Output: x\nExit Code: 2",
        "<untrusted_context>\nOutput: (empty)\n</untrusted_context>",
        "     1→a\n     2→b",
        "Command exited with code 1",
        "Wall time: 1.5 seconds\nProcess exited with code 9\nOutput:\nz",
        'Found 2 file(s) matching "x":\na\nb',
    ]
)


RESULT_KEYS = sorted(
    {
        *("structuredPatch", "file", "stdout", "stderr", "filenames", "answers", "fileDiff"),
        *("matches", "files", "output", "metadata", "numFiles", "type", "exitCode", "filePath"),
    }
)


@settings(max_examples=150, deadline=None)
@given(
    name=st.sampled_from(sorted({n for names in NAMES.values() for n in names})),
    recorded=JSON | st.dictionaries(st.sampled_from(RESULT_KEYS), JSON, max_size=6),
    said=TEXT,
    failed=st.booleans(),
)
def test_any_result_of_any_known_tool_never_raises(
    name: str, recorded: Any, said: str, failed: bool
) -> None:
    claude_tools.outcome(name, recorded, said, failed)
    codex_tools.outcome(name, said)
    codex_tools.outcome(name, recorded)
    gemini_tools.outcome(name, said, recorded)
    pi_tools.outcome(name, said, failed)
    if isinstance(recorded, dict):
        pi_tools.typed_outcome(recorded)
    texts.checklist(said)
    texts.patched_file(said)
    texts.unified_hunks(said)
    texts.numbered(said)


def test_huge_numbers_and_texts_are_no_error() -> None:
    """A line number no float holds, an infinite timeout, a 2 MB edit: read, never raised."""
    assert claude_tools.action("Read", {"file_path": "a", "offset": 10**400}) == FileRead(path="a")
    assert pi_tools.action("bash", {"command": "x", "timeout": float("inf")}) == ShellCommand(
        command="x"
    )
    big = "x" * 2_000_000
    edit = claude_tools.action("Edit", {"file_path": "a", "old_string": big, "new_string": ""})
    assert isinstance(edit, FileEdit)
    assert edit.replacements[0].old == big
