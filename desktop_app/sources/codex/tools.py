"""Codex's tools as actions, and the exit code and time its outputs record.

Arguments as codex-rs declares them (`protocol/src/models.rs`: `ShellToolCallParams` —
`command` an argv, `workdir`, `timeout_ms` or `timeout`; `ShellCommandToolCallParams` —
`command` a string; `LocalShellExecAction` — `command`, `working_directory`, `timeout_ms`;
`protocol/src/plan_tool.rs`: `UpdatePlanArgs` — `explanation`, `plan` of `{step, status}`;
`WebSearchAction` — `search` with `query` (later also `queries`, several searched at once),
`open_page` with `url`, `find_in_page` with `url` and `pattern`) and as its rollouts show them
(`tests/fixtures/agents/codex/cli/`, written by Codex 0.29, 0.77 and 0.171: `exec_command`
with `cmd`, `apply_patch` as a custom tool whose input is the patch). Outputs:
`{"output", "metadata": {"exit_code", "duration_seconds"}}` (the `shell` tool), unified exec's
`Wall time: … seconds` / `Process exited with code N` header, or the freeform `Exit code: N` /
`Wall time: …` / `Output:` form."""

import json
import re
from typing import Any

from desktop_app.domain.actions import (
    Action,
    FileEdit,
    ShellCommand,
    ShellOutcome,
    TodoList,
    WebAccess,
)
from desktop_app.sources.common.arguments import fits, number, objects, text, todo_item
from desktop_app.sources.common.texts import patched_file

SHELLS = frozenset({"shell", "container.exec", "shell_command", "exec_command", "local_shell"})
"""The tools that run a command, whose output records how it ended."""
_HEADER = re.compile(
    r"Chunk ID: \S*|Original token count: \d+|Process running with session ID \S+"
    r"|(?:Wall time|Total duration): (?P<seconds>\d{1,12}(?:\.\d{1,12})?) seconds"
    r"|(?:Process exited with code|Exit code:) (?P<code>-?\d{1,9})"
)
_LOGIN_SHELL = ("bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash")


_PERMISSIONS = frozenset(
    {"sandbox_permissions", "prefix_rule", "additional_permissions", "justification"}
    | {"with_escalated_permissions"}
)
DECLARED: dict[str, frozenset[str] | None] = {
    "shell": frozenset({"command", "workdir", "timeout_ms", "timeout"}) | _PERMISSIONS,
    "local_shell": frozenset({"type", "command", "timeout_ms", "working_directory", "env"})
    | {"user"},
    "shell_command": frozenset({"command", "workdir", "login", "timeout_ms"}) | _PERMISSIONS,
    "exec_command": frozenset({"cmd", "workdir", "shell", "login", "tty", "yield_time_ms"})
    | {"max_output_tokens"}
    | _PERMISSIONS,
    "apply_patch": frozenset({"input"}),
    "update_plan": frozenset({"explanation", "plan"}),
    "web_search": None,  # the server's own action, whatever it names
}
"""Each tool's parameters as codex-rs declares them: a call with any other is not mapped."""
DECLARED["container.exec"] = DECLARED["shell"]


def action(name: str | None, arguments: Any) -> Action | None:
    """The call's action; None for a tool it is not, or arguments that do not fit it."""
    if name not in DECLARED:
        return None
    if name == "apply_patch" and isinstance(arguments, str):
        return FileEdit(path=patched_file(arguments), patch=arguments)
    if not fits(arguments, DECLARED[name]):
        return None
    match name:
        case "shell" | "container.exec" | "local_shell":
            command = _argv(arguments.get("command") if isinstance(arguments, dict) else None)
            if command is None:
                return None
            return ShellCommand(
                command=command,
                workdir=text(arguments, "workdir", "working_directory"),
                timeout_ms=number(arguments, "timeout_ms", "timeout"),
            )
        case "shell_command" | "exec_command":
            command = text(arguments, "cmd", "command")
            if command is None:
                return None
            return ShellCommand(
                command=command,
                workdir=text(arguments, "workdir"),
                timeout_ms=number(arguments, "timeout_ms"),
            )
        case "apply_patch":
            patch = text(arguments, "input")
            if patch is None:
                return None
            return FileEdit(path=patched_file(patch), patch=patch)
        case "update_plan":
            steps = objects(arguments.get("plan") if isinstance(arguments, dict) else None)
            items = tuple(
                todo_item(step, item.get("status"))
                for item in steps
                if (step := text(item, "step")) is not None
            )
            if not items and not steps:
                return None
            return TodoList(items=items, explanation=text(arguments, "explanation"))
        case "web_search":
            return WebAccess(query=_searched(arguments), url=text(arguments, "url"))
        case _:
            return None


def _searched(action: Any) -> str | None:
    """What a search asked: its `query`, else its `queries` joined as Codex joins them for a
    search's title (", ")."""
    query = text(action, "query")
    queries = action.get("queries") if isinstance(action, dict) else None
    if query or not isinstance(queries, list):
        return query
    return ", ".join(q for q in queries if isinstance(q, str)) or None


def _argv(value: Any) -> str | None:
    """An argv as the command line it runs: the script of `bash -lc <script>`, as Codex's view
    shows it, else the words joined by spaces. Codex quotes such words for its view; here they
    stay as the model wrote them, so that a secret in one reads (and is redacted) as written,
    not split by quoting."""
    if not isinstance(value, list) or not value or not all(isinstance(w, str) for w in value):
        return None
    if len(value) == 3 and value[0] in _LOGIN_SHELL and value[1] in ("-lc", "-c"):
        return str(value[2])
    return " ".join(value)


def outcome(name: str | None, output: Any) -> ShellOutcome | None:
    """A command's output and how it ended, where Codex wrote it; None for other tools and
    for an output that records no exit code or time."""
    if name not in SHELLS or not isinstance(output, str):
        return None
    try:
        wrapped = json.loads(output)
    except (ValueError, RecursionError):
        wrapped = None
    if isinstance(wrapped, dict) and isinstance(wrapped.get("output"), str):
        metadata = wrapped.get("metadata")
        return ShellOutcome(
            stdout=wrapped["output"],
            exit_code=number(metadata, "exit_code"),
            duration_ms=number(metadata, "duration_seconds", scale=1000),
        )
    lines = output.split("\n", 7)  # the header is at most six lines, then `Output:`
    found: dict[str, str] = {}
    taken = 0
    while taken < len(lines) and (match := _HEADER.fullmatch(lines[taken])):
        found.update({k: v for k, v in match.groupdict().items() if v is not None})
        taken += 1
    if not found:
        return None
    rest = lines[taken:]
    printed = "\n".join(rest[1:] if rest[:1] == ["Output:"] else rest)
    seconds = found.get("seconds")
    return ShellOutcome(
        stdout=printed,
        exit_code=int(found["code"]) if "code" in found else None,
        duration_ms=round(float(seconds) * 1000) if seconds else None,
    )
