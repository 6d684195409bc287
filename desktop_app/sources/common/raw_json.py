"""A stored value as the raw JSON text Gander shows for what it cannot read.

Every reader keeps an unreadable block's own JSON (shown "unsupported", never dropped) and
some show a value's JSON in a tool card; one function for all of them, so the same value reads
the same whichever agent stored it."""

from typing import Any

from desktop_app.domain.jsontext import dumps


def dump(value: Any) -> str:
    """Raw JSON for display: compact, non-ASCII kept, never raising."""
    try:
        return dumps(value)
    except (TypeError, ValueError):
        return repr(value)
