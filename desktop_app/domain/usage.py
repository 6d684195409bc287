"""Token and cost figures, for a session, a message or one provider call."""

import math
from dataclasses import dataclass, fields
from datetime import date, datetime

MAX_COUNT = 2**63 - 1
"""The largest count any database stores; a larger stored number is not a count."""


def count(value: object) -> int | None:
    """A stored value as a token count: an integer (not a bool) a database could hold."""
    if isinstance(value, int) and not isinstance(value, bool) and -MAX_COUNT <= value <= MAX_COUNT:
        return value
    return None


def amount(value: object) -> float | None:
    """A stored value as an amount (cost, a sum): a finite number; NaN and ±inf are not."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def count_of_amount(value: object) -> int | None:
    """A sum computed as a float (SQLite's `total()`, which cannot overflow) as a count."""
    number = amount(value)
    return None if number is None else count(int(number)) if abs(number) < 2**63 else None


@dataclass(frozen=True, kw_only=True, slots=True)
class TokenUsage:
    """Token counts; `None` means the source did not record that figure (not zero).

    goose's `input_tokens` already includes cache read/write tokens (provider convention).
    """

    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    reasoning_tokens: int | None = None

    @property
    def is_empty(self) -> bool:
        return all(getattr(self, f.name) is None for f in fields(self))

    def as_dict(self) -> dict[str, int | None]:
        """The five keys `list --json` promises (reasoning tokens are not part of that contract)."""
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.total_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
        }


@dataclass(frozen=True, kw_only=True, slots=True)
class MessageUsage:
    """What one model reply cost (goose `metadata.usage`, everruns `output.message.completed`)."""

    tokens: TokenUsage
    cost: float | None = None
    cost_source: str | None = None
    elapsed_ms: int | None = None
    time_to_first_token_ms: int | None = None
    is_compaction: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class LedgerEntry:
    """One provider call as recorded in goose's `usage_ledger` (v15+)."""

    row_id: int
    session_id: str
    created_at: datetime | None
    model: str | None
    tokens: TokenUsage
    cost: float | None
    cost_source: str | None
    is_compaction: bool


@dataclass(frozen=True, kw_only=True, slots=True)
class UsagePoint:
    """One provider call's figures, for a context-growth chart."""

    at: datetime | None
    input_tokens: int | None
    output_tokens: int | None
    cost: float | None


@dataclass(frozen=True, kw_only=True, slots=True)
class DayUsage:
    day: date
    tokens: int
    cost: float | None


@dataclass(frozen=True, kw_only=True, slots=True)
class UsageBucket:
    """Sessions' tokens and cost added up by their last active day, agent, model and project:
    what the All sessions view groups and filters, so it never holds one row per session."""

    day: date | None
    agent: str
    model: str
    project: str
    tokens: int
    recorded_cost: float | None
    """What the agents recorded (goose, pi, everruns)."""
    estimated_cost: float | None
    """genai-prices' estimate for the sessions that record no cost."""
    sessions: int

    @property
    def cost(self) -> float | None:
        known = [c for c in (self.recorded_cost, self.estimated_cost) if c is not None]
        return amount(sum(known)) if known else None


def added(first: float | None, second: float | None) -> float | None:
    """Two amounts added, either of which may be unknown (`None`: neither known)."""
    if first is None:
        return second
    return first if second is None else amount(first + second)
