"""Gemini CLI's tools as actions, and what their recorded results say they did.

Tool and argument names as gemini-cli-core declares them (npm `@google/gemini-cli-core`
0.61.0, `tools/definitions/base-declarations.js` and `model-family-sets/default-legacy.js`:
`replace` — `file_path`, `old_string`, `new_string`, `allow_multiple`; `write_file` —
`file_path`, `content`; `read_file` — `file_path`, `start_line`, `end_line`;
`run_shell_command` — `command`, `description`, `dir_path`, `is_background`; `glob`,
`grep_search` (once `search_file_content`) and `list_directory` — `pattern`, `dir_path`,
`include_pattern`; `google_web_search` — `query`; `web_fetch` — a `prompt` holding the URLs;
`write_todos` — `todos` of `{description, status}`; `ask_user` — `questions`). Older versions
named paths `absolute_path` and `path`, and read a file from a 0-based `offset` for `limit`
lines: both are read. Results: the shell's `Output: …` then `Exit Code: N` (`tools/shell.js`),
an edit's or write's `resultDisplay` (`fileDiff`, a unified diff, `filePath`, `isNewFile`), a
glob's `Found N file(s) matching …:` then the paths, a text search's `resultDisplay.matches`
and a folder listing's `resultDisplay.files`, a web search's or fetch's text and the
`Sources:` list after it, and `ask_user`'s answers (`{"answers": {"0": …}}`, by the question's
index) — as `tests/fixtures/agents/gemini_cli/tools/`, `web/` and `ask_user/` hold them,
written by gemini-cli-core's own tools and `ChatRecordingService`."""

import json
import re
from typing import Any

from desktop_app.domain.actions import (
    Action,
    EditOutcome,
    FileEdit,
    FileRead,
    FileSearch,
    FileWrite,
    Outcome,
    QuestionAnswers,
    QuestionItem,
    SearchMatches,
    ShellCommand,
    ShellOutcome,
    TextReplacement,
    UserQuestion,
    WebAccess,
    WebResults,
)
from desktop_app.sources.common.arguments import checklist, fits, flag, number, objects, text
from desktop_app.sources.common.texts import unified_hunks

_PATH = ("file_path", "absolute_path", "path")
_FOLDER = ("dir_path", "path", "directory")
_URL = re.compile(r"https?://[^\s\"'<>]+")
_EXIT = re.compile(r"(?:Exit Code:|Command exited with code:?) (-?\d{1,9})")
_TRAILER = re.compile(r"(?:Error|Exit Code|Signal|Background PIDs|Process Group PGID): .*")
"""The lines Gemini CLI writes after a command's output (`tools/shell.js`)."""
_UNTRUSTED, _UNTRUSTED_END = "<untrusted_context>", "</untrusted_context>"
_FOUND = re.compile(r"Found (\d{1,12}) file\(s\) matching .*:")
_SOURCES = "\n\nSources:\n"
_SOURCE = re.compile(r"\[\d{1,9}\] (?P<title>.*) \((?P<uri>\S*|No URI|Unknown URI)\)")
"""A source as `google_web_search` and `web_fetch` list them after their text
(`[1] title (uri)`, "No URI" or "Unknown URI" where the API gave none)."""
_SEARCHED = re.compile(r'Web search results for ".*":\n\n', re.S)


_FILTERS = frozenset(
    {"case_sensitive", "respect_git_ignore", "respect_gemini_ignore", "file_filtering_options"}
)
_GREP = frozenset(
    {"pattern", "dir_path", "path", "include_pattern", "include", "exclude_pattern"}
    | {"names_only", "max_matches_per_file", "total_max_matches", "case_sensitive"}
    | {"fixed_strings", "context", "after", "before", "no_ignore"}
)
DECLARED: dict[str, frozenset[str]] = {
    "replace": frozenset(
        {"file_path", "absolute_path", "instruction", "old_string", "new_string"}
        | {"allow_multiple", "expected_replacements", "modified_by_user", "ai_proposed_content"}
    ),
    "write_file": frozenset(
        {"file_path", "absolute_path", "content", "modified_by_user", "ai_proposed_content"}
    ),
    "read_file": frozenset(
        {"file_path", "absolute_path", "path", "start_line", "end_line", "offset", "limit"}
    ),
    "run_shell_command": frozenset(
        {"command", "description", "dir_path", "directory", "is_background"}
        | {"additional_permissions"}
    ),
    "glob": frozenset({"pattern", "dir_path", "path"}) | _FILTERS,
    "grep_search": _GREP,
    "search_file_content": _GREP,
    "list_directory": frozenset({"dir_path", "path", "ignore"}) | _FILTERS,
    "google_web_search": frozenset({"query"}),
    "web_fetch": frozenset({"prompt"}),
    "write_todos": frozenset({"todos"}),
    "ask_user": frozenset({"questions"}),
}
"""Each tool's parameters, now and as older versions named them: a call with any other is not
mapped."""


def action(name: str | None, arguments: Any) -> Action | None:
    """The call's action; None for a tool it is not, or arguments that do not fit it."""
    if name not in DECLARED or not fits(arguments, DECLARED[name]):
        return None
    match name:
        case "replace":
            old, new = text(arguments, "old_string"), text(arguments, "new_string")
            if old is None or new is None:
                return None
            every = flag(arguments, "allow_multiple")
            replacement = TextReplacement(old=old, new=new, replace_all=every)
            return FileEdit(path=text(arguments, *_PATH), replacements=(replacement,))
        case "write_file":
            content = text(arguments, "content")
            if content is None:
                return None
            return FileWrite(path=text(arguments, *_PATH), content=content)
        case "read_file":
            first, last = number(arguments, "start_line"), number(arguments, "end_line")
            offset = number(arguments, "offset")
            if first is None and offset is not None:
                first = offset + 1
            count = number(arguments, "limit")
            if first is not None and last is not None and last >= first:
                count = last - first + 1
            return FileRead(path=text(arguments, *_PATH), first_line=first, line_count=count)
        case "run_shell_command":
            command = text(arguments, "command")
            if command is None:
                return None
            return ShellCommand(
                command=command,
                description=text(arguments, "description"),
                workdir=text(arguments, *_FOLDER),
                background=flag(arguments, "is_background"),
            )
        case "glob" | "list_directory":
            return FileSearch(
                pattern=text(arguments, "pattern"), scope=text(arguments, *_FOLDER), by_name=True
            )
        case "grep_search" | "search_file_content":
            return FileSearch(
                pattern=text(arguments, "pattern"),
                scope=text(arguments, *_FOLDER),
                glob=text(arguments, "include_pattern", "include"),
            )
        case "google_web_search":
            return WebAccess(query=text(arguments, "query"))
        case "web_fetch":
            prompt = text(arguments, "prompt")
            found = _URL.search(prompt) if prompt else None
            return WebAccess(url=found.group(0) if found else None, prompt=prompt)
        case "write_todos":
            return checklist(arguments, text_key="description")
        case "ask_user":
            questions = tuple(q for q in _questions(arguments) if q is not None)
            return UserQuestion(questions=questions) if questions else None
        case _:
            return None


def _questions(arguments: Any) -> list[QuestionItem | None]:
    """`ask_user`'s questions in the order asked (its answers name them by that index); None
    for an entry that is not a question. Options as the CLI's `AskUserDialog` offers them: a
    `yesno` question's are Yes and No, a `text` question has none (both ignore `options` and
    `multiSelect`), a `choice` (the default type) its own."""
    asked = arguments.get("questions") if isinstance(arguments, dict) else None
    return [
        _question(item, question)
        if isinstance(item, dict) and (question := text(item, "question")) is not None
        else None
        for item in (asked if isinstance(asked, list) else [])
    ]


def _question(item: dict[str, Any], question: str) -> QuestionItem:
    header = text(item, "header")
    match text(item, "type"):
        case "yesno":
            return QuestionItem(question=question, header=header, options=("Yes", "No"))
        case "text":
            return QuestionItem(question=question, header=header)
        case _:
            labels = (text(option, "label") for option in objects(item.get("options")))
            return QuestionItem(
                question=question,
                header=header,
                options=tuple(label for label in labels if label),
                multiple=flag(item, "multiSelect"),
            )


def outcome(name: str | None, said: str, display: Any, arguments: Any = None) -> Outcome | None:
    """What the tool did, from its result's text (`said`: the output or the error sent to the
    model), its `resultDisplay` and, for `ask_user`, the call's `arguments` (the questions its
    answers name by index)."""
    match name:
        case "ask_user":
            return _answered(said, arguments)
        case "run_shell_command":
            return _shell(said)
        case "replace" | "write_file" if isinstance(display, dict):
            diff = text(display, "fileDiff")
            if diff is None:
                return None
            return EditOutcome(
                path=text(display, "filePath", "fileName"),
                hunks=unified_hunks(diff),
                created=flag(display, "isNewFile"),
            )
        case "grep_search" | "search_file_content" if isinstance(display, dict):
            named = [text(m, "filePath") for m in objects(display.get("matches"))]
            paths = tuple(dict.fromkeys(p for p in named if p is not None))
            return SearchMatches(paths=paths) if paths else None
        case "list_directory" if isinstance(display, dict):
            listed = display.get("files")
            if not isinstance(listed, list):
                return None
            return SearchMatches(paths=tuple(p for p in listed if isinstance(p, str)))
        case "glob":
            head, _, rest = said.partition("\n")
            found = _FOUND.fullmatch(head)
            if found is None:
                return None
            paths = tuple(line for line in rest.split("\n") if line)
            return SearchMatches(paths=paths, total=int(found.group(1)))
        case "google_web_search" | "web_fetch":
            return _sourced(name, said)
        case _:
            return None


def _sourced(name: str, said: str) -> WebResults | None:
    """The text and the sources a grounded answer lists after it (`Sources:` then a line a
    source), as `tools/web-search.js` and `tools/web-fetch.js` write them; None where no such
    list ends the text (an error, a search that found nothing, a fetch's fallback)."""
    inner = _trusted(said)
    text_part, found, listed = inner.rpartition(_SOURCES)
    if not found:
        return None
    sources = [_SOURCE.fullmatch(line) for line in listed.split("\n")]
    links = tuple((m.group("title"), m.group("uri")) for m in sources if m is not None)
    if len(links) != len(sources):
        return None
    if name == "google_web_search" and (header := _SEARCHED.match(text_part)):
        text_part = text_part[header.end() :]
    return WebResults(links=links, summary=text_part or None)


def _answered(said: str, arguments: Any) -> QuestionAnswers | None:
    """The user's answers as `ask_user` sends them to the model (`tools/ask-user.js`):
    `{"answers": {"0": "SQLite", "1": "Tags, Search"}}`, keyed by the question's index, a
    multi-select's labels joined with ", " as the CLI's dialog joins them. None for a dismissed
    dialog ("User dismissed ask_user dialog without answering."), an error or any other text:
    the text is shown as it is."""
    try:
        sent = json.loads(_trusted(said))
    except ValueError:
        return None
    answers = sent.get("answers") if isinstance(sent, dict) else None
    if not isinstance(answers, dict):
        return None
    questions = _questions(arguments)
    pairs = []
    for index, answer in answers.items():
        if not isinstance(answer, str):
            continue
        at = int(index) if index.isdecimal() and len(index) < 6 else None
        asked = questions[at] if at is not None and at < len(questions) else None
        pairs.append((asked.question if asked else f"Q{index}", answer))
    return QuestionAnswers(
        answers=tuple(pairs), questions=tuple(q for q in questions if q is not None)
    )


def _trusted(said: str) -> str:
    """The text inside the `<untrusted_context>` that 0.61 wraps a tool's output in."""
    inner = said.strip()
    if inner.startswith(_UNTRUSTED) and inner.endswith(_UNTRUSTED_END):
        return inner[len(_UNTRUSTED) : -len(_UNTRUSTED_END)].strip("\n")
    return inner


def _shell(said: str) -> ShellOutcome | None:
    """`Output: …` and the lines after it (`Exit Code: N` where it was not 0), or the error
    alone (`Command exited with code: N`); None when the text is neither. 0.61 wraps them in
    `<untrusted_context>`, which is not the output."""
    inner = _trusted(said)
    lines = inner.split("\n")
    start = next((i for i, line in enumerate(lines) if line.startswith("Output: ")), None)
    if start is None:
        found = _EXIT.fullmatch(inner)
        return ShellOutcome(exit_code=int(found.group(1))) if found else None
    end = len(lines)
    while end > start + 1 and _TRAILER.fullmatch(lines[end - 1]):
        end -= 1
    printed = "\n".join([lines[start].removeprefix("Output: "), *lines[start + 1 : end]])
    code = next((int(m.group(1)) for line in lines[end:] if (m := _EXIT.fullmatch(line))), None)
    return ShellOutcome(stdout="" if printed == "(empty)" else printed, exit_code=code)
