"""Gemini CLI chat recordings: `~/.gemini/tmp/<project-hash>/chats/session-*.json`.

What `ChatRecordingService` (google-gemini/gemini-cli, packages/core/src/services/
chatRecordingService.ts) writes: `{sessionId, projectHash, startTime, lastUpdated, messages,
summary?}`, each message `{id, timestamp, type, content, …}` with `type` `user`, `gemini`,
`info`, `error` or `warning`; a `gemini` message carries `toolCalls` (`{id, name, args, result,
status, displayName, resultDisplay …}`), `thoughts` (`{subject, description}`), `tokens`
(`{input, output, cached, thoughts, tool, total}`) and `model`. Newer versions append instead:
JSON lines — a header, then messages, `{"$set": {...}}` updates, and a message written again
when its tool calls finish (the last copy wins), `{"$rewindTo": id}` when `/rewind` takes the
conversation back (shown as a notice after the messages it took back, which stay). `logs.json`
beside the chats is a prompt log, not a session (it is not a `session-*` file and is never read
as one).

Shown as Gemini CLI shows a resumed session: a message's `displayContent` (what was typed) when
it has one, the `content` the model got after it for the model only; a user message that is
`<session_context>` or `<hook_context>` is context for the model, not the prompt; a tool call
whose `status` is not `success` (`cancelled`, `error`) is shown as failed.

The project folder is not recorded (only its hash). Tokens are summed over the replies (each
reply's `tokens` is its own call). Kind `gemini-cli`.
"""

from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from desktop_app.domain.jsontext import loads
from desktop_app.domain.message import Inference, Message, Role, Visibility
from desktop_app.domain.parts import (
    Annotations,
    ErrorPart,
    NotificationPart,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UnsupportedPart,
)
from desktop_app.domain.session import Session
from desktop_app.domain.usage import MessageUsage, TokenUsage
from desktop_app.sources.common.json_stream import Member, members, read_at
from desktop_app.sources.common.raw_json import dump
from desktop_app.sources.files.history import FileFormat, ParsedSession
from desktop_app.sources.files.pages import MessagePages
from desktop_app.sources.files.tally import Tally
from desktop_app.sources.files.values import (
    Line,
    iso_time,
    json_lines,
    listed,
    placed_lines,
    unreadable_line,
    whole,
)
from desktop_app.sources.gemini_cli import tools
from desktop_app.sources.gemini_cli.resume import resume

KIND = "gemini-cli"
TITLE_CHARS = 80
_CONTEXT = ("<session_context>", "<hook_context>")
"""User messages Gemini CLI leaves out of a resumed session's view: context for the model."""
_FOR_THE_MODEL = Annotations(audience=("assistant",))
_REWIND = "$rewindTo "
"""The key of a `$rewindTo` line's record, before its row."""
Kept = TypeVar("Kept")


def _text_of(content: Any) -> list[Part]:
    """A message's content: a string, or Gemini API parts (`{text}`, `{functionResponse}` …)."""
    if isinstance(content, str):
        return [TextPart(text=content, raw=content)] if content else []
    items = content if isinstance(content, list) else [content]
    parts: list[Part] = []
    for item in items:
        if isinstance(item, str):
            parts.append(TextPart(text=item, raw=item))
        elif isinstance(item, dict) and isinstance(item.get("text"), str):
            if item.get("thought") is True:
                parts.append(ReasoningPart(text=item["text"], raw=item))
            else:
                parts.append(TextPart(text=item["text"], raw=item))
        elif item is not None:
            parts.append(
                UnsupportedPart(source_type=None, raw_text=dump(item), reason="a content part")
            )
    return parts


def _shown(record: dict[str, Any]) -> list[Part]:
    """A message's parts as Gemini CLI shows them: its `displayContent` (what was typed) when
    it has text, then the `content` the model was sent (an @-file's text, hook context) as one
    text for the model only; else the `content`."""
    content = _text_of(record.get("content"))
    display = _text_of(record.get("displayContent"))
    if not any(isinstance(p, TextPart) and p.text.strip() for p in display):
        return content
    sent = "".join(p.text for p in content if isinstance(p, TextPart))
    others = [p for p in content if not isinstance(p, TextPart)]
    if sent == "".join(p.text for p in display if isinstance(p, TextPart)):
        return [*display, *others]  # the model was sent what is shown
    return [
        *display,
        TextPart(text=sent, annotations=_FOR_THE_MODEL, raw=record.get("content")),
        *others,
    ]


def _result(call: dict[str, Any]) -> ToolResultPart:
    result = call.get("result")
    texts: list[Part] = []
    for item in result if isinstance(result, list) else [result]:
        response = item.get("functionResponse") if isinstance(item, dict) else None
        output = response.get("response") if isinstance(response, dict) else None
        if isinstance(output, dict) and isinstance(output.get("output"), str):
            texts.append(TextPart(text=output["output"], raw=item))
        elif isinstance(output, dict) and isinstance(output.get("error"), str):
            texts.append(TextPart(text=output["error"], raw=item))
        elif isinstance(item, dict) and "text" not in item:
            texts.append(TextPart(text=dump(item), raw=item))
        elif item is not None:
            texts.extend(_text_of(item))
    if not texts and isinstance(call.get("resultDisplay"), str):
        texts.append(TextPart(text=call["resultDisplay"], raw=call["resultDisplay"]))
    status = call.get("status") if isinstance(call.get("status"), str) else None
    name = call.get("name") if isinstance(call.get("name"), str) else None
    said = "\n".join(p.text for p in texts if isinstance(p, TextPart))
    return ToolResultPart(
        call_id=call.get("id") if isinstance(call.get("id"), str) else None,
        name=name,
        outcome=tools.outcome(name, said, call.get("resultDisplay"), call.get("args")),
        is_error=status != "success",  # as Gemini CLI shows a resumed call: ok or error
        status=status,
        content=tuple(texts),
        raw=call,
    )


def _records(data: bytes) -> tuple[dict[str, Any], list[dict[str, Any]], list[Message]]:
    """The conversation's header and its messages (the last copy of each id), from either the
    JSON document or the JSON lines; lines that do not parse become unsupported messages."""
    try:
        document = loads(data)
    except (ValueError, RecursionError):
        document = None  # JSON lines, read below
    if isinstance(document, dict):
        listed = document.get("messages")
        kept = [m for m in listed if isinstance(m, dict)] if isinstance(listed, list) else []
        return document, kept, []
    header, records, _, broken = _sorted_lines((line, _record(line)) for line in json_lines(data))
    return header, records, broken


def _record(line: Line) -> dict[str, Any]:
    """A line's record: a `$rewindTo` is a record of its own, in its place."""
    value = line.value or {}
    return {"type": "$rewindTo", **value} if isinstance(value.get("$rewindTo"), str) else value


def _sorted_lines(
    lines: Iterable[tuple[Line, Kept]],
) -> tuple[dict[str, Any], list[Kept], dict[str, Kept], list[Message]]:
    """JSON lines as Gemini CLI replays them: the header (its line, and every `$set` and other
    line after it); each record's `Kept` (its value, or its place) in order, a message's last
    copy in the place of its first; the records by key (a message's id); the lines that do not
    parse."""
    header: dict[str, Any] = {}
    order: list[str] = []
    kept: dict[str, Kept] = {}
    broken: list[Message] = []
    for line, keep in lines:
        value = line.value
        if value is None:
            broken.append(unreadable_line("", line, KIND))
        elif isinstance(value.get("$rewindTo"), str):
            key = f"{_REWIND}{line.row}"
            order.append(key)
            kept[key] = keep
        elif isinstance(value.get("$set"), dict):
            header.update(value["$set"])
        elif "type" in value and "id" in value:
            key = str(value["id"])
            if key not in kept:
                order.append(key)
            kept[key] = keep
        else:
            header.update(value)
    return header, [kept[key] for key in order], kept, broken


def _message(
    session_id: str,
    row: int,
    role: Role,
    raw_role: str,
    parts: list[Part],
    *,
    record: Any,
    **fields: Any,
) -> Message:
    at = iso_time(record.get("timestamp")) if isinstance(record, dict) else None
    return Message(
        session_id=session_id,
        row_id=row,
        message_id=_id(record),
        role=role,
        role_raw=raw_role,
        created_at=at,
        created_raw=None,
        parts=tuple(parts),
        **fields,
    )


def _id(record: Any) -> str | None:
    value = record.get("id") if isinstance(record, dict) else None
    return value if isinstance(value, str) else None


def _usage(tokens: Any) -> MessageUsage | None:
    if not isinstance(tokens, dict):
        return None
    return MessageUsage(
        tokens=TokenUsage(
            input_tokens=whole(tokens.get("input")),
            output_tokens=whole(tokens.get("output")),
            total_tokens=whole(tokens.get("total")),
            cache_read_tokens=whole(tokens.get("cached")),
            reasoning_tokens=whole(tokens.get("thoughts")),
        )
    )


def _not_lists(record: dict[str, Any], keys: tuple[str, ...]) -> list[Part]:
    """The fields of a reply that should hold a list and hold something else: shown as they
    are, never dropped."""
    return [
        UnsupportedPart(
            source_type=key, raw_text=dump(record[key]), reason=f"{key} that are not a list"
        )
        for key in keys
        if not isinstance(record.get(key), list | None)
    ]


def _rewind(session_id: str, row: int, record: dict[str, Any], target: Any) -> Message:
    """A `$rewindTo`: Gemini CLI took the conversation back to before that message (`target`,
    None when the recording does not hold it) and no longer shows the messages from it to
    here. They stay in the transcript, in file order, with this notice after them (the user's
    own `/rewind`, not lost content)."""
    said = " ".join(
        p.text
        for p in _text_of(target.get("content") if isinstance(target, dict) else None)
        if isinstance(p, TextPart)
    )
    named = f"“{' '.join(said.split())[:60]}”" if said.strip() else f"message {record['$rewindTo']}"
    text = f"Rewound to before {named}: Gemini CLI no longer shows the messages from there to here."
    notice = NotificationPart(notification_type="rewound", text=text, raw=record)
    return _message(session_id, row, Role.SYSTEM, "$rewindTo", [notice], record=record)


class _Counting:
    """What a recording's session figures count (`Tally`): every message; the first prompt
    the user saw, as its title; the last reply's usage, as the context now."""

    def own(self, message: Message) -> bool:
        return True

    def prompt(self, message: Message) -> str | None:
        if message.role is not Role.USER or not message.visibility.user:
            return None
        texts = (p.text for p in message.parts if isinstance(p, TextPart))
        return next((" ".join(text.split()) for text in texts), None)

    def measured(self, message: Message) -> bool:
        return True


COUNTING = _Counting()


class _Conversation:
    """The messages Gemini CLI shows for a recording's records, made one record at a time and
    appended to `messages` (a list, or `MessagePages` for a recording too large to hold)."""

    def __init__(
        self,
        session_id: str,
        messages: list[Message] | MessagePages,
        target: Callable[[str], Any],
    ) -> None:
        self.session_id = session_id
        self.messages = messages
        self._target = target
        """The record a `$rewindTo` names, by its id (None when there is none)."""
        self.model: str | None = None
        """The model of the last reply that names one."""
        self._row = 0

    def add(self, record: dict[str, Any]) -> None:
        session_id, row = self.session_id, self._row
        kind = record.get("type")
        parts = _shown(record)
        if kind == "user":
            typed = "".join(p.text for p in parts if isinstance(p, TextPart)).strip()
            seen = Visibility(user=not typed.startswith(_CONTEXT), agent=True)
            self.messages.append(
                _message(session_id, row, Role.USER, "user", parts, record=record, visibility=seen)
            )
        elif kind == "gemini":
            self._reply(record, parts)
        elif kind == "error":
            text = " ".join(p.text for p in parts if isinstance(p, TextPart))
            error: list[Part] = [ErrorPart(error_kind="error", message=text)]
            # The user's only, as info and warning: gemini-cli's `convertSessionToClientHistory`
            # leaves error records out of the history it sends the model.
            shown = Visibility(user=True, agent=False)
            self.messages.append(
                _message(
                    session_id, row, Role.SYSTEM, "error", error, record=record, visibility=shown
                )
            )
        elif kind == "$rewindTo":
            target = self._target(record["$rewindTo"])
            self.messages.append(_rewind(session_id, row, record, target))
        elif kind in ("info", "warning"):
            text = " ".join(p.text for p in parts if isinstance(p, TextPart))
            notice = NotificationPart(notification_type=str(kind), text=text, raw=record)
            hidden = Visibility(user=True, agent=False)
            self.messages.append(
                _message(
                    session_id,
                    row,
                    Role.SYSTEM,
                    str(kind),
                    [notice],
                    record=record,
                    visibility=hidden,
                )
            )
        else:
            part = UnsupportedPart(
                source_type=str(kind), raw_text=dump(record), reason=f"a {kind!r} record"
            )
            self.messages.append(
                _message(session_id, row, Role.UNKNOWN, str(kind), [part], record=record)
            )
        self._row += 1

    def _reply(self, record: dict[str, Any], parts: list[Part]) -> None:
        thoughts = [
            ReasoningPart(
                text="\n\n".join(
                    x for x in (t.get("subject"), t.get("description")) if isinstance(x, str)
                ),
                is_summary=True,
                raw=t,
            )
            for t in listed(record.get("thoughts"))
            if isinstance(t, dict)
        ]
        calls = [c for c in listed(record.get("toolCalls")) if isinstance(c, dict)]
        model = record.get("model") if isinstance(record.get("model"), str) else None
        said: list[Part] = [*thoughts, *parts, *_not_lists(record, ("thoughts", "toolCalls"))]
        said += [
            ToolCallPart(
                call_id=c.get("id") if isinstance(c.get("id"), str) else None,
                name=c.get("name") if isinstance(c.get("name"), str) else None,
                arguments=c.get("args"),
                raw={k: v for k, v in c.items() if k != "result"},
                action=tools.action(
                    c.get("name") if isinstance(c.get("name"), str) else None, c.get("args")
                ),
            )
            for c in calls
        ]
        inference = Inference(requested_model=model) if model else None
        reply = _message(
            self.session_id,
            self._row,
            Role.ASSISTANT,
            "gemini",
            said,
            record=record,
            usage=_usage(record.get("tokens")),
            inference=inference,
        )
        if reply.inference is not None and reply.inference.model:
            self.model = reply.inference.model
        self.messages.append(reply)
        if calls:
            self._row += 1
            results: list[Part] = [_result(c) for c in calls]
            self.messages.append(
                _message(self.session_id, self._row, Role.TOOL, "tool", results, record=record)
            )

    def ended(self, broken: Iterable[Message]) -> None:
        """The lines that did not parse, after the records: this session's too (the search
        index files them by it), each in a row of its own after theirs — a line's own number
        was the row of another message (two messages at one position), and pages hold their
        messages in the order of their rows."""
        for message in broken:
            self.messages.append(replace(message, session_id=self.session_id, row_id=self._row))
            self._row += 1


def _session(
    path: Path, header: dict[str, Any], conversation: _Conversation, tally: Tally
) -> Session:
    title = header.get("summary") if isinstance(header.get("summary"), str) else None
    if not title:
        first = tally.title or ""
        title = first if len(first) <= TITLE_CHARS else first[: TITLE_CHARS - 1] + "…"
    given, produced, total, read, _ = tally.sums
    model = conversation.model
    return Session(
        id=conversation.session_id,
        name=title or path.stem,
        created_at=iso_time(header.get("startTime")),
        # None recorded is unknown: the file's time says when it was copied.
        updated_at=iso_time(header.get("lastUpdated")) or iso_time(header.get("startTime")),
        message_count=tally.shown,
        provider="google" if model else None,
        model=model,
        usage=tally.current or TokenUsage(),
        accumulated_usage=TokenUsage(
            input_tokens=whole(given),
            output_tokens=whole(produced),
            total_tokens=whole(total),
            cache_read_tokens=whole(read),
        )
        if tally.usages
        else TokenUsage(),
    )


def parse(path: Path, data: bytes) -> ParsedSession:
    header, records, broken = _records(data)
    session_id = str(header.get("sessionId") or path.stem)

    def target(wanted: str) -> Any:
        return next((r for r in records if r.get("id") == wanted), None)

    conversation = _Conversation(session_id, [], target)
    for record in records:
        conversation.add(record)
    conversation.ended(broken)
    messages = conversation.messages
    tally = Tally.of(list(messages), COUNTING)
    return ParsedSession(session=_session(path, header, conversation, tally), messages=messages)


def parse_large(path: Path, handle: BinaryIO, size: int) -> ParsedSession:
    """A recording too large to hold (`MAX_FILE_BYTES`), read as `parse` reads it whole, in
    two passes over the file: the first finds each record's place (and the header, and the
    lines that do not parse), the second reads the records one at a time into `MessagePages`.
    A JSON document that does not parse is read as JSON lines, as `parse` reads it."""
    try:
        places = _document_places(handle, size)
    except (ValueError, RecursionError):
        places = _line_places(handle, size)
    header, order, ids, broken = places
    session_id = str(header.get("sessionId") or path.stem)

    def record(place: tuple[str, int, int]) -> dict[str, Any]:
        kind, offset, length = place
        value = read_at(handle, offset, length)
        return {"type": "$rewindTo", **value} if kind == _REWIND else value

    def target(wanted: str) -> Any:
        place = ids.get(wanted)
        found = record(place) if place is not None else None
        return found if isinstance(found, dict) and found.get("id") == wanted else None

    conversation = _Conversation(session_id, MessagePages(COUNTING), target)
    for place in order:
        conversation.add(record(place))
    conversation.ended(broken)
    pages = conversation.messages
    assert isinstance(pages, MessagePages)
    session = _session(path, header, conversation, pages.tally())
    return ParsedSession(session=session, messages=pages.view())


_Places = tuple[
    dict[str, Any], list[tuple[str, int, int]], dict[str, tuple[str, int, int]], list[Message]
]
"""A recording's header; each record's place (`_REWIND` for a `$rewindTo`, else "", its
offset and length) in order; the place of the record each id names; the lines that did not
parse."""


def _document_places(handle: BinaryIO, size: int) -> _Places:
    """The places in a JSON document: every object in `messages`, in order (no id is read
    twice over in a document), and the first of each id."""
    handle.seek(0)
    header: dict[str, Any] = {}
    order: list[tuple[str, int, int]] = []
    ids: dict[str, tuple[str, int, int]] = {}
    for found in members(handle, size, ("messages",)):
        if isinstance(found, Member):
            header[found.path[0]] = found.value
        elif isinstance(found.value, dict):
            place = ("", found.offset, found.length)
            order.append(place)
            key = found.value.get("id")
            if isinstance(key, str):
                ids.setdefault(key, place)
    return header, order, ids, []


MOST_UNREADABLE = 1_000
"""Lines that do not parse kept to be shown, each with its first bytes, in a recording too
large to hold; past them they are counted (a 200 MB file of anything else: a million lines)."""


def _line_places(handle: BinaryIO, size: int) -> _Places:
    """The places in JSON lines, sorted as `_records` sorts them; past `MOST_UNREADABLE`
    lines that do not parse, one message says how many more there are."""
    unreadable = 0

    def kept() -> Iterator[tuple[Line, tuple[str, int, int]]]:
        nonlocal unreadable
        for line, offset in placed_lines(handle, size):
            unreadable += line.value is None
            if line.value is not None or unreadable <= MOST_UNREADABLE:
                yield line, _place(line, offset)

    header, order, ids, broken = _sorted_lines(kept())
    if unreadable > MOST_UNREADABLE:
        more = unreadable - MOST_UNREADABLE
        part = UnsupportedPart(
            source_type=KIND, raw_text="", reason=f"{more:,} more lines that are not JSON objects"
        )
        broken.append(replace(broken[-1], parts=(part,)))
    return header, order, ids, broken


def _place(line: Line, offset: int) -> tuple[str, int, int]:
    rewind = line.value is not None and isinstance(line.value.get("$rewindTo"), str)
    return (_REWIND if rewind else "", offset, len(line.raw))


def sniff(head: bytes) -> bool:
    """A recording: `sessionId` and `projectHash` in its first object."""
    first = head.lstrip()[:4096]
    return first.startswith(b"{") and b'"projectHash"' in first and b'"sessionId"' in first


FORMAT = FileFormat(
    kind=KIND,
    suffixes=(".json", ".jsonl"),
    sniff=sniff,
    parse=parse,
    parse_large=parse_large,
    depth=2,
    prefixes=("session-",),
    resume=resume,
)
