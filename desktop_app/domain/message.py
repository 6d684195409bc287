"""A message: who said it, when, what it contains, and who could see it."""

from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from functools import total_ordering
from typing import overload

from desktop_app.domain.parts import JsonValue, Part, ToolResultPart
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


@dataclass(frozen=True, slots=True)
class StoredText:
    """A TEXT value exactly as the database stored it: its bytes, which need not be valid UTF-8.
    Compared byte by byte, as SQLite's BINARY collation compares text."""

    data: bytes

    def __str__(self) -> str:
        return self.data.decode("utf-8", "replace")


SortValue = int | float | StoredText | bytes | None
"""A stored value that orders messages, of whatever type the database holds (SQLite keeps any
type in any column): NULL first, then numbers, then text, then blobs, as SQLite sorts them."""


def sort_rank(value: SortValue) -> tuple[int, int | float | bytes]:
    """A key that orders `SortValue`s exactly as SQLite's ORDER BY does."""
    if value is None:
        return (0, 0)
    if isinstance(value, StoredText):
        return (2, value.data)
    if isinstance(value, bytes):
        return (3, value)
    return (1, value)


def plain_sort_value(value: SortValue) -> int | float | str | None:
    """The value for JSON and display: text decoded, a blob as hexadecimal."""
    if isinstance(value, StoredText):
        return str(value)
    if isinstance(value, bytes):
        return value.hex()
    return value


@total_ordering
@dataclass(frozen=True, slots=True)
class MessageCursor:
    """A message's position in goose's order: the raw `created_timestamp` exactly as stored
    (whatever its type), then the row id. Paging continues from exactly this value, so a
    REAL, TEXT or NULL timestamp never repeats or skips a row."""

    created_raw: SortValue
    row_id: int

    def key(self) -> tuple[int, int | float | bytes, int]:
        return (*sort_rank(self.created_raw), self.row_id)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, MessageCursor):
            return NotImplemented
        return self.key() < other.key()


def encode_position(cursor: MessageCursor) -> str:
    """A position as text that `decode_position` turns back into exactly the same position
    (the search index stores positions this way)."""
    value = cursor.created_raw
    if value is None:
        body = "n:"
    elif isinstance(value, StoredText):
        body = "t:" + value.data.hex()
    elif isinstance(value, bytes):
        body = "b:" + value.hex()
    elif isinstance(value, int):
        body = f"i:{value}"
    else:
        body = f"f:{value!r}"
    return f"{cursor.row_id}|{body}"


def decode_position(text: str) -> MessageCursor:
    row_id, _, body = text.partition("|")
    kind, _, value = body.partition(":")
    created: SortValue
    if kind == "n":
        created = None
    elif kind == "t":
        created = StoredText(bytes.fromhex(value))
    elif kind == "b":
        created = bytes.fromhex(value)
    elif kind == "i":
        created = int(value)
    else:
        created = float(value)
    return MessageCursor(created, int(row_id))


class CursorList(Sequence[MessageCursor]):
    """Every message position of a session, compactly.

    When every timestamp is an integer (always, for goose's own writes) the positions are two
    integer arrays: a 50,000-message session costs 800 kB here instead of 50,000 Python objects,
    and a `MessageCursor` is made only for the rows actually asked for. Any other value makes
    the timestamps a plain list.
    """

    __slots__ = ("_created", "_rows")

    def __init__(self, pairs: Iterable[tuple[SortValue, int]] = ()) -> None:
        self._rows = array("q")
        created: list[SortValue] = []
        for value, row_id in pairs:
            created.append(value)
            self._rows.append(row_id)
        self._created: array[int] | list[SortValue] = _compact(created)

    @classmethod
    def of_integers(cls, created: Sequence[int], row_ids: Sequence[int]) -> "CursorList":
        """Positions whose timestamps the reader knows to be integers: two arrays at once, no
        check of each value (50,000 positions in 7 ms instead of 11)."""
        cursors = cls()
        cursors._created = array("q", created)
        cursors._rows = array("q", row_ids)
        if len(cursors._created) != len(cursors._rows):
            raise ValueError("message positions need as many timestamps as row ids")
        return cursors

    def __len__(self) -> int:
        return len(self._rows)

    def starts_with(self, other: "CursorList") -> bool:
        """True when `other` is a prefix of this list: only messages were appended."""
        size = len(other)
        if size > len(self) or self._rows[:size] != other._rows:
            return False
        head = self._created[:size]
        if type(head) is type(other._created):
            return head == other._created
        return list(head) == list(other._created)

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
            return list(self._created) == list(other._created) and self._rows == other._rows
        if isinstance(other, Sequence):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


def _compact(values: list[SortValue]) -> "array[int] | list[SortValue]":
    if all(type(value) is int for value in values):
        try:
            return array("q", values)  # type: ignore[arg-type]
        except OverflowError:
            pass
    return values


@dataclass(frozen=True, kw_only=True, slots=True)
class Message:
    session_id: str
    row_id: int
    """The source's own stable order key (goose: `messages.id`; others: array index)."""
    message_id: str | None
    role: Role
    role_raw: str
    created_at: datetime | None
    created_raw: SortValue
    """The stored timestamp exactly as the database holds it (see `MessageCursor`)."""
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
        return MessageCursor(self.created_raw, self.row_id)

    @property
    def tool_results_only(self) -> bool:
        """A message of tool results alone: goose stores these as `user` messages, but they are
        the tools speaking, and they are shown and navigated as such."""
        return bool(self.parts) and all(isinstance(p, ToolResultPart) for p in self.parts)

    @property
    def is_prompt(self) -> bool:
        """Something a person wrote to the agent: the stops of N / P in the transcript."""
        return self.role is Role.USER and not self.tool_results_only
