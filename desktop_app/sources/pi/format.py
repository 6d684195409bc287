"""pi (badlogic/pi-mono's coding agent) sessions: `~/.pi/agent/sessions/--<cwd>--/*.jsonl`.

From pi-mono's `packages/coding-agent/docs/session.md` and `session-manager.ts`: the first line
is the `session` header (`id`, `version`, `cwd`, `parentSession`); then entries with `id` and
`parentId` forming a tree (branches share a file). Entry types: `message` (an AgentMessage:
`user`, `assistant` with `text`/`thinking`/`toolCall` blocks, `usage` with `cost`, `model`,
`stopReason`/`errorMessage`; `toolResult` with `isError`; `bashExecution`; `custom`;
`branchSummary`; `compactionSummary`), `model_change`, `thinking_level_change`, `compaction`,
`branch_summary`, `custom_message` (`display` says whether pi shows it), `custom` (extension
state, not shown), `label`, `session_info` (the name `/name` sets — the title).

Entries are shown in the order they were written (the branches of a tree one after another,
as the file holds them). A thinking block's `thinkingSignature` (a signature, or the encrypted
payload of thinking the provider redacted) is withheld; a `!!` shell command
(`excludeFromContext`) is shown but was never sent to the model. Kind `pi`.
"""

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from desktop_app.domain.message import Inference, Message, Role, Visibility
from desktop_app.domain.parts import (
    ErrorPart,
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
from desktop_app.domain.session import Session
from desktop_app.domain.usage import MessageUsage, TokenUsage, amount
from desktop_app.sources.common.raw_json import dump
from desktop_app.sources.files.history import (
    FileFormat,
    LinesLog,
    ParsedSession,
    read_log,
)
from desktop_app.sources.files.pages import MessagePages
from desktop_app.sources.files.values import (
    epoch_ms_time,
    iso_time,
    string_of,
    whole,
)
from desktop_app.sources.pi import tools
from desktop_app.sources.pi.resume import resume

KIND = "pi"
TITLE_CHARS = 80


def _time(value: Any) -> datetime | None:
    """pi's times: milliseconds since 1970 (a message's) or ISO 8601 (an entry's)."""
    return epoch_ms_time(value) or iso_time(value)


def _withheld(block: dict[str, Any]) -> dict[str, Any]:
    """A thinking block with its `thinkingSignature` withheld: the provider's signature, or the
    whole encrypted payload of thinking it redacted (pi never shows it)."""
    signature = block.get("thinkingSignature")
    if not isinstance(signature, str) or not signature:
        return block
    return {**block, "thinkingSignature": f"[withheld by Gander: {len(signature):,} characters]"}


def _blocks(content: Any) -> list[Part]:
    if isinstance(content, str):
        return [TextPart(text=content, raw=content)]
    parts: list[Part] = []
    for block in content if isinstance(content, list) else []:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            parts.append(TextPart(text=block["text"], raw=block))
        elif kind == "thinking" and block.get("redacted") is True:
            parts.append(RedactedReasoningPart(raw=_withheld(block)))
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            parts.append(ReasoningPart(text=block["thinking"], raw=_withheld(block)))
        elif kind == "image":
            parts.append(
                ImagePart(
                    mime_type=block.get("mimeType")
                    if isinstance(block.get("mimeType"), str)
                    else None,
                    data_b64=block.get("data") if isinstance(block.get("data"), str) else None,
                    raw=block,
                )
            )
        elif kind == "toolCall":
            parts.append(
                ToolCallPart(
                    call_id=block.get("id") if isinstance(block.get("id"), str) else None,
                    name=block.get("name") if isinstance(block.get("name"), str) else None,
                    arguments=block.get("arguments"),
                    raw=block,
                    action=tools.action(string_of(block.get("name")), block.get("arguments")),
                )
            )
        else:
            parts.append(
                UnsupportedPart(
                    source_type=kind if isinstance(kind, str) else None,
                    raw_text=dump(block),
                    reason=f"content of type {kind!r}",
                )
            )
    return parts


def _usage(raw: Any) -> MessageUsage | None:
    if not isinstance(raw, dict):
        return None
    cost = raw.get("cost")
    return MessageUsage(
        tokens=TokenUsage(
            input_tokens=whole(raw.get("input")),
            output_tokens=whole(raw.get("output")),
            total_tokens=whole(raw.get("totalTokens")),
            cache_read_tokens=whole(raw.get("cacheRead")),
            cache_write_tokens=whole(raw.get("cacheWrite")),
        ),
        cost=amount(cost.get("total")) if isinstance(cost, dict) else None,
    )


class _Counting:
    """What a session's figures count (`tally.Counting`)."""

    def own(self, message: Message) -> bool:
        return True

    def prompt(self, message: Message) -> str | None:
        if message.role is not Role.USER or message.role_raw != "user":
            return None
        texts = (p.text for p in message.parts if isinstance(p, TextPart))
        return next((" ".join(text.split()) for text in texts), None)

    def measured(self, message: Message) -> bool:
        return True  # the context now is the last reply's usage


COUNTING = _Counting()


class _Reader:
    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.messages = MessagePages(COUNTING)
        self.cwd: str | None = None
        self.name: str | None = None
        self.started: datetime | None = None
        self.models: list[tuple[str | None, str]] = []

    def _add(
        self,
        row: int,
        entry: dict[str, Any],
        role: Role,
        raw_role: str,
        parts: Sequence[Part],
        **fields: Any,
    ) -> None:
        inner = entry.get("message")
        stamp = inner.get("timestamp") if isinstance(inner, dict) else None
        at = _time(entry.get("timestamp")) or _time(stamp)
        self.messages.append(
            Message(
                session_id=self.session_id,
                row_id=row,
                message_id=entry.get("id") if isinstance(entry.get("id"), str) else None,
                role=role,
                role_raw=raw_role,
                created_at=at,
                created_raw=None,
                parts=tuple(parts),
                **fields,
            )
        )

    def _notice(self, row: int, entry: dict[str, Any], kind: str, text: str) -> None:
        notice = NotificationPart(notification_type=kind, text=text, raw=entry)
        self._add(row, entry, Role.SYSTEM, kind, [notice])

    def take(self, row: int, entry: dict[str, Any]) -> None:
        kind = entry.get("type")
        if kind == "session":
            self.session_id = string_of(entry.get("id")) or self.session_id
            self.cwd = entry.get("cwd") if isinstance(entry.get("cwd"), str) else None
            self.started = _time(entry.get("timestamp"))
        elif kind == "message" and isinstance(entry.get("message"), dict):
            self.message(row, entry, entry["message"])
        elif kind == "model_change":
            model = str(entry.get("modelId") or "?")
            provider = entry.get("provider") if isinstance(entry.get("provider"), str) else None
            self.models.append((provider, model))
            self._notice(row, entry, "modelChanged", f"Model set to {provider or '?'}/{model}.")
        elif kind == "thinking_level_change":
            self._notice(
                row, entry, "thinkingLevel", f"Thinking level: {entry.get('thinkingLevel')}."
            )
        elif kind == "compaction":
            before = whole(entry.get("tokensBefore"))
            summary = str(entry.get("summary") or "")
            lead = f"Compacted at {before:,} tokens. " if before is not None else ""
            self._notice(row, entry, "contextCompacted", lead + summary)
        elif kind == "branch_summary":
            self._notice(row, entry, "branchSummary", str(entry.get("summary") or ""))
        elif kind == "custom_message":
            parts = _blocks(entry.get("content"))
            shown = entry.get("display") is True
            self._add(
                row,
                entry,
                Role.SYSTEM,
                "custom",
                parts,
                visibility=Visibility(user=shown, agent=True),
            )
        elif kind == "session_info" and isinstance(entry.get("name"), str):
            self.name = entry["name"].strip() or self.name
        # `custom` (extension state) and `label` entries are not part of the conversation.

    def message(self, row: int, entry: dict[str, Any], message: dict[str, Any]) -> None:
        role = message.get("role")
        if role == "user":
            self._add(row, entry, Role.USER, "user", _blocks(message.get("content")))
        elif role == "assistant":
            parts = _blocks(message.get("content"))
            if isinstance(message.get("errorMessage"), str):
                error_kind = str(message.get("stopReason") or "error")
                parts.append(ErrorPart(error_kind=error_kind, message=message["errorMessage"]))
            model = message.get("model") if isinstance(message.get("model"), str) else None
            provider = message.get("provider") if isinstance(message.get("provider"), str) else None
            if model:
                self.models.append((provider, model))
            self._add(
                row,
                entry,
                Role.ASSISTANT,
                "assistant",
                parts,
                usage=_usage(message.get("usage")),
                inference=Inference(provider=provider, requested_model=model) if model else None,
            )
        elif role == "toolResult":
            returned = tuple(_blocks(message.get("content")))
            said = "\n".join(p.text for p in returned if isinstance(p, TextPart))
            failed = message.get("isError") is True
            result = ToolResultPart(
                call_id=message.get("toolCallId")
                if isinstance(message.get("toolCallId"), str)
                else None,
                name=message.get("toolName") if isinstance(message.get("toolName"), str) else None,
                is_error=failed,
                content=returned,
                raw=message,
                outcome=tools.outcome(string_of(message.get("toolName")), said, failed),
            )
            self._add(row, entry, Role.TOOL, "toolResult", [result])
        elif role == "bashExecution":
            command = str(message.get("command") or "")
            call = ToolCallPart(
                call_id=string_of(entry.get("id")),
                name="bash (typed by the user)",
                arguments={"command": command},
                raw=message,
                action=tools.action("bash", {"command": command}),
            )
            code = whole(message.get("exitCode"))
            result = ToolResultPart(
                call_id=string_of(entry.get("id")),
                name="bash",
                is_error=code not in (None, 0) or message.get("cancelled") is True,
                content=(TextPart(text=str(message.get("output") or "")),),
                raw=message,
                outcome=tools.typed_outcome(message),
            )
            # `!!` commands are shown but kept out of the model's context
            seen = Visibility(user=True, agent=message.get("excludeFromContext") is not True)
            self._add(row, entry, Role.USER, "bashExecution", [call, result], visibility=seen)
        elif role in ("compactionSummary", "branchSummary"):
            self._notice(row, entry, str(role), str(message.get("summary") or ""))
        elif role == "custom":
            shown = message.get("display") is True
            self._add(
                row,
                entry,
                Role.USER,
                "custom",
                _blocks(message.get("content")),
                visibility=Visibility(user=shown, agent=True),
            )
        else:
            part = UnsupportedPart(
                source_type=str(role), raw_text=dump(message), reason=f"a {role!r} message"
            )
            self._add(row, entry, Role.UNKNOWN, str(role), [part])


def _log(path: Path) -> LinesLog:
    """The log read line by line: on from where it was left as it grows."""
    return LinesLog(_Reader(path.stem.rsplit("_", 1)[-1]), _result, KIND)


def _result(reader: _Reader, path: Path) -> ParsedSession:
    """The session of what was read, from its messages' tally (most of a long log's are out
    of memory: `MessagePages`)."""
    tally = reader.messages.tally()
    first = tally.title or ""
    title = reader.name or (first if len(first) <= TITLE_CHARS else first[: TITLE_CHARS - 1] + "…")
    provider, model = reader.models[-1] if reader.models else (None, None)
    session = Session(
        id=reader.session_id,
        name=title or path.stem,
        working_dir=reader.cwd,
        created_at=reader.started or tally.first,
        updated_at=tally.last or reader.started,  # none recorded: unknown
        last_message_at=tally.last,
        message_count=tally.shown,
        provider=provider,
        model=model,
        usage=tally.current or TokenUsage(),
        # Each figure the replies' added up; unknown when no reply recorded it (pi's first
        # sessions wrote no `totalTokens`): an unknown figure is not zero.
        accumulated_usage=tally.summed(),
        cost=tally.total_cost,
    )
    return ParsedSession(session=session, messages=reader.messages.view())


def parse(path: Path, data: bytes) -> ParsedSession:
    return read_log(_log, path, data)


def sniff(head: bytes) -> bool:
    """pi's header line: `{"type":"session", … "cwd" …}` first."""
    first = head.lstrip().split(b"\n", 1)[0]
    return first.startswith(b"{") and (
        b'"type":"session"' in first or b'"type": "session"' in first
    )


FORMAT = FileFormat(
    kind=KIND,
    suffixes=(".jsonl",),
    sniff=sniff,
    parse=parse,
    open_log=_log,
    depth=1,
    resume=resume,
)
