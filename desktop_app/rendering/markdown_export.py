"""A transcript as Markdown that reads at least as well as goose's own export.

Unlike goose's export it says who, when and with which model; pairs each tool result with its call;
shows reasoning, notices, errors and unsupported content instead of dropping them; and truncates
huge tool output with a note saying how much was left out. Rendering is streamed one message at a
time so a 50,000-message session never sits in memory whole.
"""

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import assert_never

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
    SearchMatches,
    ShellCommand,
    ShellOutcome,
    SubAgentTask,
    TodoList,
    UserQuestion,
    WebAccess,
    WebResults,
    action_of,
)
from desktop_app.domain.jsontext import dumps
from desktop_app.domain.message import Message, Role
from desktop_app.domain.parts import (
    ActionRequiredPart,
    AudioPart,
    ErrorPart,
    FilePart,
    ImagePart,
    NotificationPart,
    Part,
    ReasoningPart,
    RedactedReasoningPart,
    ResourceLinkPart,
    ResourcePart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UnsupportedPart,
    shown_parts,
    split_audience,
)
from desktop_app.domain.session import Session
from desktop_app.rendering import formatting
from desktop_app.rendering.ansi import strip_ansi
from desktop_app.rendering.diffs import diff_text, from_hunks
from desktop_app.rendering.links import safe_link
from desktop_app.rendering.notices import (
    REDACTED_REASONING,
    RUN_BY_CLIENT,
    TERMINAL_NOTICES,
    TOKEN_LIMIT_NOTICE,
    adds_to_text,
    notification_label,
    notification_link,
)
from desktop_app.rendering.tool_cards import (
    Headline,
    call_label,
    chosen_options,
    covers,
    edit_diffs,
    headline,
    language_of,
    outcome_words,
    server_and_tool,
)

MAX_RESULT_LINES = 60
MAX_RESULT_CHARS = 8_000


_BACKTICKS = re.compile("`+")


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in _BACKTICKS.findall(text)), default=0)


def fenced(body: str, language: str = "") -> str:
    """A code fence longer than any backtick run inside `body`, so content cannot break out."""
    fence = "`" * max(3, _longest_backtick_run(body) + 1)
    return f"{fence}{language}\n{body}\n{fence}"


def inline_code(text: str) -> str:
    """A code span that no backtick inside `text` can close early."""
    ticks = "`" * (_longest_backtick_run(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def link_or_code(url: str | None) -> str:
    """An autolink for an allowed URL; anything else as inert code."""
    if not url:
        return "`?`"
    return f"<{url}>" if safe_link(url) and ">" not in url else inline_code(url)


def quoted(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines() or [""])


def truncated(text: str) -> tuple[str, str | None]:
    """The head of a long tool output and a note on what was cut, or the text as it is."""
    lines = text.splitlines()
    total_lines = len(lines)
    if total_lines <= MAX_RESULT_LINES and len(text) <= MAX_RESULT_CHARS:
        return text, None
    head = "\n".join(lines[:MAX_RESULT_LINES])[:MAX_RESULT_CHARS]
    shown = head.count("\n") + 1
    note = (
        f"*Output truncated: showing {shown} of {total_lines} lines "
        f"({formatting.byte_size(len(text.encode('utf-8')))} in all). "
        "`gander show ID --format json` has everything.*"
    )
    return head, note


_PHASES = {"commentary": "commentary", "final_answer": "final answer"}
"""everruns' message phases, named as the window's role label names them."""


def _json(value: object) -> str:
    return dumps(value, indent=2)


@dataclass
class MarkdownWriter:
    """Turns messages into Markdown, remembering tool calls so results can name their tool."""

    include_hidden: bool = False
    tool_names: dict[str, str] = field(default_factory=dict)

    def header(self, session: Session, message_total: int | None) -> str:
        lines = [f"# {session.name or session.id}", ""]
        facts = [f"**Session:** `{session.id}` ({session.session_type})"]
        if session.working_dir:
            facts.append(f"**Directory:** `{session.working_dir}`")
        facts.append(f"**Created:** {formatting.utc_time(session.created_at)}")
        if session.last_message_at:
            facts.append(f"**Last message:** {formatting.utc_time(session.last_message_at)}")
        if session.provider or session.model:
            facts.append(
                f"**Model:** {' / '.join(x for x in (session.provider, session.model) if x)}"
            )
        acc = session.accumulated_usage
        if not acc.is_empty or session.cost is not None:
            facts.append(
                f"**Tokens:** {formatting.tokens(acc.input_tokens)} in, "
                f"{formatting.tokens(acc.output_tokens)} out, "
                f"{formatting.tokens(acc.total_tokens)} total; "
                f"**cost:** {formatting.cost(session.cost)}"
            )
        if session.archived:
            facts.append(f"**Archived:** {formatting.utc_time(session.archived_at)}")
        lines.extend(f"- {fact}" for fact in facts)
        if message_total is not None:
            lines += ["", f"*Total messages: {message_total}*"]
        lines += ["", "---", ""]
        return "\n".join(lines)

    def messages(self, messages: Iterable[Message]) -> Iterator[str]:
        shown = 0
        for message in messages:
            if not message.visibility.user and not self.include_hidden:
                self._remember_calls(message)
                continue
            shown += 1
            yield self.message(message)
        if shown == 0:
            yield "*(This session has no messages)*\n"

    def _remember_calls(self, message: Message) -> None:
        for part in message.parts:
            if isinstance(part, ToolCallPart) and part.call_id and part.tool:
                self.tool_names[part.call_id] = call_label(part)

    def message(self, message: Message) -> str:
        self._remember_calls(message)
        blocks = [self._heading(message)]
        blocks.extend(self.part(part) for part in shown_parts(message.parts))
        if message.output_token_limit_reached:
            blocks.append(f"*{TOKEN_LIMIT_NOTICE}*")
        if message.metadata_problem:
            blocks.append(f"*Note: {message.metadata_problem}; shown with default visibility.*")
        blocks.append("---\n")
        return "\n\n".join(block for block in blocks if block)

    def _heading(self, message: Message) -> str:
        only_results = bool(message.parts) and all(
            isinstance(p, ToolResultPart) for p in message.parts
        )
        if only_results:
            who = "Tool result"
        elif message.role is Role.UNKNOWN:
            who = f"Unknown role `{message.role_raw}`"
        else:
            who = message.role.value.capitalize()
            phase = _PHASES.get(message.phase or "")
            if phase and message.role is Role.ASSISTANT:  # as the window labels it
                who += f" · {phase}"
            author = message.author
            if author is not None and (author.name or author.external_id):
                who += f" · {author.name or author.external_id} ({author.kind})"
        details = [formatting.utc_time(message.created_at)]
        if message.inference and message.inference.model:
            details.append(message.inference.model)
        marks = []
        if not message.visibility.user:
            marks.append("agent only: hidden from the user")
        if not message.visibility.agent:
            marks.append("not sent to the model")
        mark = f" *({'; '.join(marks)})*" if marks else ""
        return f"### {who} · {' · '.join(details)}{mark}"

    def part(self, part: Part) -> str:
        match part:
            case TextPart():
                if part.annotations and part.annotations.audience == ("assistant",):
                    return f"*For the model only:*\n\n{part.text}"
                return part.text
            case ImagePart():
                return self._attachment("Image", part.mime_type, part.data_b64, part.url)
            case AudioPart():
                return self._attachment("Audio", part.mime_type, part.data_b64, None)
            case FilePart():
                label = f"Document `{part.name}`" if part.name else "Document"
                return self._attachment(label, part.mime_type, part.data_b64, part.url)
            case ToolCallPart():
                return self._tool_call(part)
            case ToolResultPart():
                return self._tool_result(part)
            case ReasoningPart():
                return f"**Thinking:**\n{quoted(part.text)}"
            case RedactedReasoningPart():
                return f"*{REDACTED_REASONING}*"
            case NotificationPart():
                label = notification_label(part.notification_type)
                link = notification_link(part)
                said = strip_ansi(part.text)
                lines = said.strip("\n")
                if part.notification_type in TERMINAL_NOTICES and "\n" in lines:
                    text = f"*{label}:*\n\n{fenced(lines)}"  # a command's lines, as printed
                else:
                    text = f"*{label}:* {said}" if said else f"*{label}*"
                return f"{text} {link_or_code(link)}" if link else text
            case ActionRequiredPart():
                return self._action(part)
            case ErrorPart():
                return f"**Error ({part.error_kind}):** {part.message}"
            case ResourcePart() | ResourceLinkPart():
                return self._result_item(part)
            case UnsupportedPart():
                return (
                    f"**Unsupported content** ({part.reason}):\n\n{fenced(part.raw_text, 'json')}"
                )
            case _:
                assert_never(part)

    @staticmethod
    def _attachment(label: str, mime: str | None, data: str | None, url: str | None) -> str:
        if data:
            size = formatting.byte_size(formatting.base64_size(data))
            return f"**{label}:** {mime or 'unknown type'}, {size} (embedded in the session)"
        if url:
            return f"**{label}:** {mime or 'unknown type'} at {link_or_code(url)}"
        return f"**{label}:** {mime or 'unknown type'} (no data)"

    def _tool_call(self, part: ToolCallPart) -> str:
        if part.error is not None:
            return f"#### Tool call failed\n\n**Error:** {part.error}"
        server, tool = server_and_tool(part.extension, part.tool)
        name = f"{inline_code(server)} · {inline_code(tool)}" if server else inline_code(tool)
        if part.frontend:
            name += f", {RUN_BY_CLIENT}"
        lines = [f"#### Tool call: {name}"]
        if part.summary_title:
            lines.append(f"*{part.summary_title}*")
        action = action_of(part)
        if not isinstance(action, OtherTool):
            lines.append(action_markdown(action))
        elif part.arguments is not None:
            lines.append("**Arguments:**\n\n" + fenced(_json(part.arguments), "json"))
        return "\n\n".join(lines)

    def _tool_result(self, part: ToolResultPart) -> str:
        name = self.tool_names.get(part.call_id or "")
        title = f"#### Tool result: `{name}`" if name else "#### Tool result"
        if part.is_error:
            title += " — **error**"
        blocks = [title]
        if part.error_text:
            blocks.append(f"**Error:** {part.error_text}")
        for_user, model_only = split_audience(part.content)
        if part.outcome is not None:
            blocks.append(outcome_markdown(part.outcome))
            stored = "\n".join(item.text for item in for_user if isinstance(item, TextPart))
            if stored and not covers(part.outcome, stored):
                blocks.append("*As returned to the model:*")
            elif stored:
                for_user = [item for item in for_user if not isinstance(item, TextPart)]
        blocks.extend(self._result_item(item) for item in for_user)
        if model_only and (self.include_hidden or not for_user):
            blocks.append("*Sent to the model only:*")
            blocks.extend(self._result_item(item) for item in model_only)
        if adds_to_text(part.structured_content, part.content):
            blocks.append("*Structured content:*")
            blocks.append(fenced(_json(part.structured_content), "json"))
        return "\n\n".join(blocks)

    def _result_item(self, item: Part) -> str:
        """One item of a tool result; every fence opens on a line of its own."""
        if isinstance(item, TextPart):
            body, note = truncated(item.text)
            text = fenced(body)
            return f"{text}\n\n{note}" if note else text
        if isinstance(item, ResourcePart):
            label = f"**Resource** `{item.uri or '?'}`"
            if item.text is not None:
                body, note = truncated(item.text)
                text = f"{label}\n\n{fenced(body)}"
                return f"{text}\n\n{note}" if note else text
            size = formatting.byte_size(formatting.base64_size(item.blob_b64))
            return f"{label}: {item.mime_type or 'binary'}, {size}"
        if isinstance(item, ResourceLinkPart):
            return f"**Link to resource:** {item.name or ''} {link_or_code(item.uri)}"
        return self.part(item)

    @staticmethod
    def _action(part: ActionRequiredPart) -> str:
        lines = [f"**Action required** ({part.action_type})"]
        if part.tool_name:
            lines.append(f"Tool: `{part.tool_name}`")
        if part.prompt or part.message:
            lines.append(part.prompt or part.message or "")
        if part.arguments is not None:
            lines.append(fenced(_json(part.arguments), "json"))
        elif part.data is not None and part.action_type not in ("toolConfirmation",):
            lines.append(fenced(_json(part.data), "json"))
        return "\n\n".join(lines)


DIFF_CHARS = 1_000_000
"""Characters of an edit's diff lines written out (its lines are capped as in the window)."""
TODO_BOXES = {"pending": "[ ]", "in_progress": "[ ]", "completed": "[x]", "unknown": "[ ]"}


def headline_markdown(line: Headline) -> str:
    """`**Edit** `src/a.css` (+1 −1)`: the verb in bold, the path or command as code (the
    agent's own words, a task or a question, as text)."""
    shown = "" if not line.subject else line.subject if line.prose else inline_code(line.subject)
    subject = f" {shown}" if shown else ""
    return f"**{line.verb}**{subject}{line.detail}"


def _one_line_text(text: str) -> str:
    return " ".join(text.split())


def action_markdown(action: Action) -> str:
    """A call as what it did: a diff fence, `$ command`, a task list."""
    top = headline_markdown(headline(action))
    match action:
        case FileEdit():
            blocks = [top]
            diffs = edit_diffs(action, DIFF_CHARS)
            for diff in diffs:
                name = inline_code(diff.path) if diff.path else "(no path given)"
                moved = f" → {inline_code(diff.moved_to)}" if diff.moved_to else ""
                if diff.operation in ("more", "unread"):
                    what = f"{diff.files} more files" if diff.operation == "more" else "the rest"
                    blocks.append(f"*… {what}, not shown: +{diff.added} −{diff.removed}*")
                    continue
                if len(diffs) > 1 or diff.operation != "update":  # else the headline says it
                    blocks.append(
                        f"{name}{moved} ({diff.operation}, +{diff.added} −{diff.removed})"
                    )
                if diff.lines or not diff.compared:
                    blocks.append(fenced(diff_text(diff), "diff"))
            return "\n\n".join(blocks)
        case FileWrite():
            return f"{top}\n\n{fenced(action.content, language_of(action.path))}"
        case FileRead():
            return top
        case ShellCommand():
            said = f"*{_one_line_text(action.description)}*\n\n" if action.description else ""
            where = f"\n\nin {inline_code(action.workdir)}" if action.workdir else ""
            return f"{said}{fenced('$ ' + action.command, 'console')}{where}"
        case FileSearch():
            scope = f" in {inline_code(action.scope)}" if action.scope else ""
            glob = f", files {inline_code(action.glob)}" if action.glob else ""
            what = inline_code(action.pattern) if action.pattern else "files"
            verb = "Found files" if action.by_name else "Searched"
            return f"**{verb}** {what}{scope}{glob}"
        case TodoList():
            items = [
                f"- {TODO_BOXES[item.status]} {_one_line_text(item.text)}"
                + (" *(in progress)*" if item.status == "in_progress" else "")
                + (f" *({item.status_raw})*" if item.status_raw else "")
                for item in action.items
            ]
            why = f"{action.explanation}\n\n" if action.explanation else ""
            return f"{top}\n\n{why}" + "\n".join(items)
        case WebAccess():
            lines = [top]
            if action.url:
                lines.append(f"URL: {link_or_code(action.url)}")
            if action.query:
                lines.append(f"Query: {inline_code(action.query)}")
            if action.prompt:
                lines.append(quoted(action.prompt))
            return "\n\n".join(lines)
        case SubAgentTask():
            prompt = f"\n\n{quoted(action.prompt)}" if action.prompt else ""
            return f"{top}{prompt}"
        case UserQuestion():
            blocks = [top]
            for question in action.questions:
                head = f"**{question.header}:** " if question.header else ""
                options = "\n".join(f"- {_one_line_text(option)}" for option in question.options)
                blocks.append(f"{head}{question.question}" + (f"\n\n{options}" if options else ""))
            return "\n\n".join(blocks)
        case OtherTool():
            return top
        case _:
            assert_never(action)


def _answers_markdown(outcome: QuestionAnswers) -> str:
    """Each question and its options as a task list, the chosen ones ticked and in bold, an
    answer typed rather than chosen said as such; without the questions as asked, each
    question → its answer."""
    given = dict(outcome.answers)
    asked = {question.question for question in outcome.questions}
    blocks = []
    for question in outcome.questions:
        head = f"**{question.header}:** " if question.header else ""
        answer = given.get(question.question)
        chosen, typed = chosen_options(question, answer) if answer is not None else ([], None)
        items = [
            f"- [x] **{_one_line_text(option)}** *(chosen)*"
            if option in chosen
            else f"- [ ] {_one_line_text(option)}"
            for option in question.options
        ]
        if typed is not None:
            said = " *(typed, not one of the options)*" if question.options else ""
            items.append(f"- [x] **{_one_line_text(typed)}**{said}")
        elif answer is None:
            items.append("- *not answered*")
        blocks.append(f"{head}{_one_line_text(question.question)}\n\n" + "\n".join(items))
    rest = [f"- **{q}** → {a}" for q, a in outcome.answers if q not in asked]
    return "\n\n".join(blocks + (["\n".join(rest)] if rest else []))


def outcome_markdown(outcome: Outcome) -> str:
    """What came back, as the window shows it: output in a fence, a diff, a list of paths."""
    match outcome:
        case ShellOutcome():
            blocks = []
            for label, text in (("", outcome.stdout), ("*Standard error:*\n\n", outcome.stderr)):
                if text:
                    body, note = truncated(strip_ansi(text))
                    blocks.append(label + fenced(body) + (f"\n\n{note}" if note else ""))
            ended = outcome_words(outcome)
            blocks.append(f"*{ended}*" if ended else "")
            return "\n\n".join(block for block in blocks if block) or "*No output*"
        case FileContent():
            body, note = truncated(outcome.text)
            first = f"*From line {outcome.first_line}:*\n\n" if outcome.first_line else ""
            return first + fenced(body, language_of(outcome.path)) + (f"\n\n{note}" if note else "")
        case EditOutcome():
            diff = from_hunks(outcome.hunks, path=outcome.path, limit=DIFF_CHARS)
            name = inline_code(outcome.path) if outcome.path else "the file"
            done = "Created" if outcome.created else "Changed"
            if not outcome.hunks:  # a file written whole: no lines to count
                return f"{done} {name}"
            fence = f"\n\n{fenced(diff_text(diff), 'diff')}" if diff.lines else ""
            return f"{done} {name} (+{diff.added} −{diff.removed}){fence}"
        case SearchMatches():
            paths = "\n".join(f"- {inline_code(path)}" for path in outcome.paths)
            return f"*{outcome_words(outcome)}*" + (f"\n\n{paths}" if paths else "")
        case QuestionAnswers():
            return _answers_markdown(outcome)
        case WebResults():
            words = outcome_words(outcome)
            blocks = [f"*{words}*"] if words else []
            if outcome.summary:
                blocks.append(quoted(outcome.summary))
            if outcome.links:
                blocks.append(
                    "\n".join(f"- {_one_line_text(t)} {link_or_code(u)}" for t, u in outcome.links)
                )
            return "\n\n".join(blocks)
        case _:
            assert_never(outcome)
