"""Consecutive tool calls between two texts, grouped as "7 tool calls · 2 failed".

A coding session is hundreds of calls between a few sentences; agentsview folds such runs
into one line to expand in place, and so does the window. A message is a *step* when all it
holds is tool calls (and the thinking before them) or tool results; a run of steps with at
least two calls is a group. The transcript learns messages a page at a time, so the index is
built as rows become known: a run ends wherever a row is not known yet, and grows when it is.
Each update looks only at the run around the rows it was given, so reading a whole session
costs as much as its runs, never a rescan per page."""

from collections.abc import Iterable
from dataclasses import dataclass

from desktop_app.domain.message import Message, Role
from desktop_app.domain.parts import (
    ReasoningPart,
    RedactedReasoningPart,
    ToolCallPart,
    ToolResultPart,
)

GROUP_MIN_CALLS = 2
"""A single call stays as it is: folding it would hide as much as it saves."""
NAMES_SHOWN = 4


@dataclass(frozen=True, kw_only=True, slots=True)
class Step:
    calls: int = 0
    failed: int = 0
    tools: tuple[str, ...] = ()
    """The tools called, in order of their first call."""


def step_of(message: Message) -> Step | None:
    """What `message` adds to a run of tool calls, or None when it says something."""
    if message.tool_results_only:
        failed = sum(
            1 for part in message.parts if isinstance(part, ToolResultPart) and part.is_error
        )
        return Step(failed=failed)
    if message.role is not Role.ASSISTANT or not message.parts:
        return None
    calls = [part for part in message.parts if isinstance(part, ToolCallPart)]
    if not calls or not all(
        isinstance(part, ToolCallPart | ReasoningPart | RedactedReasoningPart)
        for part in message.parts
    ):
        return None
    tools = tuple(dict.fromkeys(call.tool or "?" for call in calls))
    return Step(calls=len(calls), failed=sum(1 for call in calls if call.error), tools=tools)


@dataclass(frozen=True, kw_only=True, slots=True)
class Group:
    first: int
    last: int
    calls: int
    failed: int
    tools: tuple[str, ...]

    @property
    def title(self) -> str:
        title = f"{self.calls} tool calls"
        if self.failed:
            title += f" · {self.failed} failed"
        return title

    @property
    def preview(self) -> str:
        shown = ", ".join(self.tools[:NAMES_SHOWN])
        more = len(self.tools) - NAMES_SHOWN
        return shown + (f" and {more} more" if more > 0 else "")


class GroupIndex:
    """Which known rows are steps, and the groups their runs make."""

    def __init__(self) -> None:
        self._steps: dict[int, Step | None] = {}
        self._group_of: dict[int, Group] = {}

    def clear(self) -> None:
        self._steps.clear()
        self._group_of.clear()

    def group_of(self, row: int) -> Group | None:
        return self._group_of.get(row)

    def learn(self, rows: Iterable[tuple[int, Step | None]]) -> range | None:
        """Record what these rows are; returns the rows whose group may have changed."""
        learned = [row for row, step in rows if self._record(row, step)]
        if not learned:
            return None
        low, high = min(learned), max(learned)
        start = low
        while self._steps.get(start - 1) is not None:  # ends: a row unknown or no step
            start -= 1
        end = high
        while self._steps.get(end + 1) is not None:
            end += 1
        for row in range(start, end + 1):
            self._group_of.pop(row, None)
        run: list[int] = []
        for row in range(start, end + 2):  # one past the end closes the last run
            if row <= end and self._steps.get(row) is not None:
                run.append(row)
                continue
            self._close(run)
            run = []
        return range(start, end + 1)

    def _record(self, row: int, step: Step | None) -> bool:
        known = row in self._steps
        if known and self._steps[row] == step:
            return False
        self._steps[row] = step
        return True

    def _close(self, run: list[int]) -> None:
        steps = [step for row in run if (step := self._steps.get(row)) is not None]
        calls = sum(step.calls for step in steps)
        if calls < GROUP_MIN_CALLS:
            return
        tools = tuple(dict.fromkeys(tool for step in steps for tool in step.tools))
        group = Group(
            first=run[0],
            last=run[-1],
            calls=calls,
            failed=sum(step.failed for step in steps),
            tools=tools,
        )
        for row in run:
            self._group_of[row] = group
