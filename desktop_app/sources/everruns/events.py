"""everruns events → messages, by everruns' own rule (`knowledge/execution/events.md`, payloads in
`crates/core/src/events/` — formerly `events.rs` — of github.com/everruns/everruns): a
conversation is rebuilt from the canonical events, in `sequence` order — never by id or time.

- `input.message` (legacy `message.user`): `data.message`, a user Message;
- `output.message.completed` (legacy `message.agent`): `data.message` (role `agent`, tool calls
  inside its content), `data.metadata.model`, `data.usage` {input_tokens, output_tokens,
  cache_read_tokens?, cache_creation_tokens?};
- `tool.completed` (legacy `tool.call_completed`): the result of one tool call — `status`
  (success/error/timeout/cancelled), `result` (content parts), `error`, `duration_ms`;
- `reason.thinking.completed` {turn_id, thinking} and `reason.item` {provider, item_id, summary[],
  encrypted_content?}: reasoning kept apart from the message (shown only when the turn's
  completed message carries no reasoning part of its own — the reader decides, see `shown_events`);
- `output.message.replaced`, `context.compacted`, `session.model.changed`, `turn.cancelled`,
  `turn.sealed`, `context.compaction.skipped`, `transcript.repaired`, `tool.call_repaired`,
  `reason.recovered`, `budget.*`: notices; `turn.failed`, `context.compaction.failed`,
  `voice.session.failed`: errors (found by `has:error`, like a reply with `error_code`);
- `task.created`/`task.updated` {task: a full SessionTask snapshot} and `task.message.sent`/
  `received` {task_id, message: TaskMessage} (`crates/core/src/session_task.rs`): the session
  task protocol that replaced `subagent.*`, shown as notices;
- `voice.input_transcript.completed`/`voice.output_transcript.completed` {accumulated}: what
  was said in a voice call, by the user and by the agent — unless the call was delegated (its
  utterances are also `input.message`s with `metadata.source = "voice"`, the replies
  completed messages: `shown_events`).

The types in IGNORED are not conversation (deltas, lifecycle, diagnostics; the title event
names the session instead, `latest_title`); any other type — one Gander has never heard of,
or a retired `subagent.*` — is shown as unsupported, never dropped. One event is one message
(its `sequence` is the message's position), so a page of a transcript is a range of
sequences. Opaque replay state (`signature`, `encrypted`, `encrypted_content`) is never shown:
everruns strips it from every read (`into_public`), and so does this reader, from the parts and
from their raw JSON.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from desktop_app.domain.message import Author, Inference, Message, Role
from desktop_app.domain.parts import (
    Citation,
    ErrorPart,
    FilePart,
    ImagePart,
    NotificationPart,
    Part,
    ReasoningPart,
    RedactedReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UnsupportedPart,
)
from desktop_app.domain.usage import MessageUsage, TokenUsage
from desktop_app.sources.common.raw_json import dump
from desktop_app.sources.files.values import iso_time, listed, mapping, string_of, whole

USER_TYPES = ("input.message", "message.user")
AGENT_TYPES = ("output.message.completed", "message.agent")
TOOL_TYPES = ("tool.completed", "tool.call_completed")
REASONING_TYPES = ("reason.thinking.completed", "reason.item")
VOICE_TYPES = ("voice.input_transcript.completed", "voice.output_transcript.completed")
SPOKEN_TYPES = (*USER_TYPES, *AGENT_TYPES, *VOICE_TYPES)
"""The messages people and agents said, whose replies' usage a session's totals add up (its
message count is every message shown, `shown_events`)."""
TASK_TYPES = ("task.created", "task.updated", "task.message.sent", "task.message.received")
TASK_SNAPSHOT_TYPES = ("task.created", "task.updated")
TITLE_TYPE = "session.title.updated"
IGNORED = (
    "output.message.started",
    "output.message.delta",
    "turn.started",
    "turn.completed",
    "reason.started",
    "reason.completed",
    "reason.thinking.started",
    "reason.thinking.delta",
    "act.started",
    "act.completed",
    "tool.started",
    "tool.progress",
    "tool.output.delta",
    "tool.call_requested",
    "tool.hosted_call",
    "llm.generation",
    "capability.usage",
    "session.started",
    "session.activated",
    "session.idled",
    TITLE_TYPE,
    "schedule.triggered",
    "context.compacting",
    "file.written",
    "voice.session.started",
    "voice.session.ended",
    "voice.input_transcript.delta",
    "voice.output_transcript.delta",
)
"""Known event types that are not conversation, left out of a transcript: streaming deltas
(the completed event holds the text), started/lifecycle markers (`turn.completed`,
`session.idled`, …), diagnostics (`llm.generation`, `capability.usage`), tool narration (the
tool's call and result are in the message and `tool.completed`), a file write (the tool that
wrote it is shown), the title (it names the session) and a voice call's start and end. Every
other type — including one Gander has never heard of — is shown (`message_of`)."""

OPAQUE_KEYS = ("signature", "encrypted", "encrypted_content", "thinking_signature")
_ROLES = {"user": Role.USER, "agent": Role.ASSISTANT, "assistant": Role.ASSISTANT}
_ROLES |= {"system": Role.SYSTEM, "tool_result": Role.TOOL}
_TOOL_FAILURES = {"error", "timeout", "cancelled"}


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One row of `events` (or one envelope of an export): the columns a transcript needs."""

    sequence: int
    event_type: str
    data: Any
    ts: datetime | None = None
    event_id: str | None = None
    context: Any = None


PUBLIC_DEPTH = 4
"""Opaque state sits on a part, a message or an event's data (`data.message.content[i]`):
`public` looks that deep and no deeper, so a deeply nested tool argument costs nothing."""


def public(value: Any, depth: int = 0) -> Any:
    """The value with opaque replay state withheld (its size kept, so a reader sees it was
    there), down to PUBLIC_DEPTH levels."""
    if depth >= PUBLIC_DEPTH:
        return value
    if isinstance(value, dict):
        return {
            key: (
                _withheld(item)
                if key in OPAQUE_KEYS and item is not None
                else public(item, depth + 1)
            )
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [public(item, depth + 1) for item in value]
    return value


def _withheld(value: Any) -> str:
    size = len(value) if isinstance(value, str) else len(dump(value))
    return f"[withheld by Gander: {size:,} characters of opaque provider state]"


def _unsupported(raw: Any, reason: str) -> UnsupportedPart:
    kind = raw.get("type") if isinstance(raw, dict) else None
    return UnsupportedPart(
        source_type=kind if isinstance(kind, str) else None,
        raw_text=dump(public(raw)),
        reason=reason,
        raw=public(raw),
    )


def _citations(annotations: Any) -> tuple[Citation, ...]:
    if not isinstance(annotations, list):
        return ()
    found = []
    for note in annotations:
        if not isinstance(note, dict):
            continue
        source = mapping(note.get("source"))
        found.append(
            Citation(
                start=whole(note.get("start")),
                end=whole(note.get("end")),
                uri=string_of(source.get("uri")),
                title=string_of(source.get("title")),
            )
        )
    return tuple(found)


def _reasoning(raw: dict[str, Any]) -> Part:
    """`{provider, item_id?, text?: {kind: plain|summary|redacted, …}, tokens?}`."""
    text = raw.get("text")
    kind = text.get("kind") if isinstance(text, dict) else None
    provider, item_id = string_of(raw.get("provider")), string_of(raw.get("item_id"))
    shown = public(raw)
    if kind == "plain" and isinstance(text, dict) and isinstance(text.get("text"), str):
        return ReasoningPart(text=text["text"], provider=provider, item_id=item_id, raw=shown)
    if kind == "summary" and isinstance(text, dict) and isinstance(text.get("parts"), list):
        parts = [p for p in text["parts"] if isinstance(p, str)]
        return ReasoningPart(
            text="\n\n".join(parts), is_summary=True, provider=provider, item_id=item_id, raw=shown
        )
    if kind == "redacted" or text is None:
        return RedactedReasoningPart(raw=shown)
    return _unsupported(raw, "a reasoning part of an unknown kind")


def part_of(raw: Any) -> Part:
    """One everruns ContentPart; anything else is shown as it is."""
    if not isinstance(raw, dict):
        return _unsupported(raw, "a content part that is not an object")
    kind = raw.get("type")
    shown = public(raw)
    if kind == "text" and isinstance(raw.get("text"), str):
        return TextPart(text=raw["text"], citations=_citations(raw.get("annotations")), raw=shown)
    if kind == "image":
        return ImagePart(
            mime_type=string_of(raw.get("media_type")),
            data_b64=string_of(raw.get("base64")),
            url=string_of(raw.get("url")),
            raw=shown,
        )
    if kind == "image_file":
        return ImagePart(
            file_ref=string_of(raw.get("image_id")) or "?",
            mime_type=None,
            raw=shown,
        )
    if kind == "file":
        return FilePart(
            name=string_of(raw.get("filename")) or string_of(raw.get("name")),
            file_ref=string_of(raw.get("file_id")) or string_of(raw.get("id")),
            mime_type=string_of(raw.get("media_type")),
            raw=shown,
        )
    if kind == "tool_call":
        return ToolCallPart(
            call_id=string_of(raw.get("id")),
            name=string_of(raw.get("name")),
            arguments=raw.get("arguments"),
            raw=shown,
        )
    if kind == "tool_result":
        error = string_of(raw.get("error"))
        return ToolResultPart(
            call_id=string_of(raw.get("tool_call_id")),
            is_error=error is not None,
            error_text=error,
            content=_result_parts(raw.get("result")),
            raw=shown,
        )
    if kind == "reasoning":
        return _reasoning(raw)
    return _unsupported(raw, f"content of type {kind!r}" if isinstance(kind, str) else "no type")


def _result_parts(result: Any) -> tuple[Part, ...]:
    """A tool's result: content parts when it is a list of them, else its JSON as text."""
    if result is None:
        return ()
    if isinstance(result, list) and all(isinstance(p, dict) and "type" in p for p in result):
        return tuple(part_of(p) for p in result)
    text = result if isinstance(result, str) else dump(result)
    return (TextPart(text=text, raw=public(result)),)


def _author(raw: Any) -> Author | None:
    if not isinstance(raw, dict):
        return None
    metadata = mapping(raw.get("metadata"))
    return Author(
        kind=string_of(raw.get("source")) or "external",
        name=string_of(raw.get("actor_name")),
        external_id=string_of(raw.get("actor_id")),
        channel=string_of(metadata.get("channel_name")) or string_of(metadata.get("channel_id")),
    )


def _usage(raw: Any) -> MessageUsage | None:
    if not isinstance(raw, dict):
        return None
    given, produced = whole(raw.get("input_tokens")), whole(raw.get("output_tokens"))
    total = whole(given + produced) if given is not None and produced is not None else None
    return MessageUsage(
        tokens=TokenUsage(
            input_tokens=given,
            output_tokens=produced,
            total_tokens=total,
            cache_read_tokens=whole(raw.get("cache_read_tokens")),
            cache_write_tokens=whole(raw.get("cache_creation_tokens")),
        )
    )


def _created(value: Any, fallback: datetime | None) -> datetime | None:
    return iso_time(value) or fallback


def _base(event: StoredEvent, session_id: str, role: Role, role_raw: str) -> dict[str, Any]:
    return {
        "session_id": session_id,
        "row_id": event.sequence,
        "message_id": event.event_id,
        "role": role,
        "role_raw": role_raw,
        "created_at": event.ts,
        "created_raw": event.sequence,
        "metadata_raw": public({"type": event.event_type, "context": event.context}),
    }


def message_of(event: StoredEvent, session_id: str) -> Message:
    """The message one event shows. Never raises: a payload of the wrong shape is shown raw."""
    data = event.data if isinstance(event.data, dict) else {}
    kind = event.event_type
    if kind in USER_TYPES or kind in AGENT_TYPES:
        return _spoken(event, session_id, data)
    if kind in TOOL_TYPES:
        return _tool(event, session_id, data)
    if kind in REASONING_TYPES:
        return _reasoning_event(event, session_id, data)
    if kind in VOICE_TYPES:
        return _voice(event, session_id, data)
    if kind in TASK_TYPES:
        return _task(event, session_id, data)
    return _notice(event, session_id, data)


def _spoken(event: StoredEvent, session_id: str, data: dict[str, Any]) -> Message:
    message = data.get("message")
    agent = event.event_type in AGENT_TYPES
    if not isinstance(message, dict):
        role = Role.ASSISTANT if agent else Role.USER
        fields = _base(event, session_id, role, role.value)
        return Message(**fields, parts=(_unsupported(event.data, "an event without a message"),))
    role_raw = string_of(message.get("role")) or ("agent" if agent else "user")
    role = _ROLES.get(role_raw, Role.UNKNOWN)
    content = message.get("content")
    parts = [part_of(p) for p in content] if isinstance(content, list) else []
    if not isinstance(content, list) and content is not None:
        parts.append(_unsupported(content, "message content that is not a list"))
    thinking = string_of(message.get("thinking"))  # the layout before reasoning parts
    if thinking:
        parts.insert(0, ReasoningPart(text=thinking, raw=public({"thinking": thinking})))
    fields = _base(event, session_id, role, role_raw)
    fields["message_id"] = string_of(message.get("id")) or event.event_id
    fields["created_at"] = _created(message.get("created_at"), event.ts)
    metadata = mapping(data.get("metadata"))
    model = string_of(metadata.get("model"))
    failure = string_of(data.get("error_code")) if agent else None
    if failure is not None:  # a user-facing failure surfaced as the reply's text
        said = _with_fields("The reply reports a failure", data.get("error_fields"))
        parts.append(_error(failure, said, data))
    return Message(
        **fields,
        parts=tuple(parts),
        usage=_usage(data.get("usage")) if agent else None,
        inference=Inference(requested_model=model) if model else None,
        phase=string_of(message.get("phase")),
        author=_author(message.get("external_actor")),
    )


def _tool(event: StoredEvent, session_id: str, data: dict[str, Any]) -> Message:
    status = string_of(data.get("status"))
    error = string_of(data.get("error"))
    failed = error is not None or status in _TOOL_FAILURES or data.get("success") is False
    part = ToolResultPart(
        call_id=string_of(data.get("tool_call_id")),
        name=string_of(data.get("tool_name")),
        is_error=failed,
        status=status,
        error_text=error,
        duration_ms=whole(data.get("duration_ms")),
        content=_result_parts(data.get("result")),
        raw=public(data),
    )
    return Message(**_base(event, session_id, Role.TOOL, "tool"), parts=(part,))


def _reasoning_event(event: StoredEvent, session_id: str, data: dict[str, Any]) -> Message:
    if event.event_type == "reason.thinking.completed":
        thinking = string_of(data.get("thinking"))
        part: Part = (
            ReasoningPart(text=thinking, raw=public(data))
            if thinking is not None
            else _unsupported(data, "reasoning without text")
        )
    else:
        given = data.get("summary")
        summary = [s for s in listed(given) if isinstance(s, str)]
        if given is not None and not isinstance(given, list):  # shown as it is
            part = _unsupported(data, "reasoning whose summary is not a list")
        elif summary:
            part = ReasoningPart(
                text="\n\n".join(summary),
                is_summary=True,
                provider=string_of(data.get("provider")),
                item_id=string_of(data.get("item_id")),
                raw=public(data),
            )
        else:
            part = RedactedReasoningPart(raw=public(data))
    model = string_of(data.get("model"))
    return Message(
        **_base(event, session_id, Role.ASSISTANT, "agent"),
        parts=(part,),
        inference=Inference(requested_model=model) if model else None,
    )


def _error(kind: str, text: str, data: Any) -> ErrorPart:
    return ErrorPart(error_kind=kind, message=text, raw=public(data))


def _with_fields(text: str, fields: Any) -> str:
    """A message with the `error_fields` everruns localises it from, as `key: value`."""
    if not isinstance(fields, dict) or not fields:
        return text
    shown = ", ".join(f"{key}: {value}" for key, value in fields.items())
    return f"{text} ({shown})"


def _voice(event: StoredEvent, session_id: str, data: dict[str, Any]) -> Message:
    """A completed transcript of a voice call: `accumulated` is everything said in the item."""
    said = string_of(data.get("accumulated"))
    user = event.event_type.startswith("voice.input")
    role = Role.USER if user else Role.ASSISTANT
    part: Part = (
        TextPart(text=said, raw=public(data))
        if said is not None
        else _unsupported(data, "a voice transcript without text")
    )
    return Message(**_base(event, session_id, role, "user" if user else "agent"), parts=(part,))


def _task_text(task: dict[str, Any], created: bool) -> str:
    name = string_of(task.get("display_name")) or string_of(task.get("id")) or "?"
    kind = string_of(task.get("kind"))
    state = string_of(task.get("state")) or "?"
    text = f"Task “{name}”" + (f" ({kind})" if kind else "")
    text += f" created: {state}" if created else f": {state}"
    for key in ("state_detail", "summary"):
        detail = string_of(task.get(key))
        if detail:
            text += f" — {detail}"
    return text


def _task(event: StoredEvent, session_id: str, data: dict[str, Any]) -> Message:
    """The session-task protocol: a snapshot of the task on every change, and the messages
    between the session and the task (inbound: to the task; outbound: from it)."""
    kind = event.event_type
    parts: list[Part] = []
    if kind in TASK_SNAPSHOT_TYPES:
        task = mapping(data.get("task"))
        text = _task_text(task, kind == "task.created")
        parts.append(NotificationPart(notification_type="task", text=text, raw=public(data)))
        error = mapping(task.get("error"))
        if error:
            failure = string_of(error.get("kind")) or "task"
            parts.append(_error(failure, string_of(error.get("message")) or failure, error))
    else:
        message = mapping(data.get("message"))
        task_id = string_of(data.get("task_id")) or string_of(message.get("task_id")) or "?"
        to_task = string_of(message.get("direction")) != "outbound"
        said = [
            string_of(p.get("text")) or "" if p.get("type") == "text" else dump(p.get("data"))
            for p in listed(message.get("content"))
            if isinstance(p, dict)
        ]
        prefix = f"To task {task_id}" if to_task else f"From task {task_id}"
        text = f"{prefix}: " + "\n".join(said)
        parts.append(NotificationPart(notification_type="taskMessage", text=text, raw=public(data)))
    return Message(**_base(event, session_id, Role.SYSTEM, "system"), parts=tuple(parts))


def _notice_text(kind: str, data: dict[str, Any]) -> tuple[str, str] | None:
    """(notification type, text) of a notice event; None for a type that is not one."""
    match kind:
        case "session.model.changed":
            before = string_of(data.get("previous_model_name"))
            after = string_of(data.get("model_name")) or string_of(data.get("model_id")) or "?"
            if before:
                return "modelChanged", f"Model changed from {before} to {after}."
            return "modelChanged", f"Model set to {after}."
        case "context.compacted":
            earlier, later = whole(data.get("messages_before")), whole(data.get("messages_after"))
            strategy = string_of(data.get("strategy_used"))
            text = "The conversation was compacted"
            if earlier is not None and later is not None:
                text += f" from {earlier:,} to {later:,} messages"
            return "contextCompacted", text + (f" ({strategy})." if strategy else ".")
        case "output.message.replaced":
            reason = string_of(data.get("reason_code")) or "a guardrail"
            return "outputReplaced", (
                f"An output guardrail withheld the reply ({reason}); the user was shown: "
                f"{string_of(data.get('replacement')) or '(nothing)'}"
            )
        case "turn.cancelled":
            why = string_of(data.get("reason"))
            return "turnCancelled", "The turn was cancelled" + (f": {why}" if why else ".")
        case "turn.sealed":
            reason = string_of(data.get("reason")) or "?"
            detail = string_of(data.get("detail"))
            text = f"The turn was sealed to stop waste ({reason})"
            return "turnSealed", text + (f": {detail}" if detail else ".")
        case "context.compaction.skipped":
            why = string_of(data.get("skip_reason")) or "?"
            return "compactionSkipped", f"Compaction was considered and skipped ({why})."
        case "transcript.repaired":
            call = string_of(data.get("tool_call_id")) or "?"
            tool = string_of(data.get("tool_name"))
            action = string_of(data.get("action")) or "?"
            text = f"A tool call left without a result was repaired ({action}): {call}"
            return "transcriptRepaired", text + (f" ({tool})" if tool else "")
        case "tool.call_repaired":
            tool = string_of(data.get("tool_name")) or "?"
            outcome = string_of(data.get("outcome")) or "?"
            return "toolCallRepaired", f"A malformed call of {tool} was repaired ({outcome})."
        case "reason.recovered":
            mode = string_of(data.get("mode")) or "?"
            size = whole(data.get("accumulated_len"))
            text = f"An interrupted reply was recovered ({mode}"
            return "reasonRecovered", text + (f", {size:,} characters)." if size else ").")
        case "budget.warning" | "budget.paused" | "budget.exhausted" | "budget.resumed":
            said = string_of(data.get("message"))
            state = kind.removeprefix("budget.")
            return "budget", f"Budget {state}" + (f": {said}" if said else ".")
        case _:
            return None


ERROR_TYPES = ("turn.failed", "context.compaction.failed", "voice.session.failed")
"""Events of a failure, each with its message in `error`: shown as errors."""


def _notice(event: StoredEvent, session_id: str, data: dict[str, Any]) -> Message:
    kind = event.event_type
    fields = _base(event, session_id, Role.SYSTEM, "system")
    if kind in ERROR_TYPES:
        said = string_of(data.get("error")) or kind
        code = string_of(data.get("error_code"))
        failure = code or kind
        text = _with_fields(said, data.get("error_fields"))
        if kind == "context.compaction.failed":
            text = f"Compaction failed ({string_of(data.get('stage')) or '?'}): {text}"
        return Message(**fields, parts=(_error(failure, text, data),))
    notice = _notice_text(kind, data)
    if notice is None:  # a type Gander does not know: shown as it is
        raw = {"type": kind, "data": event.data}
        part: Part = _unsupported(raw, f"an everruns event of type {kind!r}")
        return Message(**fields, parts=(part,))
    name, text = notice
    part = NotificationPart(notification_type=name, text=text, data=public(data), raw=public(data))
    return Message(**fields, parts=(part,))


def turn_of(event: StoredEvent) -> str | None:
    context = event.context if isinstance(event.context, dict) else {}
    data = event.data if isinstance(event.data, dict) else {}
    return string_of(context.get("turn_id")) or string_of(data.get("turn_id"))


def has_reasoning(event: StoredEvent) -> bool:
    data = event.data if isinstance(event.data, dict) else {}
    message = mapping(data.get("message"))
    content = message.get("content")
    return bool(message.get("thinking")) or (
        isinstance(content, list)
        and any(isinstance(p, dict) and p.get("type") == "reasoning" for p in content)
    )


def spoken_by_voice(event: StoredEvent) -> bool:
    """A user message a voice call made (`message.metadata.source == "voice"`): everruns'
    delegated voice loop turns each finished utterance into one."""
    message = mapping(mapping(event.data).get("message"))
    return event.event_type in USER_TYPES and mapping(message.get("metadata")).get("source") == (
        "voice"
    )


def shown_events(events: Iterable[StoredEvent]) -> list[StoredEvent]:
    """The events of one session (any order) that make its transcript, in sequence order: a
    reasoning event is left out when the next agent message of its turn carries reasoning,
    and voice transcripts when the call was delegated (its utterances are user messages and
    the agent's replies completed messages, so a transcript would show each twice)."""
    kept = [e for e in events if e.event_type not in IGNORED]
    if any(spoken_by_voice(e) for e in kept):
        kept = [e for e in kept if e.event_type not in VOICE_TYPES]
    ordered = sorted(kept, key=lambda e: e.sequence)
    shown: list[StoredEvent] = []
    next_agent: StoredEvent | None = None
    for event in reversed(ordered):  # one pass from the end: each event looked at once
        if event.event_type in AGENT_TYPES:
            next_agent = event
        if event.event_type in REASONING_TYPES and (
            next_agent is not None
            and turn_of(next_agent) == turn_of(event)
            and has_reasoning(next_agent)
        ):
            continue
        shown.append(event)
    return shown[::-1]


def latest_title(events: Iterable[StoredEvent]) -> str | None:
    """The title the latest `session.title.updated` set (by sequence), as everruns keeps it in
    `sessions.title`; None when no such event names one."""
    titled = [e for e in events if e.event_type == TITLE_TYPE]
    for event in sorted(titled, key=lambda e: e.sequence, reverse=True):
        title = string_of(mapping(event.data).get("title"))
        if title and title.strip():
            return title.strip()
    return None


def title_from(events: Iterable[StoredEvent], limit: int = 80) -> str | None:
    """The first user text, as everruns' UI names an untitled session."""
    for event in events:
        if event.event_type in USER_TYPES:
            message = message_of(event, "")
            for part in message.parts:
                if isinstance(part, TextPart) and part.text.strip():
                    line = " ".join(part.text.split())
                    return line if len(line) <= limit else line[: limit - 1] + "…"
    return None
