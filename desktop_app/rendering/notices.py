"""Names and facts the window and the Markdown export both show: goose's notification types in
words, the link a notification carries, which notices are summaries or terminal output, whether
structured tool output adds anything to its text, and the notice for a reply cut at the output
token limit."""

import json
import re

from desktop_app.domain.parts import JsonValue, NotificationPart, Part, TextPart
from desktop_app.rendering.links import safe_link

NOTIFICATION_LABELS = {
    "inlineMessage": "Note",
    "thinkingMessage": "Working",
    "creditsExhausted": "Credits exhausted",
}
TOKEN_LIMIT_NOTICE = "The reply stopped here: the model reached its output token limit."
REDACTED_REASONING = "Redacted reasoning (the provider returned it encrypted; it is not shown)"
RUN_BY_CLIENT = "run by the client"

SUMMARY_NOTICES = frozenset({"compactionSummary", "branchSummary"})
"""Notices whose text is a summary the model wrote in Markdown (Claude Code's and pi's compaction
summary, pi's branch summary): shown rendered and collapsed, as Claude Code folds its summary
behind "ctrl+o to see full summary" — three screens of it, open, buried the conversation."""
TERMINAL_NOTICES = frozenset({"slashCommand", "commandOutput"})
"""Notices whose text is a command and what it printed (Claude Code's slash commands and their
local output): in a terminal's font, line breaks kept. Every notice's ANSI styles are drawn."""

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def notification_label(kind: str) -> str:
    """goose's notification type in words: known ones by name, others split at their capitals
    (`contextCompacted` → "Context compacted")."""
    known = NOTIFICATION_LABELS.get(kind)
    if known is not None:
        return known
    words = _CAMEL.sub(" ", kind.replace("_", " ")).strip().lower()
    return words[:1].upper() + words[1:] if words else "Notice"


def notification_link(part: NotificationPart) -> str | None:
    """The top-up page a credits notice carries (`data.top_up_url`), when it is a safe link."""
    data = part.data
    if not isinstance(data, dict):
        return None
    url = data.get("top_up_url")
    return safe_link(url) if isinstance(url, str) else None


def adds_to_text(structured: JsonValue, content: tuple[Part, ...]) -> bool:
    """Whether a tool result's `structuredContent` holds anything its text items do not (tools
    often send the same JSON twice: once as text, once structured)."""
    if structured is None:
        return False
    for item in content:
        if not isinstance(item, TextPart):
            continue
        try:
            if json.loads(item.text) == structured:
                return False
        except (ValueError, RecursionError):
            continue
    return True
