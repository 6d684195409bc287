"""A tool call as what it did: an edit as a diff, a command as `$ command` and its output, a
read as the file's numbered lines, a plan as a checklist — the body, the title and the words of
a card, for the window's blocks and the HTML export alike.

Each card says in its title what happened ("Edit src/toolbar.css (+1 −1)", "Ran npm test ·
exit 1"), so a collapsed transcript reads as a list of deeds. Every stored text is escaped, its
control characters shown as pictures (`diffs.visible`; a command's output as a terminal shows
it, `ansi.ansi_to_html`), and only allowed links are links
(`links.safe_link`). What a card shows is bounded by `Room`, characters and rows taken from one
allowance per card; the raw call stays one click away (its JSON is the card's first code
block, copied by the card's Copy JSON link)."""

import fnmatch
import posixpath
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from html import escape
from typing import assert_never
from urllib.parse import urlsplit

from pygments.lexers import get_all_lexers

from desktop_app.domain.actions import (
    Action,
    EditOutcome,
    FileContent,
    FileEdit,
    FileRead,
    FileSearch,
    FileWrite,
    OtherTool,
    Outcome,
    QuestionAnswers,
    QuestionItem,
    SearchMatches,
    ShellCommand,
    ShellOutcome,
    SubAgentTask,
    TodoItem,
    TodoList,
    UserQuestion,
    WebAccess,
    WebResults,
    action_of,
)
from desktop_app.domain.jsontext import dumps_head
from desktop_app.domain.parts import JsonValue, ToolCallPart
from desktop_app.rendering import formatting
from desktop_app.rendering.ansi import ansi_to_html
from desktop_app.rendering.colours import DARK, LIGHT
from desktop_app.rendering.diffs import (
    FileDiff,
    compare,
    diff_html,
    from_hunks,
    line_total,
    parse_patch,
)
from desktop_app.rendering.diffs import visible as _visible
from desktop_app.rendering.links import safe_link
from desktop_app.rendering.markdown_html import (
    COPY_SCHEME,
    HIGHLIGHT_LIMIT,
    SHOWN_LIMIT,
    Budget,
    highlight_code,
    more_links,
)

SUBJECT_CHARS = 80
"""Characters of a command, path or question a title names (its first line)."""
SCREEN_LINES = 40
SCREEN_CHARS = 4_000
"""A file written is shown collapsed beyond this many lines or characters (about a screen)."""
MAX_ROWS = 2_000
"""Rows (todo items, paths, table rows) one card lists at most; the rest are counted."""
SEARCH_PREVIEW = 8
"""Paths a collapsed search result's preview names (the preview shows one line)."""
TODO_MARKS = {"pending": "☐", "in_progress": "◐", "completed": "☑", "unknown": "☐"}


# --- words ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Headline:
    """What a call did in words: a verb, the thing it acted on (a path, a command: shown as
    code where the medium has code), and what follows."""

    verb: str
    subject: str | None = None
    detail: str = ""
    prose: bool = False
    """The subject is the agent's words (a task, a question), not a path or command."""

    def plain(self) -> str:
        subject = f" {self.subject}" if self.subject else ""
        return f"{self.verb}{subject}{self.detail}"


def subject(text: str | None) -> str | None:
    """A command's or path's first line, shortened for a title."""
    if not text:
        return None
    first = text.strip().split("\n", 1)[0]
    more = first != text.strip()
    first = _visible(first)
    if len(first) > SUBJECT_CHARS:
        return first[: SUBJECT_CHARS - 1] + "…"
    return first + (" …" if more else "")


def path_subject(path: str | None) -> str | None:
    """A path for a title: its end kept when it is long (the file's name and folders say more
    than the folders it starts from)."""
    if not path:
        return None
    shown = _visible(path.strip().split("\n", 1)[0])
    if len(shown) <= SUBJECT_CHARS:
        return shown
    return "…" + shown[-(SUBJECT_CHARS - 1) :]


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


@lru_cache(maxsize=8)
def edit_diffs(action: FileEdit, limit: int) -> tuple[FileDiff, ...]:
    """The files an edit changes, each as a diff: its replacements compared (numbered from
    `insert_line` for an insertion), or the patch it carries read file by file. Kept for the
    last few edits: a card's title, its body and its result's title each ask for them."""
    if action.patch is not None:
        return tuple(parse_patch(action.patch, limit=limit)) or (FileDiff(path=action.path),)
    diffs = []
    for replacement in action.replacements:
        first = action.insert_line + 1 if action.insert_line is not None else None
        diffs.append(
            compare(
                replacement.old, replacement.new, path=action.path, limit=limit, first_line=first
            )
        )
        limit = max(0, limit - sum(len(line.text) + 1 for line in diffs[-1].lines))
    return tuple(diffs) or (FileDiff(path=action.path),)


def headline(action: Action, *, limit: int = SHOWN_LIMIT) -> Headline:
    match action:
        case FileEdit():
            diffs = edit_diffs(action, limit)
            added = sum(d.added for d in diffs)
            removed = sum(d.removed for d in diffs)
            paths = {d.path for d in diffs if d.path}
            files = len(paths) + sum(d.files for d in diffs if d.operation == "more")
            target = path_subject(action.path) if files <= 1 else None
            target = target or (path_subject(next(iter(paths))) if files == 1 and paths else None)
            verb = "Edit" if target or files <= 1 else f"Edit {files:,} files"
            return Headline(verb, target, f" (+{added} −{removed})")
        case FileWrite():
            lines = line_total(action.content)
            return Headline("Write", path_subject(action.path), f" ({_plural(lines, 'line')})")
        case FileRead():
            return Headline("Read", path_subject(action.path), _line_range(action))
        case ShellCommand():
            return Headline("Ran", subject(action.command))
        case FileSearch():
            verb = "Found files" if action.by_name else "Searched"
            where = f" in {path_subject(action.scope)}" if action.scope else ""
            glob = f" ({action.glob})" if action.glob else ""
            return Headline(verb, subject(action.pattern or action.glob), where + glob)
        case TodoList():
            done = sum(item.status == "completed" for item in action.items)
            return Headline("Todo list", None, f" · {done} of {len(action.items)} done")
        case WebAccess():
            if action.url:
                return Headline("Fetched", subject(action.url))
            return Headline("Searched the web for", subject(action.query))
        case SubAgentTask():
            kind = f" ({action.agent_type})" if action.agent_type else ""
            task = subject(action.description or action.prompt)
            return Headline("Sub-agent:", task, kind, prose=True)
        case UserQuestion():
            first = action.questions[0].question if action.questions else None
            more = len(action.questions) - 1
            detail = f" (+{more} more)" if more > 0 else ""
            return Headline("Asked:", subject(first), detail, prose=True)
        case OtherTool():
            return Headline(tool_title(action.server, action.tool))
        case _:
            assert_never(action)


MCP_PREFIX = "mcp"
"""The first part of Claude Code's and Codex's MCP tool names: `mcp__<server>__<tool>`."""


def server_and_tool(server: str | None, tool: str | None) -> tuple[str | None, str]:
    """A tool's server and name as the agent qualified them: goose's `<extension>__<tool>`
    (older Gemini CLI's `<server>__<tool>` too) arrives split at its first `__`; Claude Code's
    and Codex's `mcp__<server>__<tool>` is split once more, so its server is the MCP server,
    not "mcp". Gemini CLI's newer `mcp_<server>_<tool>` cannot be split (either side may hold
    an underscore) and stays the name as stored."""
    if server == MCP_PREFIX and tool and "__" in tool:
        named, proper = tool.split("__", 1)
        if named and proper:
            return named, proper
    return server, tool or "?"


def tool_title(server: str | None, tool: str | None) -> str:
    """`server · tool`, as the issue and MCP clients name a tool of a server; the tool alone
    when it has none."""
    named, proper = server_and_tool(server, tool)
    return f"{named} · {proper}" if named else proper


def _line_range(action: FileRead) -> str:
    if action.first_line is None and action.line_count is None:
        return ""
    first = action.first_line or 1
    if action.line_count is None:
        return f" · from line {first}"
    return f" · lines {first}–{first + action.line_count - 1}"


def call_label(part: ToolCallPart) -> str:
    """How a result names its call: the call's verb and subject ("Edit app/x.py", its counts
    are the result's own), or the tool's `server · tool` for a tool no reader maps."""
    action = action_of(part)
    if isinstance(action, OtherTool):
        return tool_title(part.extension, part.tool) if part.tool else ""
    line = headline(action)
    return Headline(line.verb, line.subject, prose=line.prose).plain()


def outcome_words(outcome: Outcome) -> str:
    """What a result's title adds of its outcome: an exit code, a count."""
    match outcome:
        case ShellOutcome():
            words = []
            if outcome.exit_code is not None:
                words.append(f"exit {outcome.exit_code}")
            if outcome.interrupted:
                words.append("interrupted")
            if outcome.duration_ms is not None:
                words.append(duration(outcome.duration_ms))
            return " · ".join(words)
        case FileContent():
            lines = line_total(outcome.text)
            total = f" of {outcome.total_lines:,}" if outcome.total_lines is not None else ""
            return f"{_plural(lines, 'line')}{total}"
        case EditOutcome():
            diff = from_hunks(outcome.hunks, path=outcome.path, limit=0)
            created = "created · " if outcome.created else ""
            return (
                f"{created}+{diff.added} −{diff.removed}" if outcome.hunks else created.strip(" ·")
            )
        case SearchMatches():
            count = outcome.total if outcome.total is not None else len(outcome.paths)
            return _plural(count, "file") + (" (more not listed)" if outcome.truncated else "")
        case QuestionAnswers():
            return _plural(len(outcome.answers), "answer")
        case WebResults():
            return _web_words(outcome)
        case _:
            assert_never(outcome)


def outcome_preview(outcome: Outcome, stored: str) -> str:
    """What a collapsed result's preview starts from: the output, the file's lines without
    the agent's numbers, the first path; else the text as stored."""
    match outcome:
        case ShellOutcome():
            return outcome.stdout or outcome.stderr
        case FileContent():
            return outcome.text
        case SearchMatches():
            return " ".join(outcome.paths[:SEARCH_PREVIEW])
        case WebResults():
            return outcome.summary or " · ".join(t for t, _ in outcome.links[:SEARCH_PREVIEW])
        case EditOutcome() | QuestionAnswers():
            return stored
        case _:
            assert_never(outcome)


def failed(outcome: Outcome | None) -> bool:
    """A command that exited non-zero or was interrupted: its card is red and opens."""
    return isinstance(outcome, ShellOutcome) and (
        (outcome.exit_code not in (None, 0)) or outcome.interrupted
    )


def duration(milliseconds: int) -> str:
    if milliseconds < 1000:
        return f"{milliseconds} ms"
    seconds = milliseconds / 1000
    return f"{seconds:.1f} s" if seconds < 60 else f"{int(seconds // 60)} min {seconds % 60:.0f} s"


# --- bodies -----------------------------------------------------------------------------------


@dataclass(slots=True)
class Room:
    """What one card may still show: characters of text and rows of lists."""

    chars: int
    rows: int = MAX_ROWS
    more: bool = False
    """Whether the window may show more (Show more): not in an export, which shows all."""
    whole: int | None = None
    """The code block Copy all and Save all give whole, when the card has one."""

    def note(self, hidden: int) -> str:
        """Past a text shown in part: how much is not, with Show more, Copy all, Save all."""
        if hidden <= 0:
            return ""
        links = more_links(self.whole, more=self.more)
        dash = " — " if links else ""
        return f"<p><i>… {formatting.byte_size(hidden)} more not shown{dash}</i>{links}</p>"

    def take(self, text: str) -> tuple[str, int]:
        """As much of `text` as fits, and how many characters did not."""
        shown = text[: max(self.chars, 0)]
        self.chars -= len(shown)
        return shown, len(text) - len(shown)

    def row(self) -> bool:
        if self.rows <= 0 or self.chars <= 0:
            return False
        self.rows -= 1
        return True


@dataclass(frozen=True, slots=True)
class Card:
    """A call's card: its body, its code blocks (after the raw call, which is code block 0),
    whether it starts collapsed and the preview it then shows."""

    html: str
    codes: tuple[str, ...] = ()
    collapsed: bool = False
    preview: str = ""


MarkdownHtml = Callable[[str], str]
"""Renders a text the agent wrote (a sub-agent's prompt) as the transcript's Markdown."""


def _code(text: str) -> str:
    return f"<code>{escape(_visible(text))}</code>"


def _meta(text: str, *, dark: bool) -> str:
    colour = (DARK if dark else LIGHT).muted
    return f'<span class="meta" style="color:{colour}">{text}</span>'


def _pre(text: str, room: Room) -> str:
    shown, hidden = room.take(text)
    body = escape(_visible_lines(shown))
    return f'<pre style="white-space:pre-wrap">{body}</pre>{room.note(hidden)}'


def _visible_lines(text: str) -> str:
    """`visible` for each line, line ends kept."""
    return "\n".join(_visible(line) for line in text.split("\n"))


def _copy_json_link() -> str:
    return f'<p align="right"><a href="{COPY_SCHEME}:0">Copy JSON</a></p>'


@lru_cache(maxsize=1)
def _extension_languages() -> dict[str, str]:
    """File name patterns (`*.py`, `Makefile`) → a language pygments itself knows (never a
    plugin's, see `markdown_html._builtin_aliases`); the first lexer to claim one wins."""
    found: dict[str, str] = {}
    for _, aliases, patterns, _ in get_all_lexers(plugins=False):
        if not aliases:
            continue
        for pattern in patterns:
            found.setdefault(pattern.lower(), aliases[0])
    return found


_SIMPLE_EXTENSION = re.compile(r"\*\.[\w+-]+")


def language_of(path: str | None) -> str:
    """The language a file's name says (`src/app.tsx` → `tsx`), or "" when none does."""
    if not path:
        return ""
    name = posixpath.basename(path.replace("\\", "/")).lower()
    patterns = _extension_languages()
    if "." in name:
        found = patterns.get("*." + name.rsplit(".", 1)[1])
        if found:
            return found
    if name in patterns:
        return patterns[name]
    for pattern, language in patterns.items():
        if not _SIMPLE_EXTENSION.fullmatch(pattern) and fnmatch.fnmatchcase(name, pattern):
            return language
    return ""


def _file_header(path: str | None, facts: str, *, dark: bool) -> str:
    name = _code(path) if path else "<i>no path given</i>"
    return f"<p><b>{name}</b>{' ' + _meta(escape(facts), dark=dark) if facts else ''}</p>"


def _diff_cards(diffs: Sequence[FileDiff], *, dark: bool) -> str:
    operations = {"add": "new file", "delete": "deleted", "move": "moved", "update": ""}
    out = []
    for index, diff in enumerate(diffs):
        if diff.operation in ("more", "unread"):
            what = (
                f"… {_plural(diff.files, 'more file')}"
                if diff.operation == "more"
                else f"… the rest of the patch, {_plural(diff.hidden, 'line')}, not read"
            )
            out.append(f"<p><i>{escape(what)}: +{diff.added} −{diff.removed}</i></p>")
            continue
        facts = [operations.get(diff.operation, diff.operation)]
        if diff.moved_to:
            facts.append(f"→ {diff.moved_to}")
        facts.append(f"+{diff.added} −{diff.removed}")
        if len(diffs) > 1 and diff.path == diffs[0].path and diff.operation == "update":
            facts.insert(0, f"replacement {index + 1} of {len(diffs)}")
        out.append(_file_header(diff.path, " · ".join(f for f in facts if f), dark=dark))
        if diff.lines or not diff.compared:
            out.append(diff_html(diff, dark=dark))
    return "".join(out)


def _table(rows: list[tuple[str, str]]) -> str:
    """Key/value rows (both already HTML) as a bordered table."""
    cells = "".join(f'<tr><td valign="top"><b>{k}</b></td><td>{v}</td></tr>' for k, v in rows)
    return f'<table border="1" cellspacing="0" cellpadding="4">{cells}</table>'


def _value_html(value: JsonValue, room: Room) -> str:
    """A string as the text it is (line breaks kept, nothing JSON-escaped); other values as
    compact JSON, never written out beyond what the card shows."""
    if isinstance(value, str):
        shown, hidden = room.take(value)
        text = escape(_visible_lines(shown))
        return f'<span style="white-space:pre-wrap">{text}</span>{room.note(hidden)}'
    text, complete = dumps_head(value, indent=None, limit=max(room.chars, 0))
    room.take(text)
    return _code(text) + ("" if complete else " …")


LONG_VALUE = 2_000
"""A string argument longer than this is shown below the table, not in a cell: Qt lays out a
table cell's text far more slowly than a paragraph's (a 19 MB argument shown in part, after
Show more twice, held the window 2.3 s)."""


def _arguments_table(arguments: JsonValue, room: Room) -> str:
    """Each argument by its name: short ones in a table, long texts after it, in order."""
    if not isinstance(arguments, dict):
        return _value_html(arguments, room) if arguments is not None else ""
    rows: list[tuple[str, str]] = []
    long: list[str] = []
    for key, value in arguments.items():
        if not room.row():
            shown = len(rows) + len(long)
            rows.append(("…", escape(f"{len(arguments) - shown:,} more arguments not shown")))
            break
        name = escape(_visible(str(key)))
        if isinstance(value, str) and len(value) > LONG_VALUE:
            long.append(f"<p><b>{name}</b></p><p>{_value_html(value, room)}</p>")
        else:
            rows.append((name, _value_html(value, room)))
    return (_table(rows) if rows else "") + "".join(long)


def _marked_lines(lines: list[str]) -> str:
    """Lines that carry their own mark (☐ ◐ ☑, ○ ●), one a line, indented: not a list, whose
    items Qt's rich text gives a bullet whatever their `list-style-type` ("• ☑ done")."""
    return f'<p style="margin-left:20px">{"<br>".join(lines)}</p>'


def _todo_html(items: tuple[TodoItem, ...], room: Room) -> str:
    lines = []
    for shown, item in enumerate(items):
        if not room.row():
            lines.append(f"<i>… {len(items) - shown:,} more items not shown</i>")
            break
        text, _ = room.take(item.text)
        body = escape(_visible(text))
        if item.status == "completed":
            body = f"<s>{body}</s>"
        elif item.status == "in_progress":
            body = f"<b>{body}</b>"
        elif item.status_raw:
            body += f" <i>({escape(_visible(item.status_raw))})</i>"
        lines.append(f"{TODO_MARKS[item.status]} {body}")
    return _marked_lines(lines)


def call_card(
    action: Action,
    *,
    dark: bool,
    limit: int,
    more: bool,
    budget: Budget,
    markdown: MarkdownHtml,
) -> Card:
    """The body of a call's card (the Copy JSON link first: the raw call one click away);
    `limit` characters of its texts at most, then Show more when `more`."""
    room = Room(limit, more=more, whole=0)
    top = _copy_json_link()
    match action:
        case FileEdit():
            diffs = edit_diffs(action, limit)
            shown = sum(len(diff.lines) for diff in diffs)
            return Card(top + _diff_cards(diffs, dark=dark), collapsed=shown > SCREEN_LINES)
        case FileWrite():
            return _write_card(action, top, room, dark=dark, budget=budget)
        case FileRead():
            return Card(top + _file_header(action.path, _line_range(action).strip(" ·"), dark=dark))
        case ShellCommand():
            return _shell_card(action, top, room, dark=dark)
        case FileSearch():
            rows = [
                (label, _code(value))
                for label, value in (
                    ("Files named" if action.by_name else "Pattern", action.pattern),
                    ("In", action.scope),
                    ("Files matching", action.glob),
                )
                if value
            ]
            return Card(top + (_table(rows) if rows else ""))
        case TodoList():
            why = f"<p>{escape(_visible(action.explanation))}</p>" if action.explanation else ""
            return Card(top + why + _todo_html(action.items, room))
        case WebAccess():
            return Card(top + _web_table(action, room))
        case SubAgentTask():
            parts = [top]
            if action.description:
                parts.append(f"<p><b>{escape(_visible(action.description))}</b></p>")
            if action.agent_type:
                parts.append(f"<p>{_meta('Agent: ' + _code(action.agent_type), dark=dark)}</p>")
            if action.prompt:
                parts.append(markdown(action.prompt))
            return Card("".join(parts), codes=(action.prompt,) if action.prompt else ())
        case UserQuestion():
            return Card(top + _questions_html(action, room))
        case OtherTool():
            return Card(top + _arguments_table(action.arguments, room))
        case _:
            assert_never(action)


def _write_card(action: FileWrite, top: str, room: Room, *, dark: bool, budget: Budget) -> Card:
    """The file's path, size and content, highlighted by its name's language; collapsed
    beyond a screen."""
    size = formatting.byte_size(len(action.content.encode("utf-8", "replace")))
    lines = line_total(action.content)
    header = _file_header(action.path, f"{size} · {_plural(lines, 'line')}", dark=dark)
    room.whole = 1  # the content, after the raw call
    shown, hidden = room.take(action.content)
    language = language_of(action.path)
    if language and len(shown) <= HIGHLIGHT_LIMIT and not hidden:
        body = f"<pre>{highlight_code(shown, language, dark=dark, budget=budget)}</pre>"
    else:
        body = f"<pre>{escape(_visible_lines(shown))}</pre>{room.note(hidden)}"
    return Card(
        top + header + body,
        codes=(action.content,),
        collapsed=lines > SCREEN_LINES or len(action.content) > SCREEN_CHARS,
        preview=subject(action.content) or "",
    )


def _shell_card(action: ShellCommand, top: str, room: Room, *, dark: bool) -> Card:
    facts = []
    if action.workdir:
        facts.append(f"in {_code(action.workdir)}")
    if action.timeout_ms is not None:
        facts.append(escape(f"timeout {duration(action.timeout_ms)}"))
    if action.background:
        facts.append("in the background")
    note = f"<p>{_meta(' · '.join(facts), dark=dark)}</p>" if facts else ""
    room.whole = 1  # the command, after the raw call
    return Card(top + _pre("$ " + action.command, room) + note, (action.command,))


def _web_link(url: str, label: str | None = None) -> str:
    """`label` (else the URL) as a link to `url` where the link rule allows it; else the
    label beside the URL as inert code."""
    link = safe_link(url)
    shown = escape(_visible(label or url))
    if link:
        return f'<a href="{escape(link, quote=True)}">{shown}</a>'
    return f"{shown} {_code(url)}" if label else _code(url)


def _web_words(outcome: WebResults) -> str:
    """How a fetch was answered (`200 OK · 1.2 kB`), how many results came, how long it took."""
    words = []
    if outcome.status is not None:
        status_text = f" {_visible(outcome.status_text)}" if outcome.status_text else ""
        words.append(f"{outcome.status}{status_text}")
    if outcome.size is not None:
        words.append(formatting.byte_size(outcome.size))
    if outcome.links:
        words.append(_plural(len(outcome.links), "result"))
    if outcome.duration_ms is not None:
        words.append(duration(outcome.duration_ms))
    return " · ".join(words)


def _site(url: str) -> str | None:
    """The host an allowed link leads to; None for another, or one Python cannot split."""
    if not safe_link(url):
        return None
    try:
        return urlsplit(url).hostname
    except ValueError:  # a malformed host, such as an unclosed `[` of an IPv6 address
        return None


def _web_results(outcome: WebResults, room: Room, *, dark: bool) -> str:
    """The words that came back, then each result's title as a link (its site beside it, so
    that a title cannot hide where it leads); nothing is fetched."""
    parts = []
    if outcome.summary:
        parts.append(f"<p>{_value_html(outcome.summary, room)}</p>")
    items = []
    for shown, (title, url) in enumerate(outcome.links):
        if not room.row():
            items.append(f"<li><i>… {len(outcome.links) - shown:,} more results</i></li>")
            break
        site = _site(url)
        beside = f" {_meta(escape(_visible(site)), dark=dark)}" if site else ""
        items.append(f"<li>{_web_link(url, room.take(title)[0])}{beside}</li>")
    if items:
        parts.append(f"<ul>{''.join(items)}</ul>")
    return "".join(parts)


def _web_table(action: WebAccess, room: Room) -> str:
    rows = []
    if action.url:
        rows.append(("URL", _web_link(action.url)))
    if action.query:
        rows.append(("Query", _code(action.query)))
    if action.prompt:
        rows.append(("Prompt", _value_html(action.prompt, room)))
    return _table(rows) if rows else ""


def _questions_html(action: UserQuestion, room: Room) -> str:
    """Each question and its options (☐ where several may be chosen), a row each."""
    parts = []
    for question in action.questions:
        if not room.row():
            parts.append("<p><i>… more questions not shown</i></p>")
            break
        text, _ = room.take(question.question)
        head = f"{escape(_visible(question.header))}: " if question.header else ""
        parts.append(f"<p><b>{head}{escape(_visible(text))}</b></p>")
        pick = "☐" if question.multiple else "○"
        options = []
        for option in question.options:
            if not room.row():
                options.append("<i>… more options not shown</i>")
                break
            options.append(f"{pick} {escape(_visible(room.take(option)[0]))}")
        parts.append(_marked_lines(options) if options else "")
    return "".join(parts)


MATCHED_ANSWER = 100_000
"""An answer longer than this is not searched for the options it names: it is text typed."""


def chosen_options(question: QuestionItem, answer: str) -> tuple[list[str], str | None]:
    """The options an answer names, and what it says besides (the text typed in "Other"): an
    answer is one option's label; several chosen (`multiSelect`) are their labels and the typed
    text joined by ", ", as Claude Code joins them — a label may hold ", " itself, so the
    longest label that fits is taken first. Bounded: each part is tried against labels of at
    most as many parts as the longest option has."""
    if answer in question.options:
        return [answer], None
    if not question.multiple or len(answer) > MATCHED_ANSWER:
        return [], answer or None
    labels = set(question.options)
    widest = max((label.count(", ") + 1 for label in labels), default=1)
    parts = answer.split(", ")
    chosen: list[str] = []
    typed: list[str] = []
    start = 0
    while start < len(parts):
        for end in range(min(len(parts), start + widest), start, -1):
            label = ", ".join(parts[start:end])
            if label in labels:
                chosen.append(label)
                start = end
                break
        else:
            typed.append(parts[start])
            start += 1
    return chosen, ", ".join(typed) or None


def _answers_html(outcome: QuestionAnswers, room: Room, *, dark: bool) -> str:
    """Each question with its options, the chosen ones marked (● or ☑, in bold, "chosen"), and
    an answer typed rather than chosen shown as such; without the questions as asked, each
    question and its answer in a table."""
    given = dict(outcome.answers)
    asked = {question.question for question in outcome.questions}
    chosen_mark = _meta("chosen", dark=dark)
    parts = []
    for question in outcome.questions:
        if not room.row():
            parts.append("<p><i>… more questions not shown</i></p>")
            break
        head = f"{escape(_visible(question.header))}: " if question.header else ""
        parts.append(f"<p><b>{head}{escape(_visible(room.take(question.question)[0]))}</b></p>")
        answer = given.get(question.question)
        chosen, typed = chosen_options(question, answer) if answer is not None else ([], None)
        on, off = ("☑", "☐") if question.multiple else ("●", "○")
        items = []
        for option in question.options:
            if not room.row():
                items.append("<i>… more options not shown</i>")
                break
            label = escape(_visible(room.take(option)[0]))
            items.append(
                f"{on} <b>{label}</b> {chosen_mark}" if option in chosen else f"{off} {label}"
            )
        if typed is not None:
            text = escape(_visible_lines(room.take(typed)[0]))
            # A question without options (Gemini CLI's `text`, `yesno`) has only typed answers.
            said = _meta("typed, not one of the options", dark=dark) if question.options else ""
            items.append(f'{on} <b style="white-space:pre-wrap">{text}</b> {said}')
        elif answer is None:
            items.append(_meta("<i>not answered</i>", dark=dark))
        parts.append(_marked_lines(items))
    rows = [
        (escape(_visible(question)), _value_html(answer, room))
        for question, answer in outcome.answers[:MAX_ROWS]
        if question not in asked
    ]
    return "".join(parts) + (_table(rows) if rows else "")


def outcome_html(outcome: Outcome, *, dark: bool, limit: int, more: bool, whole: int | None) -> str:
    """The body of a result whose agent recorded what came back in a shape of its own;
    `whole` is the code block of the result as stored (Copy all), when it has one."""
    room = Room(limit, more=more, whole=whole)
    match outcome:
        case ShellOutcome():
            return _terminal(outcome, room, dark=dark)
        case FileContent():
            return _numbered_lines(outcome, room, dark=dark)
        case EditOutcome() if not outcome.hunks:  # a file written whole: no lines to count
            facts = "created" if outcome.created else ""
            return _file_header(outcome.path, facts, dark=dark) if outcome.path else ""
        case EditOutcome():
            diff = from_hunks(outcome.hunks, path=outcome.path, limit=limit)
            return _diff_cards((diff,), dark=dark)
        case SearchMatches():
            items = []
            for shown, path in enumerate(outcome.paths):
                if not room.row():
                    items.append(f"<li><i>… {len(outcome.paths) - shown:,} more</i></li>")
                    break
                items.append(f"<li>{_code(room.take(path)[0])}</li>")
            return f"<ul>{''.join(items)}</ul>" if items else ""
        case QuestionAnswers():
            return _answers_html(outcome, room, dark=dark)
        case WebResults():
            return _web_results(outcome, room, dark=dark)
        case _:
            assert_never(outcome)


TERMINAL_LIGHT = "#eff2f5"
TERMINAL_DARK = "#0d1117"
"""A command's output sits on a shade of its own, set apart from the tool card around it; the
theme's text, muted and error colours meet WCAG AA on it (tests/unit/test_tool_cards.py)."""


def _terminal(outcome: ShellOutcome, room: Room, *, dark: bool) -> str:
    """The output as a terminal shows it (ANSI colours rendered, other escapes removed),
    standard error in red, then how the command ended."""
    theme = DARK if dark else LIGHT
    parts = []
    for text, colour in ((outcome.stdout, ""), (outcome.stderr, theme.error)):
        if not text:
            continue
        shown, hidden = room.take(text)
        body = ansi_to_html(shown, dark=dark)
        if colour:
            body = f'<span class="err" style="color:{colour}">{body}</span>'
        parts.append(f'<pre style="white-space:pre-wrap">{body}</pre>{room.note(hidden)}')
    ended = []
    if outcome.exit_code is not None:
        ended.append(f"exit code {outcome.exit_code}")
    if outcome.interrupted:
        ended.append("interrupted")
    if outcome.duration_ms is not None:
        ended.append(duration(outcome.duration_ms))
    if ended:
        text = escape(" · ".join(ended))
        parts.append(
            f'<p><span class="err" style="color:{theme.error}">{text}</span></p>'
            if failed(outcome)
            else f"<p>{_meta(text, dark=dark)}</p>"
        )
    if not outcome.stdout and not outcome.stderr:
        parts.insert(0, f"<p>{_meta('<i>No output</i>', dark=dark)}</p>")
    return (
        '<table class="terminal" width="100%" cellpadding="6" cellspacing="0" '
        f'bgcolor="{TERMINAL_DARK if dark else TERMINAL_LIGHT}">'
        f"<tr><td>{''.join(parts)}</td></tr></table>"
    )


def _numbered_lines(content: FileContent, room: Room, *, dark: bool) -> str:
    """The lines read with the file's line numbers in a gutter."""
    first = content.first_line or 1
    shown, hidden = room.take(content.text)
    lines = shown.split("\n")
    if lines and lines[-1] == "" and content.text.endswith("\n"):
        lines.pop()
    width = len(str(first + max(len(lines) - 1, 0)))
    muted = (DARK if dark else LIGHT).muted
    gutter = "\n".join(
        f'<span class="meta" style="color:{muted}">{str(first + i).rjust(width)} │ </span>'
        f"{escape(_visible(line))}"
        for i, line in enumerate(lines)
    )
    header = _file_header(content.path, "", dark=dark) if content.path else ""
    return f'{header}<pre style="white-space:pre-wrap">{gutter}</pre>{room.note(hidden)}'


COVER_CHARS = 200_000
"""A stored search result longer than this is not compared with its list of paths."""


def _lists_paths(stored: str, paths: tuple[str, ...]) -> bool:
    """Whether the stored text is the list of paths (after a line such as Claude Code's
    "Found 2 files")."""
    if len(stored) > COVER_CHARS:
        return False
    lines = [line.strip() for line in stored.splitlines() if line.strip()]
    if lines and lines[0].startswith("Found ") and lines[0].endswith(("file", "files", ":")):
        lines = lines[1:]  # Gemini CLI's glob: "Found 2 file(s) matching … (newest first):"
    return set(lines) <= set(paths)


def covers(outcome: Outcome, stored: str) -> bool:
    """Whether what `outcome` shows holds all the stored text says — then the card shows it
    once: a command's output as the model got it, a file's lines (the same lines with their
    numbers as a prefix), the paths found, an agent's sentence that an edit was applied or the
    user answered, which names nothing the card does not."""
    match outcome:
        case ShellOutcome():
            return _shell_covers(outcome, stored)
        case FileContent():
            return True
        case SearchMatches():
            return _lists_paths(stored, outcome.paths)
        case WebResults():  # a page's answer as the model got it (Claude Code's `WebFetch`)
            return stored.strip() == (outcome.summary or "").strip()
        case EditOutcome():
            return stored.strip() in _edit_sentences(outcome)
        case QuestionAnswers():
            return stored.strip() == _answers_sentence(outcome)
        case _:
            assert_never(outcome)


def _shell_covers(outcome: ShellOutcome, stored: str) -> bool:
    """Whether the stored text is the command's output and how it ended, in the agent's words:
    Claude Code 2.x's first line "Exit code N", pi's last line "Command exited with code N"
    (Gemini CLI's alone, with a colon in newer versions), pi's "(no output)"."""
    text = stored.strip()
    code = outcome.exit_code
    if code is not None:
        if text.startswith(first := f"Exit code {code}"):
            text = text[len(first) :].strip()
        for last in (f"Command exited with code {code}", f"Command exited with code: {code}"):
            if text.endswith(last):
                text = text[: -len(last)].strip()
                break
    out, err = outcome.stdout.strip(), outcome.stderr.strip()
    if not out and not err and text == "(no output)":
        return True
    return text in (out, err, f"{out}\n{err}".strip(), f"{out}{err}")


def _edit_sentences(outcome: EditOutcome) -> tuple[str, ...]:
    """Claude Code's words for a write or edit applied (its `FileWriteTool` and `FileEditTool`
    results), which say no more than the card: the path, created or changed. A sentence with
    more in it (the user changed the proposal, a snippet of the file) is no sentence of these."""
    if not outcome.path:
        return ()
    if outcome.created:
        return (f"File created successfully at: {outcome.path}",)
    return (
        f"The file {outcome.path} has been updated successfully.",
        f"The file {outcome.path} has been updated. All occurrences were successfully replaced.",
    )


def _answers_sentence(outcome: QuestionAnswers) -> str:
    """Claude Code's `AskUserQuestion` result as the model gets it: each question and its answer,
    nothing else where the user added no notes."""
    said = ", ".join(f'"{question}"="{answer}"' for question, answer in outcome.answers)
    return (
        f"User has answered your questions: {said}. "
        "You can now continue with the user's answers in mind."
    )
