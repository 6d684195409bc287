"""A message → the fields the index stores and searches.

Four searchable columns, weighted when ranking: what was said (`body`), reasoning, tool calls
(names and arguments) and tool output. Binary data never reaches the index; tool output is
capped per message so one 100 MB log cannot dominate the file. `DOC_FIELDS` and `TEXT_FIELDS`
are the one list the schema, the inserts and the worker processes all follow.
"""

from dataclasses import dataclass, fields
from typing import Any, assert_never

from desktop_app.domain.actions import (
    Action,
    FileEdit,
    FileRead,
    FileSearch,
    FileWrite,
    OtherTool,
    ShellCommand,
    SubAgentTask,
    TodoList,
    UserQuestion,
    WebAccess,
)
from desktop_app.domain.jsontext import dumps_head
from desktop_app.domain.message import Message, encode_position
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
)
from desktop_app.domain.text import part_texts
from desktop_app.search.tokens import segment_cjk

OUTPUT_CAP = 32_000
"""Characters of tool output indexed per message."""
ARGUMENTS_CAP = 1_000_000
"""Characters of a tool call's arguments (as JSON) indexed: a file the agent wrote is found by
its words, and a 19 MB argument is not written out whole, in one call that holds the
interpreter lock (and stalled the window 72 ms), to be indexed."""


@dataclass(frozen=True, slots=True)
class IndexDocument:
    session_id: str
    position: str
    """The message's position, encoded (`encode_position`)."""
    message_id: str | None
    role: str
    created: int | None
    visible: bool
    has_image: bool
    has_error: bool
    tool_names: str
    """Lower-case tool names, space-separated and space-padded, for `tool:NAME`."""
    body: str
    reasoning: str
    tools: str
    output: str


FIELD_NAMES = tuple(f.name for f in fields(IndexDocument))
TEXT_FIELDS = ("body", "reasoning", "tools", "output")
"""The full-text columns, in the order of their ranking weights (the document's last fields)."""
DOC_FIELDS = FIELD_NAMES[: -len(TEXT_FIELDS)]
"""The columns of the `docs` table (its `rowid` aside)."""
if FIELD_NAMES[-len(TEXT_FIELDS) :] != TEXT_FIELDS:
    raise TypeError("IndexDocument must end with the full-text fields, in TEXT_FIELDS order")
ROW_SESSION = FIELD_NAMES.index("session_id")
ROW_POSITION = FIELD_NAMES.index("position")
DocumentRow = tuple[Any, ...]
"""An `IndexDocument` as a plain tuple, in field order: what crosses process boundaries (pickling
dataclasses costs several times more) and what the insert takes."""


def clean(text: str) -> str:
    """Lone surrogates (from `\\ud800` escapes in goose's JSON) cannot be stored as UTF-8. An
    ASCII text has none, and asking costs nothing (CPython knows), where encoding copies it."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text


def _role(message: Message) -> str:
    if message.parts and all(isinstance(p, ToolResultPart) for p in message.parts):
        return "tool"
    return message.role.value if message.role.value != "unknown" else message.role_raw


def _has_error(part: Part) -> bool:
    match part:
        case ErrorPart():
            return True
        case ToolResultPart():
            return part.is_error
        case ToolCallPart():
            return part.error is not None
        case (
            TextPart()
            | ImagePart()
            | AudioPart()
            | FilePart()
            | ResourcePart()
            | ResourceLinkPart()
            | ActionRequiredPart()
            | ReasoningPart()
            | RedactedReasoningPart()
            | NotificationPart()
            | UnsupportedPart()
        ):
            return False
        case _:
            assert_never(part)


@dataclass(slots=True)
class _Columns:
    body: list[str]
    reasoning: list[str]
    tools: list[str]
    output: list[str]
    names: set[str]
    has_image: bool = False


def _collect(part: Part, into: _Columns) -> None:
    match part:
        case ReasoningPart():
            into.reasoning.append(part.text)
        case ToolCallPart():
            if part.name:
                into.names.update(n.lower() for n in (part.name, part.tool, part.extension) if n)
            into.tools.extend(x for x in (part.name, part.error) if x)
            if part.arguments is not None:  # `part_texts`, with the arguments' JSON capped
                into.tools.append(dumps_head(part.arguments, indent=None, limit=ARGUMENTS_CAP)[0])
            if part.action is not None:  # the words as written: JSON glues `\n` to the next word
                room = ARGUMENTS_CAP
                for text in action_texts(part.action):
                    if room <= 0:
                        break
                    into.tools.append(text[:room])
                    room -= len(text)
        case ToolResultPart():
            into.output.extend(part_texts(part))
            into.has_image |= any(isinstance(item, ImagePart) for item in part.content)
        case ActionRequiredPart():
            if part.tool_name:
                into.names.add(part.tool_name.lower())
            into.tools.extend(part_texts(part))
        case ImagePart():
            into.has_image = True
        case (
            TextPart()
            | NotificationPart()
            | ErrorPart()
            | UnsupportedPart()
            | AudioPart()
            | FilePart()
            | ResourcePart()
            | ResourceLinkPart()
            | RedactedReasoningPart()
        ):
            into.body.extend(part_texts(part))
        case _:
            assert_never(part)


def action_texts(action: Action) -> list[str]:
    """The texts of a call as its agent wrote them (a command, a path, an edit's old and new
    text): in the arguments' JSON a line break is `\\n`, so the word after one was not found."""
    match action:
        case FileEdit():
            texts = [action.path or "", action.patch or ""]
            for replacement in action.replacements:
                texts += [replacement.old, replacement.new]
            return texts
        case FileWrite():
            return [action.path or "", action.content]
        case FileRead():
            return [action.path or ""]
        case ShellCommand():
            return [action.command, action.description or "", action.workdir or ""]
        case FileSearch():
            return [action.pattern or "", action.scope or "", action.glob or ""]
        case TodoList():
            return [action.explanation or "", *(item.text for item in action.items)]
        case WebAccess():
            return [action.url or "", action.query or "", action.prompt or ""]
        case SubAgentTask():
            return [action.description or "", action.prompt or ""]
        case UserQuestion():
            return [text for q in action.questions for text in (q.question, *q.options)]
        case OtherTool():
            return []
        case _:
            assert_never(action)


def document_row(message: Message) -> DocumentRow:
    """The message's document as a row, in `FIELD_NAMES` order: what a build inserts and what
    its workers send back. Made as a tuple, not through `IndexDocument`: a frozen dataclass of
    thirteen fields cost more to make than the rest of the document (5 of 13 µs a message)."""
    columns = _Columns(body=[], reasoning=[], tools=[], output=[], names=set())
    for part in shown_parts(message.parts):
        _collect(part, columns)
    created = message.created_at
    names = columns.names
    return (
        message.session_id,
        encode_position(message.cursor),
        clean(message.message_id) if message.message_id else None,
        clean(_role(message)),
        int(created.timestamp()) if created else None,
        message.visibility.user,
        columns.has_image,
        any(_has_error(p) for p in message.parts),
        clean(" " + " ".join(sorted(names)) + " ") if names else "",
        clean(segment_cjk("\n".join(columns.body))),
        clean(segment_cjk("\n".join(columns.reasoning))),
        clean(segment_cjk("\n".join(columns.tools))),
        clean(segment_cjk("\n".join(columns.output)[:OUTPUT_CAP])),
    )


def to_document(message: Message) -> IndexDocument:
    """The same document by field name (snippets read its columns by name)."""
    return IndexDocument(*document_row(message))
