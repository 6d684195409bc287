"""A message: who said it, when, what it contains, and who could see it."""

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from desktop_app.domain.parts import JsonValue, Part
from desktop_app.domain.usage import MessageUsage


class Role(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    TOOL = "tool"
    UNKNOWN = "unknown"
    """A role the source wrote that no known agent uses; `Message.role_raw` says which."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Visibility:
    """goose `metadata.userVisible` / `agentVisible`; every other agent shows everything."""

    user: bool = True
    agent: bool = True


@dataclass(frozen=True, kw_only=True, slots=True)
class Inference:
    """Which provider and model produced a reply (goose `metadata.inference`)."""

    provider: str | None = None
    requested_model: str | None = None
    resolved_model: str | None = None
    provider_session_id: str | None = None

    @property
    def model(self) -> str | None:
        return self.resolved_model or self.requested_model


@dataclass(frozen=True, kw_only=True, slots=True)
class Author:
    """An external actor behind a message (everruns `external_actor`)."""

    kind: str
    name: str | None = None
    external_id: str | None = None
    channel: str | None = None


@dataclass(frozen=True, order=True, slots=True)
class MessageCursor:
    """A message's position in goose's order: raw `created_timestamp`, then row id."""

    created_raw: int
    row_id: int


@dataclass(frozen=True, kw_only=True, slots=True)
class Message:
    session_id: str
    row_id: int
    """The source's own stable order key (goose: `messages.id`; others: array index)."""
    message_id: str | None
    role: Role
    role_raw: str
    created_at: datetime | None
    created_raw: int | None
    parts: tuple[Part, ...]
    visibility: Visibility = field(default_factory=Visibility)
    usage: MessageUsage | None = None
    inference: Inference | None = None
    output_token_limit_reached: bool = False
    steer: bool = False
    turn_context: bool = False
    phase: str | None = None
    author: Author | None = None
    metadata_raw: JsonValue = field(default=None, compare=False, repr=False)
    metadata_problem: str | None = None
    """Set when the stored metadata did not parse and defaults were used (goose does the same)."""

    @property
    def cursor(self) -> MessageCursor:
        return MessageCursor(self.created_raw if self.created_raw is not None else 0, self.row_id)
