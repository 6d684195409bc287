"""A stored value as the raw JSON text Gander shows for what it cannot read.

Every reader keeps an unreadable block's own JSON (shown "unsupported", never dropped) and
some show a value's JSON in a tool card; one function for all of them, so the same value reads
the same whichever agent stored it."""

from typing import Any

from desktop_app.domain.jsontext import dumps
from desktop_app.domain.parts import UnsupportedPart


def dump(value: Any) -> str:
    """Raw JSON for display: compact, non-ASCII kept, never raising."""
    try:
        return dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def unsupported(block: Any, reason: str) -> UnsupportedPart:
    """A block no mapper reads, kept as its own JSON with its `type` (when it has one) and the
    reason, so the transcript shows it instead of dropping it."""
    kind = block.get("type") if isinstance(block, dict) else None
    return UnsupportedPart(
        source_type=kind if isinstance(kind, str) else None, raw_text=dump(block), reason=reason
    )
