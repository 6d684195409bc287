"""Claude Code's tools as actions, and what its `toolUseResult` says they did.

Arguments and results as Claude Code's own `sdk-tools.d.ts` types them (npm
`@anthropic-ai/claude-code` 2.1.110: `FileEditInput`, `BashOutput`, `FileReadOutput`,
`WebSearchOutput`, `WebFetchOutput` …) and as its logs show them
(`tests/fixtures/agents/claude_code/tools/` and `web/`, written by Claude Code 1.0.128 and
2.1.110). `toolUseResult` rides on the user line that carries the `tool_result`; it is
what Claude Code's own view draws from (a structured patch, a file's lines, stdout and
stderr), so it is read first, the result's text only where it is absent."""

import re
from typing import Any

from desktop_app.domain.actions import (
    Action,
    EditOutcome,
    FileContent,
    FileEdit,
    FileRead,
    FileSearch,
    FileWrite,
    Outcome,
    PatchHunk,
    QuestionAnswers,
    QuestionItem,
    SearchMatches,
    ShellCommand,
    ShellOutcome,
    SubAgentTask,
    TextReplacement,
    UserQuestion,
    WebAccess,
    WebResults,
)
from desktop_app.sources.common.arguments import checklist, fits, flag, number, objects, text
from desktop_app.sources.common.texts import numbered

_EXIT = re.compile(r"(?:Error: )?Exit code (-?\d{1,9})\n?(.*)", re.S)
"""How Claude Code 2.x records a command that failed: `Exit code 3` then its output (1.x
records only the output)."""


DECLARED: dict[str, frozenset[str]] = {
    "Edit": frozenset({"file_path", "old_string", "new_string", "replace_all"}),
    "MultiEdit": frozenset({"file_path", "edits"}),
    "Write": frozenset({"file_path", "content"}),
    "Read": frozenset({"file_path", "offset", "limit", "pages"}),
    "Bash": frozenset(
        {"command", "timeout", "description", "run_in_background", "dangerouslyDisableSandbox"}
    ),
    "Grep": frozenset(
        {"pattern", "path", "glob", "include", "output_mode", "-B", "-A", "-C", "context"}
        | {"-n", "-i", "type", "head_limit", "offset", "multiline"}
    ),
    "Glob": frozenset({"pattern", "path"}),
    "LS": frozenset({"path", "ignore"}),
    "Task": frozenset(
        {"description", "prompt", "subagent_type", "model", "run_in_background", "name"}
        | {"team_name", "mode", "isolation"}
    ),
    "TodoWrite": frozenset({"todos"}),
    "WebFetch": frozenset({"url", "prompt"}),
    "WebSearch": frozenset({"query", "allowed_domains", "blocked_domains"}),
    "AskUserQuestion": frozenset({"questions", "answers", "annotations", "metadata"}),
    "NotebookEdit": frozenset({"notebook_path", "cell_id", "new_source", "cell_type", "edit_mode"}),
}
"""Each tool's parameters (`sdk-tools.d.ts` of 2.1.110; `include` of Grep and LS as 1.x took
them): a call with any other is not mapped."""
DECLARED["Agent"] = DECLARED["Task"]


def action(name: str | None, arguments: Any) -> Action | None:
    """The call's action; None for a tool it is not, or arguments that do not fit it."""
    if name not in DECLARED or not fits(arguments, DECLARED[name]):
        return None
    match name:
        case "Edit":
            path, old, new = (text(arguments, k) for k in ("file_path", "old_string", "new_string"))
            if old is None or new is None:
                return None
            every = flag(arguments, "replace_all")
            return FileEdit(
                path=path, replacements=(TextReplacement(old=old, new=new, replace_all=every),)
            )
        case "MultiEdit":
            edits = tuple(
                TextReplacement(old=old, new=new, replace_all=flag(edit, "replace_all"))
                for edit in objects(arguments.get("edits") if isinstance(arguments, dict) else None)
                if (old := text(edit, "old_string")) is not None
                and (new := text(edit, "new_string")) is not None
            )
            return (
                FileEdit(path=text(arguments, "file_path"), replacements=edits) if edits else None
            )
        case "Write":
            content = text(arguments, "content")
            if content is None:
                return None
            return FileWrite(path=text(arguments, "file_path"), content=content)
        case "Read":
            return FileRead(
                path=text(arguments, "file_path"),
                first_line=number(arguments, "offset"),
                line_count=number(arguments, "limit"),
            )
        case "Bash":
            command = text(arguments, "command")
            if command is None:
                return None
            return ShellCommand(
                command=command,
                description=text(arguments, "description"),
                timeout_ms=number(arguments, "timeout"),
                background=flag(arguments, "run_in_background"),
            )
        case "Grep":
            return FileSearch(
                pattern=text(arguments, "pattern"),
                scope=text(arguments, "path"),
                glob=text(arguments, "glob", "include", "type"),
            )
        case "Glob":
            return FileSearch(
                pattern=text(arguments, "pattern"), scope=text(arguments, "path"), by_name=True
            )
        case "LS":
            return FileSearch(scope=text(arguments, "path"), by_name=True)
        case "Task" | "Agent":
            return SubAgentTask(
                description=text(arguments, "description"),
                prompt=text(arguments, "prompt"),
                agent_type=text(arguments, "subagent_type"),
            )
        case "TodoWrite":
            return checklist(arguments, text_key="content")
        case "WebFetch":
            return WebAccess(url=text(arguments, "url"), prompt=text(arguments, "prompt"))
        case "WebSearch":
            return WebAccess(query=text(arguments, "query"))
        case "AskUserQuestion":
            questions = _questions(
                arguments.get("questions") if isinstance(arguments, dict) else None
            )
            return UserQuestion(questions=questions) if questions else None
        case "NotebookEdit":
            # Only an inserted cell is an edit whose old text is known (none); a replaced or
            # deleted cell's old source is not in the call: it stays the tool as it is.
            source = text(arguments, "new_source")
            if text(arguments, "edit_mode") != "insert" or source is None:
                return None
            return FileEdit(
                path=text(arguments, "notebook_path"),
                replacements=(TextReplacement(old="", new=source),),
            )
        case _:
            return None


def _questions(value: Any) -> tuple[QuestionItem, ...]:
    return tuple(
        QuestionItem(
            question=asked,
            header=text(item, "header"),
            options=tuple(
                label for option in objects(item.get("options")) if (label := text(option, "label"))
            ),
            multiple=flag(item, "multiSelect"),
        )
        for item in objects(value)
        if (asked := text(item, "question")) is not None
    )


def outcome(name: str | None, recorded: Any, said: str, failed: bool) -> Outcome | None:
    """What the tool did, from the line's `toolUseResult` (`recorded`), else from the result's
    text (`said`): a command's output and exit code, an edit's hunks, a file's lines, the files
    a search found, the user's answers, a web search's results or a fetched page's answer."""
    if isinstance(recorded, dict):
        return _recorded(name, recorded)
    if name == "Bash":
        found = _EXIT.fullmatch(said) if failed else None
        if found is not None:
            return ShellOutcome(stdout=found.group(2), exit_code=int(found.group(1)))
        return None
    if name == "Read" and not failed:
        lines = numbered(said)
        if lines is not None:
            return FileContent(text=lines[0], first_line=lines[1])
    return None


def _recorded(name: str | None, result: dict[str, Any]) -> Outcome | None:
    patch = result.get("structuredPatch")
    if isinstance(patch, list) and name in (None, "Edit", "MultiEdit", "Write"):
        return EditOutcome(
            path=text(result, "filePath"),
            hunks=tuple(_hunk(h) for h in objects(patch)),
            created=result.get("type") == "create",
        )
    file = result.get("file")
    if isinstance(file, dict) and isinstance(file.get("content"), str):
        return FileContent(
            path=text(file, "filePath"),
            text=file["content"],
            first_line=number(file, "startLine"),
            total_lines=number(file, "totalLines"),
        )
    if isinstance(result.get("stdout"), str) or isinstance(result.get("stderr"), str):
        return ShellOutcome(
            stdout=text(result, "stdout") or "",
            stderr=text(result, "stderr") or "",
            interrupted=flag(result, "interrupted"),
        )
    filenames = result.get("filenames")
    if isinstance(filenames, list):
        paths = tuple(p for p in filenames if isinstance(p, str))
        return SearchMatches(
            paths=paths, total=number(result, "numFiles"), truncated=flag(result, "truncated")
        )
    results = result.get("results")
    if isinstance(results, list) and name in (None, "WebSearch"):
        return _searched(result, results)
    if isinstance(result.get("result"), str) and name in (None, "WebFetch"):
        return WebResults(
            summary=result["result"],
            url=text(result, "url"),
            status=number(result, "code"),
            status_text=text(result, "codeText"),
            size=number(result, "bytes"),
            duration_ms=number(result, "durationMs"),
        )
    answers = result.get("answers")
    if isinstance(answers, dict):
        return QuestionAnswers(
            answers=tuple(
                (q, a) for q, given in answers.items() if (a := _answer(given)) is not None
            ),
            questions=_questions(result.get("questions")),
        )
    return None


def _searched(result: dict[str, Any], results: list[Any]) -> WebResults:
    """A `WebSearch` as Claude Code records it (`WebSearchOutput`): `results` mixes the
    model's commentary (strings, and "Web search error: …" for a failed search) with each
    search's hits (`{tool_use_id, content: [{title, url}]}`)."""
    links = tuple(
        (text(hit, "title") or url, url)
        for found in objects(results)
        for hit in objects(found.get("content"))
        if (url := text(hit, "url")) is not None
    )
    said = [item for item in results if isinstance(item, str) and item]
    return WebResults(
        links=links,
        summary="\n\n".join(said) or None,
        duration_ms=number(result, "durationSeconds", scale=1000),
    )


def _answer(given: Any) -> str | None:
    """An answer as Claude Code keeps it: a string (several choices comma-separated), or, as
    some versions wrote it, a list of the chosen labels."""
    if isinstance(given, str):
        return given
    if isinstance(given, list) and all(isinstance(g, str) for g in given):
        return ", ".join(given)
    return None


def _hunk(raw: dict[str, Any]) -> PatchHunk:
    lines = raw.get("lines")
    return PatchHunk(
        old_start=number(raw, "oldStart"),
        old_lines=number(raw, "oldLines"),
        new_start=number(raw, "newStart"),
        new_lines=number(raw, "newLines"),
        lines=tuple(line for line in lines if isinstance(line, str))
        if isinstance(lines, list)
        else (),
    )
