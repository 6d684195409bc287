"""Typed reads of a tool call's arguments, which the model wrote and may have written in any
shape: a getter gives the value when it has the expected type, else None — never raises."""

import math
from typing import Any

from desktop_app.domain.actions import TodoItem, TodoList, TodoStatus

_STATUSES: dict[str, TodoStatus] = {
    "pending": "pending",
    "in_progress": "in_progress",
    "completed": "completed",
}


def text(arguments: Any, *keys: str) -> str | None:
    """The first of `keys` whose value is a string (agents renamed arguments over versions:
    Gemini CLI's `absolute_path` became `file_path`)."""
    if not isinstance(arguments, dict):
        return None
    for key in keys:
        value = arguments.get(key)
        if isinstance(value, str):
            return value
    return None


def number(arguments: Any, *keys: str, scale: float = 1) -> int | None:
    """The first of `keys` whose value is a finite number (not a bool), times `scale`, as a
    whole number: a count, a line, a timeout."""
    if not isinstance(arguments, dict):
        return None
    for key in keys:
        found = whole_number(arguments.get(key), scale)
        if found is not None:
            return found
    return None


def whole_number(value: Any, scale: float = 1) -> int | None:
    """A finite number (not a bool) times `scale`, rounded; None for anything else."""
    if isinstance(value, bool) or not isinstance(value, int | float) or abs(value) >= 2**63:
        return None  # a larger integer would not even convert to a float
    scaled = value * scale
    return round(scaled) if math.isfinite(scaled) and abs(scaled) < 2**63 else None


def fits(arguments: Any, declared: frozenset[str] | None) -> bool:
    """Whether the arguments are an object of the tool's declared parameters only (`None`:
    any object). One the agent's tool does not take means the call is not the tool as its
    source knows it: no action is claimed for it, and it is shown as it is, every argument."""
    return isinstance(arguments, dict) and (declared is None or arguments.keys() <= declared)


def flag(arguments: Any, key: str) -> bool:
    """Whether `key` is `true` (anything else, or its absence, is false)."""
    return isinstance(arguments, dict) and arguments.get(key) is True


def objects(value: Any) -> list[dict[str, Any]]:
    """The objects of a list (anything else in it, or a value that is no list, is left out)."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def todo_item(item_text: str, status: Any) -> TodoItem:
    """A checklist item; a status none of `pending`/`in_progress`/`completed` is kept as the
    agent wrote it (Gemini CLI's `cancelled`, `blocked`)."""
    known = _STATUSES.get(status) if isinstance(status, str) else None
    if known is not None:
        return TodoItem(text=item_text, status=known)
    raw = status if isinstance(status, str) else None
    return TodoItem(text=item_text, status="unknown", status_raw=raw)


def checklist(arguments: Any, *, text_key: str) -> TodoList | None:
    """A `todos` argument as a checklist (Claude Code's `TodoWrite`, Gemini CLI's
    `write_todos`): its objects with a text under `text_key`; none when objects are there but
    none has one (the call does not fit), an empty list when there are none."""
    todos = objects(arguments.get("todos") if isinstance(arguments, dict) else None)
    items = tuple(
        todo_item(said, todo.get("status"))
        for todo in todos
        if (said := text(todo, text_key)) is not None
    )
    return TodoList(items=items) if items or todos == [] else None
