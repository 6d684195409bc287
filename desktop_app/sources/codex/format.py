"""OpenAI Codex CLI rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`.

The current envelope is one `{timestamp, type, payload}` per line: `session_meta` (id, cwd,
version, provider), `turn_context` (model, cwd), `response_item` (the conversation as the
Responses API holds it: `message`, `reasoning`, `function_call` / `function_call_output`,
`custom_tool_call` / `custom_tool_call_output`, `web_search_call`, `local_shell_call`,
`ghost_snapshot` …), `event_msg` (UI events; `token_count` carries the running token totals),
`compacted`. Older rollouts have a header line `{id, timestamp}` and then the response items
themselves; their folder is only in the `<cwd>` of their `<environment_context>` message.

Shown as Codex's own view shows it: the response items, in order (the `event_msg` echoes of the
same user and agent messages are not shown twice). Text the harness injects as user messages —
`<environment_context>`, AGENTS.md instructions, `<user_instructions>`, permission notes, shell
commands, turn aborts — and `developer` messages are context the model saw, not the user
speaking: agent-only. Reasoning summaries (or content) are reasoning; reasoning that is only
`encrypted_content` (never shown) is a one-line marker on the next item of the reply. A
`ghost_snapshot` (what `/undo` restores) is a one-line notice; the server's `compaction` is a
notice, its `encrypted_content` withheld wherever it is kept; a generated image is shown.
Unified exec: the header Codex writes for the model is kept apart from what the command printed,
and an empty `write_stdin` poll's output is shown as the result of the command it polls.
`apply_patch`'s input is a patch, shown as a diff. Tokens are the last `token_count`'s running
total (adding every event would count each turn again and again). Kind `codex`.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from desktop_app.domain.jsontext import loads
from desktop_app.domain.message import Inference, Message, Role, Visibility
from desktop_app.domain.parts import (
    UNRECORDED,
    Annotations,
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
from desktop_app.domain.usage import TokenUsage
from desktop_app.sources.codex import tools
from desktop_app.sources.codex.resume import resume
from desktop_app.sources.common.raw_json import dump
from desktop_app.sources.files.history import (
    FileFormat,
    LinesLog,
    ParsedSession,
    read_log,
)
from desktop_app.sources.files.pages import MessagePages, placed
from desktop_app.sources.files.tally import Tally
from desktop_app.sources.files.values import (
    is_prompt,
    iso_time,
    listed,
    mapping,
    string_of,
    whole,
)

KIND = "codex"
HARNESS_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<permissions",
    "<user_shell_command>",
    "<turn_aborted>",
)
"""User messages Codex writes itself (the session's context, the repository's instructions)."""
TITLE_CHARS = 80


def _withheld(item: Any) -> Any:
    """An item with its `encrypted_content` withheld (reasoning, the server's compaction): it
    is opaque to everyone but the model's provider, and Codex never shows it."""
    secret = item.get("encrypted_content") if isinstance(item, dict) else None
    if not isinstance(secret, str):
        return item
    return {**item, "encrypted_content": f"[withheld by Gander: {len(secret):,} characters]"}


def _unsupported(raw: Any, reason: str) -> UnsupportedPart:
    kind = raw.get("type") if isinstance(raw, dict) else None
    return UnsupportedPart(
        source_type=kind if isinstance(kind, str) else None,
        raw_text=dump(_withheld(raw)),
        reason=reason,
    )


def _content(items: Any) -> list[Part]:
    if isinstance(items, str):
        return [TextPart(text=items, raw=items)]
    parts: list[Part] = []
    for item in items if isinstance(items, list) else []:
        kind = mapping(item).get("type")
        if kind in ("input_text", "output_text", "text") and isinstance(item.get("text"), str):
            parts.append(TextPart(text=item["text"], raw=item))
        elif kind == "input_image":
            url = string_of(item.get("image_url")) or ""
            if url.startswith("data:") and ";base64," in url:
                header, _, data = url.partition(",")
                parts.append(ImagePart(mime_type=header[5:].split(";")[0], data_b64=data, raw=item))
            else:
                parts.append(ImagePart(url=url or None, raw=item))
        else:
            parts.append(_unsupported(item, f"content of type {kind!r}"))
    return parts


def _arguments(text: Any) -> tuple[Any, str | None]:
    if not isinstance(text, str):
        return text, None
    try:
        return loads(text), text
    except (ValueError, RecursionError):
        return text, text


_EXEC_HEADER = re.compile(
    r"Chunk ID: \S*|Wall time: (?P<seconds>\d{1,12}(?:\.\d{1,12})?) seconds"
    r"|Process exited with code (?P<code>-?\d{1,12})"
    r"|Process running with session ID (?P<session>\S+)|Original token count: \d+"
)
_EXEC_ABORTED = "aborted by user"
_FOR_THE_MODEL = Annotations(audience=("assistant",))
_CWD = re.compile(r"<cwd>(.*?)</cwd>", re.DOTALL)


@dataclass(frozen=True, slots=True)
class _Output:
    """A tool's output as shown: its parts, whether it failed, how long it ran, and — for a
    unified-exec command still running — the session a `write_stdin` poll names. Codex writes
    an output without its outcome (`FunctionCallOutputPayload` drops `success` when saved), so
    only an exit code says how a call ended; any other output claims none."""

    parts: list[Part]
    failed: bool = False
    status: str | None = UNRECORDED
    duration_ms: int | None = None
    running: str | None = None


def _exec_output(text: str) -> _Output | None:
    """Unified exec's output (`exec_command`, `write_stdin`): the header Codex writes for the
    model — `Chunk ID`, `Wall time`, the exit code or the running session, the token count —
    then `Output:` and what the command printed. The TUI shows the printed text; the header
    stays, as sent to the model only, so the printed text is what the card starts with."""
    lines = text.split("\n", 6)  # the header is at most five lines, then `Output:`
    found: dict[str, str] = {}
    taken = 0
    while taken < len(lines) and (match := _EXEC_HEADER.fullmatch(lines[taken])):
        found.update({k: v for k, v in match.groupdict().items() if v is not None})
        taken += 1
    if "seconds" not in found:
        return None
    header, rest = lines[:taken], lines[taken:]
    printed = "\n".join(rest[1:] if rest[:1] == ["Output:"] else rest)
    code = int(found["code"]) if "code" in found else None
    aborted = code is None and printed.strip() == _EXEC_ABORTED
    return _Output(
        parts=[
            TextPart(text=printed, raw=text),
            TextPart(text="\n".join(header), annotations=_FOR_THE_MODEL, raw=text),
        ],
        failed=code not in (None, 0) or aborted,
        status="aborted" if aborted else (UNRECORDED if code is None else None),
        duration_ms=round(float(found["seconds"]) * 1000),
        running=found.get("session"),
    )


def _output(raw: Any) -> _Output:
    """A tool's output: text (or `{output, metadata: {exit_code}}` as some versions wrote it,
    or unified exec's header and text), and whether it failed."""
    if isinstance(raw, list):
        return _Output(_content(raw))
    if not isinstance(raw, str):
        return _Output([TextPart(text=dump(raw), raw=raw)])
    try:
        wrapped = loads(raw)
    except (ValueError, RecursionError):
        wrapped = None
    if isinstance(wrapped, dict) and isinstance(wrapped.get("output"), str):
        code = whole(mapping(wrapped.get("metadata")).get("exit_code"))
        return _Output(
            [TextPart(text=wrapped["output"], raw=raw)],
            failed=code not in (None, 0),
            status=UNRECORDED if code is None else None,
        )
    return _exec_output(raw) or _Output([TextPart(text=raw, raw=raw)])


_IMAGE_TYPES = (
    ("iVBOR", "image/png"),
    ("/9j/", "image/jpeg"),
    ("R0lGOD", "image/gif"),
    ("UklGR", "image/webp"),
)
"""How base64 image data begins, by type (the magic numbers of each format, encoded)."""


def _generated(item: dict[str, Any]) -> list[Part]:
    """An `image_generation_call`: the prompt the model gave the tool, and the image it made
    (`result`, base64; its type read from its first bytes), as Codex shows it."""
    call_id = string_of(item.get("id"))
    prompt = string_of(item.get("revised_prompt"))
    image = string_of(item.get("result"))
    status = string_of(item.get("status"))
    mime = next((m for start, m in _IMAGE_TYPES if image and image.startswith(start)), None)
    call = ToolCallPart(
        call_id=call_id,
        name="image_generation",
        arguments={"revised_prompt": prompt} if prompt is not None else None,
        raw={k: v for k, v in item.items() if k != "result"},
    )
    made = (ImagePart(mime_type=mime, data_b64=image, raw=item),) if image else ()
    result = ToolResultPart(
        call_id=call_id,
        name="image_generation",
        is_error=status not in (None, "completed"),
        status=status,
        content=made,
        raw=item,
    )
    return [call, result]


@dataclass(frozen=True, slots=True)
class _Poll:
    """An empty `write_stdin` (a poll of a running command) waiting for its output."""

    row: int
    at: datetime | None
    item: dict[str, Any]
    command: str
    """The `exec_command` call whose session it polls."""
    reasoning: tuple[Part, ...]
    """Encrypted-only reasoning of the reply that polled: shown with the poll's output."""


class _Counting:
    """What a session's figures count (`tally.Counting`)."""

    def own(self, message: Message) -> bool:
        return True

    def prompt(self, message: Message) -> str | None:
        if not is_prompt(message):
            return None
        texts = (p.text for p in message.parts if isinstance(p, TextPart) and p.text.strip())
        return next((" ".join(text.split()) for text in texts), None)

    def measured(self, message: Message) -> bool:
        return False  # the context is the rollout's own figures (`token_count`)


COUNTING = _Counting()


class _Reader:
    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.messages = MessagePages(COUNTING)
        self.cwd: str | None = None
        self.models: list[str] = []
        self.provider: str | None = None
        self.started: datetime | None = None
        self.totals: dict[str, Any] = {}
        self.context: dict[str, Any] = {}
        self.redacted: list[tuple[int, datetime | None, Part]] = []
        """Encrypted-only reasoning not yet shown: it goes into the next item of the reply."""
        self.running: dict[str, str] = {}
        """Unified-exec sessions still running, to the `exec_command` call that started them."""
        self.polls: dict[str, _Poll] = {}
        self.tools: dict[str, str | None] = {}
        """Each call's tool by its `call_id`: an output names only the call it answers."""

    def _message(
        self,
        row: int,
        at: datetime | None,
        role: Role,
        raw_role: str,
        parts: Sequence[Part],
        **fields: Any,
    ) -> Message:
        return Message(
            session_id=self.session_id,
            row_id=row,
            message_id=None,
            role=role,
            role_raw=raw_role,
            created_at=at,
            created_raw=None,
            parts=tuple(parts),
            **fields,
        )

    def _add(
        self,
        row: int,
        at: datetime | None,
        role: Role,
        raw_role: str,
        parts: Sequence[Part],
        **fields: Any,
    ) -> None:
        """One message; encrypted-only reasoning before it joins a model item as its first
        line (Codex shows nothing for it), or stands alone before anything else."""
        if self.redacted and role is Role.ASSISTANT:
            parts = [*(part for _, _, part in self.redacted), *parts]
            self.redacted.clear()
        elif self.redacted:
            self.messages.append(self.unjoined())
            self.redacted.clear()
        self.messages.append(self._message(row, at, role, raw_role, parts, **fields))

    def unjoined(self) -> Message:
        """The encrypted-only reasoning not yet followed by a model item, as its own line."""
        row, at, _ = self.redacted[0]
        parts = [part for _, _, part in self.redacted]
        return self._message(row, at, Role.ASSISTANT, "reasoning", parts)

    def waiting(self) -> list[Message]:
        """What was read but is held for what follows — reasoning before its item, polls
        before their output — as it stands now."""
        held = []
        for poll in self.polls.values():
            call = self._call(poll.row, poll.at, poll.item, "function_call")
            held.append(replace(call, parts=(*poll.reasoning, *call.parts)))
        if self.redacted:
            held.append(self.unjoined())
        return held

    def take(self, row: int, line: dict[str, Any]) -> None:
        kind = line.get("type")
        at = iso_time(line.get("timestamp"))
        payload = mapping(line.get("payload"))
        if kind == "session_meta":
            self.session_id = string_of(payload.get("id")) or self.session_id
            self.cwd = string_of(payload.get("cwd")) or self.cwd
            self.provider = string_of(payload.get("model_provider")) or self.provider
            self.started = iso_time(payload.get("timestamp")) or at
        elif kind == "turn_context":
            self.cwd = string_of(payload.get("cwd")) or self.cwd
            if isinstance(payload.get("model"), str):
                self.models.append(payload["model"])
        elif kind == "response_item":
            self.item(row, at, payload)
        elif kind == "event_msg" and payload.get("type") == "token_count":
            info = mapping(payload.get("info"))
            if isinstance(info.get("total_token_usage"), dict):
                self.totals = info["total_token_usage"]
            if isinstance(info.get("last_token_usage"), dict):
                self.context = info["last_token_usage"]
        elif kind == "compacted":
            text = string_of(payload.get("message")) or "The conversation was compacted."
            history = payload.get("replacement_history")
            if isinstance(history, list):  # it may hold reasoning and the server's compaction
                payload = {**payload, "replacement_history": [_withheld(i) for i in history]}
            notice = NotificationPart(notification_type="contextCompacted", text=text, raw=payload)
            self._add(row, at, Role.SYSTEM, "compacted", [notice])
        elif kind is None and ("role" in line or "call_id" in line):
            self.item(row, at, line)  # a pre-envelope rollout: the items themselves
        elif kind is None and isinstance(line.get("id"), str) and row == 0:
            self.session_id = line["id"]  # the old header line
            self.started = at
        elif isinstance(kind, str) and "payload" not in line:
            self.item(row, at, line)  # a pre-envelope item of any type

    def _call(self, row: int, at: datetime | None, item: dict[str, Any], kind: str) -> Message:
        model = self.models[-1] if self.models else None
        raw_arguments = item.get("arguments", item.get("input", item.get("action")))
        arguments: Any = raw_arguments
        given_text: str | None = None
        if kind == "function_call":
            arguments, given_text = _arguments(raw_arguments)
        name = string_of(item.get("name")) or ("shell" if kind == "local_shell_call" else None)
        call = ToolCallPart(
            call_id=string_of(item.get("call_id")),
            name=name,
            arguments=arguments,
            arguments_raw=given_text,
            raw=item,
            action=tools.action("local_shell" if kind == "local_shell_call" else name, arguments),
        )
        if call.call_id:
            self.tools[call.call_id] = name
        inference = Inference(requested_model=model) if model else None
        return self._message(row, at, Role.ASSISTANT, kind, [call], inference=inference)

    def _poll(self, row: int, at: datetime | None, item: dict[str, Any]) -> bool:
        """Hold an empty `write_stdin` of a running command: its output is shown as the
        command's (Codex's TUI shows one command, not each wait for it)."""
        arguments, _ = _arguments(item.get("arguments"))
        call_id = string_of(item.get("call_id"))
        if item.get("name") != "write_stdin" or not isinstance(arguments, dict) or not call_id:
            return False
        command = self.running.get(str(arguments.get("session_id")))
        if arguments.get("chars") not in (None, "") or command is None:
            return False
        reasoning = tuple(part for _, _, part in self.redacted)
        self.redacted.clear()
        self.polls[call_id] = _Poll(row, at, item, command, reasoning)
        return True

    def _reasoning(
        self, row: int, at: datetime | None, item: dict[str, Any], inference: Inference | None
    ) -> None:
        """Summary or content (content when both: the summary is written from it); reasoning
        that is only `encrypted_content` waits to join the next item as its first line."""
        summary = [
            s["text"]
            for s in listed(item.get("summary"))
            if isinstance(s, dict) and isinstance(s.get("text"), str)
        ]
        content = [
            c["text"]
            for c in listed(item.get("content"))
            if isinstance(c, dict) and isinstance(c.get("text"), str)
        ]
        shown = _withheld(item)
        odd = [k for k in ("summary", "content") if not isinstance(item.get(k), list | None)]
        if odd and not (content or summary):  # neither a list nor absent: shown as it is
            part: Part = _unsupported(item, f"reasoning whose {odd[0]} is not a list")
            self._add(row, at, Role.ASSISTANT, "reasoning", [part], inference=inference)
        elif content or summary:
            text = "\n\n".join(content or summary)
            part = ReasoningPart(text=text, is_summary=not content, raw=shown)
            self._add(row, at, Role.ASSISTANT, "reasoning", [part], inference=inference)
        else:
            self.redacted.append((row, at, RedactedReasoningPart(raw=shown)))

    def _result(self, row: int, at: datetime | None, item: dict[str, Any], kind: str) -> None:
        """A tool's output; a poll's is shown as the output of the command it waited for."""
        call_id = string_of(item.get("call_id"))
        output = _output(item.get("output"))
        poll = self.polls.pop(call_id, None) if call_id else None
        if output.running and call_id:
            started = self.running.get(output.running, call_id)  # typed into, still running
            self.running[output.running] = poll.command if poll else started
        elif poll is not None:
            self.running = {k: v for k, v in self.running.items() if v != poll.command}
        answered = poll.command if poll else call_id
        result = ToolResultPart(
            call_id=answered,
            outcome=tools.outcome(self.tools.get(answered or ""), item.get("output")),
            is_error=output.failed,
            status=output.status,
            duration_ms=output.duration_ms,
            content=tuple(output.parts),
            raw=[poll.item, item] if poll else item,
        )
        self._add(row, at, Role.TOOL, kind, [*(poll.reasoning if poll else ()), result])

    def item(self, row: int, at: datetime | None, item: dict[str, Any]) -> None:
        kind = item.get("type")
        model = self.models[-1] if self.models else None
        inference = Inference(requested_model=model) if model else None
        if kind == "message":
            role_raw = string_of(item.get("role")) or "?"
            parts = _content(item.get("content"))
            text = "".join(p.text for p in parts if isinstance(p, TextPart)).lstrip()
            if role_raw == "user" and text.startswith("<environment_context>") and not self.cwd:
                found = _CWD.search(text)  # pre-envelope rollouts name the folder only here
                self.cwd = found.group(1).strip() if found else None
            if role_raw == "user" and not text.startswith(HARNESS_PREFIXES):
                self._add(row, at, Role.USER, role_raw, parts)
            elif role_raw == "assistant":
                self._add(row, at, Role.ASSISTANT, role_raw, parts, inference=inference)
            else:
                hidden = Visibility(user=False, agent=True)
                role = Role.USER if role_raw == "user" else Role.SYSTEM
                self._add(row, at, role, role_raw, parts, visibility=hidden)
        elif kind == "reasoning":
            self._reasoning(row, at, item, inference)
        elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
            if kind == "function_call" and self._poll(row, at, item):
                return
            message = self._call(row, at, item, str(kind))
            self._add(row, at, Role.ASSISTANT, str(kind), message.parts, inference=inference)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            self._result(row, at, item, kind)
        elif kind == "image_generation_call":
            self._add(row, at, Role.ASSISTANT, kind, _generated(item), inference=inference)
        elif kind in ("compaction", "compaction_summary", "context_compaction"):
            text = "The conversation was compacted by the server; its summary is encrypted."
            notice = NotificationPart(
                notification_type="contextCompacted", text=text, raw=_withheld(item)
            )
            self._add(row, at, Role.SYSTEM, kind, [notice])
        elif kind == "ghost_snapshot":
            commit = string_of(mapping(item.get("ghost_commit")).get("id"))
            text = "working tree snapshot" + (f" · commit {commit[:7]}" if commit else "")
            notice = NotificationPart(notification_type="ghostSnapshot", text=text, raw=item)
            self._add(row, at, Role.SYSTEM, kind, [notice])
        elif kind == "web_search_call":
            action = mapping(item.get("action"))
            call = ToolCallPart(
                call_id=string_of(item.get("id")),
                name="web_search",
                arguments=action or item,
                raw=item,
                action=tools.action("web_search", action),
            )
            self._add(row, at, Role.ASSISTANT, kind, [call], inference=inference)
        else:
            self._add(row, at, Role.UNKNOWN, str(kind), [_unsupported(item, f"a {kind!r} item")])


def _tokens(raw: dict[str, Any]) -> TokenUsage:
    if not raw:
        return TokenUsage()
    given, produced = whole(raw.get("input_tokens")), whole(raw.get("output_tokens"))
    reasoning = whole(raw.get("reasoning_output_tokens"))
    total = whole(raw.get("total_tokens"))
    if total is None and given is not None and produced is not None:
        total = whole(given + produced + (reasoning or 0))  # 64 bits, as every figure
    return TokenUsage(
        input_tokens=given,
        output_tokens=produced,
        total_tokens=total,
        cache_read_tokens=whole(raw.get("cached_input_tokens")),
        reasoning_tokens=reasoning,
    )


def _log(path: Path) -> LinesLog:
    """The log read line by line: on from where it was left as it grows."""
    return LinesLog(_Reader(path.stem[-36:] if len(path.stem) >= 36 else path.stem), _result, KIND)


def _result(reader: _Reader, path: Path) -> ParsedSession:
    """The session of what was read, from its messages' tally (most of a long log's are out
    of memory: `MessagePages`)."""
    # What is held back is shown in its place: a poll may be followed by other items (never
    # a prompt, so the title is the tally's either way).
    held = reader.waiting()
    tally = reader.messages.tally().then(Tally.of(held, COUNTING))
    messages = placed(reader.messages.view(), held)
    title = tally.title or path.stem
    session = Session(
        id=reader.session_id,
        name=title if len(title) <= TITLE_CHARS else title[: TITLE_CHARS - 1] + "…",
        working_dir=reader.cwd,
        created_at=reader.started or tally.first,
        # No recorded time (a legacy rollout) is an unknown one: the file's time says when it
        # was copied, not when the session ran (it was filed under Today).
        updated_at=tally.last or reader.started,
        last_message_at=tally.last,
        message_count=tally.shown,
        provider=reader.provider,
        model=reader.models[-1] if reader.models else None,
        usage=_tokens(reader.context),
        accumulated_usage=_tokens(reader.totals),
    )
    return ParsedSession(session=session, messages=messages)


def parse(path: Path, data: bytes) -> ParsedSession:
    return read_log(_log, path, data)


def sniff(head: bytes) -> bool:
    """A rollout: the envelope's `session_meta` first, or the old header — a first line with
    `id` and `timestamp` and no `type`."""
    first = head.lstrip().split(b"\n", 1)[0]
    if not first.startswith(b"{"):
        return False
    if b'"session_meta"' in first[:4096]:
        return True
    try:
        line = loads(first)
    except (ValueError, RecursionError):
        return False
    return isinstance(line, dict) and "type" not in line and {"id", "timestamp"} <= set(line)


FORMAT = FileFormat(
    kind=KIND,
    suffixes=(".jsonl",),
    sniff=sniff,
    parse=parse,
    open_log=_log,
    depth=3,
    resume=resume,
)
