"""A message → the blocks a transcript shows: one per part, each with a title, an HTML body
and whether it starts collapsed. Shared by the window and (later) the HTML export.

Huge tool output is never rendered whole here: a collapsed block carries only its size and a
preview; the full body is rendered when the user expands it.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from html import escape, unescape
from typing import assert_never

from desktop_app.domain.actions import (
    OtherTool,
    Outcome,
    ShellCommand,
    ShellOutcome,
    action_of,
)
from desktop_app.domain.jsontext import dumps, dumps_head
from desktop_app.domain.message import Message, Role
from desktop_app.domain.parts import (
    UNRECORDED,
    ActionRequiredPart,
    AudioPart,
    Citation,
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
from desktop_app.rendering import formatting
from desktop_app.rendering.ansi import ansi_to_html
from desktop_app.rendering.links import safe_link
from desktop_app.rendering.markdown_html import (
    COPY_SCHEME,
    HIGHLIGHT_LIMIT,
    PLAIN_STYLE,
    SHOWN_LIMIT,
    Budget,
    RenderedMarkdown,
    has_long_run,
    highlight_code,
    more_links,
    render_markdown,
    show_controls,
)
from desktop_app.rendering.notices import (
    REDACTED_REASONING,
    RUN_BY_CLIENT,
    SUMMARY_NOTICES,
    TERMINAL_NOTICES,
    TOKEN_LIMIT_NOTICE,
    adds_to_text,
    notification_label,
    notification_link,
)
from desktop_app.rendering.tool_cards import (
    call_card,
    covers,
    failed,
    headline,
    outcome_html,
    outcome_preview,
    outcome_words,
    tool_title,
)

PREVIEW_CHARS = 160
BODY_CHARS_LIMIT = 200_000
LONG_RUN_SHARE = 16
"""A text with a run that has nowhere to wrap shows a sixteenth as much at first (4 kB, more
than a screen of it): even wrapping anywhere, QML lays such a run out about five times slower
a character than prose (16 kB in 54 ms of the GUI thread), and 4 kB is one piece of it
(`ANYWHERE_PIECE_CHARS` in the transcript's model), so the first view has no seam."""
MORE_FACTOR = 4
MORE_STEPS = 2
"""Show more shows 4× as much, twice (64 kB → 256 kB → 1 MB); then Copy all or Save all."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Block:
    kind: str
    title: str = ""
    html: str = ""
    preview: str = ""
    collapsible: bool = False
    collapsed: bool = False
    error: bool = False
    size_label: str = ""
    image_index: int = -1
    """Index into `RenderedMessage.images` when this block shows an image."""
    code_blocks: "tuple[str | JsonSource, ...]" = ()
    """Sources of the code blocks in `html`, in order, for their copy and save links."""
    wrap_anywhere: bool = False
    """The text shown has a long run with nowhere to wrap (see `markdown_html.LONG_RUN`)."""


@dataclass(frozen=True, slots=True)
class JsonSource:
    """A JSON value shown in part, written out whole only when it is copied or saved: the
    rendered block keeps the value the message already holds, never a second, 19 MB text."""

    value: object

    def text(self) -> str:
        return dumps(self.value, indent=2)


@dataclass(frozen=True, kw_only=True, slots=True)
class RenderedMessage:
    role_label: str
    time_label: str
    model_label: str
    agent_only: bool
    muted: bool = False
    """Interim text between tool calls (everruns' `commentary` phase): shown muted."""
    blocks: tuple[Block, ...]
    images: tuple[ImagePart, ...]


SESSION_SCHEME = "gander-session"
"""Links to another session of the same history (a sub-agent's transcript), opened in place."""
PHASE_LABELS = {"commentary": "commentary", "final_answer": "final answer"}


def _role_label(role: str, message: Message) -> str:
    """ "Assistant · commentary" (everruns' interim text between tool calls), "User · Alice
    (slack)" for a person speaking through a chat integration."""
    label = role.capitalize()
    phase = PHASE_LABELS.get(message.phase or "")
    if phase and message.role is Role.ASSISTANT:
        label += f" · {phase}"
    author = message.author
    if author is not None and (author.name or author.external_id):
        label += f" · {author.name or author.external_id} ({author.kind})"
    return label


def _citations_html(citations: Sequence[Citation]) -> str:
    """Numbered sources under the text; a link only for http(s), and only after a click."""
    items = []
    for number, citation in enumerate(citations, 1):
        title = escape(show_controls(citation.title or citation.uri or "source"))
        link = safe_link(citation.uri)
        shown = f'<a href="{escape(link, quote=True)}">{title}</a>' if link else title
        items.append(f"<li>[{number}] {shown}</li>")
    return f"<ul class='citations'>{''.join(items)}</ul>" if items else ""


def _image_elsewhere(part: ImagePart) -> Block:
    """An image whose bytes are not in the message: a link (never fetched by itself) or a
    reference to an image kept by the server."""
    link = safe_link(part.url)
    if link is not None:
        html = f'<a href="{escape(link, quote=True)}">{escape(show_controls(link))}</a>'
        return Block(kind="link", title="Image at a link (not loaded)", html=html)
    reference = part.file_ref or part.url or "?"
    return Block(
        kind="image",
        title=f"Image stored on the server · {show_controls(reference)}",
        html="",
    )


def _is_patch(text: str) -> bool:
    """A unified diff or an `apply_patch` patch: shown with its added and removed lines."""
    head = text.lstrip()[:200]
    return head.startswith(("*** Begin Patch", "diff --git", "--- ", "@@ "))


def _sub_agent_link(session_id: str) -> str:
    """The line that opens a sub-agent's transcript in place; the HTML export turns it into
    the session's id (`html_export.without_window_links`)."""
    target = escape(f"{SESSION_SCHEME}:{session_id}", quote=True)
    return f'<p><a href="{target}">Open the sub-agent\'s transcript ({escape(session_id)})</a></p>'


def _outcome(result: ToolResultPart, failure: str) -> str:
    """What a result's title says of its outcome: nothing where the source recorded none."""
    if result.is_error:
        return f" · ✗ {failure}"
    return "" if result.status == UNRECORDED else " · ✓ ok"


def _one_line(text: str) -> str:
    """The first words, on one line; only the start of the text is looked at."""
    flat = show_controls(" ".join(text[: PREVIEW_CHARS * 8].split()))
    return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 1] + "…"


_TAG = re.compile(r"<[^>]*(?:>|$)")


def _read_preview(html: str) -> str:
    """A rendered Markdown text's first words as they read, its marks (`**`, `#`, backticks)
    gone: a Codex reasoning summary begins "**Listing the files**"."""
    return _one_line(unescape(_TAG.sub(" ", html[: PREVIEW_CHARS * 32])))


def _pre_part(shown: str, hidden: int, whole: int | None, *, more: bool, wrap: bool = False) -> str:
    """`shown` preformatted (wrapped at the card's edge when `wrap`); when `hidden` characters
    follow, a note with `more_links`."""
    style = ' style="white-space:pre-wrap"' if wrap else ""
    html = f"<pre{style}>{escape(show_controls(shown))}</pre>"
    if hidden <= 0:
        return html
    links = more_links(whole, more=more)
    dash = " — " if links else ""
    return html + f"<p><i>… {formatting.byte_size(hidden)} more not shown{dash}</i>{links}</p>"


def _json_size(value: object) -> int:
    """About how many characters `value` takes as JSON (its strings, numbers and keys): for
    the "N MB more" note, without writing 19 MB out."""
    total, stack = 0, [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            total += 2 + sum(len(str(key)) + 4 for key in item)
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            total += 2
            stack.extend(item)
        else:
            total += len(item) + 2 if isinstance(item, str) else len(str(item))
    return total


class MessageRenderer:
    """Stateless apart from its settings; safe to call from a worker thread.

    Each message renders within a time `Budget` (code after it is spent stays plain). The window
    shows at most `shown_limit` characters of each text (more after Show more); exports pass
    `None` and get all of it."""

    def __init__(
        self,
        *,
        dark: bool = False,
        shown_limit: int | None = SHOWN_LIMIT,
        offer_more: bool = True,
        model_copies: bool = True,
    ) -> None:
        self.dark = dark
        self.shown_limit = shown_limit
        self.offer_more = offer_more
        self.model_copies = model_copies
        """Whether a tool result's copy sent to the model only is shown beside the user's copy
        (the window: yes, collapsed; an export: only with its agent-only messages)."""

    def with_more(self, level: int) -> "MessageRenderer":
        """A renderer that shows `MORE_FACTOR`**`level` times as much of long texts (Show
        more, clicked `level` times), up to `MORE_STEPS` clicks; beyond that, Copy all and
        Save all remain: the window never lays out a whole 20 MB text."""
        if level <= 0 or self.shown_limit is None:
            return self
        level = min(level, MORE_STEPS)
        return MessageRenderer(
            dark=self.dark,
            shown_limit=self.shown_limit * MORE_FACTOR**level,
            offer_more=level < MORE_STEPS,
            model_copies=self.model_copies,
        )

    @property
    def _limit(self) -> int:
        """Characters of preformatted text and JSON shown (the window's more when asked)."""
        return BODY_CHARS_LIMIT if self.shown_limit is None else self.shown_limit

    def _pre(self, text: str, whole: int | None = None) -> str:
        """`text`'s first characters; past them Show more, and when the text is code block
        `whole`, Copy all and Save all."""
        more = self.offer_more and self.shown_limit is not None
        return _pre_part(text[: self._limit], len(text) - self._limit, whole, more=more)

    def _json(self, value: object, budget: Budget, whole: int) -> str:
        """Indented JSON, highlighted when it is small; a value larger than the limit is shown
        in part without ever being written out whole."""
        text, complete = dumps_head(value, indent=2, limit=self._limit)
        if not complete:
            more = self.offer_more and self.shown_limit is not None
            return _pre_part(text, _json_size(value) - len(text), whole, more=more)
        if len(text) > HIGHLIGHT_LIMIT:
            return self._pre(text, whole)
        return f"<pre>{highlight_code(text, 'json', dark=self.dark, budget=budget)}</pre>"

    def _markdown(self, text: str, budget: Budget) -> RenderedMarkdown:
        limit = self.shown_limit
        if limit is not None and has_long_run(text[:limit]):
            limit //= LONG_RUN_SHARE
        return render_markdown(
            text, dark=self.dark, budget=budget, shown_limit=limit, offer_more=self.offer_more
        )

    def render(self, message: Message, tool_names: dict[str, str] | None = None) -> RenderedMessage:
        images: list[ImagePart] = []
        blocks: list[Block] = []
        budget = Budget.of()
        for part in shown_parts(message.parts):
            blocks.extend(self._blocks(part, images, tool_names or {}, budget))
        if message.output_token_limit_reached:
            blocks.append(Block(kind="notice", title="Output token limit", html=TOKEN_LIMIT_NOTICE))
        role = message.role_raw if message.role is Role.UNKNOWN else message.role.value
        if message.tool_results_only:
            role = "tool"
        return RenderedMessage(
            role_label=_role_label(role, message),
            time_label=formatting.utc_time(message.created_at),
            model_label=(message.inference.model or "") if message.inference else "",
            agent_only=not message.visibility.user,
            muted=message.phase == "commentary" and message.role is Role.ASSISTANT,
            blocks=tuple(blocks),
            images=tuple(images),
        )

    def _blocks(
        self, part: Part, images: list[ImagePart], names: dict[str, str], budget: Budget
    ) -> list[Block]:
        match part:
            case TextPart():
                hidden = part.annotations is not None and not part.annotations.shown_to("user")
                markdown = self._markdown(part.text, budget)
                return [
                    Block(
                        kind="text",
                        title="For the model only" if hidden else "",
                        html=markdown.html + _citations_html(part.citations),
                        code_blocks=markdown.code_blocks,
                        wrap_anywhere=markdown.long_runs,
                    )
                ]
            case ImagePart() if part.data_b64 is None:
                return [_image_elsewhere(part)]
            case ImagePart():
                images.append(part)
                size = formatting.byte_size(formatting.base64_size(part.data_b64))
                return [
                    Block(
                        kind="image",
                        title=f"Image · {part.mime_type or 'unknown type'} · {size}",
                        image_index=len(images) - 1,
                    )
                ]
            case ReasoningPart():
                markdown = self._markdown(part.text, budget)
                return [
                    Block(
                        kind="reasoning",
                        title="Thinking",
                        preview=_read_preview(markdown.html),
                        html=markdown.html,
                        code_blocks=markdown.code_blocks,
                        wrap_anywhere=markdown.long_runs,
                        collapsible=True,
                        collapsed=True,
                    )
                ]
            case RedactedReasoningPart():
                return [Block(kind="reasoning", title=REDACTED_REASONING)]
            case ToolCallPart():
                return [self._tool_call(part, budget)]
            case ToolResultPart():
                return self._tool_result(part, images, names, budget)
            case NotificationPart() if part.notification_type in SUMMARY_NOTICES:
                markdown = self._markdown(part.text, budget)
                return [
                    Block(
                        kind="notice",
                        title=notification_label(part.notification_type),
                        preview=_read_preview(markdown.html),
                        html=markdown.html,
                        code_blocks=markdown.code_blocks,
                        wrap_anywhere=markdown.long_runs,
                        collapsible=True,
                        collapsed=True,
                    )
                ]
            case NotificationPart():
                # Notices are often what a terminal showed (Claude Code's hook lines are bold).
                html = ansi_to_html(part.text, dark=self.dark)
                if part.notification_type in TERMINAL_NOTICES:
                    html = f'<span style="{PLAIN_STYLE}">{html}</span>'
                link = notification_link(part)
                if link is not None:
                    html += f' <a href="{escape(link, quote=True)}">{escape(link)}</a>'
                title = notification_label(part.notification_type)
                return [Block(kind="notice", title=title, html=html)]
            case ErrorPart():
                return [self._error(part)]
            case ActionRequiredPart():
                body = escape(part.prompt or part.message or "")
                payload = part.arguments if part.arguments is not None else part.data
                if payload is not None:
                    body += self._json(payload, budget, 0)
                title = f"Action required · {part.action_type}"
                if part.tool_name:
                    title += f" · {part.tool_name}"
                codes = (JsonSource(payload),) if payload is not None else ()
                return [Block(kind="action", title=title, html=body, code_blocks=codes)]
            case FilePart() | AudioPart():
                size = formatting.byte_size(formatting.base64_size(part.data_b64))
                name = getattr(part, "name", None)
                label = "Document" if isinstance(part, FilePart) else "Audio"
                title = (
                    f"{label}{' ' + name if name else ''} · {part.mime_type or 'unknown'} · {size}"
                )
                return [Block(kind="file", title=title)]
            case ResourcePart():
                text = part.text if part.text is not None else ""
                size = formatting.byte_size(
                    len(text.encode())
                    if part.text is not None
                    else formatting.base64_size(part.blob_b64)
                )
                return [
                    Block(
                        kind="resource",
                        title=f"Resource · {part.uri or '?'} · {size}",
                        html=self._pre(text, 0) if text else "",
                        code_blocks=(text,) if text else (),
                        preview=_one_line(text),
                        collapsible=bool(text),
                        collapsed=True,
                    )
                ]
            case ResourceLinkPart():
                label = escape(show_controls(part.name or part.uri or ""))
                link = safe_link(part.uri)
                body = f'<a href="{escape(link, quote=True)}">{label}</a>' if link else label
                if link is None and part.uri and part.name:
                    body += f" <code>{escape(show_controls(part.uri))}</code>"
                return [Block(kind="link", title="Link to resource", html=body)]
            case UnsupportedPart():
                return [
                    Block(
                        kind="unsupported",
                        title=f"Unsupported content · {part.reason}",
                        html=self._pre(part.raw_text, 0),
                        code_blocks=(part.raw_text,),
                        preview=_one_line(part.raw_text),
                        collapsible=True,
                        collapsed=len(part.raw_text) > 400,
                        error=True,
                    )
                ]
            case _:
                assert_never(part)

    def _error(self, part: ErrorPart) -> Block:
        """The error's message wrapped at the card's edge: it is a sentence, not code, and
        unwrapped its end ran past the card, unseen (a run with nowhere to wrap shows a quarter
        as much and may break anywhere, as a text does)."""
        shown = self._limit
        long = has_long_run(part.message[:shown])
        if long:
            shown //= LONG_RUN_SHARE
        more = self.offer_more and self.shown_limit is not None
        html = _pre_part(
            part.message[:shown], len(part.message) - shown, None, more=more, wrap=True
        )
        return Block(
            kind="error",
            title=f"Error · {part.error_kind}",
            html=html,
            error=True,
            wrap_anywhere=long,
        )

    def _tool_call(self, part: ToolCallPart, budget: Budget) -> Block:
        if part.error is not None:
            return Block(
                kind="tool_call", title="Tool call failed", html=self._pre(part.error), error=True
            )
        action = action_of(part)
        if isinstance(action, OtherTool) and not isinstance(part.arguments, dict):
            return self._raw_call(part, budget)
        if isinstance(action, ShellCommand) and action.description:
            title = show_controls(action.description)
        else:
            title = headline(action, limit=self._limit).plain()
        if part.frontend:
            title += f" · {RUN_BY_CLIENT}"
        if part.summary_title:
            title += f" — {part.summary_title}"
        card = call_card(
            action,
            dark=self.dark,
            limit=self._limit,
            more=self.offer_more and self.shown_limit is not None,
            budget=budget,
            markdown=lambda text: self._markdown(text, budget).html,
        )
        raw: str | JsonSource = (
            part.arguments if isinstance(part.arguments, str) else JsonSource(part.arguments)
        )
        return Block(
            kind="tool_call",
            title=title,
            html=card.html,
            code_blocks=(raw, *card.codes),
            preview=card.preview,
            collapsible=card.collapsed,
            collapsed=card.collapsed,
        )

    def _raw_call(self, part: ToolCallPart, budget: Budget) -> Block:
        """A call no reader maps whose arguments are no object: shown as stored."""
        title = tool_title(part.extension, part.tool)
        if part.frontend:
            title += f" · {RUN_BY_CLIENT}"
        if part.summary_title:
            title += f" — {part.summary_title}"
        body = ""
        codes: tuple[str | JsonSource, ...] = ()
        if isinstance(part.arguments, str):  # a tool's raw input (Codex's apply_patch: a patch)
            text = part.arguments[: self._limit]
            codes = (part.arguments,)
            body = (
                f"<pre>{highlight_code(text, 'diff', dark=self.dark, budget=budget)}</pre>"
                if _is_patch(text) and len(part.arguments) <= self._limit
                else self._pre(part.arguments, 0)
            )
        elif part.arguments is not None:
            codes = (JsonSource(part.arguments),)
            body = self._json(part.arguments, budget, 0)
        return Block(kind="tool_call", title=title, html=body, code_blocks=codes)

    def _tool_result(
        self, part: ToolResultPart, images: list[ImagePart], names: dict[str, str], budget: Budget
    ) -> list[Block]:
        name = names.get(part.call_id or "", "") or part.name or ""
        title = f"Result{' · ' + name if name else ''}"
        failure = part.status if part.status and part.status != "success" else "error"
        if part.error_text is not None:
            return [
                Block(
                    kind="tool_result",
                    title=f"{title} · ✗ {failure}",
                    html=self._pre(part.error_text),
                    error=True,
                )
            ]
        # A line of its own above the result, not inside it (the result is collapsed): the way
        # into the sub-agent is in view, and says which session it opens.
        opener = (
            [Block(kind="tool_result", html=_sub_agent_link(part.opens_session))]
            if part.opens_session
            else []
        )
        for_user, model_only = split_audience(part.content)
        if not for_user:
            for_user, model_only = model_only, []
        texts = [item.text for item in for_user if isinstance(item, TextPart)]
        joined = "\n".join(texts)
        lines = sum(formatting.line_count(t) for t in texts)
        size = f"{lines} line{'s' if lines != 1 else ''}" if texts else ""
        copy = f'<p align="right"><a href="{COPY_SCHEME}:0">Copy</a></p>' if joined else ""
        blocks = (
            self._outcome_blocks(
                part,
                part.outcome,
                title=title,
                failure=failure,
                joined=joined,
                size=size,
            )
            if part.outcome is not None
            else [
                Block(
                    kind="tool_result",
                    title=title + _outcome(part, failure),
                    html=copy + self._pre(joined, 0) if joined else "",
                    code_blocks=(joined,) if joined else (),
                    preview=_one_line(joined),
                    collapsible=True,
                    collapsed=not part.is_error,
                    error=part.is_error,
                    size_label=size,
                )
            ]
        )
        for item in for_user:
            if not isinstance(item, TextPart):
                blocks.extend(self._blocks(item, images, names, budget))
        if adds_to_text(part.structured_content, part.content):
            blocks.append(
                Block(
                    kind="tool_result",
                    title="Structured content",
                    html=self._json(part.structured_content, budget, 0),
                    code_blocks=(JsonSource(part.structured_content),),
                    collapsible=True,
                    collapsed=True,
                )
            )
        model_texts = [item.text for item in model_only if isinstance(item, TextPart)]
        if model_only and self.model_copies:
            model_joined = "\n".join(model_texts)
            blocks.append(
                Block(
                    kind="tool_result",
                    title="Sent to the model only",
                    html=self._pre(model_joined, 0) if model_joined else "",
                    code_blocks=(model_joined,) if model_joined else (),
                    preview=_one_line(model_joined),
                    collapsible=True,
                    collapsed=True,
                )
            )
            for item in model_only:
                if not isinstance(item, TextPart):
                    blocks.extend(self._blocks(item, images, names, budget))
        return [*opener, *blocks]

    def _outcome_blocks(
        self,
        part: ToolResultPart,
        outcome: Outcome,
        *,
        title: str,
        failure: str,
        joined: str,
        size: str,
    ) -> list[Block]:
        """A result whose agent recorded what came back (`ToolResultPart.outcome`): the card
        shows it (output, numbered lines, a diff); the text as stored, when it says more than
        the card, follows collapsed. A failed command is red and open."""
        error = part.is_error or failed(outcome)
        if isinstance(outcome, ShellOutcome) and outcome.exit_code is not None:
            rest = outcome_words(replace(outcome, exit_code=None))
            status = f" · {'✗' if error else '✓'} exit {outcome.exit_code}"
            status += f" · {rest}" if rest else ""
        else:
            words = outcome_words(outcome)
            status = _outcome(part, failure) + (f" · {words}" if words else "")
        shown_html = outcome_html(
            outcome,
            dark=self.dark,
            limit=self._limit,
            more=self.offer_more and self.shown_limit is not None,
            whole=0 if joined else None,
        )
        copy = f'<p align="right"><a href="{COPY_SCHEME}:0">Copy</a></p>' if joined else ""
        blocks = [
            Block(
                kind="tool_result",
                title=title + status,
                html=copy + shown_html,
                code_blocks=(joined,) if joined else (),
                preview=_one_line(outcome_preview(outcome, joined)),
                collapsible=True,
                collapsed=not error,
                error=error,
                size_label=size if isinstance(outcome, ShellOutcome) else "",  # else its words
            )
        ]
        if joined and not covers(outcome, joined):
            blocks.append(
                Block(
                    kind="tool_result",
                    title="As returned to the model",
                    html=self._pre(joined, 0),
                    code_blocks=(joined,),
                    preview=_one_line(joined),
                    collapsible=True,
                    collapsed=True,
                )
            )
        return blocks
