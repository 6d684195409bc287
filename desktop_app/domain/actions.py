"""What a tool call did, in words a coding-agent user reads: an edit, a command, a read.

Each reader maps its own agent's tools (Claude Code's `Edit`, Codex's `apply_patch`, Gemini
CLI's `replace`, goose's `developer__text_editor` …) to one of these typed actions, and sets it
on the `ToolCallPart` it reads; what the tool returned, where the agent records it in a shape
of its own (Claude Code's `toolUseResult`, Codex's exit codes), becomes an `Outcome` on the
`ToolResultPart`. Rendering, search and exports branch on these kinds with `match` +
`assert_never`, so a new action is a type error everywhere it must be handled, like a new part.
The raw call and result stay on the parts: nothing here replaces what was stored, it only says
what it meant. A tool no reader maps is an `OtherTool` (`action_of`), never dropped.

Every field is optional where an agent may leave it out; texts are kept whole (renderers bound
what they show)."""

from dataclasses import dataclass
from typing import ClassVar, Literal

from desktop_app.domain.parts import JsonValue, ToolCallPart

# --- the request: what the agent asked for ---------------------------------------------------


@dataclass(frozen=True, kw_only=True, slots=True)
class TextReplacement:
    """One replacement of an edit: `old` becomes `new` (every occurrence when `replace_all`)."""

    old: str
    new: str
    replace_all: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class FileEdit:
    """A change to an existing file: replacements (Claude Code `Edit`/`MultiEdit`, Gemini
    `replace`, goose `str_replace`, pi `edit`), or a patch in unified or `apply_patch` form
    (Codex), or an insertion (goose `insert`: `replacements` with an empty `old`, at
    `insert_line`)."""

    kind: ClassVar[str] = "file_edit"
    path: str | None = None
    replacements: tuple[TextReplacement, ...] = ()
    patch: str | None = None
    """A patch text as the agent wrote it (Codex's `*** Begin Patch` or a unified diff); it
    may touch several files, named inside it."""
    insert_line: int | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class FileWrite:
    """A file written whole (Claude Code `Write`, Gemini `write_file`, goose `write`, pi
    `write`)."""

    kind: ClassVar[str] = "file_write"
    path: str | None = None
    content: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class FileRead:
    """A file read (Claude Code `Read`, Gemini `read_file`, goose `view`, pi `read`); the line
    range asked for, 1-based, where the agent gave one."""

    kind: ClassVar[str] = "file_read"
    path: str | None = None
    first_line: int | None = None
    line_count: int | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class ShellCommand:
    """A command run in a shell (Claude Code `Bash`, Codex `shell`/`exec_command`, Gemini
    `run_shell_command`, goose `developer__shell`, pi `bash`)."""

    kind: ClassVar[str] = "shell_command"
    command: str = ""
    description: str | None = None
    """The agent's own words for the command (Claude Code's `description`): the card's title."""
    workdir: str | None = None
    timeout_ms: int | None = None
    background: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class FileSearch:
    """A search of files by content or name (Claude Code `Grep`/`Glob`/`LS`, Gemini `glob`/
    `search_file_content`/`list_directory`)."""

    kind: ClassVar[str] = "file_search"
    pattern: str | None = None
    scope: str | None = None
    """The folder or file searched, as the agent named it."""
    glob: str | None = None
    by_name: bool = False
    """A search of file names (`Glob`, `LS`), not of their content (`Grep`)."""


TodoStatus = Literal["pending", "in_progress", "completed", "unknown"]


@dataclass(frozen=True, kw_only=True, slots=True)
class TodoItem:
    text: str
    status: TodoStatus = "unknown"
    status_raw: str | None = None
    """The status as the agent wrote it, when it is none of the known ones."""


@dataclass(frozen=True, kw_only=True, slots=True)
class TodoList:
    """The agent's plan or checklist (Claude Code `TodoWrite`, Codex `update_plan`, Gemini
    `write_todos`, goose `todo__write`)."""

    kind: ClassVar[str] = "todo_list"
    items: tuple[TodoItem, ...] = ()
    explanation: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class WebAccess:
    """A page fetched or a web search (Claude Code `WebFetch`/`WebSearch`, Codex
    `web_search`, Gemini `web_fetch`/`google_web_search`). Nothing is ever fetched by Gander."""

    kind: ClassVar[str] = "web_access"
    url: str | None = None
    query: str | None = None
    prompt: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class SubAgentTask:
    """Work handed to a sub-agent (Claude Code `Task`/`Agent`, goose `subagent`)."""

    kind: ClassVar[str] = "sub_agent_task"
    description: str | None = None
    prompt: str | None = None
    agent_type: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class QuestionItem:
    question: str
    header: str | None = None
    options: tuple[str, ...] = ()
    multiple: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class UserQuestion:
    """A question put to the user with options (Claude Code `AskUserQuestion`)."""

    kind: ClassVar[str] = "user_question"
    questions: tuple[QuestionItem, ...] = ()


@dataclass(frozen=True, kw_only=True, slots=True)
class OtherTool:
    """Any other tool: its server (an MCP extension) and name, and its arguments as stored."""

    kind: ClassVar[str] = "other_tool"
    server: str | None = None
    tool: str | None = None
    arguments: JsonValue = None


Action = (
    FileEdit
    | FileWrite
    | FileRead
    | ShellCommand
    | FileSearch
    | TodoList
    | WebAccess
    | SubAgentTask
    | UserQuestion
    | OtherTool
)


def action_of(call: ToolCallPart) -> Action:
    """The call's action: the one its reader mapped, or the tool as it is."""
    if call.action is not None:
        return call.action
    return OtherTool(server=call.extension, tool=call.tool, arguments=call.arguments)


# --- the outcome: what came back, where the agent records it in a shape of its own ----------


@dataclass(frozen=True, kw_only=True, slots=True)
class PatchHunk:
    """One hunk of a structured patch (Claude Code's `structuredPatch`): line numbers as in a
    unified diff, `lines` each starting with ' ', '-' or '+'."""

    old_start: int | None = None
    old_lines: int | None = None
    new_start: int | None = None
    new_lines: int | None = None
    lines: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True, slots=True)
class EditOutcome:
    """An edit or write as applied, with the file's line numbers."""

    kind: ClassVar[str] = "edit_outcome"
    path: str | None = None
    hunks: tuple[PatchHunk, ...] = ()
    created: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class ShellOutcome:
    """A command's output and how it ended, as far as the agent recorded it."""

    kind: ClassVar[str] = "shell_outcome"
    stdout: str = ""
    stderr: str = ""
    exit_code: int | None = None
    duration_ms: int | None = None
    interrupted: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class FileContent:
    """A file's lines as read, without the agent's line-number prefixes (Claude Code's
    `   12→`): `first_line` numbers the first of them."""

    kind: ClassVar[str] = "file_content"
    path: str | None = None
    text: str = ""
    first_line: int | None = None
    total_lines: int | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class SearchMatches:
    """The files a search found (and how many, where the agent counted more than it kept)."""

    kind: ClassVar[str] = "search_matches"
    paths: tuple[str, ...] = ()
    total: int | None = None
    truncated: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class QuestionAnswers:
    """The user's answers to a `UserQuestion`: question → the chosen answer."""

    kind: ClassVar[str] = "question_answers"
    answers: tuple[tuple[str, str], ...] = ()
    questions: tuple[QuestionItem, ...] = ()
    """The questions as asked, with their options, where the result records them (Claude
    Code's `toolUseResult.questions`): what lets a card mark the chosen option among them."""


@dataclass(frozen=True, kw_only=True, slots=True)
class WebResults:
    """What a web search found or a page fetch said (`WebAccess`): each result's title and
    URL, as the agent recorded them (Claude Code's `WebSearch` results, Gemini CLI's sources),
    the words that came with them, and for a page fetched, how the server answered. URLs
    are as stored: renderers make links only of the ones the link rule allows."""

    kind: ClassVar[str] = "web_results"
    links: tuple[tuple[str, str], ...] = ()
    """(title, URL) of each result, in the agent's order."""
    summary: str | None = None
    """The text that came back with them: the search's commentary, or what the page said
    (Claude Code's `WebFetch` `result`, the model's answer to the fetch's prompt)."""
    url: str | None = None
    """The URL fetched, where the agent recorded it."""
    status: int | None = None
    status_text: str | None = None
    size: int | None = None
    """The page's size in bytes, as fetched."""
    duration_ms: int | None = None


Outcome = EditOutcome | ShellOutcome | FileContent | SearchMatches | QuestionAnswers | WebResults
