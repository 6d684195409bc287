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

from dataclasses import replace
from pathlib import Path
from typing import Any

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
from desktop_app.sources.common.raw_json import dump
from desktop_app.sources.files.history import FileFormat, ParsedSession
from desktop_app.sources.files.values import (
    counted,
    iso_time,
    json_lines,
    listed,
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
    broken: list[Message] = []
    try:
        document = loads(data)
    except (ValueError, RecursionError):
        document = None  # JSON lines, read below
    if isinstance(document, dict):
        listed = document.get("messages")
        kept = [m for m in listed if isinstance(m, dict)] if isinstance(listed, list) else []
        return document, kept, broken
    header: dict[str, Any] = {}
    by_id: dict[str, dict[str, Any]] = {}
    order: list[str] = []
    for line in json_lines(data):
        value = line.value
        if value is None:
            broken.append(unreadable_line("", line, KIND))
        elif isinstance(value.get("$rewindTo"), str):
            key = f"$rewindTo {line.row}"  # a record of its own, in its place
            order.append(key)
            by_id[key] = {"type": "$rewindTo", **value}
        elif isinstance(value.get("$set"), dict):
            header.update(value["$set"])
        elif "type" in value and "id" in value:
            key = str(value["id"])
            if key not in by_id:
                order.append(key)
            by_id[key] = value
        else:
            header.update(value)
    return header, [by_id[key] for key in order], broken


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


def _rewind(
    session_id: str, row: int, record: dict[str, Any], records: list[dict[str, Any]]
) -> Message:
    """A `$rewindTo`: Gemini CLI took the conversation back to before that message and no
    longer shows the messages from it to here. They stay in the transcript, in file order,
    with this notice after them (the user's own `/rewind`, not lost content)."""
    target = next((r for r in records if r.get("id") == record["$rewindTo"]), None)
    said = " ".join(
        p.text
        for p in _text_of(target.get("content") if target else None)
        if isinstance(p, TextPart)
    )
    named = f"“{' '.join(said.split())[:60]}”" if said.strip() else f"message {record['$rewindTo']}"
    text = f"Rewound to before {named}: Gemini CLI no longer shows the messages from there to here."
    notice = NotificationPart(notification_type="rewound", text=text, raw=record)
    return _message(session_id, row, Role.SYSTEM, "$rewindTo", [notice], record=record)


def parse(path: Path, data: bytes) -> ParsedSession:
    header, records, broken = _records(data)
    session_id = str(header.get("sessionId") or path.stem)
    messages: list[Message] = []
    row = 0
    for record in records:
        kind = record.get("type")
        parts = _shown(record)
        if kind == "user":
            typed = "".join(p.text for p in parts if isinstance(p, TextPart)).strip()
            seen = Visibility(user=not typed.startswith(_CONTEXT), agent=True)
            messages.append(
                _message(session_id, row, Role.USER, "user", parts, record=record, visibility=seen)
            )
        elif kind == "gemini":
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
            messages.append(
                _message(
                    session_id,
                    row,
                    Role.ASSISTANT,
                    "gemini",
                    said,
                    record=record,
                    usage=_usage(record.get("tokens")),
                    inference=Inference(requested_model=model) if model else None,
                )
            )
            if calls:
                row += 1
                results: list[Part] = [_result(c) for c in calls]
                messages.append(
                    _message(session_id, row, Role.TOOL, "tool", results, record=record)
                )
        elif kind == "error":
            text = " ".join(p.text for p in parts if isinstance(p, TextPart))
            error: list[Part] = [ErrorPart(error_kind="error", message=text)]
            # The user's only, as info and warning: gemini-cli's `convertSessionToClientHistory`
            # leaves error records out of the history it sends the model.
            shown = Visibility(user=True, agent=False)
            messages.append(
                _message(
                    session_id, row, Role.SYSTEM, "error", error, record=record, visibility=shown
                )
            )
        elif kind == "$rewindTo":
            messages.append(_rewind(session_id, row, record, records))
        elif kind in ("info", "warning"):
            text = " ".join(p.text for p in parts if isinstance(p, TextPart))
            notice = NotificationPart(notification_type=str(kind), text=text, raw=record)
            hidden = Visibility(user=True, agent=False)
            messages.append(
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
            messages.append(
                _message(session_id, row, Role.UNKNOWN, str(kind), [part], record=record)
            )
        row += 1
    # The lines that did not parse are this session's too (the search index files them by it).
    messages.extend(replace(message, session_id=session_id) for message in broken)
    prompts = [m for m in messages if m.role is Role.USER and m.visibility.user]
    title = header.get("summary") if isinstance(header.get("summary"), str) else None
    if not title:
        first = next(
            (" ".join(p.text.split()) for m in prompts for p in m.parts if isinstance(p, TextPart)),
            "",
        )
        title = first if len(first) <= TITLE_CHARS else first[: TITLE_CHARS - 1] + "…"
    totals = [m.usage.tokens for m in messages if m.usage is not None]
    models = [m.inference.model for m in messages if m.inference and m.inference.model]
    session = Session(
        id=session_id,
        name=title or path.stem,
        created_at=iso_time(header.get("startTime")),
        # None recorded is unknown: the file's time says when it was copied.
        updated_at=iso_time(header.get("lastUpdated")) or iso_time(header.get("startTime")),
        message_count=counted(messages),
        provider="google" if models else None,
        model=models[-1] if models else None,
        usage=totals[-1] if totals else TokenUsage(),
        accumulated_usage=TokenUsage(
            input_tokens=whole(sum(t.input_tokens or 0 for t in totals)),
            output_tokens=whole(sum(t.output_tokens or 0 for t in totals)),
            total_tokens=whole(sum(t.total_tokens or 0 for t in totals)),
            cache_read_tokens=whole(sum(t.cache_read_tokens or 0 for t in totals)),
        )
        if totals
        else TokenUsage(),
    )
    return ParsedSession(session=session, messages=messages)


def sniff(head: bytes) -> bool:
    """A recording: `sessionId` and `projectHash` in its first object."""
    first = head.lstrip()[:4096]
    return first.startswith(b"{") and b'"projectHash"' in first and b'"sessionId"' in first


FORMAT = FileFormat(
    kind=KIND,
    suffixes=(".json", ".jsonl"),
    sniff=sniff,
    parse=parse,
    depth=2,
    prefixes=("session-",),
    resume=resume,
)
