"""A message: who said it, when, what it contains, and who could see it."""

from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import overload

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


class CursorList(Sequence[MessageCursor]):
    """Every message position of a session in two compact integer arrays.

    A 50,000-message session costs 800 kB here instead of 50,000 Python objects; a
    `MessageCursor` is made only for the rows actually asked for.
    """

    __slots__ = ("_created", "_rows")

    def __init__(self, pairs: Iterable[tuple[int, int]] = ()) -> None:
        self._created = array("q")
        self._rows = array("q")
        for created, row_id in pairs:
            self._created.append(created)
            self._rows.append(row_id)

    @classmethod
    def from_columns(cls, created: Iterable[int], row_ids: Iterable[int]) -> "CursorList":
        cursors = cls()
        cursors._created.extend(created)
        cursors._rows.extend(row_ids)
        if len(cursors._created) != len(cursors._rows):
            raise ValueError("message positions need as many timestamps as row ids")
        return cursors

    def __len__(self) -> int:
        return len(self._rows)

    def starts_with(self, other: "CursorList") -> bool:
        """True when `other` is a prefix of this list: only messages were appended."""
        size = len(other)
        return (
            size <= len(self)
            and self._created[:size] == other._created
            and self._rows[:size] == other._rows
        )

    @overload
    def __getitem__(self, index: int) -> MessageCursor: ...

    @overload
    def __getitem__(self, index: slice) -> "CursorList": ...

    def __getitem__(self, index: int | slice) -> "MessageCursor | CursorList":
        if isinstance(index, slice):
            return CursorList(zip(self._created[index], self._rows[index], strict=True))
        return MessageCursor(self._created[index], self._rows[index])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CursorList):
            return self._created == other._created and self._rows == other._rows
        if isinstance(other, Sequence):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


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
    """everruns: `commentary` or `final_answer`."""
    turn_id: str | None = None
    synthetic: bool = False
    """Written by the runtime rather than a model or a person (e.g. a cancelled tool result)."""
    author: Author | None = None
    metadata_raw: JsonValue = field(default=None, compare=False, repr=False)
    metadata_problem: str | None = None
    """Set when the stored metadata did not parse and defaults were used (goose does the same)."""

    @property
    def cursor(self) -> MessageCursor:
        return MessageCursor(self.created_raw if self.created_raw is not None else 0, self.row_id)
