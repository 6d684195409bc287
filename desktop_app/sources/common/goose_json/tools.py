"""goose's built-in tools as actions.

Arguments as goose declares them (block/goose, `crates/goose-mcp/src/developer/`): the
developer extension's `shell` (`command`, later `working_directory`) and `text_editor`
(`command` of `view`, `write`, `str_replace`, `insert`, `undo_edit`; `path`, `file_text`,
`old_str`, `new_str`, `insert_line` — after which line — and `view_range` `[start, end]`,
1-based, `-1` for the end), and the later split `read_file` (`path`, `view_range`),
`edit_file` (`path`, `old_str`/`new_str` or a unified `diff`) and `write_file` (`path`,
`file_text`); the todo extension's `todo__write` (`content`, the whole list as free text),
named `todo__todo_write` since its tool became `todo_write` (`platform_extensions/todo.rs`);
the `subagent` and `delegate` tools (`instructions`, `source`) as goose's CLI draws them
(`goose-cli/src/session/output.rs`). Later goose runs the developer extension in-process
(`crates/goose/src/agents/platform_extensions/developer/`) with its tools unprefixed
(`unprefixed_tools: true` in `platform_extensions/mod.rs`, so the name stored is the tool's
own): `shell` (`command`, `timeout_secs`), `write` (`path`, `content`), `edit` (`path`,
`before`, `after` — one exact, unique replacement), `tree` (`path`, `depth`, a listing of the
folder) and, in some versions, `read` (`path`, a 0-based `offset` or a 1-based `line`, and
`limit`). goose's results are MCP content (text) with no exit code or structure of their own:
no outcome is read from them."""

from typing import Any

from desktop_app.domain.actions import (
    Action,
    FileEdit,
    FileRead,
    FileSearch,
    FileWrite,
    ShellCommand,
    SubAgentTask,
    TextReplacement,
    TodoList,
)
from desktop_app.sources.common.arguments import fits, number, text, whole_number
from desktop_app.sources.common.texts import checklist, patched_file

_EDITOR = frozenset(
    {"command", "path", "view_range", "file_text", "old_str", "new_str", "insert_line"}
    | {"insert_text", "diff"}
)
DECLARED: dict[str, frozenset[str] | None] = {
    "developer__shell": frozenset({"command", "working_directory"}),
    "developer__text_editor": _EDITOR,
    "developer__read_file": frozenset({"path", "view_range"}),
    "developer__write_file": frozenset({"path", "file_text"}),
    "developer__edit_file": frozenset({"path", "old_str", "new_str", "diff"}),
    "todo__write": frozenset({"content"}),
    "todo__todo_write": frozenset({"content"}),
    "shell": frozenset({"command", "timeout_secs"}),
    "write": frozenset({"path", "content"}),
    "edit": frozenset({"path", "before", "after"}),
    "tree": frozenset({"path", "depth"}),
    "read": frozenset({"path", "offset", "line", "limit"}),
    "subagent": None,  # its parameters changed over versions; `instructions` is what is shown
    "delegate": None,
}
"""Each tool's parameters: a call with any other is not mapped."""


def action(name: str | None, arguments: Any) -> Action | None:
    """The call's action; None for a tool it is not, or arguments that do not fit it."""
    if name not in DECLARED or not fits(arguments, DECLARED[name]):
        return None
    match name:
        case "developer__shell":
            command = text(arguments, "command")
            if command is None:
                return None
            return ShellCommand(command=command, workdir=text(arguments, "working_directory"))
        case "developer__text_editor":
            return _editor(text(arguments, "command"), arguments)
        case "developer__read_file":
            return _editor("view", arguments)
        case "developer__write_file":
            return _editor("write", arguments)
        case "developer__edit_file":
            diff = text(arguments, "diff")
            if diff is not None:
                return FileEdit(path=text(arguments, "path") or patched_file(diff), patch=diff)
            return _editor("str_replace", arguments)
        case "shell":
            command = text(arguments, "command")
            if command is None:
                return None
            return ShellCommand(
                command=command, timeout_ms=number(arguments, "timeout_secs", scale=1000)
            )
        case "write":
            content = text(arguments, "content")
            if content is None:
                return None
            return FileWrite(path=text(arguments, "path"), content=content)
        case "edit":
            before, after = text(arguments, "before"), text(arguments, "after")
            if before is None or after is None:
                return None
            return FileEdit(
                path=text(arguments, "path"),
                replacements=(TextReplacement(old=before, new=after),),
            )
        case "tree":
            return FileSearch(scope=text(arguments, "path"), by_name=True)
        case "read":
            return FileRead(
                path=text(arguments, "path"),
                first_line=_first_line(arguments),
                line_count=number(arguments, "limit"),
            )
        case "todo__write" | "todo__todo_write":
            content = text(arguments, "content")
            if content is None:
                return None
            items, note = checklist(content)
            return TodoList(items=items, explanation=note)
        case "subagent" | "delegate":
            return SubAgentTask(
                prompt=text(arguments, "instructions"), agent_type=text(arguments, "source")
            )
        case _:
            return None


def _editor(command: str | None, arguments: Any) -> Action | None:
    path = text(arguments, "path")
    match command:
        case "view":
            first, count = _range(
                arguments.get("view_range") if isinstance(arguments, dict) else None
            )
            return FileRead(path=path, first_line=first, line_count=count)
        case "write" | "create":
            content = text(arguments, "file_text")
            return None if content is None else FileWrite(path=path, content=content)
        case "str_replace":
            old, new = text(arguments, "old_str"), text(arguments, "new_str")
            if old is None:
                return None
            return FileEdit(path=path, replacements=(TextReplacement(old=old, new=new or ""),))
        case "insert":
            new = text(arguments, "new_str", "insert_text")
            if new is None:
                return None
            return FileEdit(
                path=path,
                replacements=(TextReplacement(old="", new=new),),
                insert_line=number(arguments, "insert_line"),
            )
        case _:
            return None


def _range(value: Any) -> tuple[int | None, int | None]:
    """`view_range` `[start, end]` as the first line and the count (none for `-1`, the end)."""
    if not isinstance(value, list) or len(value) != 2:
        return None, None
    first, last = whole_number(value[0]), whole_number(value[1])
    if first is None:
        return None, None
    count = last - first + 1 if last is not None and last >= first else None
    return first, count


def _first_line(arguments: Any) -> int | None:
    """The first line `read` asked for, 1-based: its `line` as it is, or its `offset` (0-based,
    "offset=0 starts at line 1", `developer/read.rs`) plus one."""
    line = number(arguments, "line")
    if line is not None:
        return line
    offset = number(arguments, "offset")
    return None if offset is None else offset + 1
