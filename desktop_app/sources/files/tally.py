"""What a log's session figures need of its messages, added up a page at a time.

A long log's messages are mostly out of memory (`MessagePages`); reading them all back to make
its session's times, count, title and tokens cost more than parsing them (a 60 MB Claude Code
log: 1.4 s of unpickling beside a 1.5 s parse). So each page is tallied as it is written out,
and a session's figures are its pages' tallies added up in order, with the messages still in
memory. What counts is the format's (`Counting`).
"""

import math
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Protocol

from desktop_app.domain.message import Message
from desktop_app.domain.usage import TokenUsage, amount, count

FIGURES = (
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
)


class Counting(Protocol):
    """A format's rules for its session's figures."""

    def own(self, message: Message) -> bool:
        """Whether the message is the session's own (counted, tokens, title), not a
        sub-agent's written in its file."""
        ...

    def prompt(self, message: Message) -> str | None:
        """The message's text as the session's title when it is the first such (a prompt)."""
        ...

    def measured(self, message: Message) -> bool:
        """Whether the message's usage, when it is the last such, is the context now."""
        ...


class Everything:
    """Every message the session's own, none a prompt, every usage measured."""

    def own(self, message: Message) -> bool:
        return True

    def prompt(self, message: Message) -> str | None:
        return None

    def measured(self, message: Message) -> bool:
        return True


@dataclass(slots=True)
class Tally:
    """The figures of some messages in a row: times over all of them; the rest over the
    session's own (`Counting.own`)."""

    first: datetime | None = None
    last: datetime | None = None
    shown: int = 0
    """Messages shown to the user (`values.counted`)."""
    title: str | None = None
    usages: int = 0
    sums: list[int] = field(default_factory=lambda: [0] * len(FIGURES))
    known: list[int] = field(default_factory=lambda: [0] * len(FIGURES))
    """How many usages recorded each figure (an unknown figure is not zero)."""
    current: TokenUsage | None = None
    """The last measured usage (`Counting.measured`)."""
    cost: Fraction = field(default_factory=Fraction)
    costs: int = 0
    odd_cost: bool = False
    """Whether a cost recorded was not finite (NaN or infinite)."""

    @classmethod
    def of(cls, messages: list[Message], counting: Counting) -> "Tally":
        tally = cls()
        for message in messages:
            tally.add(message, counting)
        return tally

    def add(self, message: Message, counting: Counting) -> None:
        at = message.created_at
        if at is not None:
            if self.first is None or at < self.first:
                self.first = at
            if self.last is None or at > self.last:
                self.last = at
        if not counting.own(message):
            return
        self.shown += message.visibility.user
        if self.title is None:
            self.title = counting.prompt(message)
        usage = message.usage
        if usage is None:
            return
        self.usages += 1
        for number, name in enumerate(FIGURES):
            figure = getattr(usage.tokens, name)
            if figure is not None:
                self.sums[number] += figure
                self.known[number] += 1
        if counting.measured(message):
            self.current = usage.tokens
        if usage.cost is not None:
            self.costs += 1
            if math.isfinite(usage.cost):
                self.cost += Fraction(usage.cost)
            else:
                self.odd_cost = True

    def then(self, later: "Tally") -> "Tally":
        """These messages' tally followed by `later`'s."""
        return Tally(
            first=_earliest(self.first, later.first),
            last=_latest(self.last, later.last),
            shown=self.shown + later.shown,
            title=self.title if self.title is not None else later.title,
            usages=self.usages + later.usages,
            sums=[a + b for a, b in zip(self.sums, later.sums, strict=True)],
            known=[a + b for a, b in zip(self.known, later.known, strict=True)],
            current=later.current if later.current is not None else self.current,
            cost=self.cost + later.cost,
            costs=self.costs + later.costs,
            odd_cost=self.odd_cost or later.odd_cost,
        )

    def summed(self) -> TokenUsage:
        """Each figure summed over the usages that recorded it; unknown when none did (a sum
        past 64 bits is no figure)."""
        return TokenUsage(
            **{
                name: count(total) if known else None
                for name, total, known in zip(FIGURES, self.sums, self.known, strict=True)
            }
        )

    @property
    def total_cost(self) -> float | None:
        """The costs recorded, added up exactly (however the pages fell), as one amount;
        None when none was, or one was not finite, or the sum is past what a float holds."""
        if not self.costs or self.odd_cost:
            return None
        try:
            return amount(float(self.cost))
        except OverflowError:
            return None


def _earliest(a: datetime | None, b: datetime | None) -> datetime | None:
    if a is None:
        return b
    return a if b is None or a <= b else b


def _latest(a: datetime | None, b: datetime | None) -> datetime | None:
    if a is None:
        return b
    return a if b is None or a >= b else b
