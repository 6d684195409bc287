"""The pieces a message is made of.

One class per kind of content any supported agent stores. Every part keeps `raw`, the exact JSON
fragment it was parsed from, so an "inspect source" view and exports lose nothing, and so a part we
only half understand can still be shown faithfully. Content we do not understand at all becomes an
`UnsupportedPart` that carries its raw text: it is displayed, never dropped.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from desktop_app.domain.actions import Action, Outcome

JsonValue = Any
"""A value as `json.loads` returns it."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Annotations:
    """MCP annotations: who a content item is meant for, and how important it is."""

    audience: tuple[str, ...] | None = None
    priority: float | None = None
    last_modified: str | None = None

    def shown_to(self, role: str) -> bool:
        """goose's `filter_for_audience`: no audience means everyone."""
        return self.audience is None or role in self.audience


def shown_to(annotations: Annotations | None, role: str) -> bool:
    return annotations is None or annotations.shown_to(role)


@dataclass(frozen=True, kw_only=True, slots=True)
class Citation:
    """A span of text backed by a source (everruns text annotations)."""

    start: int | None = None
    end: int | None = None
    uri: str | None = None
    title: str | None = None


@dataclass(frozen=True, kw_only=True)
class PartBase:
    raw: JsonValue = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, kw_only=True)
class TextPart(PartBase):
    kind: ClassVar[str] = "text"
    text: str
    annotations: Annotations | None = None
    citations: tuple[Citation, ...] = ()


@dataclass(frozen=True, kw_only=True)
class ImagePart(PartBase):
    """An image, inline (base64) or by reference. A URL is never fetched automatically."""

    kind: ClassVar[str] = "image"
    mime_type: str | None = None
    data_b64: str | None = None
    url: str | None = None
    file_ref: str | None = None
    annotations: Annotations | None = None


@dataclass(frozen=True, kw_only=True)
class AudioPart(PartBase):
    kind: ClassVar[str] = "audio"
    mime_type: str | None = None
    data_b64: str | None = None
    annotations: Annotations | None = None


@dataclass(frozen=True, kw_only=True)
class FilePart(PartBase):
    """An attached document (goose `document`, everruns `file`, glean `UserFile`)."""

    kind: ClassVar[str] = "file"
    mime_type: str | None = None
    name: str | None = None
    data_b64: str | None = None
    url: str | None = None
    file_ref: str | None = None


@dataclass(frozen=True, kw_only=True)
class ResourcePart(PartBase):
    """An MCP embedded resource: text or a base64 blob, named by URI."""

    kind: ClassVar[str] = "resource"
    uri: str | None = None
    mime_type: str | None = None
    text: str | None = None
    blob_b64: str | None = None
    annotations: Annotations | None = None


@dataclass(frozen=True, kw_only=True)
class ResourceLinkPart(PartBase):
    """An MCP `resource_link`: a pointer only, nothing embedded."""

    kind: ClassVar[str] = "resource_link"
    uri: str | None = None
    name: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    annotations: Annotations | None = None


@dataclass(frozen=True, kw_only=True)
class ToolCallPart(PartBase):
    """A request by the model to run a tool.

    `error` is set when the call itself could not be formed (goose `toolCall.status == "error"`,
    arguments that did not parse); `name` and `arguments` are then usually absent.
    """

    kind: ClassVar[str] = "tool_call"
    call_id: str | None = None
    name: str | None = None
    arguments: JsonValue = None
    arguments_raw: str | None = None
    error: str | None = None
    frontend: bool = False
    meta: Mapping[str, JsonValue] | None = None
    action: "Action | None" = field(default=None, compare=False)
    """What the call did, as its reader understood the tool (`domain.actions`); `None` for a
    tool no reader maps (`actions.action_of` makes it an `OtherTool`)."""

    @property
    def extension(self) -> str | None:
        """The part of a goose tool name before the first `__`, e.g. `developer`."""
        if self.name and "__" in self.name:
            return self.name.split("__", 1)[0]
        return None

    @property
    def tool(self) -> str | None:
        """The tool proper, e.g. `shell` of `developer__shell`."""
        if self.name and "__" in self.name:
            return self.name.split("__", 1)[1]
        return self.name

    @property
    def summary_title(self) -> str | None:
        title = (self.meta or {}).get("goose.toolSummary.title")
        return title if isinstance(title, str) else None


UNRECORDED = "unrecorded"
"""A tool result's `status` when its source records neither success nor failure (toolnexus'
OpenAI-dialect tool messages carry no error flag)."""


@dataclass(frozen=True, kw_only=True)
class ToolResultPart(PartBase):
    """What a tool returned, paired to its call by `call_id`.

    `is_error` covers both goose's error envelope (`status == "error"`, text in `error_text`) and a
    successful envelope whose MCP result says `isError: true`.
    """

    kind: ClassVar[str] = "tool_result"
    call_id: str | None = None
    name: str | None = None
    is_error: bool = False
    status: str | None = None
    """Where the source says more than ok/error: `timeout`, `cancelled` (everruns); `UNRECORDED`
    where it keeps no outcome at all, so none is claimed."""
    error_text: str | None = None
    duration_ms: int | None = None
    content: tuple["Part", ...] = ()
    structured_content: JsonValue = None
    legacy_array: bool = False
    opens_session: str | None = None
    """The session this call ran as a sub-agent (Claude Code's `Task`/`Agent`, goose's
    `delegate`), by its id in the same history: the window links to it."""
    outcome: "Outcome | None" = field(default=None, compare=False)
    """What the tool returned in a shape of its agent's own (Claude Code's `toolUseResult`,
    Codex's exit code), read as a `domain.actions` outcome; `content` keeps what was stored."""


@dataclass(frozen=True, kw_only=True)
class ActionRequiredPart(PartBase):
    """The agent waited on the user: tool confirmation, elicitation, or the user's answer."""

    kind: ClassVar[str] = "action_required"
    action_type: str
    call_id: str | None = None
    tool_name: str | None = None
    arguments: JsonValue = None
    prompt: str | None = None
    message: str | None = None
    data: JsonValue = None


@dataclass(frozen=True, kw_only=True)
class ReasoningPart(PartBase):
    """Model reasoning. Signatures and encrypted blobs are kept but never shown as text."""

    kind: ClassVar[str] = "reasoning"
    text: str
    signature: str | None = None
    is_summary: bool = False
    encrypted: str | None = None
    provider: str | None = None
    item_id: str | None = None
    from_legacy_reasoning: bool = False


@dataclass(frozen=True, kw_only=True)
class RedactedReasoningPart(PartBase):
    kind: ClassVar[str] = "redacted_reasoning"
    data: str | None = None


@dataclass(frozen=True, kw_only=True)
class NotificationPart(PartBase):
    """A notice from the agent runtime (compaction, progress, credits exhausted …)."""

    kind: ClassVar[str] = "notification"
    notification_type: str
    text: str
    data: JsonValue = None


@dataclass(frozen=True, kw_only=True)
class ErrorPart(PartBase):
    kind: ClassVar[str] = "error"
    error_kind: str
    message: str


@dataclass(frozen=True, kw_only=True)
class UnsupportedPart(PartBase):
    """Content we could not interpret. Shown to the user as it is, with the reason."""

    kind: ClassVar[str] = "unsupported"
    source_type: str | None
    raw_text: str
    reason: str


Part = (
    TextPart
    | ImagePart
    | AudioPart
    | FilePart
    | ResourcePart
    | ResourceLinkPart
    | ToolCallPart
    | ToolResultPart
    | ActionRequiredPart
    | ReasoningPart
    | RedactedReasoningPart
    | NotificationPart
    | ErrorPart
    | UnsupportedPart
)


def shown_parts(parts: Iterable[Part]) -> tuple[Part, ...]:
    """The parts as a reader sees them: consecutive reasoning parts joined into one.

    goose 1.45 stored streamed reasoning one token per `thinking` block (hundreds in a message;
    goose fixed the writer in #11317, but existing histories keep them), and goose Desktop shows
    them as one. The tokens carry their own spacing, so they are joined as they are. The joined
    part keeps every stored block in `raw`; the JSON export, which must keep one part per stored
    block, reads `Message.parts`, never this."""
    shown: list[Part] = []
    run: list[ReasoningPart] = []

    def flush() -> None:
        if len(run) == 1:
            shown.append(run[0])
        elif run:
            signature = next((p.signature for p in reversed(run) if p.signature), None)
            shown.append(
                ReasoningPart(
                    text="".join(p.text for p in run),
                    signature=signature,
                    is_summary=run[0].is_summary,
                    raw=[p.raw for p in run],
                )
            )
        run.clear()

    for part in parts:
        if isinstance(part, ReasoningPart) and (not run or run[0].is_summary == part.is_summary):
            run.append(part)
            continue
        flush()
        if isinstance(part, ReasoningPart):
            run.append(part)
        else:
            shown.append(part)
    flush()
    return tuple(shown)


def split_audience(items: Iterable[Part]) -> tuple[list[Part], list[Part]]:
    """A tool result's items as goose's `filter_for_audience` sorts them: those shown to the
    user (no audience, or one that names the user), and those only the model was sent. Tools
    often return both a model copy and a user copy of the same output."""
    for_user: list[Part] = []
    model_only: list[Part] = []
    for item in items:
        annotations = getattr(item, "annotations", None)
        if isinstance(annotations, Annotations) and not annotations.shown_to("user"):
            model_only.append(item)
        else:
            for_user.append(item)
    return for_user, model_only
