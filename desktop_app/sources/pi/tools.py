"""pi's tools as actions, and how its commands ended.

Arguments as pi's coding agent declares them (npm `@mariozechner/pi-coding-agent` 0.73.1,
`dist/core/tools/*.js`: `bash` — `command`, `timeout` in seconds; `read` — `path`, `offset`
(1-based), `limit`; `edit` — `path` and `edits` of `{oldText, newText}` (sent as JSON text by
some models), or one `oldText`/`newText` as older versions took it; `write` — `path`,
`content`; `grep` — `pattern`, `path`, `glob`; `find` — `pattern`, `path`; `ls` — `path`).
`bash` fails a command that exits other than 0 with its output, a blank line and `Command
exited with code N` (`(no output)` when it printed nothing), so a command that did not fail
exited 0. A command the user typed (`!`, a `bashExecution` entry) records its exit code."""

import json
import re
from typing import Any

from desktop_app.domain.actions import (
    Action,
    FileEdit,
    FileRead,
    FileSearch,
    FileWrite,
    ShellCommand,
    ShellOutcome,
    TextReplacement,
)
from desktop_app.sources.common.arguments import fits, flag, number, objects, text

_EXITED = re.compile(r"(?:(.*)\n\n)?Command exited with code (-?\d{1,9})", re.S)
_NO_OUTPUT = "(no output)"


DECLARED: dict[str, frozenset[str]] = {
    "bash": frozenset({"command", "timeout"}),
    "read": frozenset({"path", "offset", "limit"}),
    "edit": frozenset({"path", "edits", "oldText", "newText"}),
    "write": frozenset({"path", "content"}),
    "grep": frozenset({"pattern", "path", "glob", "ignoreCase", "literal", "context", "limit"}),
    "find": frozenset({"pattern", "path", "limit"}),
    "ls": frozenset({"path", "limit"}),
}
"""Each tool's parameters: a call with any other is not mapped."""


def action(name: str | None, arguments: Any) -> Action | None:
    """The call's action; None for a tool it is not, or arguments that do not fit it."""
    if name not in DECLARED or not fits(arguments, DECLARED[name]):
        return None
    match name:
        case "bash":
            command = text(arguments, "command")
            if command is None:
                return None
            return ShellCommand(
                command=command, timeout_ms=number(arguments, "timeout", scale=1000)
            )
        case "read":
            return FileRead(
                path=text(arguments, "path"),
                first_line=number(arguments, "offset"),
                line_count=number(arguments, "limit"),
            )
        case "edit":
            edits = _edits(arguments)
            return FileEdit(path=text(arguments, "path"), replacements=edits) if edits else None
        case "write":
            content = text(arguments, "content")
            if content is None:
                return None
            return FileWrite(path=text(arguments, "path"), content=content)
        case "grep":
            return FileSearch(
                pattern=text(arguments, "pattern"),
                scope=text(arguments, "path"),
                glob=text(arguments, "glob"),
            )
        case "find" | "ls":
            return FileSearch(
                pattern=text(arguments, "pattern"), scope=text(arguments, "path"), by_name=True
            )
        case _:
            return None


def _edits(arguments: Any) -> tuple[TextReplacement, ...]:
    if not isinstance(arguments, dict):
        return ()
    given = arguments.get("edits")
    if isinstance(given, str):  # some models send the list as JSON text; pi parses it
        try:
            given = json.loads(given)
        except (ValueError, RecursionError):
            given = None
    listed = [*objects(given)]
    if isinstance(arguments.get("oldText"), str):
        listed.append(arguments)
    return tuple(
        TextReplacement(old=old, new=new)
        for edit in listed
        if (old := text(edit, "oldText")) is not None and (new := text(edit, "newText")) is not None
    )


def outcome(name: str | None, said: str, failed: bool) -> ShellOutcome | None:
    """How a `bash` call ended, from its result's text and whether pi marked it an error."""
    if name != "bash":
        return None
    if not failed:
        return ShellOutcome(stdout="" if said == _NO_OUTPUT else said, exit_code=0)
    found = _EXITED.fullmatch(said)
    if found is None:
        return None  # aborted, timed out or not run: no exit code
    return ShellOutcome(stdout=found.group(1) or "", exit_code=int(found.group(2)))


def typed_outcome(entry: dict[str, Any]) -> ShellOutcome:
    """A command the user typed (`bashExecution`): its output, exit code and cancellation."""
    return ShellOutcome(
        stdout=text(entry, "output") or "",
        exit_code=number(entry, "exitCode"),
        interrupted=flag(entry, "cancelled"),
    )
